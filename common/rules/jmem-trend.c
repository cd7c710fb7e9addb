/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Theil–Sen on a binned series. The median of pairwise slopes ignores up to
 * 29 % of wild points (a buffer burst, a sample taken mid-reclaim), needs no
 * model of the noise, and Sen's interval (the ranks of Kendall's S) gives
 * its 95 % range from the same sorted slopes. Means of bins rather than
 * every point keep it O(bins²) whatever the history's length, and average
 * the sample-to-sample noise down before the slopes are taken. */
#include "jmem-trend.h"

#include <math.h>

typedef struct {
  double t_sum;
  double v_sum;
  guint  n;
} Bin;

struct _JmemTrendSeries {
  Bin    bins[JMEM_TREND_MAX_BINS];
  guint  n_bins;
  guint  width;     /* points a bin takes before the next one starts */
  guint  n_points;
  double t_first;
  double t_last;
};

JmemTrendSeries *
jmem_trend_series_new (void)
{
  JmemTrendSeries *s = g_new0 (JmemTrendSeries, 1);

  s->width = 1;
  return s;
}

void
jmem_trend_series_free (JmemTrendSeries *s)
{
  g_free (s);
}

guint
jmem_trend_series_get_n_points (const JmemTrendSeries *s)
{
  return s->n_points;
}

/* Halves the number of bins by merging neighbours: each keeps the sums, so
 * nothing of the points is lost but their spread within a bin. */
static void
series_merge (JmemTrendSeries *s)
{
  guint j = 0;

  for (guint i = 0; i + 1 < s->n_bins; i += 2, j++)
    {
      s->bins[j].t_sum = s->bins[i].t_sum + s->bins[i + 1].t_sum;
      s->bins[j].v_sum = s->bins[i].v_sum + s->bins[i + 1].v_sum;
      s->bins[j].n = s->bins[i].n + s->bins[i + 1].n;
    }
  if (s->n_bins % 2 == 1)
    s->bins[j++] = s->bins[s->n_bins - 1];
  s->n_bins = j;
  s->width *= 2;
}

void
jmem_trend_series_add (JmemTrendSeries *s, double t, double value)
{
  Bin *b;

  if (!isfinite (t) || !isfinite (value))
    return;
  if (s->n_points == 0)
    s->t_first = t;
  s->t_last = t;
  s->n_points++;
  /* times relative to the first point: seconds since 1970 squared lose
   * the precision a slope needs */
  t -= s->t_first;
  if (s->n_bins == 0 || s->bins[s->n_bins - 1].n >= s->width)
    {
      if (s->n_bins == JMEM_TREND_MAX_BINS)
        series_merge (s);
      if (s->n_bins == 0 || s->bins[s->n_bins - 1].n >= s->width)
        s->bins[s->n_bins++] = (Bin) { 0 };
    }
  b = &s->bins[s->n_bins - 1];
  b->t_sum += t;
  b->v_sum += value;
  b->n++;
}

/* Puts the @k-th smallest of @a[0..@n) at @a[k], the smaller ones before
 * it and the others after (Hoare's selection): O(n) on average, where the
 * three order statistics a fit needs would cost a sort. */
static double
select_kth (double *a, guint n, guint k)
{
  guint lo = 0, hi = n - 1;

  while (lo < hi)
    {
      double pivot = a[lo + (hi - lo) / 2];
      guint i = lo, j = hi;

      while (i <= j)
        {
          while (a[i] < pivot)
            i++;
          while (a[j] > pivot)
            j--;
          if (i <= j)
            {
              double x = a[i];

              a[i] = a[j];
              a[j] = x;
              i++;
              if (j == 0)
                break;
              j--;
            }
        }
      if (k <= j)
        hi = j;
      else if (k >= i)
        lo = i;
      else
        break;
    }
  return a[k];
}

static double
median (double *a, guint n)
{
  double upper = select_kth (a, n, n / 2);
  double lower;

  if (n % 2 == 1)
    return upper;
  /* the lower middle is the largest of those before it */
  lower = a[0];
  for (guint i = 1; i < n / 2; i++)
    lower = MAX (lower, a[i]);
  return (lower + upper) / 2;
}

/* How much the residuals about the line follow each other: the lag-1
 * autocorrelation, 0 when they are independent (the noise the interval
 * assumes), near 1 for a shape the line does not follow (a sawtooth). */
static double
residual_autocorrelation (const double *t, const double *v, guint n, double slope)
{
  g_autofree double *r = g_new (double, n);
  double level, num = 0, den = 0;

  for (guint i = 0; i < n; i++)
    r[i] = v[i] - slope * t[i];
  level = median (r, n);
  /* median() reorders: take the residuals again, in time order */
  for (guint i = 0; i < n; i++)
    r[i] = v[i] - slope * t[i] - level;
  for (guint i = 0; i < n; i++)
    {
      den += r[i] * r[i];
      if (i + 1 < n)
        num += r[i] * r[i + 1];
    }
  return den > 0 ? CLAMP (num / den, 0.0, 0.95) : 0;
}

/* Theil–Sen's slope of the points (@t[i], @v[i]) and Sen's 95 % interval;
 * an interval the ranks cannot bound is infinite. FALSE with fewer than
 * JMEM_TREND_MIN_POINTS points or no two at different times. */
static gboolean
theil_sen (const double *t, const double *v, guint n, double *slope, double *low, double *high)
{
  g_autofree double *slopes = NULL;
  guint64 n_slopes = 0;
  double c, m1, m2, rho;
  gint64 k1, k2;

  if (n < JMEM_TREND_MIN_POINTS)
    return FALSE;
  slopes = g_new (double, (gsize) n * (n - 1) / 2);
  for (guint i = 0; i < n; i++)
    for (guint j = i + 1; j < n; j++)
      if (t[j] != t[i])
        slopes[n_slopes++] = (v[j] - v[i]) / (t[j] - t[i]);
  if (n_slopes == 0)
    return FALSE;
  *slope = median (slopes, (guint) n_slopes);
  /* Kendall's S has variance n(n-1)(2n+5)/18 under no trend, for
   * independent points; residuals that follow each other (a cache filling
   * and dropped, a step) carry fewer independent points, and the variance
   * grows by (1 + rho) / (1 - rho) (the lag-1 correction of the modified
   * Mann–Kendall test). The interval runs from the slope of rank (N - C)/2
   * to that of (N + C)/2 + 1. */
  rho = residual_autocorrelation (t, v, n, *slope);
  c = JMEM_TREND_Z95 * sqrt ((double) n * (n - 1) * (2.0 * n + 5) / 18.0 * (1 + rho) / (1 - rho));
  m1 = ((double) n_slopes - c) / 2;
  m2 = ((double) n_slopes + c) / 2;
  /* ranks rounded to the nearest (Gilbert 1987): 1-based M1, 0-based M2 + 1 */
  k1 = (gint64) round (m1) - 1;
  k2 = (gint64) round (m2);
  *low = k1 >= 0 ? select_kth (slopes, (guint) n_slopes, (guint) k1) : -INFINITY;
  *high = k2 < (gint64) n_slopes ? select_kth (slopes, (guint) n_slopes, (guint) k2) : INFINITY;
  return TRUE;
}

gboolean
jmem_trend_fit (const JmemTrendSeries *s, JmemTrend *trend)
{
  guint n = s->n_bins;
  double t[JMEM_TREND_MAX_BINS] = { 0 }, v[JMEM_TREND_MAX_BINS] = { 0 }, r[JMEM_TREND_MAX_BINS];
  double mid;
  guint split = 0;

  *trend = (JmemTrend) { 0 };
  if (s->n_points < JMEM_TREND_MIN_POINTS || s->t_last <= s->t_first)
    return FALSE;
  for (guint i = 0; i < n; i++)
    {
      t[i] = s->bins[i].t_sum / s->bins[i].n;
      v[i] = s->bins[i].v_sum / s->bins[i].n;
    }
  trend->n_points = s->n_points;
  trend->n_bins = n;
  trend->t_first = s->t_first;
  trend->t_last = s->t_last;
  if (!theil_sen (t, v, n, &trend->slope, &trend->slope_low, &trend->slope_high))
    return FALSE;
  /* the line through the median of the residuals */
  for (guint i = 0; i < n; i++)
    r[i] = v[i] - trend->slope * t[i];
  trend->level_first = median (r, n);
  trend->level_last = trend->level_first + trend->slope * (s->t_last - s->t_first);
  for (guint i = 0; i < n; i++)
    r[i] = fabs (v[i] - (trend->level_first + trend->slope * t[i]));
  /* a bin's mean of w points has 1/sqrt(w) of their spread */
  trend->noise = 1.4826 * median (r, n) * sqrt ((double) s->n_points / n);

  mid = (s->t_last - s->t_first) / 2;
  while (split < n && t[split] < mid)
    split++;
  for (guint h = 0; h < 2; h++)
    {
      const double *ht = h == 0 ? t : t + split, *hv = h == 0 ? v : v + split;
      guint hn = h == 0 ? split : n - split;

      if (!theil_sen (ht, hv, hn, &trend->half_slope[h], &trend->half_slope_low[h],
                      &trend->half_slope_high[h]))
        {
          trend->half_slope[h] = NAN;
          trend->half_slope_low[h] = -INFINITY;
          trend->half_slope_high[h] = INFINITY;
        }
    }
  return TRUE;
}

double
jmem_trend_at (const JmemTrend *trend, double t)
{
  return trend->level_first + trend->slope * (t - trend->t_first);
}

JmemTrendDirection
jmem_trend_direction (const JmemTrend *trend, double min_change, guint min_percent)
{
  double change = fabs (trend->slope) * (trend->t_last - trend->t_first);
  int sign = trend->slope_low > 0 ? 1 : trend->slope_high < 0 ? -1 : 0;

  if (sign == 0)
    return JMEM_TREND_FLAT;
  for (guint h = 0; h < 2; h++)
    {
      /* each half goes the same way, and at a rate the whole window's
       * interval shares: a step leaves one half flat, a sawtooth neither
       * half steady */
      if ((sign > 0 ? trend->half_slope_low[h] <= 0 : trend->half_slope_high[h] >= 0) ||
          trend->half_slope_low[h] > trend->slope_high || trend->half_slope_high[h] < trend->slope_low)
        return JMEM_TREND_FLAT;
    }
  if (change < min_change || change * 100 < fabs (trend->level_first) * min_percent)
    return JMEM_TREND_FLAT;
  return sign > 0 ? JMEM_TREND_RISING : JMEM_TREND_FALLING;
}

gboolean
jmem_trend_project (const JmemTrend   *trend,
                    JmemTrendDirection direction,
                    double             target,
                    JmemProjection    *p,
                    char             **missing)
{
  double window = trend->t_last - trend->t_first;
  double left = trend->level_last - target;

  *p = (JmemProjection) { 0 };
  if (trend->n_points < JMEM_TREND_PROJECTION_MIN_POINTS)
    {
      *missing = g_strdup_printf ("%u samples, where a projection needs %d at least",
                                  trend->n_points, JMEM_TREND_PROJECTION_MIN_POINTS);
      return FALSE;
    }
  if (window < JMEM_TREND_PROJECTION_MIN_SECONDS)
    {
      *missing = g_strdup_printf ("a window of %.1f h, where a projection needs %d h at least",
                                  window / 3600, JMEM_TREND_PROJECTION_MIN_SECONDS / 3600);
      return FALSE;
    }
  if (direction != JMEM_TREND_FALLING)
    {
      *missing = g_strdup ("no fall the noise cannot explain");
      return FALSE;
    }
  if (left <= 0)
    {
      p->seconds = p->seconds_low = p->seconds_high = 0;
    }
  else
    {
      p->seconds = left / -trend->slope;
      p->seconds_low = left / -trend->slope_low;
      p->seconds_high = trend->slope_high < 0 ? left / -trend->slope_high : INFINITY;
    }
  p->at_unix = trend->t_last + p->seconds;
  return TRUE;
}
