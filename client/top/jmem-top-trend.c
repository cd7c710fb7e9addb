/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "jmem-top-trend.h"

#include <math.h>
#include <string.h>

void
jmem_top_series_push (JmemTopSeries *s,
                      gint64         t_ms,
                      gint64         kib)
{
  if (s->n == JMEM_TOP_TREND_SAMPLES)
    {
      memmove (s->points, s->points + 1, sizeof s->points[0] * (JMEM_TOP_TREND_SAMPLES - 1));
      s->n--;
    }
  s->points[s->n].t_ms = t_ms;
  s->points[s->n].kib = kib;
  s->n++;
}

char *
jmem_top_sparkline (const JmemTopSeries *s,
                    guint                cells,
                    gboolean             unicode)
{
  static const char * const blocks[8] = {
    "\u2581", "\u2582", "\u2583", "\u2584", "\u2585", "\u2586", "\u2587", "\u2588",
  };
  static const char ascii[8] = { '_', '.', '-', '=', '+', '*', '#', '@' };
  GString *out = g_string_new (NULL);
  guint shown = MIN (cells, s->n), first = s->n - shown;
  gint64 lo = G_MAXINT64, hi = -1;

  for (guint i = first; i < s->n; i++)
    if (s->points[i].kib >= 0)
      {
        lo = MIN (lo, s->points[i].kib);
        hi = MAX (hi, s->points[i].kib);
      }
  for (guint i = shown; i < cells; i++)
    g_string_append_c (out, ' ');
  for (guint i = first; i < s->n; i++)
    {
      gint64 v = s->points[i].kib;
      guint level = 0;

      if (v < 0)
        {
          g_string_append_c (out, ' ');
          continue;
        }
      if (hi > lo)
        level = (guint) MIN (7.0, floor ((double) (v - lo) * 8.0 / (double) (hi - lo)));
      if (unicode)
        g_string_append (out, blocks[level]);
      else
        g_string_append_c (out, ascii[level]);
    }
  return g_string_free (out, FALSE);
}

gboolean
jmem_top_series_growth (const JmemTopSeries *s,
                        double              *kib_per_minute)
{
  const JmemTopPoint *first = NULL, *last = NULL;

  for (guint i = 0; i < s->n; i++)
    if (s->points[i].kib >= 0)
      {
        if (first == NULL)
          first = &s->points[i];
        last = &s->points[i];
      }
  if (first == NULL || last == first || last->t_ms <= first->t_ms)
    return FALSE;
  *kib_per_minute = (double) (last->kib - first->kib) * 60000.0 /
                    (double) (last->t_ms - first->t_ms);
  return TRUE;
}

/* @kib in the largest binary unit that keeps it under 1024, one decimal
 * below 100; "@sign" before it. */
static char *
compact (double kib, const char *sign)
{
  static const char units[] = { 'K', 'M', 'G', 'T', 'P', 'E' };
  guint u = 0;

  while (kib >= 1023.95 && u + 1 < G_N_ELEMENTS (units))
    {
      kib /= 1024.0;
      u++;
    }
  if (u == 0 || kib >= 99.95)
    return g_strdup_printf ("%s%.0f%c", sign, kib, units[u]);
  return g_strdup_printf ("%s%.1f%c", sign, kib, units[u]);
}

char *
jmem_top_size (gint64 kib)
{
  if (kib < 0)
    return g_strdup ("-");
  return compact ((double) kib, "");
}

char *
jmem_top_growth_text (double kib_per_minute)
{
  g_autofree char *size = NULL;

  if (fabs (kib_per_minute) < 0.5)
    return g_strdup ("0/m");
  size = compact (fabs (kib_per_minute), kib_per_minute > 0 ? "+" : "-");
  return g_strconcat (size, "/m", NULL);
}
