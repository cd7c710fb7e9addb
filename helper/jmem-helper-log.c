#include "jmem-helper-log.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

static GLogWriterOutput
writer (GLogLevelFlags   level,
        const GLogField *fields,
        gsize            n_fields,
        gpointer         user_data)
{
  if (g_log_writer_is_journald (fileno (stderr)) &&
      g_log_writer_journald (level, fields, n_fields, user_data) == G_LOG_WRITER_HANDLED)
    return G_LOG_WRITER_HANDLED;
  return g_log_writer_standard_streams (level, fields, n_fields, user_data);
}

void
jmem_helper_log_init (void)
{
  g_log_set_writer_func (writer, NULL, NULL);
}

/* Beyond ASCII: C1 controls, bidi and other format characters, line and
 * paragraph separators, and what is not assigned. */
static gboolean
needs_escape (gunichar c)
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

char *
jmem_helper_log_escape (const char *text)
{
  g_autoptr(GString) out = NULL;
  const char *p, *end;

  g_return_val_if_fail (text != NULL, NULL);
  out = g_string_sized_new (strlen (text));
  end = text + strlen (text);
  for (p = text; p < end;)
    {
      gunichar c = g_utf8_get_char_validated (p, end - p);

      if (c == (gunichar) -1 || c == (gunichar) -2)
        {
          g_string_append_printf (out, "\\x%02x", (guint) (guchar) *p);
          p++;
          continue;
        }
      if (c == '\\')
        g_string_append (out, "\\\\");
      else if (c == '\n')
        g_string_append (out, "\\n");
      else if (c == '\r')
        g_string_append (out, "\\r");
      else if (c == '\t')
        g_string_append (out, "\\t");
      else if (c < 0x20 || c == 0x7f)
        g_string_append_printf (out, "\\x%02x", (guint) c);
      else if (c >= 0x80 && needs_escape (c))
        g_string_append_printf (out, "\\u{%04x}", (guint) c);
      else
        g_string_append_len (out, p, g_utf8_next_char (p) - p);
      p = g_utf8_next_char (p);
    }
  return g_string_free (g_steal_pointer (&out), FALSE);
}

void
jmem_helper_log_action (const char *action,
                        gint64      caller_uid,
                        const char *result,
                        const char *detail)
{
  g_autofree char *uid = g_strdup_printf ("%" G_GINT64_FORMAT, caller_uid);
  g_autofree char *safe_action = jmem_helper_log_escape (action);
  g_autofree char *safe_result = jmem_helper_log_escape (result);
  g_autofree char *safe_detail = detail != NULL ? jmem_helper_log_escape (detail) : NULL;

  g_log_structured (G_LOG_DOMAIN, G_LOG_LEVEL_MESSAGE,
                    "JMEM_ACTION", safe_action,
                    "JMEM_CALLER_UID", uid,
                    "JMEM_RESULT", safe_result,
                    "MESSAGE", "%s by uid %s: %s%s%s", safe_action, uid, safe_result,
                    safe_detail != NULL ? ": " : "", safe_detail != NULL ? safe_detail : "");
}
