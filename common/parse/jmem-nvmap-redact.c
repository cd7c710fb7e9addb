/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "jmem-nvmap-redact.h"

#include <string.h>

/* The UID of a handle row: its token @uid after the indent. A VMA row
 * has no more than four tokens, so it keeps its own. */
static void
zero_uid (char *line, gsize len, guint uid)
{
  gsize i = JMEM_NVMAP_HANDLE_INDENT;
  JmemNvmapToken tok;

  for (guint index = 0; jmem_nvmap_next_token (line, len, &i, &tok); index++)
    if (index == uid)
      {
        /* same length: every other byte stays where the parser expects it */
        memset (line + (tok.s - line), '0', tok.len);
        return;
      }
}

/* "%-12lx-%12lx": the start becomes 0, left-justified, the end the length,
 * right-justified; the length is never wider than the end it replaces. */
static void
strip_vma (char *line, gsize len)
{
  JmemNvmapVmaSpans at;
  JmemNvmapVma vma;
  char hex[17];
  gsize w, n;

  if (!jmem_nvmap_vma_parse (line, len, &vma, &at))
    return;
  memset (line + at.start_at, ' ', at.start_end - at.start_at);
  line[at.start_at] = '0';
  n = (gsize) g_snprintf (hex, sizeof hex, "%" G_GINT64_MODIFIER "x", vma.end - vma.start);
  w = at.end_end - at.end_at;
  memset (line + at.end_at, ' ', w - n);
  memcpy (line + at.end_end - n, hex, n);
}

void
jmem_nvmap_redactor_init (JmemNvmapRedactor  *redactor,
                          JmemNvmapTableFile  file,
                          JmemNvmapRedact     what)
{
  jmem_nvmap_table_init (&redactor->table, file);
  redactor->what = what;
}

gsize
jmem_nvmap_redactor_feed (JmemNvmapRedactor *redactor,
                          char              *data,
                          gsize              len,
                          gboolean           at_end)
{
  JmemNvmapTable *table = &redactor->table;
  gsize pos = 0;

  while (pos < len)
    {
      JmemNvmapLine line;
      char *text;

      /* as the parsers read a file in pieces: a line only once it is whole */
      if (!at_end && !jmem_nvmap_table_line_complete (data + pos, len - pos))
        return pos;
      pos += jmem_nvmap_table_next (table, data + pos, len - pos, &line);
      jmem_nvmap_line_clear (&line);
      /* Every line shaped as a handle or VMA row, wherever it stands: the
       * parser reads them by their tokens, never by the UID's content, so
       * this changes no row it reads. */
      if (line.kind != JMEM_NVMAP_LINE_INDENTED ||
          !jmem_nvmap_line_is_handle_shaped (line.text, line.len))
        continue;
      text = data + (line.text - data);
      if (redactor->what & JMEM_NVMAP_REDACT_UIDS)
        zero_uid (text, line.len, jmem_nvmap_table_uid_token (table));
      if ((redactor->what & JMEM_NVMAP_REDACT_VMAS) && table->file == JMEM_NVMAP_TABLE_MAPS)
        strip_vma (text, line.len);
    }
  return len;
}

void
jmem_nvmap_redact (JmemNvmapTableFile  file,
                   JmemNvmapRedact     what,
                   char               *data,
                   gsize               len)
{
  JmemNvmapRedactor redactor;

  jmem_nvmap_redactor_init (&redactor, file, what);
  (void) jmem_nvmap_redactor_feed (&redactor, data, len, TRUE);
}
