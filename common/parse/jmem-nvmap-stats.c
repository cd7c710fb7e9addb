/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The NvMap files that hold one number: stats/total_memory, free_size and
 * the page pool's counters (docs/nvmap-formats.md). */
#include "jmem-nvmap.h"

#include <string.h>

#include "jmem-error.h"
#include "jmem-text.h"

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
