/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer target for jmem_nvmap_allocations_parse(), and for the parser
 * in pieces, which must give the same rows wherever the pieces end. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "jmem-nvmap.h"
#include "nvmap-redact-check.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static void
dump_summary (GString *out, gboolean ok, const JmemNvmapAllocations *s)
{
  if (!ok)
    g_string_append (out, "error\n");
  else
    g_string_append_printf (out, "s%d|%" G_GUINT64_FORMAT "|%u|%d|%d|%d\n", s->has_total,
                            s->total_kib, s->n_malformed, s->has_hugetlbfs_column,
                            s->has_map_columns, s->layout);
}

/* @data fed in pieces of @piece bytes, what each call leaves coming again. */
static char *
dump_in_pieces (const char *data, gsize size, gsize piece)
{
  GString *out = g_string_new (NULL);
  g_autoptr(GByteArray) held = g_byte_array_new ();
  g_autoptr(JmemNvmapAllocationsParser) parser =
    jmem_nvmap_allocations_parser_new (&jmem_nvmap_dump_visitor, out);
  JmemNvmapAllocations summary = { 0 };
  gsize pos = 0, used;

  for (;;)
    {
      gsize n = MIN (piece, size - pos);

      g_byte_array_append (held, (const guint8 *) data + pos, (guint) n);
      pos += n;
      used = jmem_nvmap_allocations_parser_feed (parser, (const char *) held->data, held->len, n == 0);
      if (used > held->len)
        abort ();
      g_byte_array_remove_range (held, 0, (guint) used);
      if (n == 0)
        break;
    }
  dump_summary (out, jmem_nvmap_allocations_parser_finish (parser, &summary, NULL), &summary);
  return g_string_free (out, FALSE);
}

static void
check_pieces (const char *data, gsize size)
{
  GString *whole = g_string_new (NULL);
  JmemNvmapAllocations summary = { 0 };
  gboolean ok = jmem_nvmap_allocations_visit (data, size, &jmem_nvmap_dump_visitor, whole,
                                              &summary, NULL);
  /* a piece size the input picks: its last byte, 1 to 64 */
  gsize piece = size > 0 ? (gsize) (guchar) data[size - 1] % 64 + 1 : 1;
  g_autofree char *cut = NULL;

  dump_summary (whole, ok, &summary);
  cut = dump_in_pieces (data, size, piece);
  if (strcmp (cut, whole->str) != 0)
    abort ();
  g_string_free (whole, TRUE);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JmemNvmapAllocations) allocations = NULL;
  gsize n_handles = 0;

  check_pieces ((const char *) data, size);
  allocations = jmem_nvmap_allocations_parse ((const char *) data, size, &error);
  if (allocations == NULL)
    {
      if (error == NULL || !g_utf8_validate (error->message, -1, NULL))
        abort ();
      return 0;
    }
  if (error != NULL || allocations->layout > JMEM_NVMAP_LAYOUT_LOOSE)
    abort ();

  for (guint i = 0; i < allocations->clients->len; i++)
    {
      const JmemNvmapClientHandles *ch = g_ptr_array_index (allocations->clients, i);

      if (!g_utf8_validate (ch->client->client, -1, NULL) ||
          !g_utf8_validate (ch->client->process, -1, NULL))
        abort ();
      for (guint j = 0; j < ch->handles->len; j++)
        {
          const JmemNvmapHandle *h = g_ptr_array_index (ch->handles, j);

          if (!g_utf8_validate (h->tag, -1, NULL))
            abort ();
          if (allocations->has_hugetlbfs_column ? (h->from_hugetlbfs != 0 && h->from_hugetlbfs != 1)
                                                : h->from_hugetlbfs != -1)
            abort ();
          if (!allocations->has_map_columns && (h->kmaps != 0 || h->umaps != 0 || h->share != 0))
            abort ();
        }
      n_handles += ch->handles->len;
    }
  /* Every client, handle and damaged line takes at least one line. */
  if (allocations->clients->len + n_handles + allocations->n_malformed > size)
    abort ();
  return 0;
}
