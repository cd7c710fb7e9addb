#include "jmem-helper-log.h"

#include <stdio.h>
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

void
jmem_helper_log_action (const char *action,
                        gint64      caller_uid,
                        const char *result,
                        const char *detail)
{
  g_autofree char *uid = g_strdup_printf ("%" G_GINT64_FORMAT, caller_uid);

  g_log_structured (G_LOG_DOMAIN, G_LOG_LEVEL_MESSAGE,
                    "JMEM_ACTION", action,
                    "JMEM_CALLER_UID", uid,
                    "JMEM_RESULT", result,
                    "MESSAGE", "%s by uid %s: %s%s%s", action, uid, result,
                    detail != NULL ? ": " : "", detail != NULL ? detail : "");
}
