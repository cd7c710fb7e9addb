/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "jmem-top-view.h"

#include <string.h>

struct _JmemTopTrends {
  GHashTable *series;   /* row key -> JmemTopSeries */
};

JmemTopTrends *
jmem_top_trends_new (void)
{
  JmemTopTrends *t = g_new0 (JmemTopTrends, 1);

  t->series = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  return t;
}

void
jmem_top_trends_free (JmemTopTrends *t)
{
  if (t == NULL)
    return;
  g_hash_table_unref (t->series);
  g_free (t);
}

void
jmem_top_trends_clear (JmemTopTrends *t)
{
  g_hash_table_remove_all (t->series);
}

/* A process is its PID and start time; where the start time is unknown (a
 * tree without stat), its PID and name, as jmem triage --history does. */
static char *
process_key (const JmemFrameProcess *p)
{
  if (p->start_time_ticks >= 0)
    return g_strdup_printf ("p%" G_GINT64_FORMAT "/%" G_GINT64_FORMAT, p->pid,
                            p->start_time_ticks);
  return g_strdup_printf ("p%" G_GINT64_FORMAT "/-%s", p->pid, p->name != NULL ? p->name : "");
}

static char *
group_key (const char *container)
{
  return g_strconcat ("c", container != NULL ? container : "", NULL);
}

static void
add_to (GHashTable *sums, char *key, gint64 kib)
{
  gint64 *sum = g_hash_table_lookup (sums, key);

  if (sum == NULL)
    {
      sum = g_new0 (gint64, 1);
      g_hash_table_insert (sums, key, sum);
    }
  else
    g_free (key);
  if (kib > 0)
    *sum = *sum > G_MAXINT64 - kib ? G_MAXINT64 : *sum + kib;
}

static gboolean
series_empty (const JmemTopSeries *s)
{
  for (guint i = 0; i < s->n; i++)
    if (s->points[i].kib >= 0)
      return FALSE;
  return TRUE;
}

void
jmem_top_trends_feed (JmemTopTrends   *t,
                      const JmemFrame *frame)
{
  /* key -> footprint in this frame: processes and their containers */
  g_autoptr(GHashTable) now = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  gint64 t_ms = frame->timestamp_unix >= 0 ? frame->timestamp_unix * 1000
                                           : g_get_real_time () / 1000;
  GHashTableIter iter;
  gpointer key, value;

  for (guint i = 0; i < frame->processes->len; i++)
    {
      const JmemFrameProcess *p = g_ptr_array_index (frame->processes, i);

      add_to (now, process_key (p), p->footprint_kib);
      add_to (now, group_key (p->container), p->footprint_kib);
    }
  g_hash_table_iter_init (&iter, t->series);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      gint64 *kib = g_hash_table_lookup (now, key);

      jmem_top_series_push (value, t_ms, kib != NULL ? *kib : -1);
      if (kib != NULL)
        g_hash_table_remove (now, key);
      else if (series_empty (value))
        g_hash_table_iter_remove (&iter);
    }
  g_hash_table_iter_init (&iter, now);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      JmemTopSeries *s = g_new0 (JmemTopSeries, 1);

      jmem_top_series_push (s, t_ms, *(gint64 *) value);
      g_hash_table_insert (t->series, g_strdup (key), s);
    }
}

void
jmem_top_view_known (const JmemFrame *frame,
                     gboolean        *has_nvmap,
                     gboolean        *has_gpu)
{
  *has_nvmap = *has_gpu = FALSE;
  for (guint i = 0; i < frame->processes->len; i++)
    {
      const JmemFrameProcess *p = g_ptr_array_index (frame->processes, i);

      *has_nvmap |= p->nvmap_kib >= 0;
      *has_gpu |= p->gpu_kib >= 0;
    }
}

static void
row_free (JmemTopRow *r)
{
  g_free (r->key);
  g_free (r->name);
  g_free (r->user);
  g_free (r->container);
  g_free (r);
}

static gboolean
contains (const char *haystack, const char *needle_folded)
{
  g_autofree char *folded = NULL;

  if (haystack == NULL)
    return FALSE;
  folded = g_utf8_casefold (haystack, -1);
  return strstr (folded, needle_folded) != NULL;
}

static void
set_trend (JmemTopRow *r, const JmemTopTrends *t)
{
  r->series = g_hash_table_lookup (t->series, r->key);
  r->has_growth = r->series != NULL &&
                  jmem_top_series_growth (r->series, &r->growth_kib_per_minute);
}

static JmemTopRow *
process_row (const JmemFrameProcess *p, const JmemTopTrends *t)
{
  JmemTopRow *r = g_new0 (JmemTopRow, 1);

  r->key = process_key (p);
  r->pid = p->pid;
  r->name = g_strdup (p->name);
  r->user = g_strdup (p->user);
  r->container = g_strdup (p->container);
  for (guint c = 0; c < JMEM_TOP_N_COLS; c++)
    r->values[c] = -1;
  r->values[JMEM_TOP_COL_FOOTPRINT] = p->footprint_kib;
  r->values[JMEM_TOP_COL_PSS] = p->pss_kib;
  r->values[JMEM_TOP_COL_NVMAP] = p->nvmap_kib;
  r->values[JMEM_TOP_COL_GPU] = p->gpu_kib;
  r->values[JMEM_TOP_COL_SWAP] = p->swap_kib;
  r->pss_kept = p->pss_age_samples > 0;
  r->n_members = 1;
  set_trend (r, t);
  return r;
}

static void
add_value (gint64 *sum, gint64 kib)
{
  if (kib < 0)
    return;
  *sum = *sum < 0 ? kib : (*sum > G_MAXINT64 - kib ? G_MAXINT64 : *sum + kib);
}

/* One row per container: the sums of its processes' sizes (a column none
 * of them knows stays unknown). */
static GPtrArray *
group_rows (GPtrArray *rows, const JmemTopTrends *t)
{
  GPtrArray *groups = g_ptr_array_new_with_free_func ((GDestroyNotify) row_free);
  g_autoptr(GHashTable) by_key = g_hash_table_new (g_str_hash, g_str_equal);

  for (guint i = 0; i < rows->len; i++)
    {
      const JmemTopRow *r = g_ptr_array_index (rows, i);
      g_autofree char *key = group_key (r->container);
      JmemTopRow *g = g_hash_table_lookup (by_key, key);

      if (g == NULL)
        {
          g = g_new0 (JmemTopRow, 1);
          g->key = g_steal_pointer (&key);
          g->pid = -1;
          g->container = g_strdup (r->container);
          for (guint c = 0; c < JMEM_TOP_N_COLS; c++)
            g->values[c] = -1;
          g_hash_table_insert (by_key, g->key, g);
          g_ptr_array_add (groups, g);
        }
      g->n_members++;
      g->pss_kept |= r->pss_kept;
      for (guint c = 0; c < JMEM_TOP_N_COLS; c++)
        add_value (&g->values[c], r->values[c]);
    }
  for (guint i = 0; i < groups->len; i++)
    {
      JmemTopRow *g = g_ptr_array_index (groups, i);

      g->name = g_strdup_printf ("%u %s", g->n_members, g->n_members == 1 ? "process" : "processes");
      set_trend (g, t);
    }
  return groups;
}

typedef struct {
  JmemTopColumn sort;
  gboolean      reverse;
} SortBy;

static int
compare_text (const char *a, const char *b)
{
  g_autofree char *x = NULL;
  g_autofree char *y = NULL;

  if (a == NULL || b == NULL)
    return (a == NULL) - (b == NULL);
  x = g_utf8_casefold (a, -1);
  y = g_utf8_casefold (b, -1);
  return g_strcmp0 (x, y);
}

/* < 0 when @a comes first; unknowns last whatever the direction. */
static int
compare_rows (gconstpointer pa, gconstpointer pb, gpointer data)
{
  const JmemTopRow *a = *(JmemTopRow * const *) pa, *b = *(JmemTopRow * const *) pb;
  const SortBy *by = data;
  int order = 0;

  switch (by->sort)
    {
    case JMEM_TOP_COL_PID:
      order = a->pid < b->pid ? -1 : a->pid > b->pid;
      break;
    case JMEM_TOP_COL_USER:
      if ((a->user == NULL) != (b->user == NULL))
        return a->user == NULL ? 1 : -1;
      order = compare_text (a->user, b->user);
      break;
    case JMEM_TOP_COL_NAME:
      order = compare_text (a->name, b->name);
      break;
    case JMEM_TOP_COL_CONTAINER:
      if ((a->container == NULL) != (b->container == NULL))
        return a->container == NULL ? 1 : -1;
      order = compare_text (a->container, b->container);
      break;
    case JMEM_TOP_COL_TREND:
      if (a->has_growth != b->has_growth)
        return a->has_growth ? -1 : 1;
      if (a->has_growth && a->growth_kib_per_minute != b->growth_kib_per_minute)
        order = a->growth_kib_per_minute > b->growth_kib_per_minute ? -1 : 1;
      break;
    default:
      {
        gint64 x = a->values[by->sort], y = b->values[by->sort];

        if ((x < 0) != (y < 0))
          return x < 0 ? 1 : -1;
        order = x > y ? -1 : x < y;
      }
      break;
    }
  if (order == 0)  /* a stable order: the largest first, then by key */
    {
      gint64 x = a->values[JMEM_TOP_COL_FOOTPRINT], y = b->values[JMEM_TOP_COL_FOOTPRINT];

      if (x != y)
        return x > y ? -1 : 1;
      return g_strcmp0 (a->key, b->key);
    }
  return by->reverse ? -order : order;
}

GPtrArray *
jmem_top_view_rows (const JmemFrame          *frame,
                    const JmemTopTrends      *trends,
                    const JmemTopViewOptions *options)
{
  GPtrArray *rows = g_ptr_array_new_with_free_func ((GDestroyNotify) row_free);
  g_autofree char *needle = NULL;
  SortBy by = { options->sort, options->reverse };

  if (options->filter != NULL && options->filter[0] != '\0')
    needle = g_utf8_casefold (options->filter, -1);
  for (guint i = 0; i < frame->processes->len; i++)
    {
      const JmemFrameProcess *p = g_ptr_array_index (frame->processes, i);

      if (needle != NULL && !contains (p->name, needle) && !contains (p->user, needle) &&
          !contains (p->container, needle))
        continue;
      g_ptr_array_add (rows, process_row (p, trends));
    }
  if (options->group)
    {
      GPtrArray *groups = group_rows (rows, trends);

      g_ptr_array_unref (rows);
      rows = groups;
    }
  g_ptr_array_sort_with_data (rows, compare_rows, &by);
  return rows;
}
