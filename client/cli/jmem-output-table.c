/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "jmem-output-table.h"

#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "jmem-action.h"
#include "jmem-text.h"

guint
jmem_table_terminal_width (void)
{
  struct winsize ws = { 0 };
  const char *columns;

  /* a pipe or a file gets whole lines */
  if (!isatty (STDOUT_FILENO))
    return 0;
  if (ioctl (STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
    return ws.ws_col;
  columns = g_getenv ("COLUMNS");
  if (columns != NULL)
    {
      guint64 n = 0;

      if (g_ascii_string_to_unsigned (columns, 10, 1, JMEM_TABLE_MAX_WIDTH, &n, NULL))
        return (guint) n;
    }
  return JMEM_TABLE_DEFAULT_WIDTH;
}

guint
jmem_table_clamp_width (guint width)
{
  return width == 0 ? 0 : MAX (width, JMEM_TABLE_MIN_WIDTH);
}

gboolean
jmem_table_two_lines (guint width,
                      guint numbers,
                      guint texts)
{
  return width > 0 && (width < JMEM_TABLE_TWO_LINE_BELOW || numbers + texts > width);
}

guint
jmem_table_widest (guint       cols,
                   const char *escaped)
{
  return MAX (cols, (guint) jmem_text_width (escaped));
}

void
jmem_table_append_cell (GString    *out,
                        const char *escaped,
                        guint       cols)
{
  g_autofree char *cell = jmem_text_fit_width (escaped, cols, TRUE);

  g_string_append (out, cell);
}

void
jmem_table_append_padded (GString    *out,
                          const char *escaped,
                          guint       cols)
{
  g_string_append (out, escaped);
  for (gsize w = jmem_text_width (escaped); w < cols; w++)
    g_string_append_c (out, ' ');
}

void
jmem_table_append_right (GString    *out,
                         const char *escaped,
                         guint       cols)
{
  for (gsize w = jmem_text_width (escaped); w < cols; w++)
    g_string_append_c (out, ' ');
  g_string_append (out, escaped);
  g_string_append_c (out, ' ');
}

void
jmem_table_end_line (GString *out)
{
  while (out->len > 0 && out->str[out->len - 1] == ' ')
    g_string_truncate (out, out->len - 1);
  g_string_append_c (out, '\n');
}

static void
new_line (GString *out,
          guint    hang,
          guint   *col)
{
  jmem_table_end_line (out);
  for (guint i = 0; i < hang; i++)
    g_string_append_c (out, ' ');
  *col = hang;
}

/* One word at column *col, broken into pieces where it reaches @width. */
static void
append_word (GString    *out,
             const char *word,
             gsize       len,
             guint       width,
             guint       hang,
             guint      *col)
{
  const char *end = word + len;

  for (const char *p = word; p < end; p = g_utf8_next_char (p))
    {
      const char *next = g_utf8_next_char (p);
      g_autofree char *ch = g_strndup (p, next - p);
      guint w = (guint) jmem_text_width (ch);

      if (*col + w > width && *col > hang)
        new_line (out, hang, col);
      g_string_append_len (out, p, next - p);
      *col += w;
    }
}

/* Whether @word (of @len bytes) ends in a digit: a number whose unit may
 * follow. */
static gboolean
ends_in_number (const char *word,
                gsize       len)
{
  return len > 0 && g_ascii_isdigit (word[len - 1]);
}

/* The length of the unit @p starts with ("MiB", "GiB,", "%)"), punctuation
 * after it included, or 0 when @p starts with no unit. */
static gsize
unit_len (const char *p)
{
  static const char *const units[] = { "KiB", "MiB", "GiB", "TiB", "PiB", "EiB", "ZiB", "kB",
                                       "B", "%", "s", "ms", "pages", NULL };
  gsize len = strcspn (p, " ");

  for (guint i = 0; units[i] != NULL; i++)
    {
      gsize n = strlen (units[i]);

      if (len >= n && strncmp (p, units[i], n) == 0 &&
          strspn (p + n, ",;:.)]") == len - n)
        return len;
    }
  return 0;
}

/* @escaped from column *@col, wrapped at blanks to @width (> 0), further
 * lines indented by @hang. A number and the unit one blank after it stay
 * on one line ("97.7 MiB"). */
static void
wrap (GString    *out,
      const char *escaped,
      guint       width,
      guint      *col,
      guint       hang)
{
  const char *p = escaped;

  while (*p != '\0')
    {
      gsize blanks = strspn (p, " ");
      gsize len = strcspn (p + blanks, " ");

      if (ends_in_number (p + blanks, len) && p[blanks + len] == ' ')
        {
          gsize unit = unit_len (p + blanks + len + 1);

          if (unit > 0)
            len += 1 + unit;
        }
      g_autofree char *word = g_strndup (p + blanks, len);
      guint w = (guint) jmem_text_width (word);

      if (len == 0)
        break;   /* trailing blanks */
      if (*col > hang && *col + blanks + w > width)
        new_line (out, hang, col);
      else
        {
          g_string_append_len (out, p, blanks);
          *col += (guint) blanks;
        }
      if (*col + w > width)
        append_word (out, word, len, width, hang, col);
      else
        {
          g_string_append (out, word);
          *col += w;
        }
      p += blanks + len;
    }
}

void
jmem_table_append_wrapped (GString    *out,
                           const char *escaped,
                           guint       width,
                           guint       indent,
                           guint       hang)
{
  guint col = indent;

  if (width == 0)
    g_string_append (out, escaped);
  else
    wrap (out, escaped, width, &col, hang);
}

void
jmem_table_append_pieces (GString            *out,
                          const char * const *pieces,
                          const char         *sep,
                          guint               width,
                          guint               indent,
                          guint               hang)
{
  guint col = indent, sep_cols = (guint) jmem_text_width (sep);

  for (guint i = 0; pieces[i] != NULL; i++)
    {
      guint w = (guint) jmem_text_width (pieces[i]);

      if (i > 0 && width > 0 && col + sep_cols + w > width)
        new_line (out, hang, &col);
      else if (i > 0)
        {
          g_string_append (out, sep);
          col += sep_cols;
        }
      if (width > 0 && col + w > width)
        wrap (out, pieces[i], width, &col, hang);
      else
        {
          g_string_append (out, pieces[i]);
          col += w;
        }
    }
  jmem_table_end_line (out);
}

void
jmem_table_append_action (GString    *out,
                          const char *action,
                          guint       width,
                          guint       indent)
{
  g_autofree char *marked = jmem_action_is_admin (action) ?
                            g_strconcat (JMEM_ACTION_ADMIN_MARK " ", action, NULL) : NULL;
  g_autofree char *shown = jmem_text_for_terminal (marked != NULL ? marked : action);

  g_string_append_printf (out, "%*s- ", (int) indent, "");
  jmem_table_append_wrapped (out, shown, width, indent + 2, indent + 2);
  g_string_append_c (out, '\n');
}
