/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Triage over time: rules on a history (jmem watch's JSON Lines) that no
 * single snapshot can show. docs/watch.md and docs/triage.md explain them. */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

#include "jmem-trend.h"

G_BEGIN_DECLS

/* nvmap-growing / gpu-growing / pss-growing (and unexplained-growing /
 * slab-growing on the board's own series from the accounting): a series
 * whose robust trend rises (jmem-trend.h: Theil–Sen's slope, its 95 %
 * interval above zero in the whole window and in each half, one line
 * fitting both) by at least 64 MiB and 5 % of its fitted first level over
 * the window. The absolute floor ignores warm-up growth of small processes,
 * the relative one a large steady process's drift; the interval, not a count
 * of rising steps, keeps noise from hiding a leak or inventing one. Ten
 * samples at least: five in each half, the fewest Sen's interval bounds. */
#define JMEM_TRIAGE_GROWING_MIN_KIB (64 * 1024)
#define JMEM_TRIAGE_GROWING_MIN_PERCENT 5
#define JMEM_TRIAGE_GROWING_MIN_SAMPLES 10

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

/* Every member jmem_triage_history_add() reads, as paths
 * (jmem-json-paths.h); NULL-terminated. A reader that builds only these
 * gives the rules the same samples. */
extern const char *const jmem_triage_history_members[];

/* Every sample of the history file @path, read as jmem_history_read()
 * reads it (its warnings and errors), building only
 * jmem_triage_history_members of each line. */
JmemTriageHistory *jmem_triage_history_read (const char *path,
                                             GPtrArray  *warnings,
                                             GError    **error);

/* The projection runs to @need_kib (jmem triage --history --need) rather
 * than to zero. */
void jmem_triage_history_set_need (JmemTriageHistory *history,
                                   gint64             need_kib);

/* The one projection every face shows: the trend of the memory allocatable
 * after reclaim (headroom.allocatable_after_reclaim_kib) and when it
 * reaches the need (or zero). FALSE with *@missing (g_free) saying what is
 * missing (samples, window, a fall); @trend is filled whenever it could be
 * fitted (n_points 0 otherwise). */
gboolean jmem_triage_history_project (const JmemTriageHistory *history,
                                      JmemTrend               *trend,
                                      JmemProjection          *projection,
                                      char                   **missing);

/* The projection in a sentence for jmem summary and the end of jmem top's
 * replay ("Projection: out of memory in 15.1 days (95 % range 14.2 to
 * 16.0), about 2026-12-21 10:00 UTC, ..."; "No projection: <what is
 * missing>."), or @brief for a header ("out of memory in 15.1 d (14.2-16.0,
 * projected)"; NULL when there is none). */
char *jmem_triage_history_projection_text (const JmemTriageHistory *history,
                                           gboolean                 brief);

/* The findings (JmemFinding, jmem-triage.h) of the rules over time: the
 * projection first, then the steepest growth first within a rule; empty
 * when nothing fired. */
GPtrArray *jmem_triage_history_run (const JmemTriageHistory *history);

G_END_DECLS
