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

char *
jmem_text_escape_for_terminal (const char *utf8)
{
  g_autoptr(GString) out = NULL;

  g_return_val_if_fail (utf8 != NULL, NULL);
  out = g_string_sized_new (strlen (utf8));
  for (const char *p = utf8; *p != '\0'; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      if (c == '\n')
        g_string_append (out, "\\n");
      else if (c == '\t')
        g_string_append (out, "\\t");
      else if (c == '\\')
        g_string_append (out, "\\\\");
      else if (c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0))
        g_string_append_printf (out, "\\x%02x", (guint) c);
      else
        g_string_append_len (out, p, g_utf8_next_char (p) - p);
    }
  return g_string_free (g_steal_pointer (&out), FALSE);
}
