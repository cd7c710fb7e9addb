/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "jmem-text.h"

#include <string.h>

char *
jmem_text_make_valid (const char *bytes,
                      gssize      len)
{
  g_autoptr(GString) out = NULL;
  gsize n;

  if (bytes == NULL)
    return g_strdup ("");
  n = len < 0 ? strlen (bytes) : (gsize) len;
  out = g_string_sized_new (n);

  /* g_utf8_make_valid() stops at an embedded NUL; walk the buffer ourselves. */
  for (gsize start = 0; start < n;)
    {
      const char *end = NULL;
      gsize chunk = n - start;

      if (g_utf8_validate_len (bytes + start, chunk, &end))
        {
          g_string_append_len (out, bytes + start, (gssize) chunk);
          break;
        }
      g_string_append_len (out, bytes + start, end - (bytes + start));
      g_string_append (out, "\357\277\275"); /* U+FFFD */
      start = (gsize) (end - bytes) + 1;
    }
  return g_string_free (g_steal_pointer (&out), FALSE);
}

/* Beyond ASCII, what a terminal or a log shows as nothing, or lets
 * reorder or split what follows: the C1 controls, format characters (the bidirectional
 * controls, zero-width characters, the BOM: a name holding U+202E makes
 * "gpt.exe" read as "exe.tpg"), line and paragraph separators, and code
 * points with no character yet, whose rendering no one can promise. */
static gboolean
is_hidden (gunichar c)
{
  switch (g_unichar_type (c))
    {
    case G_UNICODE_CONTROL:
    case G_UNICODE_FORMAT:
    case G_UNICODE_LINE_SEPARATOR:
    case G_UNICODE_PARAGRAPH_SEPARATOR:
    case G_UNICODE_UNASSIGNED:
    case G_UNICODE_SURROGATE:
    case G_UNICODE_PRIVATE_USE:
      return TRUE;
    default:
      return FALSE;
    }
}

/* One character, valid UTF-8 at @p, appended as it prints safely. */
static void
append_escaped_char (GString *out, const char *p, gunichar c)
{
  if (c == '\n')
    g_string_append (out, "\\n");
  else if (c == '\t')
    g_string_append (out, "\\t");
  else if (c == '\\')
    g_string_append (out, "\\\\");
  /* \xNN is an ASCII control or a byte that is not UTF-8 (0x80 and up),
   * never a character of its own: C1's U+0085 is \u0085, the byte \x85 */
  else if (c < 0x20 || c == 0x7f)
    g_string_append_printf (out, "\\x%02x", (guint) c);
  else if (is_hidden (c) && c <= 0xffff)
    g_string_append_printf (out, "\\u%04x", (guint) c);
  else if (is_hidden (c))
    g_string_append_printf (out, "\\U%08x", (guint) c);
  else
    g_string_append_len (out, p, g_utf8_next_char (p) - p);
}

char *
jmem_text_escape (const char *text)
{
  g_autoptr(GString) out = NULL;
  const char *end;

  g_return_val_if_fail (text != NULL, NULL);
  end = text + strlen (text);
  out = g_string_sized_new ((gsize) (end - text));
  for (const char *p = text; p < end;)
    {
      gunichar c = g_utf8_get_char_validated (p, end - p);

      /* a byte that starts no character is shown as the byte it is */
      if (c == (gunichar) -1 || c == (gunichar) -2)
        {
          g_string_append_printf (out, "\\x%02x", (guint) (guchar) *p);
          p++;
          continue;
        }
      append_escaped_char (out, p, c);
      p = g_utf8_next_char (p);
    }
  return g_string_free (g_steal_pointer (&out), FALSE);
}

char *
jmem_text_for_terminal (const char *bytes)
{
  g_autofree char *valid = jmem_text_make_valid (bytes, -1);

  return jmem_text_escape (valid);
}

static gsize
char_width (gunichar c)
{
  if (g_unichar_iszerowidth (c))
    return 0;
  return g_unichar_iswide (c) ? 2 : 1;
}

gsize
jmem_text_width (const char *utf8)
{
  gsize width = 0;

  g_return_val_if_fail (utf8 != NULL, 0);
  for (const char *p = utf8; *p != '\0'; p = g_utf8_next_char (p))
    width += char_width (g_utf8_get_char (p));
  return width;
}

char *
jmem_text_fit_width (const char *utf8,
                     gsize       cols,
                     gboolean    pad)
{
  g_autoptr(GString) out = NULL;
  gsize width;

  g_return_val_if_fail (utf8 != NULL, NULL);
  width = jmem_text_width (utf8);
  out = g_string_new (NULL);
  if (width <= cols)
    {
      g_string_append (out, utf8);
    }
  else if (cols > 0)
    {
      /* keep what fits in cols - 1, then the one column of "…" */
      width = 0;
      for (const char *p = utf8; *p != '\0'; p = g_utf8_next_char (p))
        {
          gsize w = char_width (g_utf8_get_char (p));

          if (width + w > cols - 1)
            break;
          g_string_append_len (out, p, g_utf8_next_char (p) - p);
          width += w;
        }
      g_string_append (out, "…");
      width++;
    }
  else
    {
      width = 0;
    }
  for (; pad && width < cols; width++)
    g_string_append_c (out, ' ');
  return g_string_free (g_steal_pointer (&out), FALSE);
}

char *
jmem_text_cap_bytes (const char *utf8,
                     gsize       max_bytes,
                     gboolean   *cut)
{
  gsize len;
  const char *end;

  g_return_val_if_fail (utf8 != NULL, NULL);
  len = strlen (utf8);
  if (cut != NULL)
    *cut = len > max_bytes;
  if (len <= max_bytes)
    return g_strdup (utf8);
  /* back off to the first byte of the character that straddles the cap */
  end = utf8 + max_bytes;
  while (end > utf8 && (*end & 0xc0) == 0x80)
    end--;
  return g_strndup (utf8, (gsize) (end - utf8));
}

char *
jmem_text_cap_field (const char *utf8)
{
  gboolean cut = FALSE;
  g_autofree char *capped = jmem_text_cap_bytes (utf8, JMEM_TEXT_MAX_FIELD_BYTES, &cut);

  if (!cut)
    return g_steal_pointer (&capped);
  return g_strconcat (capped, "…", NULL);
}

char *
jmem_text_size (gint64 kib)
{
  static const char *const units[] = { "MiB", "GiB", "TiB", "PiB", "EiB", "ZiB" };
  double v = (double) kib / 1024.0;
  guint u = 0;

  if (kib < 0)
    return g_strdup ("-");
  if (kib < 1024)
    return g_strdup_printf ("%" G_GINT64_FORMAT " KiB", kib);
  while (v >= 1024.0 && u + 1 < G_N_ELEMENTS (units))
    {
      v /= 1024.0;
      u++;
    }
  return g_strdup_printf ("%.1f %s", v, units[u]);
}

gboolean
jmem_text_parse_decimal (const char *s,
                         gsize       n,
                         guint64     max,
                         guint64    *out)
{
  guint64 v = 0;

  if (n == 0)
    return FALSE;
  for (gsize i = 0; i < n; i++)
    {
      guint d;

      if (s[i] < '0' || s[i] > '9')
        return FALSE;
      d = (guint) (s[i] - '0');
      if (d > max || v > (max - d) / 10)
        return FALSE;
      v = v * 10 + d;
    }
  *out = v;
  return TRUE;
}

gboolean
jmem_text_parse_hex (const char *s,
                     gsize       n,
                     guint64     max,
                     guint64    *out)
{
  guint64 v = 0;

  if (n == 0)
    return FALSE;
  for (gsize i = 0; i < n; i++)
    {
      int d = g_ascii_xdigit_value (s[i]);

      if (d < 0 || v > (max >> 4))
        return FALSE;
      v = (v << 4) | (guint64) d;
      if (v > max)
        return FALSE;
    }
  *out = v;
  return TRUE;
}
