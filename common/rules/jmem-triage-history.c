/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The rules over time. Each sample is reduced to per-PID sizes as it is
 * read, and each series to what the rules ask of it (its first and latest
 * point, and its trend's bounded bins: jmem-trend.h), so a long history
 * costs memory per process, not per line. */
#include "jmem-triage-history.h"

#include "jmem-diff.h"
#include "jmem-glib-compat.h"
#include "jmem-history.h"
#include "jmem-trend.h"

#include "jmem-triage-private.h"

#include <math.h>
#include <string.h>

typedef struct {
  gint64 t;       /* collected.timestamp_unix, -1 unknown */
  gint64 kib;
} Point;

typedef struct {
  gint64  pid;
  char   *name;
  Point   first;
  Point   last;
  guint   n_points;
  JmemTrendSeries *trend;  /* of the points with a time */
  guint   last_sample;  /* for nvmap-orphaned: the run of consecutive samples */
  guint   run;
  gint64  run_start_t;
  gint64  last_kib;
} Series;

struct _JmemTriageHistory {
  guint       n_samples;
  gint64      last_t;
  GHashTable *nvmap;    /* "PID\x1fname" -> Series: nvmap.by_pid size_kib */
  GHashTable *pss;      /* the same for processes.list pss_kib */
  GHashTable *gpu;      /* the same for gpu.processes used_memory_kib */
  GHashTable *orphans;  /* the same for by_pid rows with pid_exists false */
  Series     *unexplained;  /* accounting.unexplained_kib, the board's own series */
  Series     *slab;         /* the slab_unreclaimable bucket */
  Series     *allocatable;  /* headroom.allocatable_after_reclaim_kib */
  gint64      need_kib;     /* what the projection runs to */
};

static void
series_free (Series *s)
{
  g_clear_pointer (&s->trend, jmem_trend_series_free);
  g_free (s->name);
  g_free (s);
}

/* A series of the whole board (pid 0): the accounting's figures. */
static Series *
board_series_new (void)
{
  Series *s = g_new0 (Series, 1);

  s->name = g_strdup ("board");
  return s;
}

JmemTriageHistory *
jmem_triage_history_new (void)
{
  JmemTriageHistory *h = g_new0 (JmemTriageHistory, 1);

  h->last_t = -1;
  h->nvmap = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) series_free);
  h->pss = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) series_free);
  h->gpu = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) series_free);
  h->orphans = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) series_free);
  h->unexplained = board_series_new ();
  h->slab = board_series_new ();
  h->allocatable = board_series_new ();
  return h;
}

void
jmem_triage_history_free (JmemTriageHistory *h)
{
  if (h == NULL)
    return;
  g_hash_table_unref (h->nvmap);
  g_hash_table_unref (h->pss);
  g_hash_table_unref (h->gpu);
  g_hash_table_unref (h->orphans);
  series_free (h->unexplained);
  series_free (h->slab);
  series_free (h->allocatable);
  g_free (h);
}

guint
jmem_triage_history_get_n_samples (const JmemTriageHistory *h)
{
  return h->n_samples;
}

static JsonObject *
member_object (JsonObject *o, const char *name)
{
  JsonNode *n = o ? json_object_get_member (o, name) : NULL;

  return n && JSON_NODE_HOLDS_OBJECT (n) ? json_node_get_object (n) : NULL;
}

static JsonArray *
member_array (JsonObject *o, const char *name)
{
  JsonNode *n = o ? json_object_get_member (o, name) : NULL;

  return n && JSON_NODE_HOLDS_ARRAY (n) ? json_node_get_array (n) : NULL;
}

/* Element @i of @a when it is an object: a sample passed
 * jmem_diff_check_snapshot(), but these rules never trust that alone. */
static JsonObject *
element_object (JsonArray *a, guint i)
{
  JsonNode *n = json_array_get_element (a, i);

  return JSON_NODE_HOLDS_OBJECT (n) ? json_node_get_object (n) : NULL;
}

/* An integer member, -1 when absent, null or not an integer. */
static gint64
member_int (JsonObject *o, const char *name)
{
  JsonNode *n = o ? json_object_get_member (o, name) : NULL;

  if (n == NULL || !JSON_NODE_HOLDS_VALUE (n) || json_node_get_value_type (n) != G_TYPE_INT64)
    return -1;
  return json_node_get_int (n);
}

static const char *
member_string (JsonObject *o, const char *name)
{
  JsonNode *n = o ? json_object_get_member (o, name) : NULL;

  if (n == NULL || !JSON_NODE_HOLDS_VALUE (n) || json_node_get_value_type (n) != G_TYPE_STRING)
    return NULL;
  return json_node_get_string (n);
}

/* The series of one process: @pid with its start time @start where the
 * snapshot has it (the same process however often it renames itself, and
 * a PID's next owner is another), else @pid under @name (a PID reused by
 * another program starts a series of its own). The latest name is shown. */
static Series *
series_get (GHashTable *table, gint64 pid, const char *name, gint64 start)
{
  g_autofree char *key = start >= 0
    ? g_strdup_printf ("%" G_GINT64_FORMAT "\x1f@%" G_GINT64_FORMAT, pid, start)
    : g_strdup_printf ("%" G_GINT64_FORMAT "\x1f%s", pid, name ? name : "");
  Series *s = g_hash_table_lookup (table, key);

  if (s == NULL)
    {
      s = g_new0 (Series, 1);
      s->pid = pid;
      s->last_sample = G_MAXUINT;
      g_hash_table_insert (table, g_steal_pointer (&key), s);
    }
  if (s->name == NULL || (name != NULL && strcmp (s->name, name) != 0))
    {
      g_free (s->name);
      s->name = g_strdup (name ? name : "?");
    }
  return s;
}

static void
series_append (Series *s, Point p)
{
  if (s->n_points == 0)
    s->first = p;
  s->last = p;
  s->n_points++;
  /* a sample without a time has no place on the line */
  if (p.t < 0)
    return;
  if (s->trend == NULL)
    s->trend = jmem_trend_series_new ();
  jmem_trend_series_add (s->trend, (double) p.t, (double) p.kib);
}

static void
series_add (GHashTable *table, gint64 pid, const char *name, gint64 start, gint64 t, gint64 kib)
{
  Series *s;
  Point p = { t, kib };

  /* sizes past JMEM_DIFF_MAX_KIB would overflow the slope */
  if (pid <= 0 || kib < 0 || kib > JMEM_DIFF_MAX_KIB)
    return;
  s = series_get (table, pid, name, start);
  /* a PID listed twice in one sample (never by jmem) counts once */
  if (s->n_points > 0 && s->last.t == t && t >= 0)
    return;
  series_append (s, p);
}

static void
board_add (Series *s, gint64 t, gint64 kib)
{
  Point p = { t, kib };

  /* a negative remainder is an overlap: nothing grew */
  if (kib < 0)
    return;
  series_append (s, p);
}

/* The accounting of a version 2 snapshot: its remainder and unreclaimable
 * slab, each one point per sample (older lines have none). */
static void
add_accounting (JmemTriageHistory *h, JsonObject *accounting, gint64 t)
{
  JsonArray *buckets = member_array (accounting, "buckets");

  if (accounting == NULL)
    return;
  board_add (h->unexplained, t, member_int (accounting, "unexplained_kib"));
  for (guint i = 0; buckets != NULL && i < json_array_get_length (buckets); i++)
    {
      JsonObject *b = json_array_get_object_element (buckets, i);

      if (g_strcmp0 (member_string (b, "name"), "slab_unreclaimable") == 0)
        board_add (h->slab, t, member_int (b, "kib"));
    }
}

void
jmem_triage_history_add (JmemTriageHistory *h,
                         JsonNode          *snapshot)
{
  JsonObject *root = JSON_NODE_HOLDS_OBJECT (snapshot) ? json_node_get_object (snapshot) : NULL;
  JsonObject *nvmap = member_object (root, "nvmap");
  JsonArray *by_pid = member_array (nvmap, "by_pid");
  JsonArray *list = member_array (member_object (root, "processes"), "list");
  JsonObject *gpu_o = member_object (root, "gpu");
  /* on the nvgpu stack these rows are NvMap's again: followed once, there */
  JsonArray *gpu = g_strcmp0 (member_string (gpu_o, "source"), "nvmap") != 0
                   ? member_array (gpu_o, "processes") : NULL;
  gint64 t = MAX (member_int (member_object (root, "collected"), "timestamp_unix"), -1);
  guint sample = h->n_samples++;
  g_autoptr(GHashTable) starts = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);

  h->last_t = t;
  /* NvMap rows carry no start time: their process's row does */
  for (guint i = 0; list != NULL && i < json_array_get_length (list); i++)
    {
      JsonObject *p = element_object (list, i);
      gint64 pid = member_int (p, "pid"), start = member_int (p, "start_time_ticks");

      if (pid > 0 && start >= 0)
        g_hash_table_insert (starts, g_memdup2 (&pid, sizeof pid), g_memdup2 (&start, sizeof start));
    }
  for (guint i = 0; by_pid != NULL && i < json_array_get_length (by_pid); i++)
    {
      JsonObject *row = element_object (by_pid, i);
      gint64 pid = member_int (row, "pid"), kib = member_int (row, "size_kib");
      const char *name = member_string (row, "process");
      JsonNode *exists = row ? json_object_get_member (row, "pid_exists") : NULL;

      const gint64 *start = g_hash_table_lookup (starts, &pid);

      series_add (h->nvmap, pid, name, start ? *start : -1, t, kib);
      if (pid > 0 && kib > 0 && kib <= JMEM_DIFF_MAX_KIB && exists != NULL && JSON_NODE_HOLDS_VALUE (exists) &&
          json_node_get_value_type (exists) == G_TYPE_BOOLEAN && !json_node_get_boolean (exists))
        {
          Series *s = series_get (h->orphans, pid, name, -1);

          if (s->last_sample == sample)
            continue;
          if (s->last_sample != G_MAXUINT && s->last_sample + 1 == sample)
            s->run++;
          else
            {
              s->run = 1;
              s->run_start_t = t;
            }
          s->last_sample = sample;
          s->last_kib = kib;
        }
    }
  for (guint i = 0; list != NULL && i < json_array_get_length (list); i++)
    {
      JsonObject *p = element_object (list, i);

      series_add (h->pss, member_int (p, "pid"), member_string (p, "name"),
                  member_int (p, "start_time_ticks"), t, member_int (p, "pss_kib"));
    }
  for (guint i = 0; gpu != NULL && i < json_array_get_length (gpu); i++)
    {
      JsonObject *row = element_object (gpu, i);
      gint64 pid = member_int (row, "pid");
      JsonNode *trusted = row ? json_object_get_member (row, "trusted") : NULL;
      const gint64 *start = g_hash_table_lookup (starts, &pid);

      /* a row that may be forged gives no process memory (docs/accounting.md) */
      if (trusted == NULL || !JSON_NODE_HOLDS_VALUE (trusted) ||
          json_node_get_value_type (trusted) != G_TYPE_BOOLEAN || !json_node_get_boolean (trusted))
        continue;
      series_add (h->gpu, pid, member_string (row, "process_name"), start ? *start : -1, t,
                  member_int (row, "used_memory_kib"));
    }
  add_accounting (h, member_object (root, "accounting"), t);
  board_add (h->allocatable, t, member_int (member_object (root, "headroom"),
                                            "allocatable_after_reclaim_kib"));
}

const char *const jmem_triage_history_members[] = {
  "collected.timestamp_unix",
  "nvmap.by_pid[].pid",
  "nvmap.by_pid[].process",
  "nvmap.by_pid[].size_kib",
  "nvmap.by_pid[].pid_exists",
  "processes.list[].pid",
  "processes.list[].name",
  "processes.list[].start_time_ticks",
  "processes.list[].pss_kib",
  "gpu.source",
  "gpu.processes[].pid",
  "gpu.processes[].trusted",
  "gpu.processes[].process_name",
  "gpu.processes[].used_memory_kib",
  "accounting.unexplained_kib",
  "accounting.buckets[].name",
  "accounting.buckets[].kib",
  "headroom.allocatable_after_reclaim_kib",
  NULL,
};

static gboolean
add_sample (JsonNode *snapshot, guint line_number, gpointer data)
{
  jmem_triage_history_add (data, snapshot);
  return TRUE;
}

JmemTriageHistory *
jmem_triage_history_read (const char *path, GPtrArray *warnings, GError **error)
{
  g_autoptr(JmemTriageHistory) h = jmem_triage_history_new ();

  if (!jmem_history_read_members (path, jmem_triage_history_members, add_sample, h, warnings,
                                  error))
    return NULL;
  return g_steal_pointer (&h);
}

/* ---- the rules ---- */

typedef struct {
  const Series *series;
  JmemTrend     trend;
} Growth;

static int
growth_compare (gconstpointer a, gconstpointer b)
{
  const Growth *ga = a, *gb = b;

  if (ga->trend.slope != gb->trend.slope)
    return ga->trend.slope > gb->trend.slope ? -1 : 1;
  return ga->series->pid < gb->series->pid ? -1 : ga->series->pid > gb->series->pid;
}

static char *
describe_duration (gint64 seconds)
{
  if (seconds >= 2 * 86400)
    return g_strdup_printf ("%.1f days", (double) seconds / 86400.0);
  if (seconds >= 2 * 3600)
    return g_strdup_printf ("%.1f h", (double) seconds / 3600.0);
  if (seconds >= 120)
    return g_strdup_printf ("%" G_GINT64_FORMAT " min", seconds / 60);
  return g_strdup_printf ("%" G_GINT64_FORMAT " s", seconds);
}

/* The message, once the numbers it is made from are known. */
static void G_GNUC_PRINTF (2, 3)
set_message (JmemFinding *f, const char *format, ...)
{
  va_list args;

  va_start (args, format);
  g_free (f->message);
  f->message = g_strdup_vprintf (format, args);
  va_end (args);
}

/* Whether @s rises as the growing rules ask; fills @growth. */
static gboolean
series_grows (const Series *s, Growth *growth)
{
  growth->series = s;
  if (s->trend == NULL || jmem_trend_series_get_n_points (s->trend) < JMEM_TRIAGE_GROWING_MIN_SAMPLES ||
      !jmem_trend_fit (s->trend, &growth->trend))
    return FALSE;
  return jmem_trend_direction (&growth->trend, JMEM_TRIAGE_GROWING_MIN_KIB,
                               JMEM_TRIAGE_GROWING_MIN_PERCENT) == JMEM_TREND_RISING;
}

static double
per_hour (double per_second)
{
  return isfinite (per_second) ? per_second * 3600.0 : 0;
}

static char *
size_per_hour (double kib_per_second)
{
  double kib = fabs (per_hour (kib_per_second));

  return jmem_triage_size ((guint64) (kib + 0.5));
}

/* "grew from A to B over W: S per hour (95 % interval L to H, noise ±N)",
 * and the numbers every growth finding carries. */
static char *
describe_growth (JmemFinding *f, const Series *s, const JmemTrend *tr)
{
  gint64 window = (gint64) (tr->t_last - tr->t_first);
  g_autofree char *from = jmem_triage_size ((guint64) s->first.kib);
  g_autofree char *to = jmem_triage_size ((guint64) s->last.kib);
  g_autofree char *slope = size_per_hour (tr->slope);
  g_autofree char *low = size_per_hour (tr->slope_low);
  g_autofree char *high = size_per_hour (tr->slope_high);
  g_autofree char *noise = jmem_triage_size ((guint64) (tr->noise + 0.5));
  g_autofree char *span = describe_duration (window);

  jmem_finding_add_number (f, "first_kib", (double) s->first.kib, "KiB");
  jmem_finding_add_number (f, "last_kib", (double) s->last.kib, "KiB");
  jmem_finding_add_number (f, "growth_kib", round (tr->slope * (tr->t_last - tr->t_first)), "KiB");
  jmem_finding_add_number (f, "slope_kib_per_hour", round (per_hour (tr->slope)), "KiB/h");
  jmem_finding_add_number (f, "slope_low_kib_per_hour", round (per_hour (tr->slope_low)), "KiB/h");
  jmem_finding_add_number (f, "slope_high_kib_per_hour", round (per_hour (tr->slope_high)), "KiB/h");
  jmem_finding_add_number (f, "confidence_percent", 95, "percent");
  jmem_finding_add_number (f, "noise_kib", round (tr->noise), "KiB");
  jmem_finding_add_number (f, "window_seconds", (double) window, "seconds");
  jmem_finding_add_number (f, "window_start_unix", tr->t_first, "seconds");
  jmem_finding_add_number (f, "samples", (double) tr->n_points, "count");
  return g_strdup_printf ("grew from %s to %s over %s: %s per hour (95 %% interval %s to %s), "
                          "under noise of \u00b1%s", from, to, span, slope, low, high, noise);
}

/* The latest fitted allocatable memory, -1 when the history has none. */
static double
allocatable_now (const JmemTriageHistory *h)
{
  JmemTrend tr;

  if (h->allocatable->trend == NULL || !jmem_trend_fit (h->allocatable->trend, &tr))
    return h->allocatable->n_points > 0 ? (double) h->allocatable->last.kib : -1;
  return MAX (tr.level_last, 0);
}

/* ", at which rate it alone takes what is allocatable (A) in N days" */
static char *
describe_alone (JmemFinding *f, const JmemTriageHistory *h, const JmemTrend *tr)
{
  double left = allocatable_now (h);
  double seconds;
  g_autofree char *size = NULL;

  if (left < 0 || tr->slope <= 0)
    return g_strdup ("");
  seconds = left / tr->slope;
  size = jmem_triage_size ((guint64) left);
  jmem_finding_add_number (f, "alone_exhausts_seconds", round (seconds), "seconds");
  return g_strdup_printf ("; at this rate it alone takes what is allocatable after reclaim (%s) "
                          "in %.1f days", size, seconds / 86400);
}

static void
rule_growing (JmemTriage *t, const JmemTriageHistory *h, GHashTable *table, const char *id,
              const char *what, const char *holds, JmemActionBy by, const char *remedy)
{
  g_autoptr(GArray) hits = g_array_new (FALSE, FALSE, sizeof (Growth));
  GHashTableIter iter;
  gpointer value;

  g_hash_table_iter_init (&iter, table);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      Growth g;

      if (series_grows (value, &g))
        g_array_append_val (hits, g);
    }
  g_array_sort (hits, growth_compare);
  for (guint i = 0; i < hits->len; i++)
    {
      const Growth *g = &g_array_index (hits, Growth, i);
      const Series *s = g->series;
      g_autofree char *who = g_strdup_printf ("PID %" G_GINT64_FORMAT " (%s)", s->pid, s->name);
      g_autofree char *action = g_strdup_printf ("If %s should hold steady %s, %s",
                                                 who, holds, remedy);
      g_autofree char *growth = NULL, *alone = NULL;
      JmemFinding *f;

      f = jmem_triage_add (t, id, JMEM_SEVERITY_WARNING, by, action, "%s of %s", what, who);
      jmem_finding_add_number (f, "pid", (double) s->pid, "pid");
      growth = describe_growth (f, s, &g->trend);
      alone = describe_alone (f, h, &g->trend);
      set_message (f, "%s of %s %s%s", what, who, growth, alone);
    }
}

static int
series_compare_pid (gconstpointer a, gconstpointer b)
{
  const Series *sa = *(Series * const *) a, *sb = *(Series * const *) b;

  if (sa->last_kib != sb->last_kib)
    return sa->last_kib > sb->last_kib ? -1 : 1;
  return sa->pid < sb->pid ? -1 : sa->pid > sb->pid;
}

static void
rule_orphaned (JmemTriage *t, const JmemTriageHistory *h)
{
  g_autoptr(GPtrArray) hits = g_ptr_array_new ();
  GHashTableIter iter;
  gpointer value;

  g_hash_table_iter_init (&iter, h->orphans);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      const Series *s = value;

      if (s->last_sample + 1 == h->n_samples && s->run >= JMEM_TRIAGE_ORPHANED_MIN_SAMPLES)
        g_ptr_array_add (hits, value);
    }
  g_ptr_array_sort (hits, series_compare_pid);
  for (guint i = 0; i < hits->len; i++)
    {
      const Series *s = g_ptr_array_index (hits, i);
      gint64 window = s->run_start_t >= 0 && h->last_t >= s->run_start_t ? h->last_t - s->run_start_t : -1;
      g_autofree char *size = jmem_triage_size ((guint64) s->last_kib);
      g_autofree char *span = window >= 0 ? describe_duration (window) : g_strdup ("an unknown time");
      JmemFinding *f;

      f = jmem_triage_add (t, "nvmap-orphaned", JMEM_SEVERITY_WARNING, JMEM_ACTION_ADMIN,
                           "If jmem runs in a container, run it on the host (the PID may live in "
                           "another PID namespace); otherwise reboot to return it, and report the "
                           "leak against the program and L4T release.",
                           "NvMap holds %s for PID %" G_GINT64_FORMAT " (%s), which has not existed "
                           "for the last %u samples (%s): nothing will free it, as the process "
                           "that held it is gone (a container torn down, a crash)",
                           size, s->pid, s->name, s->run, span);
      jmem_finding_add_number (f, "pid", (double) s->pid, "pid");
      jmem_finding_add_number (f, "size_kib", (double) s->last_kib, "KiB");
      jmem_finding_add_number (f, "samples", (double) s->run, "count");
      if (window >= 0)
        jmem_finding_add_number (f, "window_seconds", (double) window, "seconds");
    }
}

/* The growing rules on one of the board's own series. */
static void
rule_board_growing (JmemTriage *t, const Series *s, const char *id, const char *what,
                    JmemActionBy by, const char *action)
{
  Growth g;
  g_autofree char *growth = NULL;
  JmemFinding *f;

  if (!series_grows (s, &g))
    return;
  f = jmem_triage_add (t, id, JMEM_SEVERITY_WARNING, by, action, "%s", what);
  growth = describe_growth (f, s, &g.trend);
  set_message (f, "%s %s", what, growth);
}

static char *
describe_date (double unix_seconds)
{
  g_autoptr(GDateTime) d = NULL;

  if (!isfinite (unix_seconds) || unix_seconds > 253402300799.0)
    return g_strdup ("never at this rate");
  d = g_date_time_new_from_unix_utc ((gint64) unix_seconds);
  return d ? g_date_time_format (d, "%Y-%m-%d %H:%M UTC") : g_strdup ("?");
}

gboolean
jmem_triage_history_project (const JmemTriageHistory *h,
                             JmemTrend               *trend,
                             JmemProjection          *projection,
                             char                   **missing)
{
  const Series *s = h->allocatable;

  *missing = NULL;
  *trend = (JmemTrend) { 0 };
  if (s->trend == NULL || !jmem_trend_fit (s->trend, trend))
    {
      /* lines written before the headroom was part of a snapshot have none */
      *missing = g_strdup_printf ("%u samples that give the allocatable memory, where a "
                                  "projection needs %d at least",
                                  s->n_points, JMEM_TREND_PROJECTION_MIN_POINTS);
      return FALSE;
    }
  return jmem_trend_project (trend, jmem_trend_direction (trend, JMEM_TRIAGE_GROWING_MIN_KIB, 0),
                             (double) MAX (h->need_kib, 0), projection, missing);
}

char *
jmem_triage_history_projection_text (const JmemTriageHistory *h, gboolean brief)
{
  JmemTrend tr;
  JmemProjection p;
  g_autofree char *missing = NULL;
  g_autofree char *target = NULL, *date = NULL, *high = NULL, *what = NULL;

  if (!jmem_triage_history_project (h, &tr, &p, &missing))
    return brief ? NULL : g_strdup_printf ("No projection: %s.", missing);
  target = h->need_kib > 0 ? jmem_triage_size ((guint64) h->need_kib) : NULL;
  high = isfinite (p.seconds_high) ? g_strdup_printf ("%.1f", p.seconds_high / 86400) : g_strdup ("never");
  if (brief)
    return g_strdup_printf ("%s in %.1f d (%.1f-%s, projected)", target ? "below need" : "out of memory",
                            p.seconds / 86400, p.seconds_low / 86400, high);
  date = describe_date (p.at_unix);
  what = target ? g_strdup_printf ("less than %s allocatable (--need)", target)
                : g_strdup ("out of memory");
  return g_strdup_printf ("Projection: %s in %.1f days (95 %% range %.1f to %s), about %s, "
                          "at the trend of the last %.1f days.", what, p.seconds / 86400,
                          p.seconds_low / 86400, high, date, (tr.t_last - tr.t_first) / 86400);
}

/* memory-exhaustion-projected: where the allocatable memory falls, when
 * it reaches zero (or the need); allocatable-falling when it falls but the
 * history is too short to say when. */
static void
rule_projection (JmemTriage *t, const JmemTriageHistory *h)
{
  JmemTrend tr;
  JmemProjection p;
  g_autofree char *missing = NULL;
  g_autofree char *target = NULL, *date = NULL, *early = NULL, *late = NULL;
  g_autofree char *span = NULL, *now = NULL, *fall = NULL;
  JmemFinding *f;

  if (jmem_triage_history_project (h, &tr, &p, &missing))
    {
      target = h->need_kib > 0 ? jmem_triage_size ((guint64) h->need_kib) : NULL;
      span = describe_duration ((gint64) (tr.t_last - tr.t_first));
      now = jmem_triage_size ((guint64) MAX (tr.level_last, 0));
      fall = size_per_hour (tr.slope);
      date = describe_date (p.at_unix);
      early = describe_date (tr.t_last + p.seconds_low);
      late = describe_date (tr.t_last + p.seconds_high);
      f = jmem_triage_add (t, "memory-exhaustion-projected",
                           p.seconds_low < 7 * 86400.0 ? JMEM_SEVERITY_CRITICAL : JMEM_SEVERITY_WARNING,
                           JMEM_ACTION_ADMIN,
                           "Find what takes it: the growing findings name the holders that rise; "
                           "plan a restart of the leaking service before then, and report the leak with "
                           "this history attached.",
                           "Projection: at the trend of the last %s, the memory allocatable after reclaim "
                           "(%s now, falling %s per hour) reaches %s%s in %.1f days, about %s "
                           "(95 %% range %s to %s)",
                           span, now, fall, target ? target : "zero",
                           target ? " (--need)" : "", p.seconds / 86400, date, early, late);
      jmem_finding_add_number (f, "exhaustion_seconds", round (p.seconds), "seconds");
      jmem_finding_add_number (f, "exhaustion_low_seconds", round (p.seconds_low), "seconds");
      /* absent when the interval's shallow end does not fall */
      if (isfinite (p.seconds_high))
        jmem_finding_add_number (f, "exhaustion_high_seconds", round (p.seconds_high), "seconds");
      jmem_finding_add_number (f, "exhaustion_unix", round (p.at_unix), "seconds");
      jmem_finding_add_number (f, "need_kib", (double) MAX (h->need_kib, 0), "KiB");
      jmem_finding_add_number (f, "allocatable_kib", round (MAX (tr.level_last, 0)), "KiB");
      jmem_finding_add_number (f, "slope_kib_per_hour", round (per_hour (tr.slope)), "KiB/h");
      jmem_finding_add_number (f, "slope_low_kib_per_hour", round (per_hour (tr.slope_low)), "KiB/h");
      jmem_finding_add_number (f, "slope_high_kib_per_hour", round (per_hour (tr.slope_high)), "KiB/h");
      jmem_finding_add_number (f, "confidence_percent", 95, "percent");
      jmem_finding_add_number (f, "window_seconds", round (tr.t_last - tr.t_first), "seconds");
      jmem_finding_add_number (f, "samples", (double) tr.n_points, "count");
      return;
    }
  /* said only where it falls: a steady board needs no projection */
  if (tr.n_points < JMEM_TREND_MIN_POINTS || tr.slope_high >= 0)
    return;
  fall = size_per_hour (tr.slope);
  f = jmem_triage_add (t, "allocatable-falling", JMEM_SEVERITY_INFO, JMEM_ACTION_ANY_USER,
                       "Keep jmem watch recording (the shipped jmem-watch.service does) and run "
                       "`jmem triage --history` again later.",
                       "The memory allocatable after reclaim falls (%s per hour), but no projection "
                       "is given: the history has %s", fall, missing);
  jmem_finding_add_number (f, "slope_kib_per_hour", round (per_hour (tr.slope)), "KiB/h");
  jmem_finding_add_number (f, "samples", (double) tr.n_points, "count");
  jmem_finding_add_number (f, "window_seconds", round (tr.t_last - tr.t_first), "seconds");
}

void
jmem_triage_history_set_need (JmemTriageHistory *h, gint64 need_kib)
{
  h->need_kib = need_kib;
}

GPtrArray *
jmem_triage_history_run (const JmemTriageHistory *h)
{
  JmemTriage t = { 0 };

  t.findings = g_ptr_array_new_with_free_func ((GDestroyNotify) jmem_finding_free);
  rule_projection (&t, h);
  rule_growing (&t, h, h->nvmap, "nvmap-growing", "NvMap", "GPU memory", JMEM_ACTION_ADMIN,
                "restart it (its service or container) to get the NvMap buffers back, and report "
                "the leak with this history attached; `jmem allocations` lists its handles.");
  rule_growing (&t, h, h->gpu, "gpu-growing", "GPU memory", "GPU memory", JMEM_ACTION_ADMIN,
                "restart it (its service or container) to get the GPU memory back, and report "
                "the leak with this history attached.");
  rule_growing (&t, h, h->pss, "pss-growing", "PSS", "memory", JMEM_ACTION_ADMIN,
                "restart it (its service or container) to get the memory back, and find the leak "
                "with heaptrack or valgrind; `jmem snapshot --all` shows its command line.");
  rule_orphaned (&t, h);
  rule_board_growing (&t, h->unexplained, "unexplained-growing",
                      "Memory in no bucket (the accounting's unexplained)", JMEM_ACTION_ADMIN,
                      "Look for a driver or kernel leak while it grows: `sudo cat /proc/vmallocinfo`, "
                      "NvMap's orphan handles (`sudo cat /sys/kernel/debug/nvmap/iovmm/orphan_handles`) "
                      "and the services started when it began; report it with this history attached.");
  rule_board_growing (&t, h->slab, "slab-growing", "Unreclaimable slab (SUnreclaim)", JMEM_ACTION_ADMIN,
                      "Look at which caches grow: `sudo slabtop -o -s c` twice, minutes apart; a "
                      "kernel module leaking objects is returned only by unloading it or a reboot.");
  return t.findings;
}
