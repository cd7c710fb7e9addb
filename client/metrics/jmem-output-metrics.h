/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A snapshot in the Prometheus text exposition format (version 0.0.4), for
 * node_exporter's textfile collector or any scraper. docs/metrics.md lists
 * every family. */
#pragma once

#include <glib.h>

#include "jmem-snapshot.h"
#include "jmem-triage-history.h"

G_BEGIN_DECLS

/* Per-process series by default: the largest processes plus every process
 * holding NvMap or GPU memory, so the series count stays bounded. */
#define JMEM_METRICS_DEFAULT_TOP 20

/* The most bytes of a label value (a process name, a container id, a
 * reason): longer ones are cut at a character boundary. */
#define JMEM_METRICS_MAX_LABEL_BYTES 256u

typedef struct {
  gboolean    board_only;  /* no per-process and per-container series: only
                            * what describes the whole board */
  int         top;         /* per-process series for the @top largest (>= 0) */
  const char *helper_via;  /* the NvMap source a live run would use
                            * ("helper", "debugfs", "sysroot") or NULL */
  /* --history: the history read, or why it could not be (the
   * projection's families are written when either is set) */
  const JmemTriageHistory *history;
  const char *history_error;
} JmemMetricsOptions;

/* Appends the metrics of @snapshot to @out. @snapshot must hold every
 * process (collected without --top) so container sums are complete. */
void jmem_output_metrics (const JmemSnapshot       *snapshot,
                          const JmemMetricsOptions *options,
                          GString                  *out);

/* @value escaped for a label: valid UTF-8, capped, escaped as the human
 * output escapes it (jmem_text_escape(): \n, \t, \xNN, \uNNNN), then
 * backslash and double quote written as \\ and \" for the exposition
 * format. NULL gives "". */
char *jmem_metrics_label_value (const char *value);

G_END_DECLS
