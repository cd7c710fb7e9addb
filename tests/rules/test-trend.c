/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The trend (common/jmem-trend.c) on generated series whose truth is known
 * (test-trend.h: a line plus Gaussian noise of a given standard deviation,
 * seeded): a rise of a few MiB an hour under noise many times each step is
 * found and its interval holds the truth; the same noise without a rise, a
 * single step and a sawtooth are no trend; outliers do not move it; a month
 * of 5 s samples stays in bounded bins; the projection's minimums. */
#include <math.h>

#include "jmem-test.h"
#include "test-trend.h"

#define HOUR 3600.0
#define DAY (24 * HOUR)

static Generated
line (double mib_per_hour, double noise_mib, double window_s, double interval_s, guint32 seed)
{
  return (Generated) {
    .shape = SHAPE_LINE, .base_kib = 1024 * TREND_MIB, .slope_kib_per_hour = mib_per_hour * TREND_MIB,
    .noise_sd_kib = noise_mib * TREND_MIB, .window_s = window_s, .interval_s = interval_s, .seed = seed,
  };
}

/* The board: a remainder rising 10 MiB an hour under noise of
 * ±40 MiB sample to sample (a standard deviation of 20 MiB), sampled every
 * half hour for 48 hours; and 3 MiB an hour over a day of 60 s samples. */
static void
test_rise_under_noise (void)
{
  struct { double slope, noise, window, interval; } cases[] = {
    { 10, 20, 2 * DAY, 1800 },
    { 3, 20, DAY, 60 },
    { 2, 40, 7 * DAY, 300 },
  };

  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    for (guint32 seed = 1; seed <= 10; seed++)
      {
        Generated g = line (cases[c].slope, cases[c].noise, cases[c].window, cases[c].interval, seed);
        JmemTrend t;

        if (trend_generated_direction (&g, &t) != JMEM_TREND_RISING)
          g_error ("case %u seed %u: %.2f MiB/h [%.2f, %.2f] not found", c, seed,
                   t.slope * HOUR / TREND_MIB, t.slope_low * HOUR / TREND_MIB,
                   t.slope_high * HOUR / TREND_MIB);
        /* the step between two samples is a small part of the noise */
        g_assert_cmpfloat (cases[c].slope * cases[c].interval / HOUR, <, cases[c].noise / 2);
        g_assert_cmpfloat_with_epsilon (t.slope * HOUR / TREND_MIB, cases[c].slope, cases[c].slope * 0.2);
        g_assert_cmpfloat_with_epsilon (t.noise / TREND_MIB, cases[c].noise, cases[c].noise * 0.25);
      }
}

/* Sen's interval is a 95 % interval: over 100 seeds it holds the true slope
 * in about 95 of them (90 at least, given the bins' spread). */
static void
test_interval_covers_truth (void)
{
  guint covered = 0;

  for (guint32 seed = 1; seed <= 100; seed++)
    {
      Generated g = line (5, 30, DAY, 120, seed);
      g_autoptr(JmemTrendSeries) s = trend_generate (&g);
      JmemTrend t;

      g_assert_true (jmem_trend_fit (s, &t));
      if (t.slope_low * HOUR <= 5 * TREND_MIB && 5 * TREND_MIB <= t.slope_high * HOUR)
        covered++;
    }
  g_test_message ("the interval held the truth for %u of 100 seeds", covered);
  g_assert_cmpuint (covered, >=, 90);
}

/* What is no trend: the same noise alone, a model loaded once (a step of
 * 512 MiB) and a cache filled and dropped (a sawtooth of 400 MiB to 1 GiB),
 * each over several seeds and placings. */
static void
test_no_trend (void)
{
  for (guint32 seed = 1; seed <= 20; seed++)
    {
      Generated flat = line (0, 40, DAY, 5 + seed, seed);
      Generated step = {
        .shape = SHAPE_STEP, .base_kib = 1024 * TREND_MIB, .size_kib = 512 * TREND_MIB,
        .step_at = 0.05 * seed - 0.02, .noise_sd_kib = 20 * TREND_MIB, .window_s = DAY,
        .interval_s = 60, .seed = seed,
      };
      Generated saw = {
        .shape = SHAPE_SAWTOOTH, .base_kib = 1024 * TREND_MIB,
        .size_kib = (400 + 30 * seed) * TREND_MIB, .period_s = (1 + seed % 7) * 1.5 * HOUR,
        .noise_sd_kib = 20 * TREND_MIB, .window_s = 2 * DAY, .interval_s = 60, .seed = seed,
      };
      JmemTrend t;

      g_assert_cmpint (trend_generated_direction (&flat, &t), ==, JMEM_TREND_FLAT);
      if (trend_generated_direction (&step, &t) != JMEM_TREND_FLAT)
        g_error ("a step at %.2f of the window read as a trend of %.1f MiB/h", step.step_at,
                 t.slope * HOUR / TREND_MIB);
      if (trend_generated_direction (&saw, &t) != JMEM_TREND_FLAT)
        g_error ("a sawtooth of %.0f MiB every %.1f h read as a trend of %.1f MiB/h",
                 saw.size_kib / TREND_MIB, saw.period_s / HOUR, t.slope * HOUR / TREND_MIB);
    }
}

/* One sample in twenty 2 GiB off (a burst of buffers caught mid-flight):
 * the median of slopes does not follow them. */
static void
test_outliers (void)
{
  for (guint32 seed = 1; seed <= 10; seed++)
    {
      Generated g = line (10, 20, 2 * DAY, 60, seed);
      JmemTrend t;

      g.outliers = 0.05;
      g.outlier_kib = (seed % 2 ? 2048 : -2048) * TREND_MIB;
      g_assert_cmpint (trend_generated_direction (&g, &t), ==, JMEM_TREND_RISING);
      g_assert_cmpfloat_with_epsilon (t.slope * HOUR / TREND_MIB, 10, 1.5);
    }
}

/* A month of 5 s samples (518,401 points) is fitted on at most
 * JMEM_TREND_MAX_BINS bins, its window and count whole. */
static void
test_month_bounded (void)
{
  Generated g = line (-2, 40, 30 * DAY, 5, 7);
  JmemTrend t;

  g.base_kib = 4096 * TREND_MIB;
  g_assert_cmpint (trend_generated_direction (&g, &t), ==, JMEM_TREND_FALLING);
  g_assert_cmpuint (t.n_points, ==, 518401);
  g_assert_cmpuint (t.n_bins, <=, JMEM_TREND_MAX_BINS);
  g_assert_cmpfloat (t.t_last - t.t_first, ==, 30 * DAY);
  g_assert_cmpfloat_with_epsilon (t.slope * HOUR / TREND_MIB, -2, 0.05);
}

/* The projection: 4 GiB falling 10 MiB an hour reaches zero 409.6 h after
 * the start, and its range holds that; the need moves it; too few samples,
 * too short a window or no fall give no projection and say why. */
static void
test_projection (void)
{
  Generated g = line (-10, 20, 2 * DAY, 1800, 3);
  g_autoptr(JmemTrendSeries) s = NULL;
  JmemTrend t;
  JmemProjection p;
  g_autofree char *missing = NULL;
  double truth = (4096.0 / 10 - 48) * HOUR;

  g.base_kib = 4096 * TREND_MIB;
  g_assert_cmpint (trend_generated_direction (&g, &t), ==, JMEM_TREND_FALLING);
  g_assert_true (jmem_trend_project (&t, JMEM_TREND_FALLING, 0, &p, &missing));
  g_assert_null (missing);
  g_assert_cmpfloat (p.seconds_low, <=, truth);
  g_assert_cmpfloat (truth, <=, p.seconds_high);
  g_assert_cmpfloat_with_epsilon (p.seconds, truth, truth * 0.1);
  g_assert_cmpfloat (p.at_unix, ==, t.t_last + p.seconds);
  /* 1 GiB needed: 102.4 h sooner */
  g_assert_true (jmem_trend_project (&t, JMEM_TREND_FALLING, 1024 * TREND_MIB, &p, &missing));
  g_assert_cmpfloat_with_epsilon (p.seconds, truth - 102.4 * HOUR, truth * 0.1);

  /* 23 samples */
  g = line (-10, 20, 23 * 1800 - 1, 1800, 3);
  s = trend_generate (&g);
  g_assert_true (jmem_trend_fit (s, &t));
  g_assert_false (jmem_trend_project (&t, JMEM_TREND_FALLING, 0, &p, &missing));
  g_assert_cmpstr (missing, ==, "23 samples, where a projection needs 24 at least");
  g_clear_pointer (&missing, g_free);
  g_clear_pointer (&s, jmem_trend_series_free);
  /* 5 h of minutes */
  g = line (-10, 20, 5 * HOUR, 60, 3);
  s = trend_generate (&g);
  g_assert_true (jmem_trend_fit (s, &t));
  g_assert_false (jmem_trend_project (&t, JMEM_TREND_FALLING, 0, &p, &missing));
  g_assert_cmpstr (missing, ==, "a window of 5.0 h, where a projection needs 6 h at least");
  g_clear_pointer (&missing, g_free);
  /* flat */
  g = line (0, 20, 2 * DAY, 1800, 3);
  g_assert_cmpint (trend_generated_direction (&g, &t), ==, JMEM_TREND_FLAT);
  g_assert_false (jmem_trend_project (&t, JMEM_TREND_FLAT, 0, &p, &missing));
  g_assert_cmpstr (missing, ==, "no fall the noise cannot explain");
}

/* Too few points, no time, values that are no numbers. */
static void
test_degenerate (void)
{
  g_autoptr(JmemTrendSeries) s = jmem_trend_series_new ();
  JmemTrend t;

  for (guint i = 0; i < 4; i++)
    jmem_trend_series_add (s, 100 + i, i);
  g_assert_false (jmem_trend_fit (s, &t));
  jmem_trend_series_add (s, NAN, 1);
  jmem_trend_series_add (s, 200, INFINITY);
  g_assert_cmpuint (jmem_trend_series_get_n_points (s), ==, 4);
  g_clear_pointer (&s, jmem_trend_series_free);
  s = jmem_trend_series_new ();
  for (guint i = 0; i < 10; i++)
    jmem_trend_series_add (s, 100, i);
  g_assert_false (jmem_trend_fit (s, &t));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/trend/rise-under-noise", test_rise_under_noise);
  g_test_add_func ("/trend/interval-covers-truth", test_interval_covers_truth);
  g_test_add_func ("/trend/no-trend", test_no_trend);
  g_test_add_func ("/trend/outliers", test_outliers);
  g_test_add_func ("/trend/month-bounded", test_month_bounded);
  g_test_add_func ("/trend/projection", test_projection);
  g_test_add_func ("/trend/degenerate", test_degenerate);
  return g_test_run ();
}
