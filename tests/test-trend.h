/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Generated series whose truth is known, for the trend's tests and the
 * noise table (tests/bench/trend-noise-table): a straight line plus
 * Gaussian noise of a given standard deviation from a seeded GRand, and the
 * shapes that are no trend (a step, a sawtooth). */
#pragma once

#include <glib.h>
#include <math.h>

#include "jmem-trend.h"
#include "jmem-triage-history.h"

#define TREND_MIB 1024.0   /* values are KiB, as the history's */

typedef enum {
  SHAPE_LINE,      /* base + slope * t */
  SHAPE_STEP,      /* base, then base + size from step_at on */
  SHAPE_SAWTOOTH,  /* rises by size over each period, then drops back */
} Shape;

typedef struct {
  Shape   shape;
  double  base_kib;
  double  slope_kib_per_hour;  /* SHAPE_LINE */
  double  size_kib;            /* SHAPE_STEP, SHAPE_SAWTOOTH */
  double  period_s;            /* SHAPE_SAWTOOTH */
  double  step_at;             /* SHAPE_STEP: fraction of the window */
  double  noise_sd_kib;        /* Gaussian */
  double  outliers;            /* fraction of points moved by outlier_kib */
  double  outlier_kib;
  double  window_s;
  double  interval_s;
  guint32 seed;
} Generated;

/* A standard normal draw (Box–Muller). */
static inline double
trend_gauss (GRand *rand)
{
  double u = g_rand_double_range (rand, 1e-12, 1.0), v = g_rand_double (rand);

  return sqrt (-2.0 * log (u)) * cos (2 * G_PI * v);
}

/* The value of @g at @t, noise included. */
static inline double
trend_generated_value (const Generated *g, GRand *rand, double t)
{
  double v = g->base_kib;

  switch (g->shape)
    {
    case SHAPE_LINE:
      v += g->slope_kib_per_hour * t / 3600;
      break;
    case SHAPE_STEP:
      v += t >= g->step_at * g->window_s ? g->size_kib : 0;
      break;
    case SHAPE_SAWTOOTH:
      v += g->size_kib * fmod (t, g->period_s) / g->period_s;
      break;
    }
  v += g->noise_sd_kib * trend_gauss (rand);
  if (g->outliers > 0 && g_rand_double (rand) < g->outliers)
    v += g->outlier_kib;
  return v;
}

/* The series of @g from t0 = 1.78e9 s (a time in 2026). */
static inline JmemTrendSeries *
trend_generate (const Generated *g)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (g->seed);
  JmemTrendSeries *s = jmem_trend_series_new ();

  for (double t = 0; t <= g->window_s; t += g->interval_s)
    jmem_trend_series_add (s, 1.78e9 + t, trend_generated_value (g, rand, t));
  return s;
}

/* The verdict on @g with the growing rules' floors (jmem-triage-history.h). */
static inline JmemTrendDirection
trend_generated_direction (const Generated *g, JmemTrend *trend)
{
  g_autoptr(JmemTrendSeries) s = trend_generate (g);

  if (!jmem_trend_fit (s, trend))
    return JMEM_TREND_FLAT;
  return jmem_trend_direction (trend, JMEM_TRIAGE_GROWING_MIN_KIB, JMEM_TRIAGE_GROWING_MIN_PERCENT);
}
