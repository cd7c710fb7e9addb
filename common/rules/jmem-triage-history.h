/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Triage over time: rules on a history (jmem watch's JSON Lines) that no
 * single snapshot can show. docs/watch.md and docs/triage.md explain them. */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* nvmap-growing / pss-growing (and unexplained-growing / slab-growing on the
 * board's own series from the accounting): a PID whose size rose in at least 80 % of the
 * intervals between the samples it appears in, by at least 64 MiB and 10 %
 * of its first size over the window. 80 % rather than every interval lets a
 * leak's occasional free pass; the absolute floor ignores warm-up growth of
 * small processes, the relative one a large steady process's jitter. Three
 * samples at least: two intervals, so one step is never a trend. */
#define JMEM_TRIAGE_GROWING_INTERVALS_PERCENT 80
#define JMEM_TRIAGE_GROWING_MIN_KIB (64 * 1024)
#define JMEM_TRIAGE_GROWING_MIN_PERCENT 10
#define JMEM_TRIAGE_GROWING_MIN_SAMPLES 3

/* nvmap-orphaned: NvMap rows of a PID with no /proc entry in at least 3
 * consecutive samples up to the last one: not a process caught exiting
 * between two reads, but memory nobody will free (a container teardown). */
#define JMEM_TRIAGE_ORPHANED_MIN_SAMPLES 3

typedef struct _JmemTriageHistory JmemTriageHistory;

JmemTriageHistory *jmem_triage_history_new (void);
void jmem_triage_history_free (JmemTriageHistory *history);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (JmemTriageHistory, jmem_triage_history_free)

/* Takes what the rules need from one checked snapshot document (the next
 * sample in time); @snapshot is not kept. */
void jmem_triage_history_add (JmemTriageHistory *history,
                              JsonNode          *snapshot);

guint jmem_triage_history_get_n_samples (const JmemTriageHistory *history);

/* The findings (JmemFinding, jmem-triage.h) of the rules over time, largest
 * growth first within a rule; empty when nothing fired. */
GPtrArray *jmem_triage_history_run (const JmemTriageHistory *history);

G_END_DECLS
