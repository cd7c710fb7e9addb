/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "nvmap-redact-check.h"

#include <string.h>

#include "jmem-nvmap-redact.h"

static void
dump_client (JmemNvmapClient *c, gpointer user_data)
{
  g_string_append_printf (user_data, "client %s|%s|%u|%" G_GUINT64_FORMAT "\n",
                          c->client, c->process, c->pid, c->size_kib);
  jmem_nvmap_client_free (c);
}

static void
dump_handle (JmemNvmapHandle *h, gpointer user_data)
{
  g_string_append_printf (user_data, "handle %" G_GINT64_MODIFIER "x|%" G_GUINT64_FORMAT
                          "|%x|%u|%u|%u|%u|%u|%u|%d|%s\n", h->base, h->size_kib, h->flags,
                          h->refs, h->dupes, h->pins, h->kmaps, h->umaps, h->share,
                          h->from_hugetlbfs, h->tag);
  jmem_nvmap_handle_free (h);
}

const JmemNvmapAllocationsVisitor jmem_nvmap_dump_visitor = { dump_client, dump_handle };

static char *
dump_allocations (const char *data, gsize len)
{
  GString *out = g_string_new (NULL);
  JmemNvmapAllocations s = { 0 };

  if (!jmem_nvmap_allocations_visit (data, len, &jmem_nvmap_dump_visitor, out, &s, NULL))
    g_string_append (out, "error\n");
  else
    g_string_append_printf (out, "s%d|%" G_GUINT64_FORMAT "|%u|%d|%d|%d\n", s.has_total,
                            s.total_kib, s.n_malformed, s.has_hugetlbfs_column,
                            s.has_map_columns, s.layout);
  return g_string_free (out, FALSE);
}

/* Each VMA as its length: what the redaction keeps of it. */
static char *
dump_maps (const char *data, gsize len)
{
  g_autoptr(JmemNvmapMaps) maps = jmem_nvmap_maps_parse (data, len, NULL);
  GString *out = g_string_new (NULL);

  if (maps == NULL)
    {
      g_string_append (out, "error\n");
      return g_string_free (out, FALSE);
    }
  for (guint i = 0; i < maps->clients->len; i++)
    {
      const JmemNvmapClientMaps *cm = g_ptr_array_index (maps->clients, i);

      g_string_append_printf (out, "c%s|%s|%u|%" G_GUINT64_FORMAT "|%" G_GUINT64_FORMAT "|%u\n",
                              cm->client->client, cm->client->process, cm->client->pid,
                              cm->client->size_kib, cm->mapped_kib, cm->n_handles);
      for (guint j = 0; j < cm->vmas->len; j++)
        {
          const JmemNvmapVma *v = &g_array_index (cm->vmas, JmemNvmapVma, j);

          g_string_append_printf (out, "v%" G_GUINT64_FORMAT "\n", v->end - v->start);
        }
    }
  g_string_append_printf (out, "s%d|%" G_GUINT64_FORMAT "|%u|%d\n", maps->has_total,
                          maps->total_kib, maps->n_malformed, maps->layout);
  return g_string_free (out, FALSE);
}

/* The token is not NUL-terminated: the redacted copy has no terminator,
 * so that a parser reading past its length is caught. */
static gboolean
all_zeros (const char *s, gsize n)
{
  for (gsize i = 0; i < n; i++)
    if (s[i] != '0')
      return FALSE;
  return TRUE;
}

/* Every handle-shaped line of @data: its UID 0s, and in maps no VMA
 * address but its length. */
static char *
check_redacted (JmemNvmapTableFile file, const char *data, gsize len)
{
  JmemNvmapTable table;
  gsize pos = 0;

  jmem_nvmap_table_init (&table, file);
  while (pos < len)
    {
      JmemNvmapLine line;
      JmemNvmapToken tok;
      JmemNvmapVma vma;
      gsize i = JMEM_NVMAP_HANDLE_INDENT;

      pos += jmem_nvmap_table_next (&table, data + pos, len - pos, &line);
      jmem_nvmap_line_clear (&line);
      if (line.kind != JMEM_NVMAP_LINE_INDENTED ||
          !jmem_nvmap_line_is_handle_shaped (line.text, line.len))
        continue;
      for (guint index = 0; jmem_nvmap_next_token (line.text, line.len, &i, &tok); index++)
        if (index == jmem_nvmap_table_uid_token (&table) && !all_zeros (tok.s, tok.len))
          return g_strdup_printf ("a UID left at byte %" G_GSIZE_FORMAT,
                                  (gsize) (line.text - data));
      if (file == JMEM_NVMAP_TABLE_MAPS &&
          jmem_nvmap_vma_parse (line.text, line.len, &vma, NULL) && vma.start != 0)
        return g_strdup_printf ("a VMA address left at byte %" G_GSIZE_FORMAT,
                                (gsize) (line.text - data));
    }
  return NULL;
}

/* @data redacted as the helper reads it, in pieces of @piece bytes, what
 * each call leaves coming again. */
GByteArray *
jmem_nvmap_redact_in_pieces (JmemNvmapTableFile file, JmemNvmapRedact what,
                             const char *data, gsize len, gsize piece)
{
  g_autoptr(GByteArray) held = g_byte_array_new ();
  GByteArray *out = g_byte_array_new ();
  JmemNvmapRedactor redactor;
  gsize pos = 0;

  jmem_nvmap_redactor_init (&redactor, file, what);
  for (;;)
    {
      gsize n = MIN (piece, len - pos), used;

      g_byte_array_append (held, (const guint8 *) data + pos, (guint) n);
      pos += n;
      used = jmem_nvmap_redactor_feed (&redactor, (char *) held->data, held->len, n == 0);
      g_byte_array_append (out, held->data, (guint) used);
      g_byte_array_remove_range (held, 0, (guint) used);
      if (n == 0)
        return out;
    }
}

static char *
check_one (JmemNvmapTableFile file, const char *data, gsize len)
{
  char *(*dump) (const char *, gsize) =
    file == JMEM_NVMAP_TABLE_MAPS ? dump_maps : dump_allocations;
  g_autofree char *copy = g_malloc (len + 1);
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;

  if (len > 0)
    memcpy (copy, data, len);
  g_autoptr(GByteArray) cut = NULL;

  jmem_nvmap_redact (file, JMEM_NVMAP_REDACT_UIDS | JMEM_NVMAP_REDACT_VMAS, copy, len);
  /* in pieces of a size the input picks (its last byte, 1 to 64), as the
   * helper reads it: the same bytes */
  cut = jmem_nvmap_redact_in_pieces (file, JMEM_NVMAP_REDACT_UIDS | JMEM_NVMAP_REDACT_VMAS,
                                     data, len, len > 0 ? (guchar) data[len - 1] % 64 + 1 : 1);
  if (cut->len != len || (len > 0 && memcmp (cut->data, copy, len) != 0))
    return g_strdup ("redacted otherwise in pieces");
  before = dump (data, len);
  after = dump (copy, len);
  if (strcmp (before, after) != 0)
    return g_strdup_printf ("parsed otherwise once redacted:\n%s---\n%s", before, after);
  return check_redacted (file, copy, len);
}

char *
jmem_nvmap_redact_check (const char *data,
                         gsize       len)
{
  char *why = check_one (JMEM_NVMAP_TABLE_ALLOCATIONS, data, len);

  return why != NULL ? why : check_one (JMEM_NVMAP_TABLE_MAPS, data, len);
}
