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
  g_array_unref (s->points);
  g_free (s->annotation);
  g_free (s);
}

static JmemPlotSeries *
series_new (const char *key, guint n_frames)
{
  JmemPlotSeries *s = g_new0 (JmemPlotSeries, 1);
  JmemPlotPoint absent = { 0, NAN };

  s->key = g_strdup (key);
  s->pid = -1;
  s->points = g_array_sized_new (FALSE, FALSE, sizeof (JmemPlotPoint), n_frames);
  for (guint i = 0; i < n_frames; i++)
    g_array_append_val (s->points, absent);
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
lookup_series (GHashTable *by_key, GPtrArray *all, const char *key, guint n_frames)
{
  JmemPlotSeries *s = g_hash_table_lookup (by_key, key);

  if (s == NULL)
    {
      s = series_new (key, n_frames);
      g_ptr_array_add (all, s);
      g_hash_table_insert (by_key, s->key, s);
    }
  return s;
}

static void
set_point (JmemPlotSeries *s, guint index, gint64 t, gint64 kib)
{
  JmemPlotPoint *pt = &g_array_index (s->points, JmemPlotPoint, index);

  pt->t = t;
  if (kib < 0)
    return;
  pt->kib = (double) kib;
  s->max_kib = MAX (s->max_kib, (double) kib);
}

/* Every process's series of @metric over the frames; NvMap from
 * nvmap.by_pid, complete even where the process list was cut. */
static GPtrArray *
all_series (GPtrArray *frames, JmemPlotMetric metric)
{
  GPtrArray *all = g_ptr_array_new_with_free_func ((GDestroyNotify) series_free);
  g_autoptr(GHashTable) by_key = g_hash_table_new (g_str_hash, g_str_equal);

  for (guint i = 0; i < frames->len; i++)
    {
      const JmemFrame *f = g_ptr_array_index (frames, i);

      if (metric == JMEM_PLOT_NVMAP)
        {
          for (guint j = 0; j < f->nvmap_by_pid->len; j++)
            {
              const JmemFrameHolder *n = g_ptr_array_index (f->nvmap_by_pid, j);
              g_autofree char *key = g_strdup_printf ("%" G_GINT64_FORMAT "/-%s", n->pid,
                                                      n->name != NULL ? n->name : "");
              JmemPlotSeries *s = lookup_series (by_key, all, key, frames->len);

              s->pid = n->pid;
              g_free (s->name);
              s->name = g_strdup (n->name);
              set_point (s, i, f->timestamp_unix, n->size_kib);
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
          continue;
        }
      for (guint j = 0; j < f->processes->len; j++)
        {
          const JmemFrameProcess *p = g_ptr_array_index (f->processes, j);
          g_autofree char *key = process_key (p);
          JmemPlotSeries *s = lookup_series (by_key, all, key, frames->len);

          s->pid = p->pid;
          g_free (s->name);
          s->name = g_strdup (p->name);
          g_free (s->container);
          s->container = g_strdup (p->container);
          set_point (s, i, f->timestamp_unix, metric_value (p, metric));
        }
    }
  /* every point's time, also where the series has none */
  for (guint k = 0; k < all->len; k++)
    {
      JmemPlotSeries *s = g_ptr_array_index (all, k);

      for (guint i = 0; i < frames->len; i++)
        g_array_index (s->points, JmemPlotPoint, i).t =
          ((const JmemFrame *) g_ptr_array_index (frames, i))->timestamp_unix;
    }
  return all;
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

static JmemPlotSeries *
headroom_series (GPtrArray *frames, const char *name, gboolean after_reclaim)
{
  JmemPlotSeries *s = series_new (name, frames->len);

  s->name = g_strdup (name);
  for (guint i = 0; i < frames->len; i++)
    {
      const JmemFrame *f = g_ptr_array_index (frames, i);

      set_point (s, i, f->timestamp_unix,
                 !f->has_headroom ? -1 : after_reclaim ? f->allocatable_after_reclaim_kib
                                                       : f->allocatable_now_kib);
    }
  return s;
}

/* The accounting's buckets, each a series keyed by its stable name and
 * named by its label, stacked in the snapshot's order with free on top;
 * a bucket empty or unknown in every sample is left out (a board without
 * zram draws no zram). The panel's top is the largest stack. */
static void
add_buckets (JmemPlotPanel *panel, GPtrArray *frames)
{
  g_autoptr(GHashTable) by_name = g_hash_table_new (g_str_hash, g_str_equal);
  JmemPlotSeries *free_series = NULL;

  for (guint i = 0; i < frames->len; i++)
    {
      const JmemFrame *f = g_ptr_array_index (frames, i);
      double stack = 0;

      for (guint j = 0; f->buckets != NULL && j < f->buckets->len; j++)
        {
          const JmemFrameBucket *b = g_ptr_array_index (f->buckets, j);
          JmemPlotSeries *s = lookup_series (by_name, panel->series, b->name, frames->len);

          g_free (s->name);
          s->name = g_strdup (b->label);
          set_point (s, i, f->timestamp_unix, b->kib);
          stack += MAX (b->kib, 0);
        }
      panel->max_kib = MAX (panel->max_kib, stack);
    }
  for (guint k = 0; k < panel->series->len;)
    {
      JmemPlotSeries *s = g_ptr_array_index (panel->series, k);

      for (guint i = 0; i < frames->len; i++)
        g_array_index (s->points, JmemPlotPoint, i).t =
          ((const JmemFrame *) g_ptr_array_index (frames, i))->timestamp_unix;
      if (s->max_kib <= 0)
        g_ptr_array_remove_index (panel->series, k);
      else if (g_str_equal (s->key, "free") && free_series == NULL)
        free_series = g_ptr_array_steal_index (panel->series, k);
      else
        k++;
    }
  if (free_series != NULL)
    g_ptr_array_add (panel->series, free_series);
}

static gboolean
any_buckets (GPtrArray *frames)
{
  for (guint i = 0; i < frames->len; i++)
    {
      const JmemFrame *f = g_ptr_array_index (frames, i);

      if (f->buckets != NULL && f->buckets->len > 0)
        return TRUE;
    }
  return FALSE;
}

static gboolean
any_headroom (GPtrArray *frames)
{
  for (guint i = 0; i < frames->len; i++)
    if (((const JmemFrame *) g_ptr_array_index (frames, i))->has_headroom)
      return TRUE;
  return FALSE;
}

static gboolean
any_nvmap (GPtrArray *frames)
{
  for (guint i = 0; i < frames->len; i++)
    if (((const JmemFrame *) g_ptr_array_index (frames, i))->nvmap_by_pid->len > 0)
      return TRUE;
  return FALSE;
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
  const JmemFrame *first = g_ptr_array_index (o->frames, 0);
  const JmemFrame *last = g_ptr_array_index (o->frames, o->frames->len - 1);
  JmemPlotMetric main_metric = o->metric_set ? o->metric : JMEM_PLOT_FOOTPRINT;
  JmemPlotPanel *panel;
  g_autoptr(GPtrArray) all = NULL;

  d->panels = g_ptr_array_new_with_free_func ((GDestroyNotify) panel_free);
  d->from = first->timestamp_unix;
  d->to = last->timestamp_unix;
  /* the newest sample that names the board: a line cut down to what the
   * rules read (no identity) does not make a known board unknown */
  for (guint i = o->frames->len; i > 0 && d->board == NULL; i--)
    d->board = g_strdup (((const JmemFrame *) g_ptr_array_index (o->frames, i - 1))->board);
  d->hostname = g_strdup (last->hostname);

  panel = panel_new (JMEM_PLOT_PANEL_PROCESSES, metric_titles[main_metric]);
  all = all_series (o->frames, main_metric);
  choose (panel, all, o, main_metric == JMEM_PLOT_NVMAP ? "nvmap-growing" : "pss-growing");
  g_ptr_array_add (d->panels, panel);

  if (!o->metric_set && any_nvmap (o->frames))
    {
      g_autoptr(GPtrArray) nvmap = all_series (o->frames, JMEM_PLOT_NVMAP);

      panel = panel_new (JMEM_PLOT_PANEL_PROCESSES, metric_titles[JMEM_PLOT_NVMAP]);
      choose (panel, nvmap, o, "nvmap-growing");
      g_ptr_array_add (d->panels, panel);
    }
  if (any_buckets (o->frames) || any_headroom (o->frames))
    {
      gboolean buckets = any_buckets (o->frames);

      panel = panel_new (buckets ? JMEM_PLOT_PANEL_BUCKETS : JMEM_PLOT_PANEL_HEADROOM,
                         buckets ? "Where the RAM is (the accounting of MemTotal)"
                                 : "Headroom: what a new GPU allocation can get");
      if (buckets)
        add_buckets (panel, o->frames);
      if (any_headroom (o->frames))
        {
          g_ptr_array_add (panel->lines, headroom_series (o->frames, "allocatable after reclaim", TRUE));
          g_ptr_array_add (panel->lines, headroom_series (o->frames, "allocatable now", FALSE));
          for (guint i = 0; i < panel->lines->len; i++)
            panel->max_kib = MAX (panel->max_kib,
                                  ((JmemPlotSeries *) g_ptr_array_index (panel->lines, i))->max_kib);
        }
      g_ptr_array_add (d->panels, panel);
    }
  give_colors (d);
  return d;
}
