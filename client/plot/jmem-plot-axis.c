/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "jmem-plot-axis.h"

#include "jmem-plot.h"

#include <gio/gio.h>
#include <math.h>
#include <string.h>

static const gint64 time_steps[] = {
  1, 2, 5, 10, 15, 30,
  60, 2 * 60, 5 * 60, 10 * 60, 15 * 60, 30 * 60,
  3600, 2 * 3600, 3 * 3600, 6 * 3600, 12 * 3600,
  86400, 2 * 86400, 7 * 86400,
};

/* The offset of local time from UTC at @t, in seconds. */
static gint64
local_offset (gint64 t)
{
  g_autoptr(GDateTime) dt = g_date_time_new_from_unix_local (t);

  return dt != NULL ? g_date_time_get_utc_offset (dt) / G_TIME_SPAN_SECOND : 0;
}

void
jmem_plot_time_axis (JmemPlotTimeAxis *axis,
                     gint64            from,
                     gint64            to,
                     guint             max_ticks)
{
  gint64 span = MAX (to - from, 1), step = time_steps[G_N_ELEMENTS (time_steps) - 1];
  GArray *ticks = g_array_new (FALSE, FALSE, sizeof (gint64));

  max_ticks = MAX (max_ticks, 2);
  for (guint i = 0; i < G_N_ELEMENTS (time_steps); i++)
    if (span / time_steps[i] + 1 <= (gint64) max_ticks)
      {
        step = time_steps[i];
        break;
      }
  /* whole steps of local time: 10:00, 10:15, ... (a day's step at local midnight) */
  {
    gint64 off = local_offset (from);
    gint64 t = ((from + off) / step) * step - off;

    if (t < from)
      t += step;
    for (; t <= to && ticks->len < 2 * (guint) max_ticks; t += step)
      g_array_append_val (ticks, t);
  }
  axis->step_s = step;
  axis->n_ticks = ticks->len;
  axis->ticks = (gint64 *) (void *) g_array_free (ticks, FALSE);
  if (step >= 86400)
    axis->format = g_strdup ("%Y-%m-%d");
  else if (to - from >= 86400 || local_offset (from) != local_offset (to) ||
           (from + local_offset (from)) / 86400 != (to + local_offset (to)) / 86400)
    axis->format = g_strdup ("%m-%d %H:%M");
  else if (step < 60)
    axis->format = g_strdup ("%H:%M:%S");
  else
    axis->format = g_strdup ("%H:%M");
}

void
jmem_plot_time_axis_clear (JmemPlotTimeAxis *axis)
{
  g_clear_pointer (&axis->ticks, g_free);
  g_clear_pointer (&axis->format, g_free);
}

void
jmem_plot_size_axis (JmemPlotSizeAxis *axis,
                     double            max_kib,
                     guint             max_steps)
{
  static const char * const units[] = { "KiB", "MiB", "GiB", "TiB", "PiB" };
  static const double factors[] = { 1.0, 2.0, 2.5, 5.0 };
  double unit = 1.0, top, magnitude;
  guint u = 0;

  max_steps = MAX (max_steps, 1);
  if (!(max_kib > 0.0) || !isfinite (max_kib))
    max_kib = 1.0;
  while (max_kib >= 1024.0 * unit && u + 1 < G_N_ELEMENTS (units))
    {
      unit *= 1024.0;
      u++;
    }
  top = max_kib / unit;
  magnitude = pow (10.0, floor (log10 (top / max_steps)));
  axis->step_kib = 0.0;
  for (guint m = 0; m < 3 && axis->step_kib == 0.0; m++, magnitude *= 10.0)
    for (guint i = 0; i < G_N_ELEMENTS (factors); i++)
      if (ceil (top / (factors[i] * magnitude) - 1e-9) <= max_steps)
        {
          axis->step_kib = factors[i] * magnitude * unit;
          break;
        }
  if (axis->step_kib == 0.0)
    axis->step_kib = max_kib;
  axis->n_steps = (guint) MAX (1.0, ceil (max_kib / axis->step_kib - 1e-9));
  axis->top_kib = axis->n_steps * axis->step_kib;
  axis->unit_kib = unit;
  axis->unit = units[u];
}

char *
jmem_plot_size_label (const JmemPlotSizeAxis *axis,
                      double                  kib)
{
  double v = kib / axis->unit_kib;

  if (fabs (v - round (v)) < 1e-6)
    return g_strdup_printf ("%.0f %s", v, axis->unit);
  if (fabs (v * 10 - round (v * 10)) < 1e-6)
    return g_strdup_printf ("%.1f %s", v, axis->unit);
  return g_strdup_printf ("%.2f %s", v, axis->unit);
}

char *
jmem_plot_slope_text (double kib_per_hour)
{
  static const char * const units[] = { "KiB", "MiB", "GiB", "TiB" };
  double v = fabs (kib_per_hour);
  guint u = 0;

  while (v >= 1024.0 && u + 1 < G_N_ELEMENTS (units))
    {
      v /= 1024.0;
      u++;
    }
  return g_strdup_printf ("%s%.1f %s/h", kib_per_hour < 0 ? "-" : "+", v, units[u]);
}

gboolean
jmem_plot_parse_time (const char *text,
                      gint64      end,
                      gint64     *unix_s,
                      GError    **error)
{
  g_autoptr(GTimeZone) local = g_time_zone_new_local ();
  g_autoptr(GDateTime) dt = NULL;
  g_autofree char *iso = NULL;
  guint64 n;

  if (text[0] == '@' && g_ascii_string_to_unsigned (text + 1, 10, 1, G_MAXINT64 / 2, &n, NULL))
    {
      *unix_s = (gint64) n;
      return TRUE;
    }
  if (text[0] == '-' && text[1] != '\0')
    {
      gsize len = strlen (text + 1);
      char unit = text[len];
      g_autofree char *digits = g_strndup (text + 1, len - 1);
      guint64 scale = unit == 's' ? 1 : unit == 'm' ? 60 : unit == 'h' ? 3600 : unit == 'd' ? 86400 : 0;

      if (scale > 0 && g_ascii_string_to_unsigned (digits, 10, 0, G_MAXINT32, &n, NULL))
        {
          *unix_s = end - (gint64) (n * scale);
          return TRUE;
        }
    }
  /* "2025-12-06 05:50" as well as the T form */
  iso = g_strdup (text);
  if (strlen (iso) > 10 && iso[10] == ' ')
    iso[10] = 'T';
  if (strlen (iso) == 16)
    {
      g_autofree char *with_seconds = g_strconcat (iso, ":00", NULL);

      g_free (iso);
      iso = g_steal_pointer (&with_seconds);
    }
  dt = g_date_time_new_from_iso8601 (iso, local);
  if (dt == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   "\"%s\" is not a time: give 2025-12-06T05:50:00 (local time unless a zone "
                   "follows), @UNIXSECONDS, or a duration before the history's end such as -30m, "
                   "-2h, -1d", text);
      return FALSE;
    }
  *unix_s = g_date_time_to_unix (dt);
  return TRUE;
}
