/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The Prometheus text format: every family a gauge with HELP and TYPE, its
 * samples together, no series twice (a hostile tree may repeat a meminfo
 * field or a process), values in base units. */
#include "jmem-output-metrics.h"

#include "jmem-config.h"

#include "jmem-text.h"
#include "jmem-triage.h"

#include <math.h>
#include <string.h>

/* The rules a snapshot can fire (docs/triage.md): each gets a series, 0 when
 * silent, so an alert can tell "fine" from "not collected". */
static const char *const known_rules[] = {
  "gpu-dominates", "single-process-dominates", "desktop-nvmap", "nvmap-orphan",
  "unexplained-large", "cuda-pool-retained", "gpu-managed-unreported", "swap-heavy", "cma-exhausted",
  "thermal-hot", "lfb-fragmented", "headroom-low", "fragmented",
};

typedef struct {
  GString    *out;
  const char *name;
  const char *help;
  gboolean    started;
  GHashTable *seen;   /* label sets written, each once */
} Family;

static void
family_init (Family *f, GString *out, const char *name, const char *help)
{
  f->out = out;
  f->name = name;
  f->help = help;
  f->started = FALSE;
  f->seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
}

static void
family_clear (Family *f)
{
  g_clear_pointer (&f->seen, g_hash_table_unref);
}
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Family, family_clear)

char *
jmem_metrics_label_value (const char *value)
{
  g_autofree char *valid = jmem_text_make_valid (value != NULL ? value : "", -1);
  g_autofree char *capped = jmem_text_cap_bytes (valid, JMEM_METRICS_MAX_LABEL_BYTES, NULL);
  /* what the human output shows: `cat jmem.prom` or a dashboard never
   * replays a process's escape sequences */
  g_autofree char *shown = jmem_text_escape (capped);
  GString *s = g_string_sized_new (strlen (shown) + 8);

  for (const char *p = shown; *p != '\0'; p++)
    switch (*p)
      {
      case '\\': g_string_append (s, "\\\\"); break;
      case '"': g_string_append (s, "\\\""); break;
      default: g_string_append_c (s, *p); break;
      }
  return g_string_free (s, FALSE);
}

/* "{a=\"x\",b=\"y\"}" from NULL-terminated name, value pairs; "" for none. */
static char *
labels (const char *first_name, ...)
{
  GString *s = g_string_new (NULL);
  va_list ap;

  va_start (ap, first_name);
  for (const char *name = first_name; name != NULL; name = va_arg (ap, const char *))
    {
      g_autofree char *value = jmem_metrics_label_value (va_arg (ap, const char *));

      g_string_append_printf (s, "%s%s=\"%s\"", s->len == 0 ? "{" : ",", name, value);
    }
  va_end (ap);
  if (s->len > 0)
    g_string_append_c (s, '}');
  return g_string_free (s, FALSE);
}

/* Writes one sample (taking @label_set), unless its series was written. */
static void
sample (Family *f, char *label_set, double value)
{
  char number[G_ASCII_DTOSTR_BUF_SIZE];

  if (!g_hash_table_add (f->seen, label_set))
    return;
  if (!f->started)
    {
      g_string_append_printf (f->out, "# HELP %s %s\n# TYPE %s gauge\n", f->name, f->help, f->name);
      f->started = TRUE;
    }
  /* locale-independent, exact for integers below 2^53 */
  g_ascii_formatd (number, sizeof number, "%.17g", value);
  g_string_append_printf (f->out, "%s%s %s\n", f->name, label_set, number);
}

static double
kib_bytes (gint64 kib)
{
  return (double) kib * 1024.0;
}

static void
write_meminfo (const JmemSnapshot *s, GString *out)
{
  g_auto(Family) f;

  family_init (&f, out, "jmem_meminfo_bytes",
               "System memory from /proc/meminfo, one series per field given in kB.");
  if (s->meminfo == NULL)
    return;
  for (guint i = 0; i < s->meminfo->fields->len; i++)
    {
      const JmemMeminfoField *field = &g_array_index (s->meminfo->fields, JmemMeminfoField, i);

      if (field->is_kib && field->value <= G_MAXINT64 / 1024)
        sample (&f, labels ("field", field->name, NULL), kib_bytes ((gint64) field->value));
    }
}

static void
write_nvmap (const JmemSnapshot *s, GString *out)
{
  g_auto(Family) total;
  g_auto(Family) unattributed;

  family_init (&total, out, "jmem_nvmap_total_bytes",
               "NvMap memory of all handles (the total line of iovmm/clients).");
  family_init (&unattributed, out, "jmem_nvmap_unattributed_bytes",
               "NvMap total minus the sum of its client rows (may be negative).");
  if (!s->nvmap_readable || s->nvmap_clients == NULL)
    return;
  if (s->nvmap_clients->has_total && s->nvmap_clients->total_kib <= G_MAXINT64 / 1024)
    sample (&total, g_strdup (""), kib_bytes ((gint64) s->nvmap_clients->total_kib));
  if (s->nvmap_clients->has_total && s->nvmap_unattributed_kib != -1)
    sample (&unattributed, g_strdup (""), kib_bytes (s->nvmap_unattributed_kib));
}

/* Where the RAM is: every known bucket, and the remainder ("unexplained",
 * negative when buckets overlap); unknown buckets have no series. */
static void
write_accounting (const JmemSnapshot *s, GString *out)
{
  const JmemAccounting *a = s->accounting;
  g_auto(Family) buckets;
  g_auto(Family) firmware;

  family_init (&buckets, out, "jmem_memory_bucket_bytes",
               "MemTotal as disjoint buckets (" JMEM_DOCDIR "/accounting.md); bucket=\"unexplained\" is the "
               "remainder, negative when buckets overlap; an unknown bucket has no series.");
  family_init (&firmware, out, "jmem_memory_firmware_reserved_bytes",
               "RAM the board has (device tree or module size) less MemTotal: firmware and carveouts.");
  if (a == NULL || a->mem_total_kib <= 0)
    return;
  for (guint i = 0; i < JMEM_N_BUCKETS; i++)
    if (a->buckets[i].kib >= 0)
      sample (&buckets, labels ("bucket", jmem_accounting_bucket_name (i), NULL),
              kib_bytes (a->buckets[i].kib));
  sample (&buckets, labels ("bucket", "unexplained", NULL), kib_bytes (a->unexplained_kib));
  if (a->firmware_reserved_kib >= 0)
    sample (&firmware, labels ("source", a->physical_source, NULL),
            kib_bytes (a->firmware_reserved_kib));
}

static void
write_gpus (const JmemSnapshot *s, GString *out)
{
  static const char *const names[] = {
    "jmem_gpu_memory_total_bytes", "jmem_gpu_memory_used_bytes", "jmem_gpu_memory_free_bytes",
  };
  static const char *const helps[] = {
    "GPU memory of the device as nvidia-smi reports it.",
    "GPU memory in use on the device as nvidia-smi reports it.",
    "GPU memory free on the device as nvidia-smi reports it.",
  };

  for (guint m = 0; m < G_N_ELEMENTS (names); m++)
    {
      g_auto(Family) f;

      family_init (&f, out, names[m], helps[m]);
      for (guint i = 0; s->gpus != NULL && i < s->gpus->len; i++)
        {
          const JmemNvsmiGpu *g = g_ptr_array_index (s->gpus, i);
          gint64 mib = m == 0 ? g->memory_total_mib : m == 1 ? g->memory_used_mib : g->memory_free_mib;
          g_autofree char *index = g->index >= 0 ? g_strdup_printf ("%" G_GINT64_FORMAT, g->index) : NULL;

          if (mib >= 0)
            sample (&f, labels ("gpu", index, "uuid", g->uuid, "name", g->name, NULL),
                    (double) mib * 1048576.0);
        }
    }
}

/* The six per-process numbers, in KiB; -1 unknown. */
enum { M_FOOTPRINT, M_PSS, M_RSS, M_SWAP, M_NVMAP, M_GPU, N_MEASURES };

static const char *const measure_names[N_MEASURES] = {
  "footprint", "pss", "rss", "swap", "nvmap", "gpu",
};

static const char *const measure_helps[N_MEASURES] = {
  "PSS (else RSS) less the NvMap pages in it, plus swap and the larger of NvMap and GPU memory: what the process costs.",
  "Proportional set size from smaps_rollup.",
  "Resident set size from status.",
  "Swapped-out memory from status.",
  "NvMap memory of the process's client rows.",
  "GPU memory nvidia-smi reports for the process.",
};

static gint64
measure (const JmemProcess *p, guint m)
{
  switch (m)
    {
    case M_FOOTPRINT: return p->footprint_kib;
    case M_PSS: return p->pss_kib;
    case M_RSS: return p->rss_kib;
    case M_SWAP: return p->swap_kib;
    case M_NVMAP: return p->nvmap_kib;
    default: return p->gpu_kib;
    }
}

static gboolean
is_exported (const JmemProcess *p, guint index, int top)
{
  return index < (guint) top || p->nvmap_kib > 0 || p->gpu_kib > 0;
}

/* NvMap rows of PIDs with no /proc entry (exited, or in another PID
 * namespace): still holders, named as NvMap names them. */
static void
write_gone_nvmap (const JmemSnapshot *s, Family *f)
{
  for (guint i = 0; s->nvmap_by_pid != NULL && i < s->nvmap_by_pid->len; i++)
    {
      const JmemNvmapPidTotal *t = g_ptr_array_index (s->nvmap_by_pid, i);
      g_autofree char *pid = g_strdup_printf ("%" G_GINT64_FORMAT, t->pid);

      if (!t->pid_exists && t->pid > 0 && t->size_kib <= G_MAXINT64 / 1024)
        sample (f, labels ("pid", pid, "comm", t->process, "user", NULL, "container", NULL, NULL),
                kib_bytes ((gint64) t->size_kib));
    }
}

static void
write_processes (const JmemSnapshot *s, int top, GString *out)
{
  for (guint m = 0; m < N_MEASURES; m++)
    {
      g_autofree char *name = g_strdup_printf ("jmem_process_%s_bytes", measure_names[m]);
      g_auto(Family) f;

      family_init (&f, out, name, measure_helps[m]);
      for (guint i = 0; i < s->processes->len; i++)
        {
          const JmemProcess *p = g_ptr_array_index (s->processes, i);
          g_autofree char *pid = g_strdup_printf ("%" G_GINT64_FORMAT, p->pid);
          g_autofree char *uid = p->uid >= 0 ? g_strdup_printf ("%" G_GINT64_FORMAT, p->uid) : NULL;
          gint64 kib = measure (p, m);

          if (is_exported (p, i, top) && kib >= 0)
            sample (&f, labels ("pid", pid, "comm", p->name,
                                "user", p->user != NULL ? p->user : uid,
                                "container", p->container_id, NULL),
                    kib_bytes (kib));
        }
      if (m == M_NVMAP)
        write_gone_nvmap (s, &f);
    }
}

typedef struct {
  const char *runtime;
  const char *id;
  gint64      kib[N_MEASURES];   /* -1 while no process had a number */
} Container;

static void
write_containers (const JmemSnapshot *s, GString *out)
{
  g_autoptr(GArray) containers = g_array_new (FALSE, TRUE, sizeof (Container));

  /* in footprint order of each container's largest process */
  for (guint i = 0; i < s->processes->len; i++)
    {
      const JmemProcess *p = g_ptr_array_index (s->processes, i);
      Container *c = NULL;

      if (p->container_id == NULL)
        continue;
      for (guint j = 0; j < containers->len && c == NULL; j++)
        {
          Container *k = &g_array_index (containers, Container, j);

          if (g_str_equal (k->id, p->container_id) && g_strcmp0 (k->runtime, p->container_runtime) == 0)
            c = k;
        }
      if (c == NULL)
        {
          Container n = { p->container_runtime, p->container_id, { -1, -1, -1, -1, -1, -1 } };

          g_array_append_val (containers, n);
          c = &g_array_index (containers, Container, containers->len - 1);
        }
      for (guint m = 0; m < N_MEASURES; m++)
        {
          gint64 kib = measure (p, m);

          if (kib >= 0)
            c->kib[m] = c->kib[m] < 0 ? kib : (kib > G_MAXINT64 - c->kib[m] ? G_MAXINT64 : c->kib[m] + kib);
        }
    }

  for (guint m = 0; m < N_MEASURES; m++)
    {
      g_autofree char *name = g_strdup_printf ("jmem_container_%s_bytes", measure_names[m]);
      g_autofree char *help = g_strdup_printf ("Sum over the container's processes of jmem_process_%s_bytes.",
                                               measure_names[m]);
      g_auto(Family) f;

      family_init (&f, out, name, help);
      for (guint j = 0; j < containers->len; j++)
        {
          const Container *c = &g_array_index (containers, Container, j);

          if (c->kib[m] >= 0)
            sample (&f, labels ("runtime", c->runtime, "container", c->id, NULL), kib_bytes (c->kib[m]));
        }
    }
}

/* What a GPU allocation can get, from the headroom (docs/headroom.md), and
 * the largest free block: buddyinfo's where it was read, else tegrastats'
 * lfb (which reads the same), the source in a label. */
static void
write_headroom (const JmemSnapshot *s, GString *out)
{
  const JmemHeadroom *h = s->headroom;
  g_auto(Family) allocatable;
  g_auto(Family) size;
  g_auto(Family) count;

  family_init (&allocatable, out, "jmem_allocatable_bytes",
               "What a new GPU allocation can get (" JMEM_DOCDIR "/headroom.md): after=\"none\" without "
               "reclaim, after=\"reclaim\" once the kernel reclaimed page cache, slab and swap.");
  family_init (&size, out, "jmem_largest_free_block_bytes",
               "Size of the largest free block: source=\"buddyinfo\" (/proc/buddyinfo), or "
               "\"tegrastats\" (its lfb) where buddyinfo was not read.");
  family_init (&count, out, "jmem_largest_free_blocks",
               "How many free blocks of the largest size there are; source as for the size.");
  if (h != NULL && h->allocatable_now_kib >= 0)
    sample (&allocatable, labels ("after", "none", NULL), kib_bytes (h->allocatable_now_kib));
  if (h != NULL && h->allocatable_after_reclaim_kib >= 0)
    sample (&allocatable, labels ("after", "reclaim", NULL), kib_bytes (h->allocatable_after_reclaim_kib));
  if (h != NULL && h->largest_free_block_kib >= 0)
    {
      sample (&size, labels ("source", "buddyinfo", NULL), kib_bytes (h->largest_free_block_kib));
      sample (&count, labels ("source", "buddyinfo", NULL), (double) h->largest_free_blocks);
      return;
    }
  if (s->tegrastats == NULL || s->tegrastats->lfb_blocks < 0 || s->tegrastats->lfb_block_kib < 0)
    return;
  sample (&size, labels ("source", "tegrastats", NULL), kib_bytes (s->tegrastats->lfb_block_kib));
  sample (&count, labels ("source", "tegrastats", NULL), (double) s->tegrastats->lfb_blocks);
}

/* Why nvidia-smi listed no GPU: the end of its query-gpu evidence line. */
static const char *
nvsmi_reason (const JmemSnapshot *s)
{
  if (s->gpus != NULL && s->gpus->len > 0)
    return "ok";
  for (guint i = 0; s->gpu_evidence != NULL && i < s->gpu_evidence->len; i++)
    {
      const char *line = g_ptr_array_index (s->gpu_evidence, i);
      const char *colon = strstr (line, ": ");

      if (strstr (line, "query-gpu") != NULL && colon != NULL)
        return colon + 2;
    }
  return "no GPU listed";
}

static void
write_sources (const JmemSnapshot *s, const JmemMetricsOptions *options, GString *out)
{
  g_auto(Family) f;
  gboolean gpu_up = s->gpus != NULL && s->gpus->len > 0;

  family_init (&f, out, "jmem_source_up",
               "1 when the source was read, 0 when not; reason says why not (\"ok\" when read).");
  sample (&f, labels ("source", "nvmap", "reason", s->nvmap_readable ? "ok" : s->nvmap_error, NULL),
          s->nvmap_readable ? 1 : 0);
  sample (&f, labels ("source", "nvidia-smi", "reason", nvsmi_reason (s), NULL), gpu_up ? 1 : 0);
  /* only where the helper is how NvMap is read (not as root, not a tree) */
  if (g_strcmp0 (options->helper_via, "helper") == 0)
    {
      gboolean up = s->nvmap_readable && g_strcmp0 (s->nvmap_via, "helper") == 0;

      sample (&f, labels ("source", "helper", "reason", up ? "ok" : s->nvmap_error, NULL), up ? 1 : 0);
    }
}

/* What kind of system, so that a fleet's alerts on the Jetson-only sources
 * can leave out the systems where they do not apply. */
static void
write_platform (const JmemSnapshot *s, GString *out)
{
  g_auto(Family) f;

  family_init (&f, out, "jmem_platform_info",
               "1; kind is jetson, unified-memory (its GPU shares the RAM, not a Jetson: "
               "nvmap, power-mode, tegrastats and l4t do not apply) or other.");
  if (s->platform != NULL)
    sample (&f, labels ("kind", jmem_platform_kind_to_string (s->platform->kind),
                        "product", s->platform->name ? s->platform->name : "", NULL), 1);
}

/* The board's L4T release and model, so that a fleet's views by release
 * need no label from the scrape configuration (prometheus/jmem.rules.yml
 * joins on instance). */
static void
write_board (const JmemSnapshot *s, GString *out)
{
  g_auto(Family) f;
  const JmemIdentity *id = s->identity;

  family_init (&f, out, "jmem_board_info",
               "1; l4t_release is the L4T release of /etc/nv_tegra_release (empty where there is "
               "none), sku jmem's name for the module and model the device tree's.");
  sample (&f, labels ("l4t_release", s->release != NULL && s->release->version != NULL
                                       ? s->release->version : "",
                      "sku", id != NULL && id->sku != NULL ? id->sku : "",
                      "model", id != NULL && id->model != NULL ? id->model : "", NULL), 1);
}

/* With --history: the trend and the projection jmem triage --history gives
 * (jmem_triage_history_project(), the one every face shows), so a board's
 * days left need no regression in Prometheus and agree with the other
 * faces. */
static void
write_history (const JmemMetricsOptions *options, GString *out)
{
  const JmemTriageHistory *h = options->history;
  JmemTrend trend = { 0 };
  JmemProjection projection = { 0 };
  g_autofree char *missing = NULL;
  gboolean projected = FALSE;
  g_auto(Family) up = { 0 };
  g_auto(Family) samples = { 0 };
  g_auto(Family) slope = { 0 };
  g_auto(Family) when = { 0 };

  if (h != NULL)
    projected = jmem_triage_history_project (h, &trend, &projection, &missing);
  family_init (&up, out, "jmem_projection_up",
               "1 when the history gives a projection of the memory allocatable after reclaim; "
               "0 with reason saying what is missing (jmem triage --history).");
  sample (&up, labels ("reason", projected ? "ok" : h == NULL ? options->history_error : missing, NULL),
          projected ? 1 : 0);
  if (h == NULL)
    return;
  family_init (&samples, out, "jmem_history_samples", "Samples of the history the projection read.");
  sample (&samples, labels (NULL), jmem_triage_history_get_n_samples (h));
  if (trend.n_points > 0)
    {
      family_init (&slope, out, "jmem_trend_allocatable_reclaim_bytes_per_second",
                   "Theil-Sen slope of the memory allocatable after reclaim over the history, "
                   "and its 95 % interval (bound low, high).");
      sample (&slope, labels ("bound", "estimate", NULL), trend.slope * 1024.0);
      sample (&slope, labels ("bound", "low", NULL), trend.slope_low * 1024.0);
      sample (&slope, labels ("bound", "high", NULL), trend.slope_high * 1024.0);
    }
  if (!projected)
    return;
  family_init (&when, out, "jmem_projection_exhaustion_timestamp_seconds",
               "When the memory allocatable after reclaim reaches zero at the trend (bound "
               "estimate), at its steepest (early) and shallowest (late) slope; late is absent "
               "when that slope does not fall.");
  sample (&when, labels ("bound", "estimate", NULL), trend.t_last + projection.seconds);
  sample (&when, labels ("bound", "early", NULL), trend.t_last + projection.seconds_low);
  if (isfinite (projection.seconds_high))
    sample (&when, labels ("bound", "late", NULL), trend.t_last + projection.seconds_high);
}

static void
write_findings (const JmemSnapshot *s, GString *out)
{
  g_autoptr(GHashTable) level = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GPtrArray) order = g_ptr_array_new ();
  g_auto(Family) f;

  for (gsize i = 0; i < G_N_ELEMENTS (known_rules); i++)
    {
      g_hash_table_insert (level, (gpointer) known_rules[i], GINT_TO_POINTER (0));
      g_ptr_array_add (order, (gpointer) known_rules[i]);
    }
  for (guint i = 0; s->findings != NULL && i < s->findings->len; i++)
    {
      const JmemFinding *finding = g_ptr_array_index (s->findings, i);
      gpointer old;
      int severity = (int) finding->severity + 1;

      if (!g_hash_table_lookup_extended (level, finding->id, NULL, &old))
        g_ptr_array_add (order, finding->id);
      else if (GPOINTER_TO_INT (old) >= severity)
        continue;
      g_hash_table_insert (level, finding->id, GINT_TO_POINTER (severity));
    }

  family_init (&f, out, "jmem_finding",
               "Triage rule state: 0 silent, 1 info, 2 warning, 3 critical (" JMEM_DOCDIR "/triage.md).");
  for (guint i = 0; i < order->len; i++)
    sample (&f, labels ("rule", g_ptr_array_index (order, i), NULL),
            GPOINTER_TO_INT (g_hash_table_lookup (level, g_ptr_array_index (order, i))));
}

void
jmem_output_metrics (const JmemSnapshot       *snapshot,
                     const JmemMetricsOptions *options,
                     GString                  *out)
{
  write_meminfo (snapshot, out);
  write_nvmap (snapshot, out);
  write_accounting (snapshot, out);
  write_gpus (snapshot, out);
  /* who holds what: the textfile is world-readable and served by
   * node_exporter, so only where the operator asked for it */
  if (!options->board_only)
    {
      write_processes (snapshot, MAX (options->top, 0), out);
      write_containers (snapshot, out);
    }
  write_headroom (snapshot, out);
  write_sources (snapshot, options, out);
  write_platform (snapshot, out);
  write_board (snapshot, out);
  if (options->history != NULL || options->history_error != NULL)
    write_history (options, out);
  write_findings (snapshot, out);
}
