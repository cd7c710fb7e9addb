/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Log lines for refused calls, bounded per caller: a caller refused in a
 * loop would otherwise write thousands of lines a second, and journald's
 * rate limit, which counts every line of the service, would then drop the
 * helper's audit lines with them. A uid's first refusal is logged at once,
 * the next ones in the same interval are counted, and one line says how
 * many there were when the interval ends. Audit lines (the calls carried
 * out, jmem_helper_log_action()) never pass through here. Main context
 * only. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define JMEM_REFUSAL_LOG_INTERVAL_S 10

typedef struct _JmemRefusalLog JmemRefusalLog;

JmemRefusalLog *jmem_refusal_log_new (gint64 interval_us);

/* Writes what is still counted, then frees. */
void jmem_refusal_log_free (JmemRefusalLog *log);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (JmemRefusalLog, jmem_refusal_log_free)

/* A call of @action by @uid (-1: not known yet) refused at @now_us
 * (monotonic) with @result ("denied", "rate-limited", ...) and @detail
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
