/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "jmem-frame.h"

#include "jmem-json-member.h"
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
frame_holder_free (JmemFrameHolder *n)
{
  g_free (n->name);
  g_free (n);
}

static void
frame_bucket_free (JmemFrameBucket *b)
{
  g_free (b->name);
  g_free (b->label);
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
  g_ptr_array_unref (f->gpu_by_pid);
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
  f->nvmap_by_pid = g_ptr_array_new_with_free_func ((GDestroyNotify) frame_holder_free);
  f->gpu_by_pid = g_ptr_array_new_with_free_func ((GDestroyNotify) frame_holder_free);
  return f;
}

/* ---- reading a document ---- */

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

static void
add_holder (GPtrArray *holders, gint64 pid, char *name, gint64 size_kib)
{
  JmemFrameHolder *h = g_new0 (JmemFrameHolder, 1);

  h->pid = pid;
  h->name = name;
  h->size_kib = size_kib;
  g_ptr_array_add (holders, h);
}

/* The GPUs' used memory; where none reports it (Thor), the sum of the
 * trusted per-process rows of listed GPUs: jmem summary's rule. The
 * trusted rows also go to gpu_by_pid. */
static gint64
gpu_used (JmemFrame *f, JsonObject *gpu)
{
  JsonArray *devices = jmem_json_member_array (gpu, "devices");
  JsonArray *procs = jmem_json_member_array (gpu, "processes");
  g_autoptr(GHashTable) uuids = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  gint64 sum = -1;
  gboolean devices_report, all_trusted;

  for (guint i = 0; devices != NULL && i < json_array_get_length (devices); i++)
    {
      JsonObject *d = json_array_get_object_element (devices, i);
      gint64 used = jmem_json_member_size (d, "memory_used_kib");
      char *uuid = jmem_json_member_string (d, "uuid");

      if (uuid != NULL)
        g_hash_table_add (uuids, uuid);
      if (used >= 0 && used < G_MAXINT64 / 2)
        sum = (sum < 0 ? 0 : sum) + used;
    }
  devices_report = sum >= 0;
  all_trusted = jmem_json_member_true (gpu, "processes_trusted");
  for (guint i = 0; procs != NULL && i < json_array_get_length (procs); i++)
    {
      JsonObject *p = json_array_get_object_element (procs, i);
      g_autofree char *uuid = jmem_json_member_string (p, "gpu_uuid");
      gint64 used = jmem_json_member_size (p, "used_memory_kib");
      gint64 pid = jmem_json_member_size (p, "pid");
      /* a row judged alone; a document older than that judged them all */
      gboolean trusted = json_object_has_member (p, "trusted") ? jmem_json_member_true (p, "trusted")
                                                               : all_trusted;

      if (!trusted || used < 0 || used >= G_MAXINT32 * G_GINT64_CONSTANT (1024) || uuid == NULL ||
          !g_hash_table_contains (uuids, uuid))
        continue;
      if (pid >= 0)
        add_holder (f->gpu_by_pid, pid, jmem_json_member_string (p, "process_name"), used);
      if (!devices_report)
        sum = (sum < 0 ? 0 : sum) + used;
    }
  return sum;
}

/* The headroom's three figures, by the names of the headroom object; a
 * snapshot without one leaves has_headroom FALSE. */
static void
read_headroom (JmemFrame *f, JsonObject *root)
{
  JsonObject *h = jmem_json_member_object (root, "headroom");

  if (h == NULL)
    return;
  f->has_headroom = TRUE;
  f->allocatable_now_kib = jmem_json_member_size (h, "allocatable_now_kib");
  f->allocatable_after_reclaim_kib = jmem_json_member_size (h, "allocatable_after_reclaim_kib");
  f->largest_free_block_kib = jmem_json_member_size (h, "largest_free_block_kib");
}

static void
add_bucket (JmemFrame *f, char *name, char *label, gint64 kib)
{
  JmemFrameBucket *b = g_new0 (JmemFrameBucket, 1);

  b->name = name;
  b->label = label != NULL ? label : g_strdup (name);
  b->kib = kib;
  g_ptr_array_add (f->buckets, b);
}

/* The accounting by its schema (docs/snapshot.schema.json, "accounting"):
 * "buckets" an array of objects with a stable "name", a "label" and "kib"
 * (an integer, or null when unknown); "unexplained_kib" the remainder, below
 * zero when the buckets overlap ("overlap" true). The remainder becomes a
 * bucket named "unexplained" when it is not negative; an overlap is kept
 * apart, as nothing to stack. A null accounting (nothing to account), a
 * document from before the accounting, or one of another shape gives none:
 * the faces then draw no accounting rather than a guess. */
static void
read_accounting (JmemFrame *f, JsonObject *root)
{
  JsonObject *a = jmem_json_member_object (root, "accounting");
  JsonArray *list = jmem_json_member_array (a, "buckets");
  JsonNode *unexplained = a != NULL ? json_object_get_member (a, "unexplained_kib") : NULL;
  gint64 rest;

  if (list == NULL || !jmem_json_node_is_int (unexplained))
    return;
  f->buckets = g_ptr_array_new_with_free_func ((GDestroyNotify) frame_bucket_free);
  for (guint i = 0; i < json_array_get_length (list); i++)
    {
      JsonNode *n = json_array_get_element (list, i);
      JsonObject *o = JSON_NODE_HOLDS_OBJECT (n) ? json_node_get_object (n) : NULL;
      char *name = jmem_json_member_string (o, "name");

      if (name != NULL)
        add_bucket (f, name, jmem_json_member_string (o, "label"), jmem_json_member_size (o, "kib"));
    }
  rest = json_node_get_int (unexplained);
  if (rest >= 0)
    add_bucket (f, g_strdup ("unexplained"), NULL, rest);
  else
    f->overlap_kib = rest == G_MININT64 ? G_MAXINT64 : -rest;
}

/* Whether identity.platform says @part does not apply on this system. */
static gboolean
platform_lacks (JsonObject *identity, const char *part)
{
  JsonArray *parts = jmem_json_member_array (jmem_json_member_object (identity, "platform"),
                                             "not_applying");

  for (guint i = 0; parts != NULL && i < json_array_get_length (parts); i++)
    {
      JsonNode *n = json_array_get_element (parts, i);
      g_autofree char *name = JSON_NODE_HOLDS_OBJECT (n)
                              ? jmem_json_member_string (json_node_get_object (n), "part") : NULL;

      if (g_strcmp0 (name, part) == 0)
        return TRUE;
    }
  return FALSE;
}

static void
read_header (JmemFrame *f, JsonObject *root)
{
  JsonObject *collected = jmem_json_member_object (root, "collected");
  JsonObject *identity = jmem_json_member_object (root, "identity");
  JsonObject *summary = jmem_json_member_object (jmem_json_member_object (root, "memory"), "summary");
  JsonObject *nvmap = jmem_json_member_object (root, "nvmap");
  JsonObject *gpu = jmem_json_member_object (root, "gpu");
  JsonArray *by_pid = jmem_json_member_array (nvmap, "by_pid");

  f->timestamp_unix = jmem_json_member_size (collected, "timestamp_unix");
  f->uptime_s = jmem_json_member_size (collected, "uptime_s");
  f->hostname = jmem_json_member_string (collected, "hostname");
  f->sysroot = jmem_json_member_string (collected, "sysroot");
  f->board = jmem_json_member_string (identity, "model");
  if (f->board == NULL)
    f->board = jmem_json_member_string (identity, "product_line");
  /* a GB10 has no device tree: its firmware names it */
  if (f->board == NULL)
    f->board = jmem_json_member_string (jmem_json_member_object (identity, "platform"),
                                        "dmi_product");
  f->l4t = jmem_json_member_string (identity, "l4t_version");
  f->l4t_applies = !platform_lacks (identity, "l4t");

  f->mem_total_kib = jmem_json_member_size (summary, "mem_total_kib");
  f->mem_available_kib = jmem_json_member_size (summary, "mem_available_kib");
  f->mem_used_kib = jmem_json_member_size (summary, "used_kib");
  f->swap_total_kib = jmem_json_member_size (summary, "swap_total_kib");
  f->swap_used_kib = jmem_json_member_size (summary, "swap_used_kib");

  /* the NvMap total, else meminfo's NvMapMemUsed (L4T R32): jmem summary's order */
  f->nvmap_total_kib = jmem_json_member_size (nvmap, "total_kib");
  if (f->nvmap_total_kib >= 0)
    f->nvmap_source = jmem_json_member_string (nvmap, "via");
  else if ((f->nvmap_total_kib = jmem_json_member_size (summary, "nvmap_mem_used_kib")) >= 0)
    f->nvmap_source = g_strdup ("meminfo");
  if (!jmem_json_member_true (nvmap, "readable"))
    f->nvmap_error = jmem_json_member_string (nvmap, "error");
  f->gpu_source = jmem_json_member_string (gpu, "source");
  f->gpu_used_kib = gpu_used (f, gpu);

  for (guint i = 0; by_pid != NULL && i < json_array_get_length (by_pid); i++)
    {
      JsonObject *o = json_array_get_object_element (by_pid, i);

      if (o != NULL && jmem_json_member_size (o, "pid") >= 0)
        add_holder (f->nvmap_by_pid, jmem_json_member_size (o, "pid"),
                    jmem_json_member_string (o, "process"), jmem_json_member_size (o, "size_kib"));
    }
  read_headroom (f, root);
  read_accounting (f, root);
}

JmemFrame *
jmem_frame_from_json (JsonNode *snapshot)
{
  JmemFrame *f = frame_new ();
  JsonObject *root = JSON_NODE_HOLDS_OBJECT (snapshot) ? json_node_get_object (snapshot) : NULL;
  JsonObject *processes = jmem_json_member_object (root, "processes");
  JsonArray *list = jmem_json_member_array (processes, "list");

  read_header (f, root);
  f->n_processes_total = (guint) CLAMP (jmem_json_member_size (processes, "total"), 0, G_MAXINT);
  for (guint i = 0; list != NULL && i < json_array_get_length (list); i++)
    {
      JsonObject *o = json_array_get_object_element (list, i);
      JsonObject *container = jmem_json_member_object (o, "container");
      JmemFrameProcess *p;
      g_autofree char *runtime = NULL;
      g_autofree char *id = NULL;

      if (o == NULL || jmem_json_member_size (o, "pid") < 0)
        continue;
      p = g_new0 (JmemFrameProcess, 1);
      p->pid = jmem_json_member_size (o, "pid");
      p->start_time_ticks = jmem_json_member_size (o, "start_time_ticks");
      p->name = jmem_json_member_string (o, "name");
      p->user = jmem_json_member_string (o, "user");
      runtime = jmem_json_member_string (container, "runtime");
      id = jmem_json_member_string (container, "id");
      p->container = jmem_frame_container_key (runtime, id);
      p->footprint_kib = jmem_json_member_size (o, "footprint_kib");
      p->pss_kib = jmem_json_member_size (o, "pss_kib");
      p->rss_kib = jmem_json_member_size (o, "rss_kib");
      p->nvmap_kib = jmem_json_member_size (o, "nvmap_kib");
      p->gpu_kib = jmem_json_member_size (o, "gpu_kib");
      p->swap_kib = jmem_json_member_size (o, "swap_kib");
      p->pss_age_samples = (gint) MIN (jmem_json_member_size (o, "pss_age_samples"), G_MAXINT);
      p->kernel_thread = jmem_json_member_true (o, "kernel_thread");
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

/* The largest holder: the first process (the list is in footprint order),
 * unless a PID missing from the list holds more by NvMap or the GPU alone
 * (its /proc entry unreadable, or a process that exited). */
static char *
top_holder (const JmemFrame *f)
{
  const JmemFrameProcess *first = f->processes->len > 0 ? g_ptr_array_index (f->processes, 0) : NULL;
  const JmemFrameHolder *best = NULL;
  const char *source = NULL;
  g_autoptr(GHashTable) listed = g_hash_table_new (g_int64_hash, g_int64_equal);
  g_autofree char *size = NULL;
  const struct { GPtrArray *rows; const char *source; } sources[] = {
    { f->nvmap_by_pid, "NvMap" }, { f->gpu_by_pid, "GPU" },
  };

  for (guint i = 0; i < f->processes->len; i++)
    g_hash_table_add (listed, &((JmemFrameProcess *) g_ptr_array_index (f->processes, i))->pid);
  for (guint k = 0; k < G_N_ELEMENTS (sources); k++)
    for (guint i = 0; i < sources[k].rows->len; i++)
      {
        const JmemFrameHolder *h = g_ptr_array_index (sources[k].rows, i);

        if (h->size_kib > 0 && !g_hash_table_contains (listed, &h->pid) &&
            (best == NULL || h->size_kib > best->size_kib))
          {
            best = h;
            source = sources[k].source;
          }
      }
  if (best != NULL && (first == NULL || best->size_kib > first->footprint_kib))
    {
      size = summary_size (best->size_kib);
      return g_strdup_printf ("PID %" G_GINT64_FORMAT " (%s) %s %s", best->pid,
                              best->name != NULL ? best->name : "?", source, size);
    }
  if (first == NULL)
    return NULL;
  size = summary_size (first->footprint_kib);
  return g_strdup_printf ("PID %" G_GINT64_FORMAT " (%s) %s", first->pid,
                          first->name != NULL ? first->name : "?", size);
}

char *
jmem_frame_summary_line (const JmemFrame *f)
{
  g_autofree char *t = summary_size (f->mem_total_kib);
  g_autofree char *a = summary_size (f->mem_available_kib);
  g_autofree char *now = summary_size (f->allocatable_now_kib);
  g_autofree char *n = summary_size (f->nvmap_total_kib);
  g_autofree char *g = summary_size (f->gpu_used_kib);
  g_autofree char *top = top_holder (f);
  g_autofree char *line = NULL;
  g_autofree char *largest_text = NULL;
  const JmemFrameBucket *largest = NULL;

  /* the accounting's largest use of RAM (free is no use), the remainder
   * included: where to look first; by its stable name */
  for (guint i = 0; f->buckets != NULL && i < f->buckets->len; i++)
    {
      const JmemFrameBucket *b = g_ptr_array_index (f->buckets, i);

      if (b->kib > 0 && !g_str_equal (b->name, "free") && (largest == NULL || b->kib > largest->kib))
        largest = b;
    }
  if (largest != NULL)
    {
      g_autofree char *size = summary_size (largest->kib);

      largest_text = g_strdup_printf ("%s %s", largest->name, size);
    }
  line = g_strdup_printf ("total %s, available %s, allocatable now %s, NvMap %s, GPU %s, top %s, "
                          "largest bucket: %s", t, a, now, n, g, top != NULL ? top : "n/a",
                          largest_text != NULL ? largest_text : "n/a");
  return jmem_text_for_terminal (line);
}
