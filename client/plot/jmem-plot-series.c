/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "jmem-plot-series.h"

#include "jmem-plot-axis.h"
#include "jmem-triage.h"

#include <math.h>
#include <string.h>

static const char * const metric_names[JMEM_PLOT_N_METRICS] = {
  [JMEM_PLOT_FOOTPRINT] = "footprint",
  [JMEM_PLOT_NVMAP] = "nvmap",
  [JMEM_PLOT_PSS] = "pss",
  [JMEM_PLOT_GPU] = "gpu",
};

static const char * const metric_titles[JMEM_PLOT_N_METRICS] = {
  [JMEM_PLOT_FOOTPRINT] = "Footprint per process (PSS + swap + NvMap or GPU memory)",
  [JMEM_PLOT_NVMAP] = "NvMap per process (nvmap.by_pid)",
  [JMEM_PLOT_PSS] = "PSS per process (smaps_rollup)",
  [JMEM_PLOT_GPU] = "GPU memory per process (nvidia-smi / NVML)",
};

gboolean
jmem_plot_metric_from_string (const char     *text,
                              JmemPlotMetric *metric)
{
  for (guint m = 0; m < JMEM_PLOT_N_METRICS; m++)
    if (text != NULL && g_str_equal (text, metric_names[m]))
      {
        *metric = m;
        return TRUE;
      }
  return FALSE;
}

const char *
jmem_plot_metric_to_string (JmemPlotMetric metric)
{
  return metric_names[metric];
}

static void
series_free (JmemPlotSeries *s)
{
  g_free (s->key);
  g_free (s->name);
  g_free (s->container);
  g_clear_pointer (&s->points, g_array_unref);
  jmem_plot_track_clear (&s->track);
  g_free (s->annotation);
  g_free (s);
}

static JmemPlotSeries *
series_new (const char *key)
{
  JmemPlotSeries *s = g_new0 (JmemPlotSeries, 1);

  s->key = g_strdup (key);
  s->pid = -1;
  return s;
}

static void
panel_free (JmemPlotPanel *p)
{
  g_free (p->title);
  g_ptr_array_unref (p->series);
  g_ptr_array_unref (p->lines);
  g_free (p);
}

static JmemPlotPanel *
panel_new (JmemPlotPanelKind kind, const char *title)
{
  JmemPlotPanel *p = g_new0 (JmemPlotPanel, 1);

  p->kind = kind;
  p->title = g_strdup (title);
  p->series = g_ptr_array_new_with_free_func ((GDestroyNotify) series_free);
  p->lines = g_ptr_array_new_with_free_func ((GDestroyNotify) series_free);
  return p;
}

void
jmem_plot_data_free (JmemPlotData *d)
{
  if (d == NULL)
    return;
  g_ptr_array_unref (d->panels);
  g_free (d->board);
  g_free (d->hostname);
  g_free (d);
}

static gint64
metric_value (const JmemFrameProcess *p, JmemPlotMetric metric)
{
  switch (metric)
    {
    case JMEM_PLOT_FOOTPRINT: return p->footprint_kib;
    case JMEM_PLOT_NVMAP: return p->nvmap_kib;
    case JMEM_PLOT_PSS: return p->pss_kib;
    case JMEM_PLOT_GPU: return p->gpu_kib;
    case JMEM_PLOT_N_METRICS: break;
    }
  return -1;
}

/* PID and start time, as jmem top and triage --history follow a process. */
static char *
process_key (const JmemFrameProcess *p)
{
  if (p->start_time_ticks >= 0)
    return g_strdup_printf ("%" G_GINT64_FORMAT "/%" G_GINT64_FORMAT, p->pid, p->start_time_ticks);
  return g_strdup_printf ("%" G_GINT64_FORMAT "/-%s", p->pid, p->name != NULL ? p->name : "");
}

static JmemPlotSeries *
lookup_series (GHashTable *by_key, GPtrArray *all, const char *key)
{
  JmemPlotSeries *s = g_hash_table_lookup (by_key, key);

  if (s == NULL)
    {
      s = series_new (key);
      g_ptr_array_add (all, s);
      g_hash_table_insert (by_key, s->key, s);
    }
  return s;
}

static void
set_point (JmemPlotSeries *s, guint slot, gint64 kib)
{
  if (kib < 0)
    return;
  jmem_plot_track_add (&s->track, slot, (double) kib);
  s->max_kib = MAX (s->max_kib, (double) kib);
}

/* Every process's value of @metric in one frame; NvMap from nvmap.by_pid,
 * complete even where the process list was cut. */
static void
add_processes (GHashTable *by_key, GPtrArray *all, const JmemFrame *f, guint slot,
               JmemPlotMetric metric)
{
  if (metric == JMEM_PLOT_NVMAP)
    {
      for (guint j = 0; j < f->nvmap_by_pid->len; j++)
        {
          const JmemFrameHolder *n = g_ptr_array_index (f->nvmap_by_pid, j);
          g_autofree char *key = g_strdup_printf ("%" G_GINT64_FORMAT "/-%s", n->pid,
                                                  n->name != NULL ? n->name : "");
          JmemPlotSeries *s = lookup_series (by_key, all, key);

          s->pid = n->pid;
          g_free (s->name);
          s->name = g_strdup (n->name);
          set_point (s, slot, n->size_kib);
        }
      /* a process's container, where the process list names it */
      for (guint j = 0; j < f->processes->len; j++)
        {
          const JmemFrameProcess *p = g_ptr_array_index (f->processes, j);
          g_autofree char *key = g_strdup_printf ("%" G_GINT64_FORMAT "/-%s", p->pid,
                                                  p->name != NULL ? p->name : "");
          JmemPlotSeries *s = g_hash_table_lookup (by_key, key);

          if (s != NULL && p->container != NULL)
            {
              g_free (s->container);
              s->container = g_strdup (p->container);
            }
        }
      return;
    }
  for (guint j = 0; j < f->processes->len; j++)
    {
      const JmemFrameProcess *p = g_ptr_array_index (f->processes, j);
      g_autofree char *key = process_key (p);
      JmemPlotSeries *s = lookup_series (by_key, all, key);

      s->pid = p->pid;
      g_free (s->name);
      s->name = g_strdup (p->name);
      g_free (s->container);
      s->container = g_strdup (p->container);
      set_point (s, slot, metric_value (p, metric));
    }
}

/* The accounting's buckets, each a series keyed by its stable name and
 * named by its label; the largest stack kept sample by sample. */
static void
add_buckets (JmemPlotSamples *ps, const JmemFrame *f, guint slot)
{
  double stack = 0;

  for (guint j = 0; f->buckets != NULL && j < f->buckets->len; j++)
    {
      const JmemFrameBucket *b = g_ptr_array_index (f->buckets, j);
      JmemPlotSeries *s = lookup_series (ps->bucket_by_name, ps->buckets, b->name);

      g_free (s->name);
      s->name = g_strdup (b->label);
      set_point (s, slot, b->kib);
      stack += MAX (b->kib, 0);
    }
  ps->stack_max = MAX (ps->stack_max, stack);
}

static void
halve_all (GPtrArray *series)
{
  for (guint i = 0; i < series->len; i++)
    jmem_plot_track_halve (&((JmemPlotSeries *) g_ptr_array_index (series, i))->track);
}

JmemPlotSamples *
jmem_plot_samples_new (guint width, gboolean metric_set, JmemPlotMetric metric)
{
  JmemPlotSamples *ps = g_new0 (JmemPlotSamples, 1);
  const char *headroom[] = { "allocatable after reclaim", "allocatable now" };

  /* one slot a pixel column: past that, a slot holds its min and max */
  jmem_plot_clock_init (&ps->clock, width);
  ps->metric_set = metric_set;
  ps->metric = metric_set ? metric : JMEM_PLOT_FOOTPRINT;
  ps->main_by_key = g_hash_table_new (g_str_hash, g_str_equal);
  ps->main = g_ptr_array_new_with_free_func ((GDestroyNotify) series_free);
  ps->nvmap_by_key = g_hash_table_new (g_str_hash, g_str_equal);
  ps->nvmap = g_ptr_array_new_with_free_func ((GDestroyNotify) series_free);
  ps->bucket_by_name = g_hash_table_new (g_str_hash, g_str_equal);
  ps->buckets = g_ptr_array_new_with_free_func ((GDestroyNotify) series_free);
  ps->headroom = g_ptr_array_new_with_free_func ((GDestroyNotify) series_free);
  for (guint i = 0; i < G_N_ELEMENTS (headroom); i++)
    {
      JmemPlotSeries *s = series_new (headroom[i]);

      s->name = g_strdup (headroom[i]);
      g_ptr_array_add (ps->headroom, s);
    }
  return ps;
}

void
jmem_plot_samples_add (JmemPlotSamples *ps, const JmemFrame *f)
{
  gboolean merged;
  guint slot = jmem_plot_clock_add (&ps->clock, f->timestamp_unix, &merged);

  if (merged)
    {
      halve_all (ps->main);
      halve_all (ps->nvmap);
      halve_all (ps->buckets);
      halve_all (ps->headroom);
    }
  if (ps->clock.n_samples == 1)
    ps->from = f->timestamp_unix;
  ps->to = f->timestamp_unix;
  /* the newest sample that names the board: a line cut down to what the
   * rules read (no identity) does not make a known board unknown */
  if (f->board != NULL)
    {
      g_free (ps->board);
      ps->board = g_strdup (f->board);
    }
  g_free (ps->hostname);
  ps->hostname = g_strdup (f->hostname);

  add_processes (ps->main_by_key, ps->main, f, slot, ps->metric);
  if (f->nvmap_by_pid->len > 0)
    ps->any_nvmap = TRUE;
  if (!ps->metric_set)
    add_processes (ps->nvmap_by_key, ps->nvmap, f, slot, JMEM_PLOT_NVMAP);
  if (f->buckets != NULL && f->buckets->len > 0)
    ps->any_buckets = TRUE;
  add_buckets (ps, f, slot);
  if (f->has_headroom)
    {
      ps->any_headroom = TRUE;
      set_point (g_ptr_array_index (ps->headroom, 0), slot, f->allocatable_after_reclaim_kib);
      set_point (g_ptr_array_index (ps->headroom, 1), slot, f->allocatable_now_kib);
    }
}

guint64
jmem_plot_samples_get_n (const JmemPlotSamples *ps)
{
  return ps->clock.n_samples;
}

gint64
jmem_plot_samples_get_last_time (const JmemPlotSamples *ps)
{
  return ps->to;
}

void
jmem_plot_samples_free (JmemPlotSamples *ps)
{
  if (ps == NULL)
    return;
  jmem_plot_clock_clear (&ps->clock);
  g_hash_table_unref (ps->main_by_key);
  g_ptr_array_unref (ps->main);
  g_hash_table_unref (ps->nvmap_by_key);
  g_ptr_array_unref (ps->nvmap);
  g_hash_table_unref (ps->bucket_by_name);
  g_ptr_array_unref (ps->buckets);
  g_ptr_array_unref (ps->headroom);
  g_free (ps->board);
  g_free (ps->hostname);
  g_free (ps);
}

/* The points of the series a panel draws, from their thinned tracks. */
static void
series_points (GPtrArray *series, const JmemPlotClock *clock, gboolean mean)
{
  for (guint i = 0; i < series->len; i++)
    {
      JmemPlotSeries *s = g_ptr_array_index (series, i);

      s->points = g_array_new (FALSE, FALSE, sizeof (JmemPlotPoint));
      jmem_plot_track_points (&s->track, clock, mean, s->points);
      jmem_plot_track_clear (&s->track);
    }
}

static int
compare_max (gconstpointer a, gconstpointer b)
{
  const JmemPlotSeries *x = *(JmemPlotSeries * const *) a, *y = *(JmemPlotSeries * const *) b;

  if (x->max_kib != y->max_kib)
    return x->max_kib > y->max_kib ? -1 : 1;
  return g_strcmp0 (x->key, y->key);
}

static gboolean
pid_wanted (const GArray *pids, gint64 pid)
{
  for (guint i = 0; i < pids->len; i++)
    if (g_array_index (pids, gint64, i) == pid)
      return TRUE;
  return FALSE;
}

/* The finding of @id about @pid, or NULL. */
static const JmemFinding *
finding_about (GPtrArray *findings, const char *id, gint64 pid)
{
  for (guint i = 0; findings != NULL && i < findings->len; i++)
    {
      const JmemFinding *f = g_ptr_array_index (findings, i);

      if (g_str_equal (f->id, id) && jmem_finding_get_number (f, "pid") == (double) pid)
        return f;
    }
  return NULL;
}

/* The processes a panel shows: those asked for, else the @top largest;
 * a process a growth finding is about always (its leak is the point of
 * the picture), annotated with the slope. */
static void
choose (JmemPlotPanel *panel, GPtrArray *all, const JmemPlotOptions *o, const char *finding_id)
{
  g_ptr_array_sort (all, compare_max);
  for (guint i = 0; i < all->len;)
    {
      JmemPlotSeries *s = g_ptr_array_index (all, i);
      const JmemFinding *f = finding_id != NULL ? finding_about (o->findings, finding_id, s->pid)
                                                : NULL;
      gboolean keep;

      if (o->pids != NULL)
        keep = pid_wanted (o->pids, s->pid);
      else
        keep = (panel->series->len < o->top && s->max_kib > 0) || f != NULL;
      if (!keep)
        {
          i++;
          continue;
        }
      if (f != NULL)
        {
          g_autofree char *slope = jmem_plot_slope_text (jmem_finding_get_number (f, "slope_kib_per_hour"));

          s->annotation = g_strdup_printf ("%s %s", slope, finding_id);
        }
      panel->max_kib = MAX (panel->max_kib, s->max_kib);
      g_ptr_array_add (panel->series, g_ptr_array_steal_index (all, i));
    }
}

/* The buckets stacked in the order they first appeared, free on top; a
 * bucket empty or unknown in every sample is left out (a board without
 * zram draws no zram). The panel's top is the largest stack. */
static void
stack_buckets (JmemPlotPanel *panel, JmemPlotSamples *ps)
{
  JmemPlotSeries *free_series = NULL;

  while (ps->buckets->len > 0)
    {
      JmemPlotSeries *s = g_ptr_array_steal_index (ps->buckets, 0);

      if (s->max_kib <= 0)
        series_free (s);
      else if (g_str_equal (s->key, "free") && free_series == NULL)
        free_series = s;
      else
        g_ptr_array_add (panel->series, s);
    }
  if (free_series != NULL)
    g_ptr_array_add (panel->series, free_series);
  panel->max_kib = MAX (panel->max_kib, ps->stack_max);
}

/* One colour per process, the same in every panel. */
static void
give_colors (JmemPlotData *d)
{
  g_autoptr(GHashTable) by_pid = g_hash_table_new (g_int64_hash, g_int64_equal);

  for (guint p = 0; p < d->panels->len; p++)
    {
      JmemPlotPanel *panel = g_ptr_array_index (d->panels, p);

      for (guint i = 0; i < panel->series->len; i++)
        {
          JmemPlotSeries *s = g_ptr_array_index (panel->series, i);
          gpointer color;

          if (panel->kind != JMEM_PLOT_PANEL_PROCESSES)
            {
              s->color = i;
              continue;
            }
          color = g_hash_table_lookup (by_pid, &s->pid);
          if (color == NULL)
            {
              color = GUINT_TO_POINTER (++d->n_colors);
              g_hash_table_insert (by_pid, &s->pid, color);
            }
          s->color = GPOINTER_TO_UINT (color) - 1;
        }
    }
}

JmemPlotData *
jmem_plot_data_new (const JmemPlotOptions *o)
{
  JmemPlotData *d = g_new0 (JmemPlotData, 1);
  JmemPlotSamples *ps = o->samples;
  JmemPlotPanel *panel;

  d->panels = g_ptr_array_new_with_free_func ((GDestroyNotify) panel_free);
  d->from = ps->from;
  d->to = ps->to;
  d->any_headroom = ps->any_headroom;
  d->n_samples = ps->clock.n_samples;
  d->board = g_strdup (ps->board);
  d->hostname = g_strdup (ps->hostname);

  panel = panel_new (JMEM_PLOT_PANEL_PROCESSES, metric_titles[ps->metric]);
  choose (panel, ps->main, o, ps->metric == JMEM_PLOT_NVMAP ? "nvmap-growing" : "pss-growing");
  series_points (panel->series, &ps->clock, FALSE);
  g_ptr_array_add (d->panels, panel);

  if (!ps->metric_set && ps->any_nvmap)
    {
      panel = panel_new (JMEM_PLOT_PANEL_PROCESSES, metric_titles[JMEM_PLOT_NVMAP]);
      choose (panel, ps->nvmap, o, "nvmap-growing");
      series_points (panel->series, &ps->clock, FALSE);
      g_ptr_array_add (d->panels, panel);
    }
  if (ps->any_buckets || ps->any_headroom)
    {
      panel = panel_new (ps->any_buckets ? JMEM_PLOT_PANEL_BUCKETS : JMEM_PLOT_PANEL_HEADROOM,
                         ps->any_buckets ? "Where the RAM is (the accounting of MemTotal)"
                                         : "Headroom: what a new GPU allocation can get");
      if (ps->any_buckets)
        stack_buckets (panel, ps);
      series_points (panel->series, &ps->clock, TRUE);
      if (ps->any_headroom)
        {
          while (ps->headroom->len > 0)
            {
              JmemPlotSeries *s = g_ptr_array_steal_index (ps->headroom, 0);

              panel->max_kib = MAX (panel->max_kib, s->max_kib);
              g_ptr_array_add (panel->lines, s);
            }
          series_points (panel->lines, &ps->clock, FALSE);
        }
      g_ptr_array_add (d->panels, panel);
    }
  give_colors (d);
  return d;
}
