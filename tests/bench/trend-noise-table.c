/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The noise table of docs/watch.md: the smallest leak the growing rules
 * find (common/jmem-trend.c with the floors of jmem-triage-history.h) at
 * each noise level over 6 h, 24 h and 7 days of 5 s samples (jmem watch's
 * default interval) and of half-hourly ones, and how often the same noise
 * with no leak fires.
 *
 * Series (tests/test-trend.h): 1 GiB plus a steady rise, plus Gaussian
 * noise of the given standard deviation, independent sample to sample.
 * "Found" means found in at least 9 of 10 seeds; the smallest such rise is
 * searched by bisection to 1 %. Then the cost of a month of 5 s samples:
 * adding 518,401 points to 25 series (NvMap, GPU and PSS of the top
 * processes, the board's) and fitting each.
 *
 * Run: meson compile -C BUILD bench-trend (or BUILD/tests/bench/trend-noise-table). */
#include <stdio.h>

#include "test-trend.h"

#define HOUR 3600.0
#define SEEDS 10

static guint
found_of (double slope_mib, double noise_mib, double window_s, double interval_s)
{
  guint found = 0;

  for (guint32 seed = 1; seed <= SEEDS; seed++)
    {
      Generated g = {
        .shape = SHAPE_LINE, .base_kib = 1024 * TREND_MIB, .slope_kib_per_hour = slope_mib * TREND_MIB,
        .noise_sd_kib = noise_mib * TREND_MIB, .window_s = window_s, .interval_s = interval_s, .seed = seed * 7919,
      };
      JmemTrend t;

      if (trend_generated_direction (&g, &t) == JMEM_TREND_RISING)
        found++;
    }
  return found;
}

/* The smallest rise in MiB an hour found in 9 of 10 seeds. */
static double
smallest (double noise_mib, double window_s, double interval_s)
{
  double low = 0, high = 4096;

  while (high - low > high * 0.01)
    {
      double mid = (low + high) / 2;

      if (found_of (mid, noise_mib, window_s, interval_s) >= SEEDS - 1)
        high = mid;
      else
        low = mid;
    }
  return high;
}

static void
table (double interval_s)
{
  static const double noise[] = { 0, 10, 40, 160, 640 };
  static const struct { const char *name; double s; } windows[] = {
    { "6 h", 6 * HOUR }, { "24 h", 24 * HOUR }, { "7 days", 7 * 24 * HOUR },
  };

  printf ("\nA sample every %.0f s:\n\n| noise (sd) |", interval_s);
  for (guint w = 0; w < G_N_ELEMENTS (windows); w++)
    printf (" %s |", windows[w].name);
  printf ("\n|---|");
  for (guint w = 0; w < G_N_ELEMENTS (windows); w++)
    printf ("---|");
  printf ("\n");
  for (guint n = 0; n < G_N_ELEMENTS (noise); n++)
    {
      printf ("| %.0f MiB |", noise[n]);
      for (guint w = 0; w < G_N_ELEMENTS (windows); w++)
        printf (" %.2f MiB/h (no leak: %u/%u fired) |", smallest (noise[n], windows[w].s, interval_s),
                found_of (0, noise[n], windows[w].s, interval_s), SEEDS);
      printf ("\n");
      fflush (stdout);
    }
}

int
main (void)
{
  gint64 start;

  table (5);
  table (1800);
  start = g_get_monotonic_time ();
  {
    JmemTrendSeries *series[25];
    g_autoptr(GRand) rand = g_rand_new_with_seed (1);
    guint rising = 0;

    for (guint i = 0; i < G_N_ELEMENTS (series); i++)
      series[i] = jmem_trend_series_new ();
    for (guint k = 0; k <= 30 * 24 * 720; k++)
      for (guint i = 0; i < G_N_ELEMENTS (series); i++)
        jmem_trend_series_add (series[i], 1.78e9 + 5.0 * k,
                               1024 * TREND_MIB + i * 0.5 * TREND_MIB * k / 720 +
                               40 * TREND_MIB * trend_gauss (rand));
    printf ("\nA month of 5 s samples, 25 series: added in %.0f ms", (g_get_monotonic_time () - start) / 1000.0);
    start = g_get_monotonic_time ();
    for (guint i = 0; i < G_N_ELEMENTS (series); i++)
      {
        JmemTrend t;

        if (jmem_trend_fit (series[i], &t) &&
            jmem_trend_direction (&t, JMEM_TRIAGE_GROWING_MIN_KIB, JMEM_TRIAGE_GROWING_MIN_PERCENT) ==
              JMEM_TREND_RISING)
          rising++;
        jmem_trend_series_free (series[i]);
      }
    printf (" (Gaussian draws included), fitted in %.1f ms; %u of 24 rising series found.\n",
            (g_get_monotonic_time () - start) / 1000.0, rising);
  }
  return 0;
}
