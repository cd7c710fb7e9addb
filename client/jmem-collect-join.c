/* Everything that needs more than one source: NvMap per PID, the joins onto
 * processes, the footprint, the order and --top. */
#include "jmem-collect-private.h"

#include "jmem-triage.h"

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
          g_autofree char *full = jmem_collect_path (ctx, dir);

          t = g_new0 (JmemNvmapPidTotal, 1);
          t->pid = pid;
          t->process = g_strdup (c->process);
          /* Kernel clients (PID 0) have no /proc entry and are no orphans. */
          t->pid_exists = pid == 0 || g_file_test (full, G_FILE_TEST_IS_DIR);
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

      if (!t->pid_exists)
        jmem_snapshot_add_warning (s, "nvmap", NULL,
                                   "NvMap holds %" G_GUINT64_FORMAT " KiB for PID %" G_GINT64_FORMAT
                                   " (%s), which has no /proc entry: a process in another PID "
                                   "namespace, one that just exited, or a leak",
                                   t->size_kib, t->pid, t->process ? t->process : "?");
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
  /* pid -> summed KiB, or -1 when a row was listed without memory */
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
      if (a->used_memory_mib < 0 || *kib < 0)
        *kib = -1;
      else
        *kib = add_saturated (*kib, MIN (a->used_memory_mib, G_MAXINT64 / 1024) * 1024);
    }
  return h;
}

/* (pss, else rss) + swap + GPU memory; before PSS is read it is an upper
 * bound, since a process's PSS never exceeds its RSS. */
static gint64
footprint (const JmemProcess *p)
{
  gint64 base = p->pss_kib >= 0 ? p->pss_kib : MAX (p->rss_kib, 0);

  return add_saturated (add_saturated (base, MAX (p->swap_kib, 0)),
                        MAX (MAX (p->nvmap_kib, p->gpu_kib), 0));
}

/* PSS costs the kernel a walk of the page tables per process. With --top N
 * only the N largest footprints are shown, so read PSS in order of the upper
 * bound and stop once N exact footprints beat every bound left: the report
 * is the same as reading them all. Every process's PSS with --all. */
static void
read_pss (JmemCollectContext *ctx, int top)
{
  JmemSnapshot *s = ctx->snapshot;
  g_autoptr(GArray) best = g_array_new (FALSE, FALSE, sizeof (gint64)); /* descending */
  guint n_no_pss = 0;

  g_ptr_array_sort (s->processes, compare_footprint);
  for (guint i = 0; i < s->processes->len; i++)
    {
      JmemProcess *p = g_ptr_array_index (s->processes, i);
      guint at;

      if (top >= 0 && best->len >= (guint) top &&
          (top == 0 || g_array_index (best, gint64, top - 1) > p->footprint_kib))
        break;
      /* Kernel threads have no memory map: no PSS is their truth, not a gap. */
      if (!jmem_collect_process_pss (ctx, p) && p->rss_kib >= 0)
        n_no_pss++;
      p->footprint_kib = footprint (p);
      if (top <= 0)
        continue;
      for (at = 0; at < best->len && g_array_index (best, gint64, at) >= p->footprint_kib; at++)
        ;
      if (at < (guint) top)
        g_array_insert_val (best, at, p->footprint_kib);
      if (best->len > (guint) top)
        g_array_set_size (best, top);
    }

  if (n_no_pss > 0)
    jmem_snapshot_add_warning (s, "processes",
                               ctx->root == NULL ? "run jmem as the processes' owner or as root to see their PSS" : NULL,
                               "PSS unknown for %u processes (smaps_rollup unreadable): "
                               "their pss_kib is null and RSS stands in for the footprint",
                               n_no_pss);
}

void
jmem_collect_join (JmemCollectContext *ctx)
{
  JmemSnapshot *s = ctx->snapshot;
  g_autoptr(GHashTable) nvmap = g_hash_table_new (g_int64_hash, g_int64_equal);
  g_autoptr(GHashTable) gpu = gpu_by_pid (s);
  int top = ctx->options->top;

  if (s->nvmap_readable)
    aggregate_nvmap (ctx, nvmap);

  if (s->gpu_stack == JMEM_GPU_STACK_UNIFIED)
    s->gpu_source = g_strdup (s->nvmap_readable ? "nvidia-smi+nvmap" : "nvidia-smi");
  else
    s->gpu_source = g_strdup (s->nvmap_readable ? "nvmap" : "none");
  if (!s->nvmap_readable && s->gpu_stack != JMEM_GPU_STACK_UNIFIED && s->is_jetson)
    jmem_snapshot_add_warning (s, "gpu", "see the nvmap warning for how to give jmem access",
                               "no source of GPU memory per process: nvidia-smi does not report "
                               "it on this stack and NvMap is unread");

  for (guint i = 0; i < s->processes->len; i++)
    {
      JmemProcess *p = g_ptr_array_index (s->processes, i);
      JmemNvmapPidTotal *t = g_hash_table_lookup (nvmap, &p->pid);
      gint64 *gpu_kib = g_hash_table_lookup (gpu, &p->pid);

      if (s->nvmap_readable)
        p->nvmap_kib = t ? (gint64) MIN (t->size_kib, (guint64) G_MAXINT64) : 0;
      if (gpu_kib != NULL)
        p->gpu_kib = *gpu_kib;
      else if (ctx->gpu_apps_read && s->gpu_stack == JMEM_GPU_STACK_UNIFIED)
        p->gpu_kib = 0;  /* the driver lists every process holding GPU memory */
      p->footprint_kib = footprint (p);
    }

  read_pss (ctx, top);
  g_ptr_array_sort (s->processes, compare_footprint);
  /* Containers and command lines only for what is shown or holds GPU
   * memory (findings name those): most of /proc is never printed. */
  for (guint i = 0; i < s->processes->len; i++)
    {
      JmemProcess *p = g_ptr_array_index (s->processes, i);

      if (top < 0 || i < (guint) top || p->nvmap_kib > 0 || p->gpu_kib > 0)
        jmem_collect_process_details (ctx, p);
    }
  /* triage needs every process (RSS sum, states), so it runs before --top */
  s->findings = jmem_triage_run (s);
  s->n_processes_total = s->processes->len;
  if (top >= 0 && s->processes->len > (guint) top)
    g_ptr_array_set_size (s->processes, top);
}
