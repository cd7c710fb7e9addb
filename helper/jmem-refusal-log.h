/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Log lines for refused calls, bounded per caller: a caller refused in a
 * loop would otherwise write thousands of lines a second, and journald's
 * rate limit, which counts every line of the service, would then drop the
 * helper's audit lines with them. A uid's first refusal is logged at once,
 * the next ones in the same interval are counted, and one line says how
 * many there were when the interval ends. The answers of authorized calls
 * are counted the same way, in a log of their own; the audit lines of what
 * changes the system (a cache drop carried out, jmem_helper_log_action())
 * never pass through here. Not thread-safe: the gate's is used on the main
 * context, the methods' under a lock. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define JMEM_REFUSAL_LOG_INTERVAL_S 10

typedef struct _JmemRefusalLog JmemRefusalLog;

/* Counts refused calls: its summary lines read "refused calls by uid U:
 * summary: N more refused in S s (...)". */
JmemRefusalLog *jmem_refusal_log_new (gint64 interval_us);

/* The same for calls that are @what ("answered"): "@what calls by uid U:
 * summary: N more @what in S s (ok 1200, rate-limited 119); the last: ...". */
JmemRefusalLog *jmem_refusal_log_new_for (gint64      interval_us,
                                          const char *what);

/* Writes what is still counted, then frees. */
void jmem_refusal_log_free (JmemRefusalLog *log);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (JmemRefusalLog, jmem_refusal_log_free)

/* A call of @action by @uid (-1: not known yet) refused (or answered) at
 * @now_us (monotonic) with @result ("denied", "rate-limited", "ok", ...) and @detail
 * (nullable): logged at once, or counted. */
void jmem_refusal_log_add (JmemRefusalLog *log,
                           gint64          now_us,
                           const char     *action,
                           gint64          uid,
                           const char     *result,
                           const char     *detail);

/* Writes one line for each uid whose interval has ended at @now_us with
 * refusals counted, and forgets the uids that were quiet. Returns when the
 * next interval ends, or 0 when no uid is counted any more: call it again
 * then. */
gint64 jmem_refusal_log_flush (JmemRefusalLog *log,
                               gint64          now_us);

G_END_DECLS
