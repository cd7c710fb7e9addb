/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Parsers for /sys/kernel/debug/nvmap/iovmm/{clients,allocations,maps} and
 * the small files. The tables are read line by line through the reader the
 * helper's redaction shares (jmem-nvmap-table.h); the formats and how
 * ambiguities are resolved are described in docs/nvmap-formats.md. */
#include "jmem-nvmap.h"

#include <string.h>

#include "jmem-error.h"
#include "jmem-nvmap-table.h"
#include "jmem-text.h"

const char *
jmem_nvmap_layout_to_string (JmemNvmapLayout layout)
{
  switch (layout)
    {
    case JMEM_NVMAP_LAYOUT_KERNEL:
      return "kernel";
    case JMEM_NVMAP_LAYOUT_KERNEL_NOTE:
      return "kernel-note";
    case JMEM_NVMAP_LAYOUT_LOOSE:
      return "loose";
    case JMEM_NVMAP_LAYOUT_UNKNOWN:
    default:
      return "unknown";
    }
}

void
jmem_nvmap_client_free (JmemNvmapClient *client)
{
  if (client == NULL)
    return;
  g_free (client->client);
  g_free (client->process);
  g_free (client);
}

void
jmem_nvmap_clients_free (JmemNvmapClients *clients)
{
  if (clients == NULL)
    return;
  g_clear_pointer (&clients->clients, g_ptr_array_unref);
  g_free (clients);
}

void
jmem_nvmap_handle_free (JmemNvmapHandle *handle)
{
  if (handle == NULL)
    return;
  g_free (handle->tag);
  g_free (handle);
}

static void
client_handles_free (JmemNvmapClientHandles *ch)
{
  jmem_nvmap_client_free (ch->client);
  g_clear_pointer (&ch->handles, g_ptr_array_unref);
  g_free (ch);
}

void
jmem_nvmap_allocations_free (JmemNvmapAllocations *allocations)
{
  if (allocations == NULL)
    return;
  g_clear_pointer (&allocations->clients, g_ptr_array_unref);
  g_free (allocations);
}

JmemNvmapClient *
jmem_nvmap_client_new (const char *client,
                       const char *process,
                       guint32     pid,
                       guint64     size_kib)
{
  JmemNvmapClient *c = g_new0 (JmemNvmapClient, 1);

  c->client = g_strdup (client);
  c->process = g_strdup (process);
  c->pid = pid;
  c->size_kib = size_kib;
  return c;
}

/* The client of a JMEM_NVMAP_LINE_CLIENT line, its strings taken. */
static JmemNvmapClient *
line_steal_client (JmemNvmapLine *line)
{
  JmemNvmapClient *c = g_new0 (JmemNvmapClient, 1);

  c->client = g_steal_pointer (&line->client);
  c->process = g_steal_pointer (&line->process);
  c->pid = line->pid;
  c->size_kib = line->size_kib;
  return c;
}

JmemNvmapClients *
jmem_nvmap_clients_parse (const char *data,
                          gsize       len,
                          GError    **error)
{
  g_autoptr(JmemNvmapClients) out = NULL;
  JmemNvmapTable t;
  gsize pos = 0;

  g_return_val_if_fail (data != NULL || len == 0, NULL);

  if (len == 0)
    {
      g_set_error_literal (error, JMEM_ERROR, JMEM_ERROR_FAILED,
                           "NvMap iovmm/clients is empty");
      return NULL;
    }

  out = g_new0 (JmemNvmapClients, 1);
  out->clients = g_ptr_array_new_with_free_func ((GDestroyNotify) jmem_nvmap_client_free);

  jmem_nvmap_table_init (&t, JMEM_NVMAP_TABLE_CLIENTS);
  while (pos < len && !t.seen_note)
    {
      JmemNvmapLine line;

      pos += jmem_nvmap_table_next (&t, data + pos, len - pos, &line);
      if (line.kind == JMEM_NVMAP_LINE_CLIENT)
        g_ptr_array_add (out->clients, line_steal_client (&line));
      else if (line.kind == JMEM_NVMAP_LINE_INDENTED)
        t.n_malformed++;
    }

  if (!t.seen_header && out->clients->len == 0 && !t.has_total)
    {
      g_set_error_literal (error, JMEM_ERROR, JMEM_ERROR_FAILED,
                           "Not an NvMap iovmm/clients file: no \"CLIENT PROCESS PID SIZE\" "
                           "header, client row or total line");
      return NULL;
    }

  out->has_total = t.has_total;
  out->total_kib = t.total_kib;
  out->n_malformed = t.n_malformed;
  out->layout = jmem_nvmap_table_layout (&t);
  return g_steal_pointer (&out);
}

/* ---- allocations ------------------------------------------------------ */

static gboolean
next_u32 (const char *line, gsize len, gsize *i, guint32 *out)
{
  JmemNvmapToken t;
  guint64 v;

  if (!jmem_nvmap_next_token (line, len, i, &t) || !jmem_text_parse_decimal (t.s, t.len, G_MAXUINT32, &v))
    return FALSE;
  *out = (guint32) v;
  return TRUE;
}

/* "%-18s %-18s %8llx %10zuK %8x %6u %6u %6u %6u %6u %6u %8pK [%6u ]%s": the
 * numbers are read as tokens (a wide BASE may overflow its column), the tag
 * is the rest of the line after one space. */
static JmemNvmapHandle *
parse_handle (const char *line, gsize len, const JmemNvmapTable *cols)
{
  JmemNvmapHandle h = { 0 };
  gsize i = JMEM_NVMAP_HANDLE_INDENT;
  guint64 v;
  JmemNvmapToken t;

  if (!jmem_nvmap_line_is_handle_shaped (line, len))
    return NULL;

  if (!jmem_nvmap_next_token (line, len, &i, &t) || !jmem_text_parse_hex (t.s, t.len, G_MAXUINT64, &h.base))
    return NULL;
  if (!jmem_nvmap_next_token (line, len, &i, &t) || !jmem_nvmap_parse_kib (t.s, t.len, &h.size_kib))
    return NULL;
  if (!jmem_nvmap_next_token (line, len, &i, &t) || !jmem_text_parse_hex (t.s, t.len, G_MAXUINT32, &v))
    return NULL;
  h.flags = (guint32) v;
  if (!next_u32 (line, len, &i, &h.refs) ||
      !next_u32 (line, len, &i, &h.dupes) ||
      !next_u32 (line, len, &i, &h.pins))
    return NULL;
  if (cols->has_maps &&
      (!next_u32 (line, len, &i, &h.kmaps) ||
       !next_u32 (line, len, &i, &h.umaps) ||
       !next_u32 (line, len, &i, &h.share)))
    return NULL;
  /* UID: a kernel pointer (%pK), hashed or zeroed; dropped. */
  if (!jmem_nvmap_next_token (line, len, &i, &t))
    return NULL;
  h.from_hugetlbfs = -1;
  if (cols->has_huge)
    {
      if (!jmem_nvmap_next_token (line, len, &i, &t) || !jmem_text_parse_decimal (t.s, t.len, 1, &v))
        return NULL;
      h.from_hugetlbfs = (gint32) v;
    }
  if (i < len)
    i++;  /* the one space before the tag */

  {
    JmemNvmapHandle *out = g_new (JmemNvmapHandle, 1);

    *out = h;
    out->tag = jmem_text_make_valid (line + i, (gssize) (len - i));
    return out;
  }
}

static JmemNvmapClientHandles *
client_handles_new (JmemNvmapClient *client)
{
  JmemNvmapClientHandles *ch = g_new0 (JmemNvmapClientHandles, 1);

  ch->client = client;
  ch->handles = g_ptr_array_new_with_free_func ((GDestroyNotify) jmem_nvmap_handle_free);
  return ch;
}

static void
collect_client (JmemNvmapClient *client,
                gpointer         user_data)
{
  JmemNvmapAllocations *out = user_data;

  g_ptr_array_add (out->clients, client_handles_new (client));
}

static void
collect_handle (JmemNvmapHandle *handle,
                gpointer         user_data)
{
  JmemNvmapAllocations *out = user_data;
  JmemNvmapClientHandles *cur = g_ptr_array_index (out->clients, out->clients->len - 1);

  g_ptr_array_add (cur->handles, handle);
}

const JmemNvmapAllocationsVisitor *
jmem_nvmap_allocations_collector (void)
{
  static const JmemNvmapAllocationsVisitor collect = { collect_client, collect_handle };

  return &collect;
}

JmemNvmapAllocations *
jmem_nvmap_allocations_new (void)
{
  JmemNvmapAllocations *out = g_new0 (JmemNvmapAllocations, 1);

  out->clients = g_ptr_array_new_with_free_func ((GDestroyNotify) client_handles_free);
  return out;
}

JmemNvmapAllocations *
jmem_nvmap_allocations_parse (const char *data,
                              gsize       len,
                              GError    **error)
{
  g_autoptr(JmemNvmapAllocations) out = jmem_nvmap_allocations_new ();

  if (!jmem_nvmap_allocations_visit (data, len, jmem_nvmap_allocations_collector (), out, out,
                                     error))
    return NULL;
  return g_steal_pointer (&out);
}

/* ---- allocations, in pieces ------------------------------------------ */

struct _JmemNvmapAllocationsParser {
  const JmemNvmapAllocationsVisitor *visitor;
  gpointer       user_data;
  JmemNvmapTable table;
  gboolean       in_client;
  gboolean       seen_bytes;
  guint          n_clients;
};

JmemNvmapAllocationsParser *
jmem_nvmap_allocations_parser_new (const JmemNvmapAllocationsVisitor *visitor,
                                   gpointer                           user_data)
{
  JmemNvmapAllocationsParser *p = g_new0 (JmemNvmapAllocationsParser, 1);

  g_return_val_if_fail (visitor != NULL, NULL);
  p->visitor = visitor;
  p->user_data = user_data;
  jmem_nvmap_table_init (&p->table, JMEM_NVMAP_TABLE_ALLOCATIONS);
  return p;
}

void
jmem_nvmap_allocations_parser_free (JmemNvmapAllocationsParser *parser)
{
  g_free (parser);
}

/* One line at the start of @data: the bytes it took. */
static gsize
parse_step (JmemNvmapAllocationsParser *p, const char *data, gsize len)
{
  JmemNvmapLine line;
  JmemNvmapHandle *h;
  gsize n = jmem_nvmap_table_next (&p->table, data, len, &line);

  switch (line.kind)
    {
    case JMEM_NVMAP_LINE_CLIENT:
      p->visitor->client (line_steal_client (&line), p->user_data);
      p->in_client = TRUE;
      p->n_clients++;
      break;
    case JMEM_NVMAP_LINE_TOTAL:
    case JMEM_NVMAP_LINE_BLANK:  /* the kernel ends each client with a blank line */
      p->in_client = FALSE;
      break;
    case JMEM_NVMAP_LINE_INDENTED:
      if (p->in_client && (h = parse_handle (line.text, line.len, &p->table)) != NULL)
        p->visitor->handle (h, p->user_data);
      else
        p->table.n_malformed++;
      break;
    case JMEM_NVMAP_LINE_HEADER:
    case JMEM_NVMAP_LINE_OTHER:
    default:
      break;
    }
  return n;
}

gsize
jmem_nvmap_allocations_parser_feed (JmemNvmapAllocationsParser *parser,
                                    const char                 *data,
                                    gsize                       len,
                                    gboolean                    at_end)
{
  gsize pos = 0;

  g_return_val_if_fail (parser != NULL, 0);
  g_return_val_if_fail (data != NULL || len == 0, 0);

  parser->seen_bytes |= len > 0;
  while (pos < len && !parser->table.seen_note)
    {
      /* A step reads no further than the file's own bytes would let it:
       * the same rows whatever pieces the file comes in. */
      if (!at_end && !jmem_nvmap_table_line_complete (data + pos, len - pos))
        return pos;
      pos += parse_step (parser, data + pos, len - pos);
    }
  /* After the note, nothing more is read. */
  return len;
}

gboolean
jmem_nvmap_allocations_parser_done (const JmemNvmapAllocationsParser *parser)
{
  return parser->table.seen_note;
}

gboolean
jmem_nvmap_allocations_parser_finish (JmemNvmapAllocationsParser *parser,
                                      JmemNvmapAllocations       *summary,
                                      GError                    **error)
{
  const JmemNvmapTable *t = &parser->table;

  g_return_val_if_fail (summary != NULL, FALSE);

  if (!parser->seen_bytes)
    {
      g_set_error_literal (error, JMEM_ERROR, JMEM_ERROR_FAILED,
                           "NvMap iovmm/allocations is empty");
      return FALSE;
    }
  if (!t->seen_header && parser->n_clients == 0 && !t->has_total)
    {
      g_set_error_literal (error, JMEM_ERROR, JMEM_ERROR_FAILED,
                           "Not an NvMap iovmm/allocations file: no \"CLIENT PROCESS PID SIZE\" "
                           "or \"BASE SIZE FLAGS ...\" header, client row or total line");
      return FALSE;
    }

  summary->has_total = t->has_total;
  summary->total_kib = t->total_kib;
  summary->n_malformed = t->n_malformed;
  summary->has_hugetlbfs_column = t->has_huge;
  summary->has_map_columns = t->has_maps;
  summary->layout = jmem_nvmap_table_layout (t);
  return TRUE;
}

gboolean
jmem_nvmap_allocations_visit (const char                        *data,
                              gsize                              len,
                              const JmemNvmapAllocationsVisitor *visitor,
                              gpointer                           user_data,
                              JmemNvmapAllocations              *summary,
                              GError                           **error)
{
  g_autoptr(JmemNvmapAllocationsParser) parser = NULL;

  g_return_val_if_fail (data != NULL || len == 0, FALSE);
  g_return_val_if_fail (visitor != NULL && summary != NULL, FALSE);

  parser = jmem_nvmap_allocations_parser_new (visitor, user_data);
  (void) jmem_nvmap_allocations_parser_feed (parser, data, len, TRUE);
  return jmem_nvmap_allocations_parser_finish (parser, summary, error);
}

/* ---- maps -------------------------------------------------------------- */

static void
client_maps_free (JmemNvmapClientMaps *cm)
{
  jmem_nvmap_client_free (cm->client);
  g_clear_pointer (&cm->vmas, g_array_unref);
  g_free (cm);
}

void
jmem_nvmap_maps_free (JmemNvmapMaps *maps)
{
  if (maps == NULL)
    return;
  g_clear_pointer (&maps->clients, g_ptr_array_unref);
  g_free (maps);
}

void
jmem_nvmap_extras_clear (JmemNvmapExtras *extras)
{
  g_clear_pointer (&extras->maps, jmem_nvmap_maps_free);
  extras->free_size_bytes = extras->pool_pages = extras->pool_to_zero = extras->page_size = -1;
}


/* A handle row: "%8llx %10zuK %8x %6u %16pK %12s %12s %6lluK": BASE, SIZE,
 * FLAGS, SHARE, UID, then the mapped size (the two %12s are empty). */
static gboolean
parse_maps_handle (const char *line, gsize len, guint64 *mapped_kib)
{
  gsize i = JMEM_NVMAP_HANDLE_INDENT;
  guint64 v;
  JmemNvmapToken t;

  if (!jmem_nvmap_next_token (line, len, &i, &t) || !jmem_text_parse_hex (t.s, t.len, G_MAXUINT64, &v) ||
      !jmem_nvmap_next_token (line, len, &i, &t) || !jmem_nvmap_parse_kib (t.s, t.len, &v) ||
      !jmem_nvmap_next_token (line, len, &i, &t) || !jmem_text_parse_hex (t.s, t.len, G_MAXUINT32, &v) ||
      !jmem_nvmap_next_token (line, len, &i, &t) || !jmem_text_parse_decimal (t.s, t.len, G_MAXUINT32, &v) ||
      !jmem_nvmap_next_token (line, len, &i, &t) ||  /* UID: a kernel pointer, dropped */
      !jmem_nvmap_next_token (line, len, &i, &t) || !jmem_nvmap_parse_kib (t.s, t.len, mapped_kib))
    return FALSE;
  return !jmem_nvmap_next_token (line, len, &i, &t);
}

static JmemNvmapClientMaps *
client_maps_new (JmemNvmapClient *client)
{
  JmemNvmapClientMaps *cm = g_new0 (JmemNvmapClientMaps, 1);

  cm->client = client;
  cm->vmas = g_array_new (FALSE, FALSE, sizeof (JmemNvmapVma));
  return cm;
}

JmemNvmapMaps *
jmem_nvmap_maps_parse (const char *data,
                       gsize       len,
                       GError    **error)
{
  g_autoptr(JmemNvmapMaps) out = NULL;
  JmemNvmapClientMaps *cur = NULL;
  gboolean in_handle = FALSE;
  JmemNvmapTable t;
  gsize pos = 0;

  g_return_val_if_fail (data != NULL || len == 0, NULL);

  if (len == 0)
    {
      g_set_error_literal (error, JMEM_ERROR, JMEM_ERROR_FAILED, "NvMap iovmm/maps is empty");
      return NULL;
    }
  out = g_new0 (JmemNvmapMaps, 1);
  out->clients = g_ptr_array_new_with_free_func ((GDestroyNotify) client_maps_free);

  jmem_nvmap_table_init (&t, JMEM_NVMAP_TABLE_MAPS);
  while (pos < len && !t.seen_note)
    {
      JmemNvmapLine line;
      guint64 mapped;
      JmemNvmapVma vma;

      pos += jmem_nvmap_table_next (&t, data + pos, len - pos, &line);
      switch (line.kind)
        {
        case JMEM_NVMAP_LINE_CLIENT:
          cur = client_maps_new (line_steal_client (&line));
          g_ptr_array_add (out->clients, cur);
          in_handle = FALSE;
          continue;
        case JMEM_NVMAP_LINE_TOTAL:
        case JMEM_NVMAP_LINE_BLANK:  /* each client ends with a blank line */
          cur = NULL;
          continue;
        case JMEM_NVMAP_LINE_INDENTED:
          break;
        case JMEM_NVMAP_LINE_HEADER:
        case JMEM_NVMAP_LINE_OTHER:
        default:
          continue;
        }

      if (cur != NULL && jmem_nvmap_line_is_handle_shaped (line.text, line.len))
        {
          /* Both by their tokens alone, the UID's content aside: a handle
           * row has six of them, a VMA row at most four. */
          if (parse_maps_handle (line.text, line.len, &mapped))
            {
              cur->mapped_kib = cur->mapped_kib > G_MAXUINT64 - mapped
                                ? G_MAXUINT64 : cur->mapped_kib + mapped;
              cur->n_handles++;
              in_handle = TRUE;
              continue;
            }
          if (in_handle && jmem_nvmap_vma_parse (line.text, line.len, &vma, NULL))
            {
              g_array_append_val (cur->vmas, vma);
              continue;
            }
        }
      t.n_malformed++;
    }

  if (!t.seen_header && out->clients->len == 0 && !t.has_total)
    {
      g_set_error_literal (error, JMEM_ERROR, JMEM_ERROR_FAILED,
                           "Not an NvMap iovmm/maps file: no \"CLIENT PROCESS PID SIZE\" "
                           "or \"BASE SIZE FLAGS SHARE UID MAPS MAPSIZE\" header, client row "
                           "or total line");
      return NULL;
    }
  out->has_total = t.has_total;
  out->total_kib = t.total_kib;
  out->n_malformed = t.n_malformed;
  out->layout = jmem_nvmap_table_layout (&t);
  return g_steal_pointer (&out);
}

/* ---- single numbers: stats/total_memory, free_size, page-pool counters -- */

/* The one decimal number @data holds, spaces around it allowed. @what names
 * the file in errors. */
static gboolean
parse_one_number (const char *data,
                  gsize       len,
                  const char *what,
                  const char *expected,
                  guint64    *value,
                  GError    **error)
{
  gsize start = 0, end = len;

  while (start < end && g_ascii_isspace (data[start]))
    start++;
  while (end > start && g_ascii_isspace (data[end - 1]))
    end--;

  if (start == end)
    {
      g_set_error (error, JMEM_ERROR, JMEM_ERROR_FAILED,
                   "NvMap %s is empty; expected %s", what, expected);
      return FALSE;
    }
  for (gsize i = start; i < end; i++)
    {
      if (!g_ascii_isdigit (data[i]))
        {
          g_autofree char *valid = jmem_text_make_valid (data + start, (gssize) MIN (end - start, 32));
          g_autofree char *shown = jmem_text_escape (valid);

          g_set_error (error, JMEM_ERROR, JMEM_ERROR_FAILED,
                       "NvMap %s holds \"%s\"; expected %s", what, shown, expected);
          return FALSE;
        }
    }
  if (!jmem_text_parse_decimal (data + start, end - start, G_MAXUINT64, value))
    {
      g_set_error (error, JMEM_ERROR, JMEM_ERROR_FAILED,
                   "NvMap %s holds a number too large for 64 bits", what);
      return FALSE;
    }
  return TRUE;
}

gboolean
jmem_nvmap_total_memory_parse (const char *data,
                               gsize       len,
                               guint64    *bytes,
                               GError    **error)
{
  g_return_val_if_fail (data != NULL || len == 0, FALSE);
  g_return_val_if_fail (bytes != NULL, FALSE);

  return parse_one_number (data, len, "stats/total_memory", "one decimal number of bytes",
                           bytes, error);
}

gboolean
jmem_nvmap_counter_parse (const char *data,
                          gsize       len,
                          guint64    *value,
                          GError    **error)
{
  g_return_val_if_fail (data != NULL || len == 0, FALSE);
  g_return_val_if_fail (value != NULL, FALSE);

  return parse_one_number (data, len, "page-pool counter", "one decimal number of pages",
                           value, error);
}

/* "Max allocatable IOVMM memory: %lu bytes\n" (nvmap_debug_free_size_show) */
gboolean
jmem_nvmap_free_size_parse (const char *data,
                            gsize       len,
                            guint64    *bytes,
                            GError    **error)
{
  static const char prefix[] = "Max allocatable IOVMM memory:";
  static const char suffix[] = "bytes";
  gsize start = 0, end = len;

  g_return_val_if_fail (data != NULL || len == 0, FALSE);
  g_return_val_if_fail (bytes != NULL, FALSE);

  while (end > start && g_ascii_isspace (data[end - 1]))
    end--;
  if (end - start > sizeof prefix - 1 + sizeof suffix - 1 &&
      memcmp (data, prefix, sizeof prefix - 1) == 0 &&
      memcmp (data + end - (sizeof suffix - 1), suffix, sizeof suffix - 1) == 0)
    return parse_one_number (data + sizeof prefix - 1,
                             end - (sizeof suffix - 1) - (sizeof prefix - 1),
                             "iovmm/free_size", "a number of bytes", bytes, error);
  {
    g_autofree char *valid = jmem_text_make_valid (data, (gssize) MIN (end, 64));
    g_autofree char *shown = jmem_text_escape (valid);

    g_set_error (error, JMEM_ERROR, JMEM_ERROR_FAILED,
                 "NvMap iovmm/free_size holds \"%s\"; expected \"%s N %s\"",
                 shown, prefix, suffix);
  }
  return FALSE;
}
