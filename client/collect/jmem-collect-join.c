/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Everything that needs more than one source: NvMap per PID, the joins onto
 * processes, the footprint, the order and --top. */
#include "jmem-collect-private.h"

#include "jmem-glib-compat.h"
#include "jmem-pid-namespace.h"
#include "jmem-text.h"
#include "jmem-triage.h"

#include <unistd.h>

static int
compare_nvmap_total (gconstpointer a, gconstpointer b)
{
  const JmemNvmapPidTotal *x = *(JmemNvmapPidTotal * const *) a;
  const JmemNvmapPidTotal *y = *(JmemNvmapPidTotal * const *) b;

  if (x->size_kib != y->size_kib)
    return x->size_kib > y->size_kib ? -1 : 1;
  return x->pid < y->pid ? -1 : x->pid > y->pid;
}

static int
compare_footprint (gconstpointer a, gconstpointer b)
{
  const JmemProcess *x = *(JmemProcess * const *) a;
  const JmemProcess *y = *(JmemProcess * const *) b;

  if (x->footprint_kib != y->footprint_kib)
    return x->footprint_kib > y->footprint_kib ? -1 : 1;
  return x->pid < y->pid ? -1 : x->pid > y->pid;
}

static gboolean
pid_dir_exists (JmemCollectContext *ctx, const char *dir)
{
  int fd = jmem_root_open_dir (ctx->files, dir, NULL);

  if (fd < 0)
    return FALSE;
  close (fd);
  return TRUE;
}

static void
aggregate_nvmap (JmemCollectContext *ctx, GHashTable *by_pid)
{
  JmemSnapshot *s = ctx->snapshot;
  JmemNvmapClients *clients = s->nvmap_clients;
  guint64 sum = 0;

  for (guint i = 0; i < clients->clients->len; i++)
    {
      JmemNvmapClient *c = g_ptr_array_index (clients->clients, i);
      gint64 pid = c->pid;
      JmemNvmapPidTotal *t = g_hash_table_lookup (by_pid, &pid);

      if (t == NULL)
        {
          g_autofree char *dir = g_strdup_printf ("/proc/%" G_GINT64_FORMAT, pid);

          t = g_new0 (JmemNvmapPidTotal, 1);
          t->pid = pid;
          t->process = g_strdup (c->process);
          /* Kernel clients (PID 0) have no /proc entry and are no orphans;
           * host PIDs are not looked up in this /proc at all. */
          t->pid_exists = pid == 0 || s->nvmap_pids_host || pid_dir_exists (ctx, dir);
          g_ptr_array_add (s->nvmap_by_pid, t);
          g_hash_table_insert (by_pid, &t->pid, t);
        }
      t->n_clients++;
      t->size_kib = t->size_kib > G_MAXUINT64 - c->size_kib ? G_MAXUINT64 : t->size_kib + c->size_kib;
      sum = sum > G_MAXUINT64 - c->size_kib ? G_MAXUINT64 : sum + c->size_kib;
    }
  g_ptr_array_sort (s->nvmap_by_pid, compare_nvmap_total);

  if (clients->has_total && clients->total_kib <= G_MAXINT64 && sum <= G_MAXINT64)
    s->nvmap_unattributed_kib = (gint64) clients->total_kib - (gint64) sum;

  for (guint i = 0; i < s->nvmap_by_pid->len; i++)
    {
      JmemNvmapPidTotal *t = g_ptr_array_index (s->nvmap_by_pid, i);

      g_autofree char *size = NULL;

      if (t->pid_exists)
        continue;
      size = jmem_text_size (t->size_kib > G_MAXINT64 ? G_MAXINT64 : (gint64) t->size_kib);
      jmem_snapshot_add_warning (s, "nvmap", NULL,
                                 "NvMap holds %s for PID %" G_GINT64_FORMAT
                                 " (%s), which has no /proc entry: a process in another PID "
                                 "namespace, one that just exited, or a leak",
                                 size, t->pid, t->process ? t->process : "?");
    }
}

/* Hostile files can claim any size: never overflow. */
static gint64
add_saturated (gint64 a, gint64 b)
{
  return a > G_MAXINT64 - b ? G_MAXINT64 : a + b;
}

static GHashTable *
gpu_by_pid (JmemSnapshot *s)
{
  /* pid -> summed KiB, or -1 when a row was listed without memory or may
   * be forged (the process's GPU memory is then unknown) */
  GHashTable *h = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);

  for (guint i = 0; i < s->gpu_apps->len; i++)
    {
      JmemNvsmiApp *a = g_ptr_array_index (s->gpu_apps, i);
      gint64 *kib = g_hash_table_lookup (h, &a->pid);

      if (kib == NULL)
        {
          kib = g_new (gint64, 1);
          *kib = 0;
          g_hash_table_insert (h, g_memdup2 (&a->pid, sizeof a->pid), kib);
        }
      if (a->used_memory_mib < 0 || a->in_doubt || *kib < 0)
        *kib = -1;
      else
        *kib = add_saturated (*kib, MIN (a->used_memory_mib, G_MAXINT64 / 1024) * 1024);
    }
  return h;
}

/* (pss, else rss) less the NvMap pages in it, + swap + GPU memory
 * (jmem-accounting.c): the sort key */
static void
set_footprint (JmemProcess *p)
{
  p->footprint_kib = jmem_accounting_footprint (p->pss_kib, MAX (p->rss_kib, 0), p->swap_kib,
                                                p->nvmap_kib, p->gpu_kib, p->nvmap_mapped_kib,
                                                &p->footprint_pss);
}

/* Whether the report names @p: what --top shows, and every process NvMap
 * or nvidia-smi lists (findings name those and judge them by their state).
 * The largest is named even with --top 0, for the single-process rule. */
static gboolean
is_named (const JmemProcess *p, guint index, int top, GHashTable *nvmap, GHashTable *gpu)
{
  return top < 0 || index < (guint) MAX (top, 1) ||
         g_hash_table_contains (nvmap, &p->pid) || g_hash_table_contains (gpu, &p->pid);
}

/* Name, owner, state, container and command line for the processes the
 * report names, in footprint order; one that exited in the meantime makes
 * room for the next. Most of /proc is never printed. */
static void
read_named (JmemCollectContext *ctx, int top, GHashTable *nvmap, GHashTable *gpu)
{
  GPtrArray *procs = ctx->snapshot->processes;

  for (guint i = 0; i < procs->len;)
    {
      JmemProcess *p = g_ptr_array_index (procs, i);

      if (!is_named (p, i, top, nvmap, gpu))
        i++;
      else if (!jmem_collect_process_named (ctx, p))
        g_ptr_array_remove_index (procs, i);
      else
        i++;
    }
}

/* Each nvidia-smi row shows the name /proc gives its PID (nvidia-smi's own
 * column is whatever the process chose to call itself); a PID with no /proc
 * entry keeps nvidia-smi's name and is "no such process", as NvMap rows are. */
static void
name_gpu_rows (JmemSnapshot *s)
{
  g_autoptr(GHashTable) by_pid = g_hash_table_new (g_int64_hash, g_int64_equal);

  for (guint i = 0; i < s->processes->len; i++)
    {
      JmemProcess *p = g_ptr_array_index (s->processes, i);

      g_hash_table_insert (by_pid, &p->pid, p);
    }
  for (guint i = 0; i < s->gpu_apps->len; i++)
    {
      JmemNvsmiApp *a = g_ptr_array_index (s->gpu_apps, i);
      const JmemProcess *p = g_hash_table_lookup (by_pid, &a->pid);

      a->pid_exists = p != NULL;
      if (p != NULL && p->name != NULL)
        {
          g_free (a->process_name);
          a->process_name = g_strdup (p->name);
        }
    }
}

#define PSS_GAPS_NAMED 5

static const char *
pss_unknown_reason (JmemPssUnknown why)
{
  switch (why)
    {
    case JMEM_PSS_UNKNOWN_KERNEL_THREAD: return "kernel thread";
    case JMEM_PSS_UNKNOWN_PID_NAMESPACE: return "another PID namespace";
    case JMEM_PSS_UNKNOWN_EXITED: return "exited while read";
    case JMEM_PSS_UNKNOWN_REFUSED: return "refused";
    }
  return "unreadable";
}

char *
jmem_collect_pss_unknown_text (guint             n_unknown,
                               const JmemPssGap *gaps,
                               guint             n_gaps)
{
  GString *text = g_string_new (NULL);

  n_gaps = MIN (n_gaps, MIN (n_unknown, PSS_GAPS_NAMED));
  g_string_append_printf (text, "PSS unknown for %u %s: %s", n_unknown,
                          jmem_text_plural (n_unknown, "process", "processes"),
                          n_gaps == 0 ? "" : jmem_text_plural (n_gaps, "PID ", "PIDs "));
  for (guint i = 0; i < n_gaps; i++)
    g_string_append_printf (text, "%s%" G_GINT64_FORMAT " (%s)", i > 0 ? ", " : "", gaps[i].pid,
                            pss_unknown_reason (gaps[i].why));
  if (n_unknown > n_gaps)
    g_string_append_printf (text, "%s%u more", n_gaps > 0 ? " and " : "", n_unknown - n_gaps);
  g_string_append_printf (text, "; %s pss_kib is null and RSS stands in for the footprint",
                          jmem_text_plural (n_unknown, "its", "their"));
  return g_string_free (text, FALSE);
}

/* Root is told which processes and why (it can read every smaps_rollup it
 * may); anyone else what would let them read more. */
static void
warn_pss_unknown (JmemCollectContext *ctx)
{
  JmemSnapshot *s = ctx->snapshot;
  JmemPssGap gaps[PSS_GAPS_NAMED];
  guint n_no_pss = 0;

  /* Kernel threads have no memory map: no PSS is their truth, not a gap. */
  for (guint i = 0; i < s->processes->len; i++)
    {
      const JmemProcess *p = g_ptr_array_index (s->processes, i);

      if (p->pss_kib >= 0 || p->rss_kib < 0)
        continue;
      if (n_no_pss < PSS_GAPS_NAMED)
        {
          gaps[n_no_pss].pid = p->pid;
          gaps[n_no_pss].why = GPOINTER_TO_INT (g_hash_table_lookup (ctx->pss_why,
                                                                     GINT_TO_POINTER ((gint) p->pid)));
        }
      n_no_pss++;
    }
  if (n_no_pss == 0)
    return;
  if (ctx->root == NULL && geteuid () == 0)
    {
      g_autofree char *text = jmem_collect_pss_unknown_text (n_no_pss, gaps,
                                                             MIN (n_no_pss, PSS_GAPS_NAMED));

      jmem_snapshot_add_warning (s, "processes", NULL, "%s", text);
      return;
    }
  jmem_snapshot_add_warning (s, "processes",
                             ctx->root == NULL ? "run jmem as the processes' owner or as root to see their PSS" : NULL,
                             "PSS unknown for %u %s (smaps_rollup unreadable): "
                             "%s pss_kib is null and RSS stands in for the footprint",
                             n_no_pss, jmem_text_plural (n_no_pss, "process", "processes"),
                             jmem_text_plural (n_no_pss, "its", "their"));
}

/* The nvmap warning's action, for the warnings that NvMap's absence
 * causes: NULL where it has none (a capture without NvMap, a kernel
 * without it), so that nothing points at advice that is not there. */
static const char *
nvmap_action (const JmemSnapshot *s)
{
  for (guint i = 0; i < s->warnings->len; i++)
    {
      const JmemWarning *w = g_ptr_array_index (s->warnings, i);

      if (g_str_equal (w->source, "nvmap") && w->action != NULL)
        return w->action;
    }
  return NULL;
}

/* NvMap's PIDs are the initial namespace's; in a container with its own
 * they name other processes here, or none. Then they are reported as host
 * PIDs and joined to nothing. */
static void
check_pid_namespace (JmemCollectContext *ctx)
{
  JmemSnapshot *s = ctx->snapshot;

  if (!s->nvmap_readable ||
      jmem_pid_namespace_joinable (s->nvmap_clients->pid_namespace, jmem_pid_namespace_self ()))
    return;
  s->nvmap_pids_host = TRUE;
  jmem_snapshot_add_warning (s, "nvmap",
                             "run jmem in the host's PID namespace (on the host, or a container "
                             "started with --pid=host) to see NvMap memory per process",
                             "NvMap's PIDs are the host's and jmem runs in another PID namespace: "
                             "its rows are reported as host PIDs and not matched to processes here");
}

void
jmem_collect_join (JmemCollectContext *ctx)
{
  JmemSnapshot *s = ctx->snapshot;
  g_autoptr(GHashTable) nvmap = g_hash_table_new (g_int64_hash, g_int64_equal);
  g_autoptr(GHashTable) gpu = gpu_by_pid (s);
  g_autoptr(GHashTable) no_pids = g_hash_table_new (g_int64_hash, g_int64_equal);
  GHashTable *nvmap_join;
  int top = ctx->options->top;

  check_pid_namespace (ctx);
  if (s->nvmap_readable)
    aggregate_nvmap (ctx, nvmap);
  nvmap_join = s->nvmap_pids_host ? no_pids : nvmap;

  if (s->gpu_stack == JMEM_GPU_STACK_UNIFIED)
    s->gpu_source = g_strdup (s->nvmap_readable ? "nvidia-smi+nvmap" : "nvidia-smi");
  else
    s->gpu_source = g_strdup (s->nvmap_readable ? "nvmap" : "none");
  if (!s->nvmap_readable && s->gpu_stack != JMEM_GPU_STACK_UNIFIED && s->is_jetson)
    jmem_snapshot_add_warning (s, "gpu", nvmap_action (s),
                               "no source of GPU memory per process: nvidia-smi does not report "
                               "it on this stack and NvMap is unread");

  for (guint i = 0; i < s->processes->len; i++)
    {
      JmemProcess *p = g_ptr_array_index (s->processes, i);
      JmemNvmapPidTotal *t = g_hash_table_lookup (nvmap_join, &p->pid);
      gint64 *gpu_kib = g_hash_table_lookup (gpu, &p->pid);

      /* host PIDs: which of these processes holds what is unknown (null) */
      if (s->nvmap_readable && !s->nvmap_pids_host)
        p->nvmap_kib = t ? (gint64) MIN (t->size_kib, (guint64) G_MAXINT64) : 0;
      /* a row that may be forged gives its PID no GPU memory: it stays
       * unknown; a forged row adds rows but hides none */
      if (gpu_kib != NULL)
        p->gpu_kib = *gpu_kib;
      else if (ctx->gpu_apps_read && s->gpu_stack == JMEM_GPU_STACK_UNIFIED)
        p->gpu_kib = 0;  /* the driver lists every process holding GPU memory */
    }
  /* the NvMap buffers a holder maps are in its PSS already: counted once */
  jmem_collect_nvmap_mapped (ctx);
  for (guint i = 0; i < s->processes->len; i++)
    set_footprint (g_ptr_array_index (s->processes, i));

  g_ptr_array_sort (s->processes, compare_footprint);
  read_named (ctx, top, nvmap_join, gpu);
  name_gpu_rows (s);
  jmem_collect_process_warnings (ctx);
  warn_pss_unknown (ctx);
  /* the accounting and triage need every process, so they run before --top */
  jmem_collect_accounting (ctx);
  jmem_collect_headroom (ctx);
  s->findings = jmem_triage_run (s);
  s->n_processes_total = s->processes->len;
  if (top >= 0 && s->processes->len > (guint) top)
    g_ptr_array_set_size (s->processes, top);
}
