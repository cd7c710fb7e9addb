/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "jmem-swaps.h"

#include <string.h>

#include "jmem-error.h"
#include "jmem-text.h"

/* No swap device is larger than any RAM jmem counts (2^42 KiB). */
#define MAX_KIB (G_GUINT64_CONSTANT (1) << 42)

static gboolean
parse_line (const char *line, gsize len, JmemSwaps *s)
{
  g_autofree char *copy = g_strndup (line, len);
  g_auto(GStrv) words = g_strsplit_set (copy, " \t", -1);
  const char *w[5];
  guint n = 0;
  guint64 size, used;

  for (guint i = 0; words[i] != NULL; i++)
    if (words[i][0] != '\0')
      {
        if (n == G_N_ELEMENTS (w))
          return FALSE;
        w[n++] = words[i];
      }
  if (n != 5 || (!g_str_equal (w[1], "partition") && !g_str_equal (w[1], "file")) ||
      !jmem_text_parse_decimal (w[2], strlen (w[2]), MAX_KIB, &size) ||
      !jmem_text_parse_decimal (w[3], strlen (w[3]), MAX_KIB, &used) || used > size)
    return FALSE;
  if (g_str_has_prefix (w[0], "/dev/zram"))
    {
      s->n_zram++;
      s->zram_size_kib += (gint64) size;
      s->zram_used_kib += (gint64) used;
    }
  else
    {
      s->n_other++;
      s->other_size_kib += (gint64) size;
      s->other_used_kib += (gint64) used;
    }
  return TRUE;
}

gboolean
jmem_swaps_parse (const char *data,
                  gsize       len,
                  JmemSwaps  *swaps,
                  GError    **error)
{
  gsize pos = 0;
  gboolean header = FALSE;

  g_return_val_if_fail (swaps != NULL, FALSE);

  memset (swaps, 0, sizeof *swaps);
  while (pos < len)
    {
      const char *line = data + pos;
      const char *nl = memchr (line, '\n', len - pos);
      gsize line_len = nl != NULL ? (gsize) (nl - line) : len - pos;

      pos += line_len + 1;
      if (line_len == 0)
        continue;
      if (!header)
        {
          header = line_len >= 8 && memcmp (line, "Filename", 8) == 0;
          if (!header)
            break;
          continue;
        }
      /* at most 2^20 devices: the sums stay far below 2^63 */
      if (swaps->n_zram + swaps->n_other >= (1u << 20) || !parse_line (line, line_len, swaps))
        swaps->n_malformed++;
    }
  if (!header)
    {
      memset (swaps, 0, sizeof *swaps);
      g_set_error (error, JMEM_ERROR, JMEM_ERROR_FAILED, "not /proc/swaps: no \"Filename\" header");
      return FALSE;
    }
  return TRUE;
}
