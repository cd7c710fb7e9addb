/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "jmem-diff.h"

#include <gio/gio.h>
#include <string.h>

#include "jmem-error.h"
#include "jmem-file.h"
#include "jmem-glib-compat.h"
#include "jmem-json-reader.h"
#include "jmem-snapshot-json.h"
#include "jmem-snapshot.h"
#include "jmem-text.h"

/* A string copied from a snapshot file: any file may hold one of any
 * length, the diff carries no more than a snapshot would (jmem-text.h). */
static void
add_bounded_string (JsonBuilder *b,
                    const char  *value)
{
  g_autofree char *valid = jmem_text_make_valid (value, -1);
  g_autofree char *capped = jmem_text_cap_field (valid);

  json_builder_add_string_value (b, capped);
}

const char *const jmem_diff_system_fields[] = {
  "MemTotal", "MemFree", "MemAvailable", "Cached", "Buffers", "SReclaimable", "SUnreclaim",
  "Shmem", "CmaFree", "SwapFree", "SwapCached", "NvMapTotal", "GpuUsed", NULL,
};

const char *const jmem_diff_drop_fields[] = {
  "MemFree", "MemAvailable", "Cached", "Buffers", "SReclaimable", "CmaFree", "NvMapTotal", NULL,
};

/* Per-process sizes compared, as named in the snapshot's process objects. */
static const char *const process_fields[] = {
  "rss_kib", "pss_kib", "swap_kib", "nvmap_kib", "gpu_kib", NULL,
};

/* What the check below reads, for a reader that builds a few members of
 * each line (jmem_diff_parse_snapshot_paths()): what it requires is built
 * whole, what it takes absent is built only when it would refuse it. A
 * member the check reads and this leaves out would pass unchecked. */
void
jmem_diff_add_checked_paths (JmemJsonPaths *paths)
{
  static const char *const whole[] = {
    "schema",
    "schema_version",
    "collected.timestamp_unix",
    "nvmap.by_pid[].pid",
    "nvmap.by_pid[].process",
    "nvmap.by_pid[].size_kib",
    "nvmap.by_pid[].pid_exists",
    "processes.list[].pid",
    "processes.list[].name",
    NULL,
  };
  static const char *const sizes[] = {
    "memory.fields_kib.*",
    "nvmap.total_kib",
    "gpu.devices[].memory_used_kib",
    "processes.list[].footprint_kib",
  };

  jmem_json_paths_add (paths, whole);
  for (gsize i = 0; i < G_N_ELEMENTS (sizes); i++)
    jmem_json_paths_add_unless_int (paths, sizes[i], 0, JMEM_DIFF_MAX_KIB);
  for (gsize i = 0; process_fields[i] != NULL; i++)
    {
      g_autofree char *path = g_strconcat ("processes.list[].", process_fields[i], NULL);

      jmem_json_paths_add_unless_int (paths, path, 0, JMEM_DIFF_MAX_KIB);
    }
  jmem_json_paths_add_unless_int (paths, "processes.list[].start_time_ticks", 0, G_MAXINT64);
  jmem_json_paths_add_unless_boolean (paths, "processes.list[].kernel_thread");
}

/* ---- reading members ------------------------------------------------------ */

static JsonObject *
member_object (JsonObject *o, const char *name)
{
  JsonNode *n = o != NULL ? json_object_get_member (o, name) : NULL;

  return n != NULL && JSON_NODE_HOLDS_OBJECT (n) ? json_node_get_object (n) : NULL;
}

static JsonArray *
member_array (JsonObject *o, const char *name)
{
  JsonNode *n = o != NULL ? json_object_get_member (o, name) : NULL;

  return n != NULL && JSON_NODE_HOLDS_ARRAY (n) ? json_node_get_array (n) : NULL;
}

static gboolean
node_is_int (JsonNode *n)
{
  return n != NULL && JSON_NODE_HOLDS_VALUE (n) && json_node_get_value_type (n) == G_TYPE_INT64;
}

/* A size in KiB, or -1 when absent, null or not a valid size (only after
 * jmem_diff_check_snapshot has refused the invalid ones). */
static gint64
kib_of (JsonObject *o, const char *name)
{
  JsonNode *n = o != NULL ? json_object_get_member (o, name) : NULL;
  gint64 v;

  if (!node_is_int (n))
    return -1;
  v = json_node_get_int (n);
  return v >= 0 && v <= JMEM_DIFF_MAX_KIB ? v : -1;
}

static const char *
string_of (JsonObject *o, const char *name)
{
  JsonNode *n = o != NULL ? json_object_get_member (o, name) : NULL;

  return n != NULL && JSON_NODE_HOLDS_VALUE (n) && json_node_get_value_type (n) == G_TYPE_STRING ?
           json_node_get_string (n) : NULL;
}

/* ---- checking ------------------------------------------------------------- */

static gboolean
invalid (GError **error, const char *what, const char *format, ...) G_GNUC_PRINTF (3, 4);

static gboolean
invalid (GError **error, const char *what, const char *format, ...)
{
  g_autofree char *text = NULL;
  va_list ap;

  va_start (ap, format);
  text = g_strdup_vprintf (format, ap);
  va_end (ap);
  g_set_error (error, JMEM_ERROR, JMEM_ERROR_INVALID_ARGUMENT, "%s: %s", what, text);
  return FALSE;
}

/* @name in @o is absent, null, or an integer in 0..JMEM_DIFF_MAX_KIB. */
static gboolean
check_kib (JsonObject *o, const char *name, const char *what, const char *where, GError **error)
{
  JsonNode *n = json_object_get_member (o, name);
  gint64 v;

  if (n == NULL || JSON_NODE_HOLDS_NULL (n))
    return TRUE;
  if (!node_is_int (n))
    return invalid (error, what, "%s.%s is not an integer", where, name);
  v = json_node_get_int (n);
  if (v < 0 || v > JMEM_DIFF_MAX_KIB)
    return invalid (error, what, "%s.%s = %" G_GINT64_FORMAT " is not a possible size",
                    where, name, v);
  return TRUE;
}

/* An optional member that, when present and not null, must be an object. */
static gboolean
check_optional_object (JsonObject *o, const char *name, const char *what, GError **error)
{
  JsonNode *n = json_object_get_member (o, name);

  if (n == NULL || JSON_NODE_HOLDS_NULL (n) || JSON_NODE_HOLDS_OBJECT (n))
    return TRUE;
  return invalid (error, what, "%s is not an object", name);
}

/* @name in @o is absent, null, or an integer of at least @min; else the
 * error says it is not @expected. */
static gboolean
check_optional_int (JsonObject *o, const char *name, gint64 min, const char *expected,
                    const char *what, const char *where, GError **error)
{
  JsonNode *n = json_object_get_member (o, name);

  if (n == NULL || JSON_NODE_HOLDS_NULL (n) || (node_is_int (n) && json_node_get_int (n) >= min))
    return TRUE;
  return invalid (error, what, "%s.%s is not %s", where, name, expected);
}

/* @name in @o is absent, null, or a value of @type. */
static gboolean
check_optional_value (JsonObject *o, const char *name, GType type, const char *expected,
                      const char *what, const char *where, GError **error)
{
  JsonNode *n = json_object_get_member (o, name);

  if (n == NULL || JSON_NODE_HOLDS_NULL (n) ||
      (JSON_NODE_HOLDS_VALUE (n) && json_node_get_value_type (n) == type))
    return TRUE;
  return invalid (error, what, "%s.%s is not %s", where, name, expected);
}

/* start_time_ticks and kernel_thread: absent (an older jmem), null, or a
 * count of ticks and a boolean. */
static gboolean
check_start_and_kind (JsonObject *p, const char *what, const char *where, GError **error)
{
  return check_optional_int (p, "start_time_ticks", 0, "a count of clock ticks",
                             what, where, error) &&
         check_optional_value (p, "kernel_thread", G_TYPE_BOOLEAN, "true, false or null",
                               what, where, error);
}

/* nvmap.by_pid: what the rules over time read of each row. */
static gboolean
check_nvmap_rows (JsonObject *nvmap, const char *what, GError **error)
{
  JsonNode *node = json_object_get_member (nvmap, "by_pid");
  JsonArray *rows;

  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return TRUE;
  if (!JSON_NODE_HOLDS_ARRAY (node))
    return invalid (error, what, "nvmap.by_pid is not an array");
  rows = json_node_get_array (node);
  for (guint i = 0; i < json_array_get_length (rows); i++)
    {
      JsonNode *n = json_array_get_element (rows, i);
      g_autofree char *where = g_strdup_printf ("nvmap.by_pid[%u]", i);
      JsonObject *row;

      if (!JSON_NODE_HOLDS_OBJECT (n))
        return invalid (error, what, "%s is not an object", where);
      row = json_node_get_object (n);
      if (!check_optional_int (row, "pid", 0, "a PID", what, where, error) ||
          !check_optional_value (row, "process", G_TYPE_STRING, "a string", what, where, error) ||
          !check_kib (row, "size_kib", what, where, error) ||
          !check_optional_value (row, "pid_exists", G_TYPE_BOOLEAN, "true, false or null",
                                 what, where, error))
        return FALSE;
    }
  return TRUE;
}

static gboolean
check_processes (JsonObject *root, const char *what, GError **error)
{
  JsonObject *procs;
  JsonArray *list;

  if (!check_optional_object (root, "processes", what, error))
    return FALSE;
  procs = member_object (root, "processes");
  if (procs == NULL)
    return TRUE;
  if (json_object_has_member (procs, "list") && member_array (procs, "list") == NULL &&
      !JSON_NODE_HOLDS_NULL (json_object_get_member (procs, "list")))
    return invalid (error, what, "processes.list is not an array");
  list = member_array (procs, "list");
  for (guint i = 0; list != NULL && i < json_array_get_length (list); i++)
    {
      JsonNode *n = json_array_get_element (list, i);
      g_autofree char *where = g_strdup_printf ("processes.list[%u]", i);
      JsonObject *p;

      if (!JSON_NODE_HOLDS_OBJECT (n))
        return invalid (error, what, "%s is not an object", where);
      p = json_node_get_object (n);
      if (!node_is_int (json_object_get_member (p, "pid")) ||
          json_object_get_int_member (p, "pid") < 0)
        return invalid (error, what, "%s has no valid pid", where);
      if (string_of (p, "name") == NULL)
        return invalid (error, what, "%s has no name", where);
      if (!g_utf8_validate (string_of (p, "name"), -1, NULL))
        return invalid (error, what, "%s.name is not valid UTF-8", where);
      for (guint f = 0; process_fields[f] != NULL; f++)
        if (!check_kib (p, process_fields[f], what, where, error))
          return FALSE;
      if (!check_kib (p, "footprint_kib", what, where, error))
        return FALSE;
      if (!check_start_and_kind (p, what, where, error))
        return FALSE;
    }
  return TRUE;
}

gboolean
jmem_diff_check_snapshot (JsonNode   *node,
                          const char *what,
                          GError    **error)
{
  JsonObject *root, *collected, *memory, *fields, *nvmap, *gpu;
  JsonArray *devices;
  const char *schema;
  JsonNode *version;

  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    return invalid (error, what, "not a jmem snapshot (the document is not a JSON object)");
  root = json_node_get_object (node);

  schema = string_of (root, "schema");
  if (g_strcmp0 (schema, JMEM_SNAPSHOT_SCHEMA_NAME) != 0)
    return invalid (error, what, "not a jmem snapshot (schema is %s%s%s, expected \"%s\"; "
                    "write one with jmem snapshot --json)",
                    schema != NULL ? "\"" : "", schema != NULL ? schema : "missing",
                    schema != NULL ? "\"" : "", JMEM_SNAPSHOT_SCHEMA_NAME);
  version = json_object_get_member (root, "schema_version");
  if (!node_is_int (version))
    return invalid (error, what, "schema_version is missing or not an integer");
  if (json_node_get_int (version) < JMEM_SNAPSHOT_SCHEMA_VERSION_MIN ||
      json_node_get_int (version) > JMEM_SNAPSHOT_SCHEMA_VERSION)
    return invalid (error, what, "snapshot schema version %" G_GINT64_FORMAT
                    " is not supported (this jmem reads versions %d to %d)",
                    json_node_get_int (version), JMEM_SNAPSHOT_SCHEMA_VERSION_MIN,
                    JMEM_SNAPSHOT_SCHEMA_VERSION);

  if (!check_optional_object (root, "collected", what, error) ||
      !check_optional_object (root, "memory", what, error) ||
      !check_optional_object (root, "nvmap", what, error) ||
      !check_optional_object (root, "gpu", what, error))
    return FALSE;

  memory = member_object (root, "memory");
  if (memory != NULL && !check_optional_object (memory, "fields_kib", what, error))
    return FALSE;
  fields = member_object (memory, "fields_kib");
  if (fields != NULL)
    {
      g_autoptr(GList) names = json_object_get_members (fields);

      for (GList *l = names; l != NULL; l = l->next)
        if (!check_kib (fields, l->data, what, "memory.fields_kib", error))
          return FALSE;
    }

  collected = member_object (root, "collected");
  if (collected != NULL &&
      !check_optional_int (collected, "timestamp_unix", 1, "a time in seconds since 1970",
                           what, "collected", error))
    return FALSE;

  nvmap = member_object (root, "nvmap");
  if (nvmap != NULL && (!check_kib (nvmap, "total_kib", what, "nvmap", error) ||
                        !check_nvmap_rows (nvmap, what, error)))
    return FALSE;

  gpu = member_object (root, "gpu");
  devices = member_array (gpu, "devices");
  for (guint i = 0; devices != NULL && i < json_array_get_length (devices); i++)
    {
      JsonNode *n = json_array_get_element (devices, i);

      if (!JSON_NODE_HOLDS_OBJECT (n))
        return invalid (error, what, "gpu.devices[%u] is not an object", i);
      if (!check_kib (json_node_get_object (n), "memory_used_kib", what, "gpu.devices[]", error))
        return FALSE;
    }

  return check_processes (root, what, error);
}

JsonNode *
jmem_diff_parse_snapshot (const char *data,
                          gsize       len,
                          const char *what,
                          GError    **error)
{
  return jmem_diff_parse_snapshot_paths (data, len, what, NULL, error);
}

JsonNode *
jmem_diff_parse_snapshot_paths (const char          *data,
                                gsize                len,
                                const char          *what,
                                const JmemJsonPaths *paths,
                                GError             **error)
{
  g_autoptr(GError) local = NULL;
  g_autoptr(JsonNode) root = jmem_json_read_paths (data, len, JMEM_DIFF_MAX_FILE_BYTES, paths,
                                                   &local);

  if (root == NULL)
    {
      g_set_error (error, JMEM_ERROR, JMEM_ERROR_INVALID_ARGUMENT, "%s: %s (%s)", what,
                   g_error_matches (local, JMEM_ERROR, JMEM_ERROR_INVALID_ARGUMENT) ?
                     "not valid JSON" : "not a jmem snapshot",
                   local->message);
      return NULL;
    }
  if (!jmem_diff_check_snapshot (root, what, error))
    return NULL;
  return g_steal_pointer (&root);
}

/* Whether @data is a history (one snapshot per line) rather than one
 * snapshot: its first line alone is a snapshot. */
static gboolean
is_history (const char *data, gsize len)
{
  const char *nl = memchr (data, '\n', len);
  g_autoptr(JsonNode) first = NULL;

  if (nl == NULL)
    return FALSE;
  first = jmem_json_read (data, (gsize) (nl - data), JMEM_DIFF_MAX_FILE_BYTES, NULL);
  return first != NULL && jmem_diff_check_snapshot (first, "", NULL);
}

JsonNode *
jmem_diff_load_snapshot (const char *path,
                         GError    **error)
{
  g_autofree char *data = NULL;
  g_autoptr(GError) local = NULL;
  gsize len = 0;
  JsonNode *root;

  /* Its errors name @path already ("Cannot open PATH: ..."). */
  if (!jmem_file_read_regular_capped (path, JMEM_DIFF_MAX_FILE_BYTES, &data, &len, error))
    return NULL;
  root = jmem_diff_parse_snapshot (data, len, path, &local);
  if (root == NULL && is_history (data, len))
    {
      g_set_error (error, JMEM_ERROR, JMEM_ERROR_INVALID_ARGUMENT,
                   "%s holds a snapshot per line, a history written by jmem watch, not one "
                   "snapshot: compare its first and last line with jmem diff --history",
                   path);
      return NULL;
    }
  if (root == NULL)
    g_propagate_error (error, g_steal_pointer (&local));
  return root;
}

/* ---- comparing ------------------------------------------------------------ */

static void
add_kib (JsonBuilder *b, const char *name, gint64 kib)
{
  json_builder_set_member_name (b, name);
  if (kib < 0)
    json_builder_add_null_value (b);
  else
    json_builder_add_int_value (b, kib);
}

static void
add_delta (JsonBuilder *b, const char *name, gint64 before, gint64 after)
{
  json_builder_set_member_name (b, name);
  if (before < 0 || after < 0)
    json_builder_add_null_value (b);
  else
    json_builder_add_int_value (b, after - before);
}

/* The value of one system row in a snapshot; -1 when unknown. */
static gint64
system_value (JsonObject *root, const char *field)
{
  if (g_str_equal (field, "NvMapTotal"))
    return kib_of (member_object (root, "nvmap"), "total_kib");
  if (g_str_equal (field, "GpuUsed"))
    {
      JsonArray *devices = member_array (member_object (root, "gpu"), "devices");
      gint64 sum = -1;

      /* Known only when some device reports it; each is at most 2^50. */
      for (guint i = 0; devices != NULL && i < json_array_get_length (devices) && i < 1024; i++)
        {
          JsonNode *n = json_array_get_element (devices, i);
          gint64 v = JSON_NODE_HOLDS_OBJECT (n) ?
                       kib_of (json_node_get_object (n), "memory_used_kib") : -1;
          if (v >= 0)
            sum = (sum < 0 ? 0 : sum) + v;
        }
      return sum;
    }
  return kib_of (member_object (member_object (root, "memory"), "fields_kib"), field);
}

static JsonObject *
root_object (JsonNode *node)
{
  return node != NULL && JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
}

static void
build_system (JsonBuilder *b, JsonObject *before, JsonObject *after, const char *const *fields)
{
  json_builder_begin_array (b);
  for (guint i = 0; fields[i] != NULL; i++)
    {
      gint64 x = system_value (before, fields[i]), y = system_value (after, fields[i]);

      json_builder_begin_object (b);
      json_builder_set_member_name (b, "field");
      json_builder_add_string_value (b, fields[i]);
      add_kib (b, "before_kib", x);
      add_kib (b, "after_kib", y);
      add_delta (b, "delta_kib", x, y);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
}

JsonNode *
jmem_diff_system (JsonNode          *before,
                  JsonNode          *after,
                  const char *const *fields)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();

  build_system (b, root_object (before), root_object (after), fields);
  return json_builder_get_root (b);
}

typedef struct {
  JsonObject *before;  /* NULL when it appeared */
  JsonObject *after;   /* NULL when it exited */
  gint64      change;  /* signed KiB; sorting uses its size */
} Match;

/* A process's size for sorting: its footprint, else its RSS. */
static gint64
process_size (JsonObject *p)
{
  gint64 v = kib_of (p, "footprint_kib");

  return v >= 0 ? v : MAX (kib_of (p, "rss_kib"), 0);
}

static gint64
match_change (const Match *m)
{
  gint64 best = 0;

  if (m->before == NULL)
    return process_size (m->after);
  if (m->after == NULL)
    return -process_size (m->before);
  if (kib_of (m->before, "footprint_kib") >= 0 && kib_of (m->after, "footprint_kib") >= 0)
    return kib_of (m->after, "footprint_kib") - kib_of (m->before, "footprint_kib");
  /* Without footprints, the field that moved most. */
  for (guint f = 0; process_fields[f] != NULL; f++)
    {
      gint64 x = kib_of (m->before, process_fields[f]), y = kib_of (m->after, process_fields[f]);
      if (x >= 0 && y >= 0 && ABS (y - x) > ABS (best))
        best = y - x;
    }
  return best;
}

static gboolean
match_differs (const Match *m)
{
  for (guint f = 0; process_fields[f] != NULL; f++)
    if (kib_of (m->before, process_fields[f]) != kib_of (m->after, process_fields[f]))
      return TRUE;
  return FALSE;
}

static int
compare_matches (gconstpointer a, gconstpointer b)
{
  const Match *x = a, *y = b;
  gint64 ax = ABS (x->change), ay = ABS (y->change);
  JsonObject *px = x->before != NULL ? x->before : x->after;
  JsonObject *py = y->before != NULL ? y->before : y->after;

  if (ax != ay)
    return ax > ay ? -1 : 1;
  if (json_object_get_int_member (px, "pid") != json_object_get_int_member (py, "pid"))
    return json_object_get_int_member (px, "pid") < json_object_get_int_member (py, "pid") ? -1 : 1;
  return g_strcmp0 (string_of (px, "name"), string_of (py, "name"));
}

static void
add_sizes (JsonBuilder *b, const char *name, JsonObject *p)
{
  json_builder_set_member_name (b, name);
  json_builder_begin_object (b);
  for (guint f = 0; process_fields[f] != NULL; f++)
    add_kib (b, process_fields[f], kib_of (p, process_fields[f]));
  json_builder_end_object (b);
}

static void
add_match (JsonBuilder *b, const Match *m)
{
  /* A renamed process under the name it has now. */
  JsonObject *p = m->after != NULL ? m->after : m->before;

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "pid");
  json_builder_add_int_value (b, json_object_get_int_member (p, "pid"));
  json_builder_set_member_name (b, "name");
  add_bounded_string (b, string_of (p, "name"));
  if (m->before != NULL)
    add_sizes (b, "before", m->before);
  if (m->after != NULL)
    add_sizes (b, "after", m->after);
  if (m->before != NULL && m->after != NULL)
    {
      json_builder_set_member_name (b, "delta");
      json_builder_begin_object (b);
      for (guint f = 0; process_fields[f] != NULL; f++)
        add_delta (b, process_fields[f], kib_of (m->before, process_fields[f]),
                   kib_of (m->after, process_fields[f]));
      json_builder_end_object (b);
    }
  json_builder_set_member_name (b, "change_kib");
  json_builder_add_int_value (b, m->change);
  json_builder_end_object (b);
}

static void
add_match_list (JsonBuilder *b, const char *name, GArray *list)
{
  g_array_sort (list, compare_matches);
  json_builder_set_member_name (b, name);
  json_builder_begin_array (b);
  for (guint i = 0; i < list->len; i++)
    add_match (b, &g_array_index (list, Match, i));
  json_builder_end_array (b);
}

/* The start time in clock ticks after boot, or -1 when the snapshot has
 * none (an older jmem, or stat unreadable). */
static gint64
start_of (JsonObject *p)
{
  JsonNode *n = json_object_get_member (p, "start_time_ticks");

  return node_is_int (n) && json_node_get_int (n) >= 0 ? json_node_get_int (n) : -1;
}

/* What the snapshot says; for one without the member (an older jmem) what
 * a kernel thread looks like there: no command line, no RSS, not a zombie. */
static gboolean
is_kernel_thread (JsonObject *p)
{
  JsonNode *n = json_object_get_member (p, "kernel_thread");
  JsonNode *rss = json_object_get_member (p, "rss_kib");

  if (n != NULL && JSON_NODE_HOLDS_VALUE (n) && json_node_get_value_type (n) == G_TYPE_BOOLEAN)
    return json_node_get_boolean (n);
  if (n != NULL)
    return FALSE;
  return g_strcmp0 (string_of (p, "cmdline"), "") == 0 &&
         (rss == NULL || JSON_NODE_HOLDS_NULL (rss)) &&
         g_strcmp0 (string_of (p, "state"), "Z") != 0;
}

/* Whether two entries with one PID are one process: the same start time
 * when both snapshots know it (a rename keeps it, a reuse does not), else
 * the same name. */
static gboolean
same_process (JsonObject *before, JsonObject *after)
{
  gint64 sb = start_of (before), sa = start_of (after);

  if (sb >= 0 && sa >= 0)
    return sb == sa;
  return g_strcmp0 (string_of (before, "name"), string_of (after, "name")) == 0;
}

/* Whether the snapshot lists every process it saw (no --top cut). */
static gboolean
processes_complete (JsonObject *root)
{
  JsonObject *procs = member_object (root, "processes");
  JsonArray *list = member_array (procs, "list");
  JsonNode *total = procs != NULL ? json_object_get_member (procs, "total") : NULL;

  if (list == NULL)
    return FALSE;
  return node_is_int (total) && json_node_get_int (total) <= (gint64) json_array_get_length (list);
}

static gboolean
compared (JsonObject *p, JmemDiffFlags flags)
{
  return (flags & JMEM_DIFF_KERNEL_THREADS) || !is_kernel_thread (p);
}

static gint64
pid_of (JsonObject *p)
{
  return json_object_get_int_member (p, "pid");
}

static void
build_processes (JsonBuilder *b, JsonObject *before, JsonObject *after, JmemDiffFlags flags)
{
  /* PID -> its entry in "before", NULL once matched; PIDs seen in "after". */
  g_autoptr(GHashTable) by_pid = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  g_autoptr(GHashTable) seen_after = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  g_autoptr(GPtrArray) order = g_ptr_array_new ();
  g_autoptr(GArray) changed = g_array_new (FALSE, FALSE, sizeof (Match));
  g_autoptr(GArray) appeared = g_array_new (FALSE, FALSE, sizeof (Match));
  g_autoptr(GArray) exited = g_array_new (FALSE, FALSE, sizeof (Match));
  JsonArray *lb = member_array (member_object (before, "processes"), "list");
  JsonArray *la = member_array (member_object (after, "processes"), "list");
  guint unchanged = 0, duplicates = 0;

  /* The first entry of a PID counts; a valid snapshot has one per PID. */
  for (guint i = 0; lb != NULL && i < json_array_get_length (lb); i++)
    {
      JsonObject *p = json_array_get_object_element (lb, i);
      gint64 pid = pid_of (p);

      if (!compared (p, flags))
        continue;
      if (g_hash_table_contains (by_pid, &pid))
        {
          duplicates++;
          continue;
        }
      g_hash_table_insert (by_pid, g_memdup2 (&pid, sizeof pid), p);
      g_ptr_array_add (order, p);
    }

  for (guint i = 0; la != NULL && i < json_array_get_length (la); i++)
    {
      JsonObject *p = json_array_get_object_element (la, i);
      gint64 pid = pid_of (p);
      JsonObject *was;
      Match m = { NULL, p, 0 };

      if (!compared (p, flags))
        continue;
      if (g_hash_table_contains (seen_after, &pid))
        {
          duplicates++;
          continue;
        }
      g_hash_table_add (seen_after, g_memdup2 (&pid, sizeof pid));
      was = g_hash_table_lookup (by_pid, &pid);
      /* Another process under a reused PID: "was" stays, and exits. */
      if (was != NULL && same_process (was, p))
        {
          m.before = was;
          g_hash_table_insert (by_pid, g_memdup2 (&pid, sizeof pid), NULL);
        }
      m.change = match_change (&m);
      if (m.before == NULL)
        g_array_append_val (appeared, m);
      else if (match_differs (&m))
        g_array_append_val (changed, m);
      else
        unchanged++;
    }

  /* In the order of "before", so that ties sort the same every run. */
  for (guint i = 0; i < order->len; i++)
    {
      JsonObject *p = g_ptr_array_index (order, i);
      gint64 pid = pid_of (p);

      if (g_hash_table_lookup (by_pid, &pid) == p)
        {
          Match m = { p, NULL, 0 };
          m.change = match_change (&m);
          g_array_append_val (exited, m);
        }
    }

  json_builder_set_member_name (b, "processes");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "complete");
  json_builder_add_boolean_value (b, processes_complete (before) && processes_complete (after));
  json_builder_set_member_name (b, "kernel_threads");
  json_builder_add_boolean_value (b, (flags & JMEM_DIFF_KERNEL_THREADS) != 0);
  add_match_list (b, "changed", changed);
  add_match_list (b, "appeared", appeared);
  add_match_list (b, "exited", exited);
  json_builder_set_member_name (b, "unchanged");
  json_builder_add_int_value (b, unchanged);
  json_builder_set_member_name (b, "duplicates");
  json_builder_add_int_value (b, duplicates);
  json_builder_end_object (b);
}

static void
add_side (JsonBuilder *b, const char *name, JsonObject *root)
{
  JsonObject *collected = member_object (root, "collected");
  JsonNode *ts = collected != NULL ? json_object_get_member (collected, "timestamp_unix") : NULL;

  json_builder_set_member_name (b, name);
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "hostname");
  if (string_of (collected, "hostname") != NULL)
    add_bounded_string (b, string_of (collected, "hostname"));
  else
    json_builder_add_null_value (b);
  json_builder_set_member_name (b, "timestamp_unix");
  if (node_is_int (ts))
    json_builder_add_int_value (b, json_node_get_int (ts));
  else
    json_builder_add_null_value (b);
  json_builder_end_object (b);
}

static gint64
sum_known (JsonObject *root, const char *const *fields)
{
  gint64 sum = 0;

  for (guint i = 0; fields[i] != NULL; i++)
    {
      gint64 v = system_value (root, fields[i]);
      if (v < 0)
        return -1;
      sum += v;
    }
  return sum;
}

/* What dropping caches (or whatever happened between the two) gave back, and
 * what it could not: caches still held, slab that cannot be reclaimed, and
 * NvMap, which only its processes can free. */
static void
build_reclaim (JsonBuilder *b, JsonObject *before, JsonObject *after)
{
  static const char *const cache_fields[] = { "Cached", "Buffers", "SReclaimable", NULL };
  gint64 cache_before = sum_known (before, cache_fields), cache_after = sum_known (after, cache_fields);
  gint64 avail_b = system_value (before, "MemAvailable"), avail_a = system_value (after, "MemAvailable");
  gint64 nv_b = system_value (before, "NvMapTotal"), nv_a = system_value (after, "NvMapTotal");

  json_builder_set_member_name (b, "reclaim");
  json_builder_begin_object (b);
  add_delta (b, "available_gained_kib", avail_b, avail_a);
  add_delta (b, "cache_released_kib", cache_after, cache_before);
  add_kib (b, "cache_remaining_kib", cache_after);
  add_kib (b, "shmem_remaining_kib", system_value (after, "Shmem"));
  add_kib (b, "unreclaimable_slab_kib", system_value (after, "SUnreclaim"));
  add_delta (b, "nvmap_released_kib", nv_a, nv_b);
  add_kib (b, "nvmap_remaining_kib", nv_a);
  json_builder_end_object (b);
}

JsonNode *
jmem_diff_snapshots (JsonNode      *before,
                     JsonNode      *after,
                     JmemDiffFlags  flags)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  JsonObject *rb = root_object (before), *ra = root_object (after);
  JsonObject *cb = member_object (rb, "collected"), *ca = member_object (ra, "collected");
  JsonNode *tb = cb != NULL ? json_object_get_member (cb, "timestamp_unix") : NULL;
  JsonNode *ta = ca != NULL ? json_object_get_member (ca, "timestamp_unix") : NULL;

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "schema");
  json_builder_add_string_value (b, JMEM_DIFF_SCHEMA_NAME);
  json_builder_set_member_name (b, "schema_version");
  json_builder_add_int_value (b, JMEM_DIFF_SCHEMA_VERSION);
  add_side (b, "before", rb);
  add_side (b, "after", ra);
  json_builder_set_member_name (b, "interval_s");
  if (node_is_int (tb) && node_is_int (ta) &&
      ABS (json_node_get_int (tb)) < (G_GINT64_CONSTANT (1) << 40) &&
      ABS (json_node_get_int (ta)) < (G_GINT64_CONSTANT (1) << 40))
    json_builder_add_int_value (b, json_node_get_int (ta) - json_node_get_int (tb));
  else
    json_builder_add_null_value (b);
  json_builder_set_member_name (b, "same_host");
  json_builder_add_boolean_value (b, g_strcmp0 (string_of (cb, "hostname"),
                                                string_of (ca, "hostname")) == 0);
  json_builder_set_member_name (b, "system");
  build_system (b, rb, ra, jmem_diff_system_fields);
  build_reclaim (b, rb, ra);
  build_processes (b, rb, ra, flags);
  json_builder_end_object (b);
  return json_builder_get_root (b);
}
