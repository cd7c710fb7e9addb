/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The axes of jmem plot: ticks on local time and on binary sizes. Pure
 * arithmetic, tested on its own. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct {
  gint64 *ticks;     /* unix seconds, inside [from, to] */
  guint   n_ticks;
  char   *format;    /* g_date_time_format() of a tick's label */
  gint64  step_s;
} JmemPlotTimeAxis;

/* Ticks at whole local-time steps (1 s … 1 week, the smallest giving at
 * most @max_ticks), labelled "%H:%M:%S" below a minute's step, "%H:%M"
 * within a day, "%m-%d %H:%M" across days, "%Y-%m-%d" from a day's step. */
void jmem_plot_time_axis (JmemPlotTimeAxis *axis,
                          gint64            from,
                          gint64            to,
                          guint             max_ticks);
void jmem_plot_time_axis_clear (JmemPlotTimeAxis *axis);

typedef struct {
  double  top_kib;   /* the axis's end: a whole number of steps >= the largest value */
  double  step_kib;
  guint   n_steps;
  double  unit_kib;  /* 1, 1024, 1024², 1024³ */
  const char *unit;  /* "KiB", "MiB", "GiB", "TiB" */
} JmemPlotSizeAxis;

/* Steps of 1, 2, 2.5 or 5 times a power of ten of the binary unit that
 * keeps @max_kib under 1024 of it, at most @max_steps of them. */
void jmem_plot_size_axis (JmemPlotSizeAxis *axis,
                          double            max_kib,
                          guint             max_steps);

/* A tick's label: "512 MiB", "2.5 GiB". */
char *jmem_plot_size_label (const JmemPlotSizeAxis *axis,
                            double                  kib);

/* A slope for people: "+12.3 MiB/h". */
char *jmem_plot_slope_text (double kib_per_hour);

G_END_DECLS
