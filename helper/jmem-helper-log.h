/* The helper's audit trail: who asked for what, and what came of it. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Sends log records to the journal when stderr is connected to it (the
 * unit), to stderr otherwise (a bus without systemd, tests). */
void jmem_helper_log_init (void);

/* One structured record with JMEM_ACTION, JMEM_CALLER_UID (-1: unknown) and
 * JMEM_RESULT fields, and a MESSAGE that says the same for plain stderr.
 * Every string may hold a caller's text: each is escaped with
 * jmem_helper_log_escape() before it reaches a field. */
void jmem_helper_log_action (const char *action,
                             gint64      caller_uid,
                             const char *result,
                             const char *detail);

/* A copy of @text that fits on one log line and cannot pass for another
 * record: backslash, control characters (newline, CR, ESC, ...), C1
 * controls, format (bidi) characters, line and paragraph separators,
 * unassigned code points and bytes that are not UTF-8 are written as \\,
 * \n, \r, \t, \xNN or \u{NNNN}. */
char *jmem_helper_log_escape (const char *text);

G_END_DECLS
