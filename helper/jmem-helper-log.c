/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "jmem-helper-log.h"

#include "jmem-text.h"

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

void
jmem_helper_log_action (const char *action,
                        gint64      caller_uid,
                        const char *result,
                        const char *detail)
{
  g_autofree char *uid = g_strdup_printf ("%" G_GINT64_FORMAT, caller_uid);
  g_autofree char *safe_action = jmem_text_escape (action);
  g_autofree char *safe_result = jmem_text_escape (result);
  g_autofree char *safe_detail = detail != NULL ? jmem_text_escape (detail) : NULL;

  g_log_structured (G_LOG_DOMAIN, G_LOG_LEVEL_MESSAGE,
                    "JMEM_ACTION", safe_action,
                    "JMEM_CALLER_UID", uid,
                    "JMEM_RESULT", safe_result,
                    "MESSAGE", "%s by uid %s: %s%s%s", safe_action, uid, safe_result,
                    safe_detail != NULL ? ": " : "", safe_detail != NULL ? safe_detail : "");
}
