/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Tiers of a history: neighbouring old samples merged into one that keeps
 * their mean, minimum and maximum, and every process seen. */
#include "jmem-history-tiers.h"

#include "jmem-diff.h"
#include "jmem-history.h"
#include "jmem-history-thin.h"
#include "jmem-json-member.h"

#include <string.h>

typedef struct {
  gint64 min;
  gint64 max;
  double sum;      /* of value × weight */
  gint64 weight;
} Stat;

/* Integers that name a thing rather than measure it: never averaged. */
static gboolean
is_identity (const char *name)
{
  static const char *const names[] = {
    "pid", "ppid", "uid", "start_time_ticks", "schema_version", "index", "minor",
  };

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    if (strcmp (name, names[i]) == 0)
      return TRUE;
  return FALSE;
}

/* A row of an array, named so that it is matched across samples. */
static char *
row_id (JsonObject *row, guint index)
{
  JsonNode *pid = json_object_get_member (row, "pid");
  JsonNode *start = json_object_get_member (row, "start_time_ticks");
  JsonNode *name = json_object_get_member (row, "name");

  if (pid != NULL && jmem_json_node_is_int (pid))
    {
      if (start != NULL && jmem_json_node_is_int (start))
        return g_strdup_printf ("%" G_GINT64_FORMAT "@%" G_GINT64_FORMAT,
                                json_node_get_int (pid), json_node_get_int (start));
      return g_strdup_printf ("%" G_GINT64_FORMAT, json_node_get_int (pid));
    }
  if (name != NULL && JSON_NODE_HOLDS_VALUE (name) &&
      json_node_get_value_type (name) == G_TYPE_STRING)
    return g_strdup (json_node_get_string (name));
  return g_strdup_printf ("#%u", index);
}

typedef void (*IntFunc) (const char *path, JsonObject *parent, const char *name, gpointer data);
typedef void (*RowFunc) (const char *array_path, const char *row_path, JsonNode *row,
                         gpointer data);

/* Calls @on_int for each measuring integer and @on_row for each row (an
 * object in an array) beneath @o, each named by its path: members joined by
 * '.', rows by [row_id]. The root's "history" member is not a figure. */
static void
walk (JsonObject *o, const char *prefix, IntFunc on_int, RowFunc on_row, gpointer data)
{
  g_autoptr(GList) names = json_object_get_members (o);

  for (GList *l = names; l != NULL; l = l->next)
    {
      /* a copy: setting a member frees json-glib's own copy of its name */
      g_autofree char *name = g_strdup (l->data);
      JsonNode *n = json_object_get_member (o, name);
      g_autofree char *path = *prefix ? g_strconcat (prefix, ".", name, NULL) : g_strdup (name);

      if ((*prefix == '\0' && strcmp (name, "history") == 0) ||
          strcmp (name, JMEM_HISTORY_MIN_MAX) == 0)
        continue;
      if (jmem_json_node_is_int (n))
        {
          if (on_int != NULL && !is_identity (name))
            on_int (path, o, name, data);
        }
      else if (JSON_NODE_HOLDS_OBJECT (n))
        walk (json_node_get_object (n), path, on_int, on_row, data);
      else if (JSON_NODE_HOLDS_ARRAY (n))
        {
          JsonArray *a = json_node_get_array (n);

          for (guint i = 0; i < json_array_get_length (a); i++)
            {
              JsonNode *el = json_array_get_element (a, i);
              g_autofree char *id = NULL;
              g_autofree char *row_path = NULL;

              if (!JSON_NODE_HOLDS_OBJECT (el))
                continue;
              id = row_id (json_node_get_object (el), i);
              row_path = g_strdup_printf ("%s[%s]", path, id);
              if (on_row != NULL)
                on_row (path, row_path, el, data);
              walk (json_node_get_object (el), row_path, on_int, on_row, data);
            }
        }
    }
}

typedef struct {
  GHashTable *stats;       /* path → Stat */
  GHashTable *rows;        /* row path → its latest copy */
  GHashTable *row_arrays;  /* row path → its array's path */
  GHashTable *present;     /* row paths of the last sample */
  gint64      weight;      /* of the sample being read */
} Merge;

/* The figures whose range a thinned sample keeps: what the rules over
 * time, `jmem plot` and `jmem top` draw. Others keep their mean alone, so
 * that a thinned line stays near the size of a sample. */
static gboolean
keeps_range (const char *name)
{
  static const char *const names[] = {
    "pss_kib", "rss_kib", "footprint_kib", "nvmap_kib", "gpu_kib", "size_kib", "kib",
    "unexplained_kib", "mem_available_kib", "total_kib", "memory_used_kib",
    "allocatable_now_kib", "allocatable_after_reclaim_kib",
  };

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    if (strcmp (name, names[i]) == 0)
      return TRUE;
  return FALSE;
}

static void
accumulate (const char *path, JsonObject *parent, const char *name, gpointer data)
{
  Merge *m = data;
  gint64 v = json_object_get_int_member (parent, name), lo, hi;
  Stat *s = g_hash_table_lookup (m->stats, path);

  if (s == NULL)
    {
      s = g_new0 (Stat, 1);
      s->min = G_MAXINT64;
      s->max = G_MININT64;
      g_hash_table_insert (m->stats, g_strdup (path), s);
    }
  jmem_history_figure_range (parent, name, v, &lo, &hi);
  s->min = MIN (s->min, lo);
  s->max = MAX (s->max, hi);
  s->sum += (double) v * (double) m->weight;
  s->weight += m->weight;
}

static void
remember_row (const char *array_path, const char *row_path, JsonNode *row, gpointer data)
{
  Merge *m = data;

  /* rows of rows are carried by the row that holds them */
  if (strchr (array_path, '[') != NULL)
    return;
  g_hash_table_insert (m->rows, g_strdup (row_path), json_node_copy (row));
  g_hash_table_insert (m->row_arrays, g_strdup (row_path), g_strdup (array_path));
}

static void
note_present (const char *array_path, const char *row_path, JsonNode *row, gpointer data)
{
  Merge *m = data;

  (void) array_path;
  (void) row;
  g_hash_table_add (m->present, g_strdup (row_path));
}

static gint64
round_mean (double v)
{
  return v >= 0 ? (gint64) (v + 0.5) : -(gint64) (-v + 0.5);
}

static void
set_mean (const char *path, JsonObject *parent, const char *name, gpointer data)
{
  Merge *m = data;
  Stat *s = g_hash_table_lookup (m->stats, path);
  JsonObject *ranges;
  JsonArray *range;

  if (s == NULL || s->weight == 0)
    return;
  json_object_set_int_member (parent, name, round_mean (s->sum / (double) s->weight));
  if (s->min == s->max || !keeps_range (name))
    return;
  ranges = jmem_json_member_object (parent, JMEM_HISTORY_MIN_MAX);
  if (ranges == NULL)
    {
      ranges = json_object_new ();
      json_object_set_object_member (parent, JMEM_HISTORY_MIN_MAX, ranges);
    }
  range = json_array_new ();
  json_array_add_int_element (range, s->min);
  json_array_add_int_element (range, s->max);
  json_object_set_array_member (ranges, name, range);
}

static JsonArray *
array_at (JsonObject *root, const char *path)
{
  g_auto(GStrv) parts = g_strsplit (path, ".", -1);
  JsonObject *o = root;
  guint n = g_strv_length (parts);

  for (guint i = 0; i + 1 < n && o != NULL; i++)
    o = jmem_json_member_object (o, parts[i]);
  return n > 0 ? jmem_json_member_array (o, parts[n - 1]) : NULL;
}

static gint64
sample_weight (JsonObject *history)
{
  gint64 n = jmem_json_member_size (history, "samples");

  return n >= 1 ? n : 1;
}

JsonNode *
jmem_history_merge (JsonNode *const *samples,
                    guint            n_samples)
{
  Merge m = { 0 };
  JsonNode *out;
  JsonObject *root, *collected, *history;
  gint64 from = G_MAXINT64, to = G_MININT64, total = 0;
  gboolean thin = TRUE;
  GHashTableIter iter;
  gpointer key, value;

  g_return_val_if_fail (n_samples > 0, NULL);
  m.stats = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  m.rows = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) json_node_unref);
  m.row_arrays = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  m.present = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  for (guint i = 0; i < n_samples; i++)
    {
      JsonObject *o = json_node_get_object (samples[i]);
      JsonObject *h = jmem_json_member_object (o, "history");
      gint64 t = jmem_json_member_size (jmem_json_member_object (o, "collected"), "timestamp_unix");
      gint64 f = jmem_json_member_size (h, "from_unix"), e = jmem_json_member_size (h, "to_unix");

      m.weight = sample_weight (h);
      walk (o, "", accumulate, remember_row, &m);
      total += m.weight;
      thin = thin && jmem_json_member_true (h, "thin");
      if (f < 0 || e < 0)
        f = e = t;
      if (f >= 0)
        {
          from = MIN (from, f);
          to = MAX (to, e);
        }
    }

  /* the last sample's shape, with every row seen before it */
  out = json_node_copy (samples[n_samples - 1]);
  root = json_node_get_object (out);
  walk (root, "", NULL, note_present, &m);
  g_hash_table_iter_init (&iter, m.rows);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      JsonArray *a;

      if (g_hash_table_contains (m.present, key))
        continue;
      a = array_at (root, g_hash_table_lookup (m.row_arrays, key));
      if (a != NULL)
        json_array_add_element (a, json_node_copy (value));
    }

  history = json_object_new ();
  json_object_set_int_member (history, "line_version", JMEM_HISTORY_LINE_VERSION);
  json_object_set_boolean_member (history, "thin", thin);
  json_object_set_int_member (history, "samples", total);
  if (from != G_MAXINT64)
    {
      json_object_set_int_member (history, "from_unix", from);
      json_object_set_int_member (history, "to_unix", to);
    }
  walk (root, "", set_mean, NULL, &m);
  json_object_set_object_member (root, "history", history);

  /* the time, as text too, is the mean's */
  collected = jmem_json_member_object (root, "collected");
  if (collected != NULL && json_object_has_member (collected, "timestamp"))
    {
      g_autoptr(GDateTime) dt =
        g_date_time_new_from_unix_utc (jmem_json_member_size (collected, "timestamp_unix"));

      g_autofree char *text = dt != NULL ? g_date_time_format (dt, "%Y-%m-%dT%H:%M:%SZ") : NULL;

      if (text != NULL)
        json_object_set_string_member (collected, "timestamp", text);
    }

  g_hash_table_unref (m.stats);
  g_hash_table_unref (m.rows);
  g_hash_table_unref (m.row_arrays);
  g_hash_table_unref (m.present);
  return out;
}

static gint64
snapshot_time (JsonNode *snapshot)
{
  return jmem_json_member_size (jmem_json_member_object (json_node_get_object (snapshot),
                                                         "collected"), "timestamp_unix");
}

gint64
jmem_history_line_time (const char *line,
                        gsize       len)
{
  g_autoptr(JsonNode) node = jmem_diff_parse_snapshot (line, len, "history", NULL);

  return node != NULL ? snapshot_time (node) : -1;
}

/* The time of a line without parsing it: the first "timestamp_unix"
 * member (collected's, which comes before any other object), -1 when it has
 * none. A line that is merged is parsed and checked then; one left alone
 * is copied as it is, so a compaction parses only the lines it merges. */
static gint64
scan_time (const char *line, gsize len)
{
  static const char key[] = "\"timestamp_unix\":";
  const char *p = g_strstr_len (line, (gssize) len, key);
  const char *end = line + len;
  gint64 t = 0;

  if (p == NULL)
    return -1;
  p += sizeof key - 1;
  while (p < end && *p == ' ')
    p++;
  if (p == end || !g_ascii_isdigit (*p))
    return -1;
  for (; p < end && g_ascii_isdigit (*p) && t < G_MAXINT64 / 10 - 10; p++)
    t = t * 10 + (*p - '0');
  return t;
}

/* Neighbouring lines of one tier's slot, merged when there are several. */
typedef struct {
  GString *out;
  GArray  *lines;   /* Line: the slot's lines, in the data */
  gint64   width;
  gint64   slot;
} Group;

typedef struct {
  const char *start;
  gsize       len;
} Line;

static void
add_line (GString *out, const char *line, gsize len)
{
  g_string_append_len (out, line, (gssize) len);
  g_string_append_c (out, '\n');
}

static void
flush (Group *g)
{
  g_autoptr(GPtrArray) nodes = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);

  if (g->lines->len == 1)
    {
      Line *l = &g_array_index (g->lines, Line, 0);

      add_line (g->out, l->start, l->len);
    }
  for (guint i = 0; g->lines->len > 1 && i < g->lines->len; i++)
    {
      Line *l = &g_array_index (g->lines, Line, i);
      JsonNode *node = jmem_diff_parse_snapshot (l->start, l->len, "history", NULL);

      /* a damaged line is dropped: a reader would skip it anyway */
      if (node != NULL)
        g_ptr_array_add (nodes, node);
    }
  if (nodes->len > 0)
    {
      g_autoptr(JsonNode) merged = jmem_history_merge ((JsonNode *const *) nodes->pdata,
                                                       nodes->len);
      g_autofree char *text = json_to_string (merged, FALSE);

      add_line (g->out, text, strlen (text));
    }
  g_array_set_size (g->lines, 0);
}

GString *
jmem_history_tiers_apply (const char *data,
                          gsize       len,
                          gint64      now)
{
  Group g = { 0 };
  const char *p = data, *end = data + len;

  g.out = g_string_sized_new (len);
  g.lines = g_array_new (FALSE, FALSE, sizeof (Line));
  while (p < end)
    {
      const char *nl = memchr (p, '\n', (gsize) (end - p));
      gsize line_len = nl != NULL ? (gsize) (nl - p) : (gsize) (end - p);
      gint64 t = scan_time (p, line_len);
      gint64 age = now - t, width, slot;
      Line l = { p, line_len };

      p += line_len + (nl != NULL ? 1 : 0);
      if (t < 0)
        continue;
      width = age < JMEM_HISTORY_TIER_RAW_SECONDS ? 0 :
              age < JMEM_HISTORY_TIER_MINUTE_SECONDS ? JMEM_HISTORY_TIER_MINUTE_WIDTH :
              JMEM_HISTORY_TIER_OLD_WIDTH;
      slot = width > 0 ? t / width : 0;
      if (g.lines->len > 0 && (width == 0 || width != g.width || slot != g.slot))
        flush (&g);
      if (width == 0)
        {
          add_line (g.out, l.start, l.len);
          continue;
        }
      g.width = width;
      g.slot = slot;
      g_array_append_val (g.lines, l);
    }
  flush (&g);
  g_array_unref (g.lines);
  return g.out;
}
