/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "jmem-output-help.h"

#include "jmem-output-table.h"
#include "jmem-text.h"

#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

/* Options whose description column leaves a line fewer columns than this
 * get their descriptions below them, indented by BELOW_INDENT. */
#define MIN_DESCRIPTION_COLS 36
#define BELOW_INDENT         8

guint
jmem_help_width (void)
{
  guint width = jmem_table_terminal_width ();
  const char *columns = g_getenv ("COLUMNS");
  guint64 n = 0;

  if (width > 0)
    return jmem_table_clamp_width (width);
  if (columns != NULL &&
      g_ascii_string_to_unsigned (columns, 10, JMEM_TABLE_MIN_WIDTH, JMEM_TABLE_MAX_WIDTH, &n, NULL))
    return (guint) n;
  return JMEM_TABLE_DEFAULT_WIDTH;
}

static guint
leading_blanks (const char *line)
{
  guint n = 0;

  while (line[n] == ' ')
    n++;
  return n;
}

/* "  --option=ARG     Description": the option's end, and where the
 * description starts (0: no description). */
static gboolean
split_option (const char *line, gsize *option_end, gsize *text_start)
{
  const char *gap = strstr (line + leading_blanks (line), "  ");

  if (gap == NULL)
    return FALSE;
  *option_end = (gsize) (gap - line);
  *text_start = *option_end;
  while (line[*text_start] == ' ')
    (*text_start)++;
  return line[*text_start] != '\0';
}

/* One block of option lines, all of the same description column. */
static void
fit_options (GString *out, GPtrArray *block, guint width)
{
  guint column = 0;
  gboolean below;

  for (guint i = 0; i < block->len; i++)
    {
      const char *line = g_ptr_array_index (block, i);
      gsize end, start;

      if (split_option (line, &end, &start))
        column = MAX (column, (guint) jmem_text_width (line) - (guint) jmem_text_width (line + start));
    }
  below = column + MIN_DESCRIPTION_COLS > width;
  for (guint i = 0; i < block->len; i++)
    {
      const char *line = g_ptr_array_index (block, i);
      g_autofree char *option = NULL;
      gsize end, start;

      if (!split_option (line, &end, &start))
        {
          jmem_table_append_wrapped (out, line, width, 0, BELOW_INDENT);
          g_string_append_c (out, '\n');
          continue;
        }
      option = g_strndup (line, end);
      g_string_append (out, option);
      if (below)
        {
          g_string_append_printf (out, "\n%*s", BELOW_INDENT, "");
          jmem_table_append_wrapped (out, line + start, width, BELOW_INDENT, BELOW_INDENT);
        }
      else
        {
          g_string_append_printf (out, "%*s", (int) (column - jmem_text_width (option)), "");
          jmem_table_append_wrapped (out, line + start, width, column, column);
        }
      g_string_append_c (out, '\n');
    }
  g_ptr_array_set_size (block, 0);
}

/* Whether @line starts a paragraph of the description after @previous. */
static gboolean
starts_paragraph (const char *previous, const char *line)
{
  gsize n = strlen (previous);

  if (g_str_has_prefix (line, "Exit status:"))
    return TRUE;
  return n > 0 && strchr (".:", previous[n - 1]) != NULL && g_ascii_isupper (line[0]);
}

static void
fit_description (GString *out, char **lines, guint width)
{
  g_autoptr(GString) paragraph = g_string_new (NULL);
  const char *previous = "";

  for (guint i = 0; lines[i] != NULL; i++)
    {
      const char *line = lines[i];

      if (paragraph->len > 0 && (line[0] == '\0' || starts_paragraph (previous, line)))
        {
          jmem_table_append_wrapped (out, paragraph->str, width, 0, 0);
          g_string_append_c (out, '\n');
          g_string_truncate (paragraph, 0);
        }
      if (line[0] == '\0')
        {
          /* a blank line of the text, not the end of the last line */
          if (lines[i + 1] != NULL)
            g_string_append_c (out, '\n');
        }
      else
        g_string_append_printf (paragraph, "%s%s", paragraph->len > 0 ? " " : "", line);
      previous = line;
    }
  if (paragraph->len > 0)
    {
      jmem_table_append_wrapped (out, paragraph->str, width, 0, 0);
      g_string_append_c (out, '\n');
    }
}

char *
jmem_help_fit (const char *help,
               guint       width)
{
  g_auto(GStrv) lines = g_strsplit (help, "\n", -1);
  g_autoptr(GPtrArray) block = g_ptr_array_new ();
  GString *out = g_string_new (NULL);
  enum { USAGE, OPTIONS, DESCRIPTION } part = USAGE;
  guint i;

  for (i = 0; lines[i] != NULL; i++)
    {
      const char *line = lines[i];
      gboolean indented = line[0] == ' ';

      if (part == OPTIONS && indented)
        {
          g_ptr_array_add (block, (gpointer) line);
          continue;
        }
      fit_options (out, block, width);
      if (line[0] != '\0' && !indented)
        {
          /* a heading ("Usage:", "Application Options:") over indented
           * lines; anything else starts the description */
          if (!g_str_has_suffix (line, ":") || lines[i + 1] == NULL || lines[i + 1][0] != ' ')
            break;
          part = g_str_equal (line, "Usage:") ? USAGE : OPTIONS;
          g_string_append_printf (out, "%s\n", line);
        }
      else if (line[0] == '\0')
        {
          if (lines[i + 1] != NULL)
            g_string_append_c (out, '\n');
        }
      else
        {
          /* the usage line: the rest under the command */
          jmem_table_append_wrapped (out, line, width, 0, leading_blanks (line) + 2);
          g_string_append_c (out, '\n');
        }
    }
  fit_options (out, block, width);
  if (lines[i] != NULL)
    fit_description (out, lines + i, width);
  return g_string_free (out, FALSE);
}
