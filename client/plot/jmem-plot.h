/* SPDX-License-Identifier: GPL-2.0-or-later */
/* jmem plot: a jmem watch history drawn with cairo as PNG or SVG, for a bug
 * report: per-process memory over time, the accounting and the headroom
 * when the samples carry them, and the triage --history findings marked on
 * the series they are about. docs/watch.md describes the picture. */
#pragma once

#include <glib.h>

#include "jmem-frame.h"

G_BEGIN_DECLS

typedef enum {
  JMEM_PLOT_FOOTPRINT,
  JMEM_PLOT_NVMAP,
  JMEM_PLOT_PSS,
  JMEM_PLOT_GPU,
  JMEM_PLOT_N_METRICS,
} JmemPlotMetric;

typedef enum {
  JMEM_PLOT_PNG,
  JMEM_PLOT_SVG,
} JmemPlotFormat;

#define JMEM_PLOT_DEFAULT_TOP 8
#define JMEM_PLOT_DEFAULT_WIDTH 1280
#define JMEM_PLOT_DEFAULT_HEIGHT 800
#define JMEM_PLOT_MIN_SIZE 320
#define JMEM_PLOT_MAX_SIZE 8192

/* The samples to draw, taken one at a time as a history is read and
 * thinned past the picture's width (jmem-plot-thin.h): a history of any
 * length costs memory per process drawn, not per line. */
typedef struct _JmemPlotSamples JmemPlotSamples;

/* @width: the picture's, in pixels; @metric_set and @metric as in
 * JmemPlotOptions, for the series to gather. */
JmemPlotSamples *jmem_plot_samples_new (guint          width,
                                        gboolean       metric_set,
                                        JmemPlotMetric metric);
/* The next sample in time. */
void jmem_plot_samples_add (JmemPlotSamples *samples,
                            const JmemFrame *frame);
guint64 jmem_plot_samples_get_n (const JmemPlotSamples *samples);
/* The time of the last sample added. */
gint64 jmem_plot_samples_get_last_time (const JmemPlotSamples *samples);
void jmem_plot_samples_free (JmemPlotSamples *samples);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (JmemPlotSamples, jmem_plot_samples_free)

/* The trend of the allocatable memory after reclaim and where it leads
 * (jmem_triage_history_project()): the fitted line over the window, and
 * its projection past the last sample, drawn on the headroom's panel. */
typedef struct {
  gboolean fitted;      /* a line was fitted: t0..t1, level0..level1 */
  gint64   t0, t1;
  double   level0, level1;
  gboolean projected;   /* it reaches @target_kib at @t_end */
  gint64   t_end;
  double   target_kib;
  char    *text;        /* the projection's sentence, or what is missing */
} JmemPlotProjection;

typedef struct {
  JmemPlotSamples *samples;    /* at least one; emptied by jmem_plot_render() */
  const JmemPlotProjection *projection;  /* NULL: none */
  GPtrArray      *findings;    /* JmemFinding of triage --history over them; NULL: none */
  gboolean        metric_set;  /* FALSE: footprint, and NvMap below it */
  JmemPlotMetric  metric;
  guint           top;         /* series per panel */
  GArray         *pids;        /* gint64: only these processes; NULL: the largest */
  guint           width;
  guint           height;
  JmemPlotFormat  format;
} JmemPlotOptions;

/* "footprint", "nvmap", "pss", "gpu"; FALSE for anything else. */
gboolean jmem_plot_metric_from_string (const char     *text,
                                       JmemPlotMetric *metric);
const char *jmem_plot_metric_to_string (JmemPlotMetric metric);

/* A time for --since and --until: ISO 8601 ("2025-12-06T05:50:00", local
 * time unless it names a zone; "2025-12-06 05:50" too), "@SECONDS" since
 * the epoch, or "-DURATION" before @end (the history's last sample): "-90s",
 * "-30m", "-2h", "-1d". FALSE with a message in @error otherwise. */
gboolean jmem_plot_parse_time (const char *text,
                               gint64      end,
                               gint64     *unix_s,
                               GError    **error);

/* The picture, encoded; @report gets a line per series drawn ("nvmap: PID
 * 1234 (name) container ..., annotated +12.0 MiB/h nvmap-growing"), for the
 * command to print. NULL with @error when cairo fails. */
GBytes *jmem_plot_render (const JmemPlotOptions *options,
                          GString               *report,
                          GError               **error);

G_END_DECLS
