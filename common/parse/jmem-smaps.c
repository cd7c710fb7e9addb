/* SPDX-License-Identifier: GPL-2.0-or-later */
/* /proc/PID/smaps: fs/proc/task_mmu.c prints per mapping a header
 * (show_map_vma: "%08lx-%08lx %c%c%c%c %08llx %02x:%02x %lu ", padded, then
 * the path) and "Name:   value kB" lines (show_smap); VmFlags closes it. */
#include "jmem-smaps.h"

#include <string.h>

#include "jmem-error.h"
#include "jmem-text.h"

static gboolean
is_blank (char c)
{
  return c == ' ' || c == '\t';
}

/* "start-end perms offset dev inode" and the path after the padding. */
static gboolean
parse_header (const char *line, gsize len, JmemSmapsVma *vma)
{
  const char *dash = memchr (line, '-', MIN (len, 34));
  gsize i, start;
  guint words = 0;

  if (dash == NULL || !jmem_text_parse_hex (line, (gsize) (dash - line), G_MAXUINT64, &vma->start))
    return FALSE;
  i = (gsize) (dash - line) + 1;
  start = i;
  while (i < len && !is_blank (line[i]))
    i++;
  if (!jmem_text_parse_hex (line + start, i - start, G_MAXUINT64, &vma->end) || vma->end < vma->start)
    return FALSE;
  /* perms, offset, dev, inode */
  while (words < 4)
    {
      while (i < len && is_blank (line[i]))
        i++;
      if (i == len)
        return FALSE;
      while (i < len && !is_blank (line[i]))
        i++;
      words++;
    }
  while (i < len && is_blank (line[i]))
    i++;
  vma->path = line + i;
  vma->path_len = len - i;
  return TRUE;
}

/* "Name:   value kB": the value of Size, Rss or Pss, else FALSE. */
static gboolean
field_kib (const char *line, gsize len, const char **name, guint64 *kib)
{
  const char *colon = memchr (line, ':', MIN (len, 32));
  gsize i, start;

  if (colon == NULL || colon == line)
    return FALSE;
  *name = line;
  i = (gsize) (colon - line) + 1;
  while (i < len && is_blank (line[i]))
    i++;
  start = i;
  while (i < len && g_ascii_isdigit (line[i]))
    i++;
  return jmem_text_parse_decimal (line + start, i - start, G_MAXINT64, kib);
}

static gboolean
name_is (const char *line, const char *name)
{
  gsize n = strlen (name);

  return strncmp (line, name, n) == 0 && line[n] == ':';
}

/* @line is not NUL-terminated: strlen() would read past it. */
static gboolean
starts_with (const char *line, gsize len, const char *word)
{
  gsize n = strlen (word);

  return len >= n && memcmp (line, word, n) == 0;
}

static gboolean
add_capped (guint64 *sum, guint64 v)
{
  if (*sum > (guint64) G_MAXINT64 - v)
    return FALSE;
  *sum += v;
  return TRUE;
}

gboolean
jmem_smaps_sum (const char     *data,
                gsize           len,
                JmemSmapsMatch  match,
                gpointer        user_data,
                JmemSmapsSum   *sum,
                GError        **error)
{
  gboolean matched = FALSE;
  guint n_headers = 0;
  gsize pos = 0;

  g_return_val_if_fail (data != NULL || len == 0, FALSE);
  g_return_val_if_fail (match != NULL && sum != NULL, FALSE);

  *sum = (JmemSmapsSum) { 0 };
  while (pos < len)
    {
      const char *line = data + pos;
      const char *nl = memchr (line, '\n', len - pos);
      gsize line_len = nl != NULL ? (gsize) (nl - line) : len - pos;
      JmemSmapsVma vma;
      const char *name;
      guint64 kib;

      pos += line_len + (nl != NULL ? 1 : 0);
      if (line_len == 0)
        continue;
      if (g_ascii_isxdigit (line[0]) && parse_header (line, line_len, &vma))
        {
          n_headers++;
          matched = match (&vma, user_data);
          if (matched)
            sum->n_vmas++;
          continue;
        }
      if (!field_kib (line, line_len, &name, &kib))
        {
          /* VmFlags and THPeligible carry words, not sizes */
          if (!starts_with (line, line_len, "VmFlags:") &&
              !starts_with (line, line_len, "THPeligible:") &&
              !starts_with (line, line_len, "ProtectionKey:"))
            sum->n_malformed++;
          continue;
        }
      if (!matched)
        continue;
      if ((name_is (name, "Size") && !add_capped (&sum->size_kib, kib)) ||
          (name_is (name, "Rss") && !add_capped (&sum->rss_kib, kib)) ||
          (name_is (name, "Pss") && !add_capped (&sum->pss_kib, kib)))
        {
          g_set_error_literal (error, JMEM_ERROR, JMEM_ERROR_FAILED,
                               "smaps sizes add up to more than 2^63 KiB: not a real smaps");
          return FALSE;
        }
    }
  if (n_headers == 0 && len > 0)
    {
      g_set_error_literal (error, JMEM_ERROR, JMEM_ERROR_FAILED,
                           "not an smaps file: no \"start-end perms offset dev inode\" line");
      return FALSE;
    }
  return TRUE;
}

gboolean
jmem_smaps_path_is_nvmap (const char *path,
                          gsize       path_len)
{
  static const char *const prefixes[] = { "/dmabuf:", "anon_inode:dmabuf" };

  for (gsize i = 0; i < G_N_ELEMENTS (prefixes); i++)
    {
      gsize n = strlen (prefixes[i]);

      if (path_len >= n && memcmp (path, prefixes[i], n) == 0)
        return TRUE;
    }
  return path_len == 10 && memcmp (path, "/dev/nvmap", 10) == 0;
}
