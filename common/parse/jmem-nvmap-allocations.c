/* SPDX-License-Identifier: GPL-2.0-or-later */
/* /sys/kernel/debug/nvmap/iovmm/allocations: each client's handles, whole
 * or fed in pieces as the helper's memfd arrives (docs/nvmap-formats.md). */
#include "jmem-nvmap.h"

#include <string.h>

#include "jmem-error.h"
#include "jmem-nvmap-table.h"
#include "jmem-text.h"

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
      p->visitor->client (jmem_nvmap_line_steal_client (&line), p->user_data);
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
