/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The rules over time. Each sample is reduced to per-PID sizes as it is
 * read, and each series to what the rules ask of it (its first and latest
 * point, how many, how many rose), so a long history costs memory per
 * process, not per line. */
#include "jmem-triage-history.h"

#include "jmem-diff.h"
#include "jmem-glib-compat.h"

#include "jmem-triage-private.h"

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
  guint   n_grew;       /* points larger than the one before */
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
  GHashTable *orphans;  /* the same for by_pid rows with pid_exists false */
  Series     *unexplained;  /* accounting.unexplained_kib, the board's own series */
  Series     *slab;         /* the slab_unreclaimable bucket */
};

static void
series_free (Series *s)
{
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
  h->orphans = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) series_free);
  h->unexplained = board_series_new ();
  h->slab = board_series_new ();
  return h;
}

void
jmem_triage_history_free (JmemTriageHistory *h)
{
  if (h == NULL)
    return;
  g_hash_table_unref (h->nvmap);
  g_hash_table_unref (h->pss);
  g_hash_table_unref (h->orphans);
  series_free (h->unexplained);
  series_free (h->slab);
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
  else if (p.kib > s->last.kib)
    s->n_grew++;
  s->last = p;
  s->n_points++;
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
  add_accounting (h, member_object (root, "accounting"), t);
}

/* ---- the rules ---- */

typedef struct {
  const Series *series;
  guint64 growth_kib;
} Growth;

static int
growth_compare (gconstpointer a, gconstpointer b)
{
  const Growth *ga = a, *gb = b;

  if (ga->growth_kib != gb->growth_kib)
    return ga->growth_kib > gb->growth_kib ? -1 : 1;
  return ga->series->pid < gb->series->pid ? -1 : ga->series->pid > gb->series->pid;
}

static char *
describe_duration (gint64 seconds)
{
  if (seconds >= 2 * 3600)
    return g_strdup_printf ("%.1f h", (double) seconds / 3600.0);
  if (seconds >= 120)
    return g_strdup_printf ("%" G_GINT64_FORMAT " min", seconds / 60);
  return g_strdup_printf ("%" G_GINT64_FORMAT " s", seconds);
}

/* Whether @s grew as the growing rules ask; fills @growth. */
static gboolean
series_grows (const Series *s, Growth *growth, guint *grew_out)
{
  const Point *first, *last;
  guint intervals, grew = 0;

  if (s->n_points < JMEM_TRIAGE_GROWING_MIN_SAMPLES)
    return FALSE;
  first = &s->first;
  last = &s->last;
  if (first->t < 0 || last->t <= first->t || last->kib <= first->kib)
    return FALSE;
  intervals = s->n_points - 1;
  grew = s->n_grew;
  growth->series = s;
  growth->growth_kib = (guint64) (last->kib - first->kib);
  *grew_out = grew;
  return jmem_triage_at_least (grew, intervals, JMEM_TRIAGE_GROWING_INTERVALS_PERCENT) &&
         growth->growth_kib >= JMEM_TRIAGE_GROWING_MIN_KIB &&
         (first->kib == 0 ||
          jmem_triage_at_least (growth->growth_kib, (guint64) first->kib,
                                JMEM_TRIAGE_GROWING_MIN_PERCENT));
}

static void
rule_growing (JmemTriage *t, GHashTable *table, const char *id, const char *what,
              const char *holds, JmemActionBy by, const char *remedy)
{
  g_autoptr(GArray) hits = g_array_new (FALSE, FALSE, sizeof (Growth));
  GHashTableIter iter;
  gpointer value;

  g_hash_table_iter_init (&iter, table);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      Growth g;
      guint n;

      if (series_grows (value, &g, &n))
        g_array_append_val (hits, g);
    }
  g_array_sort (hits, growth_compare);
  for (guint i = 0; i < hits->len; i++)
    {
      const Growth *g = &g_array_index (hits, Growth, i);
      const Series *s = g->series;
      const Point *first = &s->first;
      const Point *last = &s->last;
      gint64 window = last->t - first->t;
      double slope = (double) g->growth_kib * 3600.0 / (double) window;
      guint intervals = s->n_points - 1, n_grew = s->n_grew;
      g_autofree char *from = jmem_triage_size ((guint64) first->kib);
      g_autofree char *to = jmem_triage_size ((guint64) last->kib);
      g_autofree char *per_hour = jmem_triage_size ((guint64) slope);
      g_autofree char *span = describe_duration (window);
      g_autofree char *who = g_strdup_printf ("PID %" G_GINT64_FORMAT " (%s)", s->pid, s->name);
      g_autofree char *action = g_strdup_printf ("If %s should hold steady %s, %s",
                                                 who, holds, remedy);
      JmemFinding *f;

      f = jmem_triage_add (t, id, JMEM_SEVERITY_WARNING, by, action,
                           "%s of %s grew from %s to %s over %s (%s per hour), in %u of %u intervals",
                           what, who, from, to, span, per_hour, n_grew, intervals);
      jmem_finding_add_number (f, "pid", (double) s->pid, "pid");
      jmem_finding_add_number (f, "first_kib", (double) first->kib, "KiB");
      jmem_finding_add_number (f, "last_kib", (double) last->kib, "KiB");
      jmem_finding_add_number (f, "growth_kib", (double) g->growth_kib, "KiB");
      jmem_finding_add_number (f, "slope_kib_per_hour", (double) (gint64) (slope + 0.5), "KiB/h");
      jmem_finding_add_number (f, "window_seconds", (double) window, "seconds");
      jmem_finding_add_number (f, "samples", (double) s->n_points, "count");
      jmem_finding_add_number (f, "grew_percent", jmem_triage_percent (n_grew, intervals), "percent");
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
  guint n_grew;
  const Point *first, *last;
  gint64 window;
  double slope;
  g_autofree char *from = NULL, *to = NULL, *per_hour = NULL, *span = NULL;
  JmemFinding *f;

  if (!series_grows (s, &g, &n_grew))
    return;
  first = &s->first;
  last = &s->last;
  window = last->t - first->t;
  slope = (double) g.growth_kib * 3600.0 / (double) window;
  from = jmem_triage_size ((guint64) first->kib);
  to = jmem_triage_size ((guint64) last->kib);
  per_hour = jmem_triage_size ((guint64) slope);
  span = describe_duration (window);
  f = jmem_triage_add (t, id, JMEM_SEVERITY_WARNING, by, action,
                       "%s grew from %s to %s over %s (%s per hour), in %u of %u intervals",
                       what, from, to, span, per_hour, n_grew, s->n_points - 1);
  jmem_finding_add_number (f, "first_kib", (double) first->kib, "KiB");
  jmem_finding_add_number (f, "last_kib", (double) last->kib, "KiB");
  jmem_finding_add_number (f, "growth_kib", (double) g.growth_kib, "KiB");
  jmem_finding_add_number (f, "slope_kib_per_hour", (double) (gint64) (slope + 0.5), "KiB/h");
  jmem_finding_add_number (f, "window_seconds", (double) window, "seconds");
  jmem_finding_add_number (f, "samples", (double) s->n_points, "count");
  jmem_finding_add_number (f, "grew_percent", jmem_triage_percent (n_grew, s->n_points - 1),
                           "percent");
}

GPtrArray *
jmem_triage_history_run (const JmemTriageHistory *h)
{
  JmemTriage t = { 0 };

  t.findings = g_ptr_array_new_with_free_func ((GDestroyNotify) jmem_finding_free);
  rule_growing (&t, h->nvmap, "nvmap-growing", "NvMap", "GPU memory", JMEM_ACTION_ADMIN,
                "restart it (its service or container) to get the NvMap buffers back, and report "
                "the leak with this history attached; `jmem allocations` lists its handles.");
  rule_growing (&t, h->pss, "pss-growing", "PSS", "memory", JMEM_ACTION_ADMIN,
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
