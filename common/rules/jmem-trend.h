/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A robust trend of one series of (time, value) points: Theil–Sen's median
 * of pairwise slopes with Sen's rank interval (from Kendall's tau), on the
 * series binned to a bounded number of means so that weeks of samples cost
 * what a few hundred do. docs/watch.md says why and what it finds. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Bins a series is reduced to: Theil–Sen is O(bins²). */
#define JMEM_TREND_MAX_BINS 256

/* Below this the rank interval has no bounds at 95 %. */
#define JMEM_TREND_MIN_POINTS 5

/* z of the two-sided 95 % interval. */
#define JMEM_TREND_Z95 1.959964

typedef struct _JmemTrendSeries JmemTrendSeries;

JmemTrendSeries *jmem_trend_series_new (void);
void jmem_trend_series_free (JmemTrendSeries *series);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (JmemTrendSeries, jmem_trend_series_free)

/* Adds a point (time in seconds, any value), in time order. Memory stays
 * bounded: once JMEM_TREND_MAX_BINS bins are full, neighbours are merged
 * two by two and each later bin takes twice as many points. */
void jmem_trend_series_add (JmemTrendSeries *series, double t, double value);

/* Points added. */
guint jmem_trend_series_get_n_points (const JmemTrendSeries *series);

typedef struct {
  guint  n_points;     /* points added */
  guint  n_bins;       /* what the slope was fitted on */
  double t_first;      /* the window: first and last point's time */
  double t_last;
  double slope;        /* per second: Theil–Sen's median of pairwise slopes */
  double slope_low;    /* Sen's 95 % interval of the slope */
  double slope_high;
  double level_first;  /* the fitted line at t_first and t_last */
  double level_last;
  double noise;        /* robust sd of the points about the line (1.4826 MAD
                          of the bins' residuals, scaled back to points) */
  double half_slope[2];     /* the same fit on each half of the window */
  double half_slope_low[2];
  double half_slope_high[2];
} JmemTrend;

/* Fits @series; FALSE when it has fewer than JMEM_TREND_MIN_POINTS points,
 * or spans no time. */
gboolean jmem_trend_fit (const JmemTrendSeries *series, JmemTrend *trend);

/* The fitted value at @t. */
double jmem_trend_at (const JmemTrend *trend, double t);

typedef enum {
  JMEM_TREND_FLAT,     /* no trend the noise cannot explain */
  JMEM_TREND_RISING,
  JMEM_TREND_FALLING,
} JmemTrendDirection;

/* The verdict: RISING (FALLING) only when the 95 % interval of the slope
 * lies above (below) zero in the whole window and in each of its halves,
 * and each half's interval meets the whole window's: a single step
 * (one half flat, the other steep) or a cache that fills and is dropped (no
 * half steady) is never a trend; and only when the fitted change over the
 * window is at least @min_change and @min_percent of the fitted level at its
 * start. */
JmemTrendDirection jmem_trend_direction (const JmemTrend *trend,
                                         double           min_change,
                                         guint            min_percent);

/* A projection needs this many points over this long a window. */
#define JMEM_TREND_PROJECTION_MIN_POINTS 24
#define JMEM_TREND_PROJECTION_MIN_SECONDS (6 * 3600)

typedef struct {
  double seconds;       /* from the last point until the fitted line reaches the target */
  double seconds_low;   /* at the interval's steepest slope */
  double seconds_high;  /* at its shallowest; INFINITY when that does not fall */
  double at_unix;       /* t_last + seconds */
} JmemProjection;

/* When a FALLING @trend reaches @target: FALSE, with *@missing set to a
 * sentence (g_free) saying why, when it has too few points, too short a
 * window, or does not fall; a trend already at or below @target projects 0. */
gboolean jmem_trend_project (const JmemTrend *trend,
                             JmemTrendDirection direction,
                             double           target,
                             JmemProjection  *projection,
                             char           **missing);

G_END_DECLS
