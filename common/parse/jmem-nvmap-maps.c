/* SPDX-License-Identifier: GPL-2.0-or-later */
/* /sys/kernel/debug/nvmap/iovmm/maps: how much of each client's handles is
 * mapped for the CPU, per client (docs/nvmap-formats.md). */
#include "jmem-nvmap.h"

#include <string.h>

#include "jmem-error.h"
#include "jmem-nvmap-table.h"
#include "jmem-text.h"

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
          cur = client_maps_new (jmem_nvmap_line_steal_client (&line));
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
