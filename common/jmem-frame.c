#include "jmem-frame.h"

#include "jmem-snapshot-json.h"
#include "jmem-text.h"

#include <string.h>

static void
frame_process_free (JmemFrameProcess *p)
{
  g_free (p->name);
  g_free (p->user);
  g_free (p->container);
  g_free (p);
}

static void
frame_nvmap_free (JmemFrameNvmap *n)
{
  g_free (n->name);
  g_free (n);
}

static void
frame_bucket_free (JmemFrameBucket *b)
{
  g_free (b->name);
  g_free (b);
}

void
jmem_frame_free (JmemFrame *f)
{
  if (f == NULL)
    return;
  g_free (f->hostname);
  g_free (f->board);
  g_free (f->l4t);
  g_free (f->sysroot);
  g_free (f->nvmap_source);
  g_free (f->nvmap_error);
  g_free (f->gpu_source);
  g_clear_pointer (&f->buckets, g_ptr_array_unref);
  g_ptr_array_unref (f->processes);
  g_ptr_array_unref (f->nvmap_by_pid);
  g_free (f);
}

static JmemFrame *
frame_new (void)
{
  JmemFrame *f = g_new0 (JmemFrame, 1);

  f->timestamp_unix = f->uptime_s = -1;
  f->mem_total_kib = f->mem_available_kib = f->mem_used_kib = -1;
  f->swap_total_kib = f->swap_used_kib = -1;
  f->nvmap_total_kib = f->gpu_used_kib = -1;
  f->allocatable_now_kib = f->allocatable_after_reclaim_kib = f->largest_free_block_kib = -1;
  f->processes = g_ptr_array_new_with_free_func ((GDestroyNotify) frame_process_free);
  f->nvmap_by_pid = g_ptr_array_new_with_free_func ((GDestroyNotify) frame_nvmap_free);
  return f;
}

/* ---- reading a document ---- */

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

/* A size or count: -1 when absent, null, negative or not an integer. */
static gint64
member_int (JsonObject *o, const char *name)
{
  JsonNode *n = o != NULL ? json_object_get_member (o, name) : NULL;

  if (!node_is_int (n))
    return -1;
  return MAX (json_node_get_int (n), -1);
}

/* A copy of a string member made valid UTF-8 and capped; NULL otherwise. */
static char *
member_string (JsonObject *o, const char *name)
{
  JsonNode *n = o != NULL ? json_object_get_member (o, name) : NULL;
  g_autofree char *valid = NULL;

  if (n == NULL || !JSON_NODE_HOLDS_VALUE (n) || json_node_get_value_type (n) != G_TYPE_STRING)
    return NULL;
  valid = jmem_text_make_valid (json_node_get_string (n), -1);
  return jmem_text_cap_field (valid);
}

static gboolean
member_true (JsonObject *o, const char *name)
{
  JsonNode *n = o != NULL ? json_object_get_member (o, name) : NULL;

  return n != NULL && JSON_NODE_HOLDS_VALUE (n) && json_node_get_value_type (n) == G_TYPE_BOOLEAN &&
         json_node_get_boolean (n);
}

char *
jmem_frame_container_key (const char *runtime,
                          const char *id)
{
  if (runtime == NULL && id == NULL)
    return NULL;
  return g_strdup_printf ("%s/%s", runtime != NULL ? runtime : "?", id != NULL ? id : "");
}

char *
jmem_frame_container_short (const char *key)
{
  const char *slash;

  if (key == NULL)
    return NULL;
  slash = strchr (key, '/');
  if (slash == NULL || slash[1] == '\0')
    return slash == NULL ? g_strdup (key) : g_strndup (key, (gsize) (slash - key));
  return g_utf8_substring (slash + 1, 0, MIN (g_utf8_strlen (slash + 1, -1), 12));
}

/* The GPUs' used memory; where none reports it (Thor), the sum of the
 * trusted per-process rows of listed GPUs: jmem summary's rule. */
static gint64
gpu_used (JsonObject *gpu)
{
  JsonArray *devices = member_array (gpu, "devices");
  JsonArray *procs = member_array (gpu, "processes");
  g_autoptr(GHashTable) uuids = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  gint64 sum = -1;

  for (guint i = 0; devices != NULL && i < json_array_get_length (devices); i++)
    {
      JsonObject *d = json_array_get_object_element (devices, i);
      gint64 used = member_int (d, "memory_used_kib");
      char *uuid = member_string (d, "uuid");

      if (uuid != NULL)
        g_hash_table_add (uuids, uuid);
      if (used >= 0 && used < G_MAXINT64 / 2)
        sum = (sum < 0 ? 0 : sum) + used;
    }
  if (sum >= 0 || !member_true (gpu, "processes_trusted"))
    return sum;
  for (guint i = 0; procs != NULL && i < json_array_get_length (procs); i++)
    {
      JsonObject *p = json_array_get_object_element (procs, i);
      g_autofree char *uuid = member_string (p, "gpu_uuid");
      gint64 used = member_int (p, "used_memory_kib");

      if (used >= 0 && used < G_MAXINT32 * G_GINT64_CONSTANT (1024) && uuid != NULL &&
          g_hash_table_contains (uuids, uuid))
        sum = (sum < 0 ? 0 : sum) + used;
    }
  return sum;
}

/* The headroom's three figures, by the names of the headroom object; a
 * snapshot without one leaves has_headroom FALSE. */
static void
read_headroom (JmemFrame *f, JsonObject *root)
{
  JsonObject *h = member_object (root, "headroom");

  if (h == NULL)
    return;
  f->has_headroom = TRUE;
  f->allocatable_now_kib = member_int (h, "allocatable_now_kib");
  f->allocatable_after_reclaim_kib = member_int (h, "allocatable_after_reclaim_kib");
  f->largest_free_block_kib = member_int (h, "largest_free_block_kib");
}

/* A bucket's size: "kib", else its first integer member named *_kib. */
static gint64
bucket_kib (JsonObject *o)
{
  g_autoptr(GList) names = json_object_get_members (o);

  if (json_object_has_member (o, "kib"))
    return member_int (o, "kib");
  for (GList *l = names; l != NULL; l = l->next)
    if (g_str_has_suffix (l->data, "_kib") && node_is_int (json_object_get_member (o, l->data)))
      return member_int (o, l->data);
  return -1;
}

static void
add_bucket (JmemFrame *f, char *name, gint64 kib)
{
  JmemFrameBucket *b = g_new0 (JmemFrameBucket, 1);

  b->name = name;
  b->kib = kib;
  g_ptr_array_add (f->buckets, b);
}

/* The accounting's buckets (docs/snapshot.schema.json, "accounting"): an
 * array of objects with a "label" or "name" (or "id") and "kib" (or a
 * member *_kib), or an object of buckets by name, each a size or an object
 * holding one; then "unexplained_kib" as a bucket of its own when it is not
 * negative (a negative one is an overlap, nothing to stack). A null
 * accounting (nothing to account) gives none. */
static void
read_accounting (JmemFrame *f, JsonObject *root)
{
  JsonObject *a = member_object (root, "accounting");
  JsonNode *buckets = a != NULL ? json_object_get_member (a, "buckets") : NULL;

  if (buckets == NULL)
    return;
  f->buckets = g_ptr_array_new_with_free_func ((GDestroyNotify) frame_bucket_free);
  if (JSON_NODE_HOLDS_ARRAY (buckets))
    {
      JsonArray *list = json_node_get_array (buckets);

      for (guint i = 0; i < json_array_get_length (list); i++)
        {
          JsonNode *n = json_array_get_element (list, i);
          JsonObject *o = JSON_NODE_HOLDS_OBJECT (n) ? json_node_get_object (n) : NULL;
          char *name = NULL;

          for (guint k = 0; o != NULL && name == NULL && k < 3; k++)
            name = member_string (o, (const char *[]) { "label", "name", "id" }[k]);
          if (name != NULL)
            add_bucket (f, name, bucket_kib (o));
        }
    }
  else if (JSON_NODE_HOLDS_OBJECT (buckets))
    {
      JsonObject *by_name = json_node_get_object (buckets);
      g_autoptr(GList) names = json_object_get_members (by_name);

      for (GList *l = names; l != NULL; l = l->next)
        {
          JsonNode *n = json_object_get_member (by_name, l->data);
          g_autofree char *valid = jmem_text_make_valid (l->data, -1);

          add_bucket (f, jmem_text_cap_field (valid),
                      JSON_NODE_HOLDS_OBJECT (n) ? bucket_kib (json_node_get_object (n))
                      : node_is_int (n) ? MAX (json_node_get_int (n), -1) : -1);
        }
    }
  if (member_int (a, "unexplained_kib") >= 0)
    add_bucket (f, g_strdup ("unexplained"), member_int (a, "unexplained_kib"));
}

static void
read_header (JmemFrame *f, JsonObject *root)
{
  JsonObject *collected = member_object (root, "collected");
  JsonObject *identity = member_object (root, "identity");
  JsonObject *summary = member_object (member_object (root, "memory"), "summary");
  JsonObject *nvmap = member_object (root, "nvmap");
  JsonObject *gpu = member_object (root, "gpu");
  JsonArray *by_pid = member_array (nvmap, "by_pid");

  f->timestamp_unix = member_int (collected, "timestamp_unix");
  f->uptime_s = member_int (collected, "uptime_s");
  f->hostname = member_string (collected, "hostname");
  f->sysroot = member_string (collected, "sysroot");
  f->board = member_string (identity, "model");
  if (f->board == NULL)
    f->board = member_string (identity, "product_line");
  f->l4t = member_string (identity, "l4t_version");

  f->mem_total_kib = member_int (summary, "mem_total_kib");
  f->mem_available_kib = member_int (summary, "mem_available_kib");
  f->mem_used_kib = member_int (summary, "used_kib");
  f->swap_total_kib = member_int (summary, "swap_total_kib");
  f->swap_used_kib = member_int (summary, "swap_used_kib");

  /* the NvMap total, else meminfo's NvMapMemUsed (L4T R32): jmem summary's order */
  f->nvmap_total_kib = member_int (nvmap, "total_kib");
  if (f->nvmap_total_kib >= 0)
    f->nvmap_source = member_string (nvmap, "via");
  else if ((f->nvmap_total_kib = member_int (summary, "nvmap_mem_used_kib")) >= 0)
    f->nvmap_source = g_strdup ("meminfo");
  if (!member_true (nvmap, "readable"))
    f->nvmap_error = member_string (nvmap, "error");
  f->gpu_source = member_string (gpu, "source");
  f->gpu_used_kib = gpu_used (gpu);

  for (guint i = 0; by_pid != NULL && i < json_array_get_length (by_pid); i++)
    {
      JsonObject *o = json_array_get_object_element (by_pid, i);
      JmemFrameNvmap *n;

      if (o == NULL || member_int (o, "pid") < 0)
        continue;
      n = g_new0 (JmemFrameNvmap, 1);
      n->pid = member_int (o, "pid");
      n->name = member_string (o, "process");
      n->size_kib = member_int (o, "size_kib");
      g_ptr_array_add (f->nvmap_by_pid, n);
    }
  read_headroom (f, root);
  read_accounting (f, root);
}

JmemFrame *
jmem_frame_from_json (JsonNode *snapshot)
{
  JmemFrame *f = frame_new ();
  JsonObject *root = JSON_NODE_HOLDS_OBJECT (snapshot) ? json_node_get_object (snapshot) : NULL;
  JsonObject *processes = member_object (root, "processes");
  JsonArray *list = member_array (processes, "list");

  read_header (f, root);
  f->n_processes_total = (guint) CLAMP (member_int (processes, "total"), 0, G_MAXINT);
  for (guint i = 0; list != NULL && i < json_array_get_length (list); i++)
    {
      JsonObject *o = json_array_get_object_element (list, i);
      JsonObject *container = member_object (o, "container");
      JmemFrameProcess *p;
      g_autofree char *runtime = NULL;
      g_autofree char *id = NULL;

      if (o == NULL || member_int (o, "pid") < 0)
        continue;
      p = g_new0 (JmemFrameProcess, 1);
      p->pid = member_int (o, "pid");
      p->start_time_ticks = member_int (o, "start_time_ticks");
      p->name = member_string (o, "name");
      p->user = member_string (o, "user");
      runtime = member_string (container, "runtime");
      id = member_string (container, "id");
      p->container = jmem_frame_container_key (runtime, id);
      p->footprint_kib = member_int (o, "footprint_kib");
      p->pss_kib = member_int (o, "pss_kib");
      p->rss_kib = member_int (o, "rss_kib");
      p->nvmap_kib = member_int (o, "nvmap_kib");
      p->gpu_kib = member_int (o, "gpu_kib");
      p->swap_kib = member_int (o, "swap_kib");
      p->pss_age_samples = (gint) MIN (member_int (o, "pss_age_samples"), G_MAXINT);
      p->kernel_thread = member_true (o, "kernel_thread");
      g_ptr_array_add (f->processes, p);
    }
  return f;
}

JmemFrame *
jmem_frame_from_snapshot (JmemSnapshot *s)
{
  JmemFrame *f = frame_new ();
  GPtrArray *processes = s->processes;
  g_autoptr(JsonNode) doc = NULL;

  /* The header as a document gives it, without the rows: thousands of
   * processes would cost more to write and read back than to collect. */
  s->processes = g_ptr_array_new ();
  doc = jmem_snapshot_to_json (s);
  g_ptr_array_unref (s->processes);
  s->processes = processes;
  read_header (f, json_node_get_object (doc));
  f->n_processes_total = s->n_processes_total;

  for (guint i = 0; i < processes->len; i++)
    {
      const JmemProcess *sp = g_ptr_array_index (processes, i);
      JmemFrameProcess *p = g_new0 (JmemFrameProcess, 1);

      p->pid = sp->pid;
      p->start_time_ticks = sp->start_time_ticks;
      p->name = g_strdup (sp->name);
      p->user = g_strdup (sp->user);
      p->container = jmem_frame_container_key (sp->container_runtime, sp->container_id);
      p->footprint_kib = sp->footprint_kib;
      p->pss_kib = sp->pss_kib;
      p->rss_kib = sp->rss_kib;
      p->nvmap_kib = sp->nvmap_kib;
      p->gpu_kib = sp->gpu_kib;
      p->swap_kib = sp->swap_kib;
      p->pss_age_samples = sp->pss_age_samples;
      p->kernel_thread = sp->kernel_thread > 0;
      g_ptr_array_add (f->processes, p);
    }
  return f;
}

/* jmem summary's sizes: GLib's IEC units, a plain space, "n/a" unknown. */
static char *
summary_size (gint64 kib)
{
  g_autofree char *text = NULL;
  g_auto(GStrv) parts = NULL;

  if (kib < 0)
    return g_strdup ("n/a");
  text = g_format_size_full (MIN ((guint64) kib, G_MAXUINT64 / 1024) * 1024,
                             G_FORMAT_SIZE_IEC_UNITS);
  parts = g_strsplit (text, "\u00a0", -1);
  return g_strjoinv (" ", parts);
}

char *
jmem_frame_summary_line (const JmemFrame *f)
{
  g_autofree char *t = summary_size (f->mem_total_kib);
  g_autofree char *a = summary_size (f->mem_available_kib);
  g_autofree char *n = summary_size (f->nvmap_total_kib);
  g_autofree char *g = summary_size (f->gpu_used_kib);
  g_autofree char *top = NULL;
  g_autofree char *line = NULL;

  if (f->processes->len > 0)
    {
      const JmemFrameProcess *p = g_ptr_array_index (f->processes, 0);
      g_autofree char *size = summary_size (p->footprint_kib);

      top = g_strdup_printf ("PID %" G_GINT64_FORMAT " (%s) %s", p->pid,
                             p->name != NULL ? p->name : "?", size);
    }
  line = g_strdup_printf ("total %s, available %s, NvMap %s, GPU %s, top %s", t, a, n, g,
                          top != NULL ? top : "n/a");
  return jmem_text_for_terminal (line);
}
