/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The accounting's input from what a snapshot collected: one place, for the
 * collector and for triage on a snapshot built without it. */
#include "jmem-snapshot.h"

/* A variant inferred from MemTotal cannot say how much firmware kept. */
static gint64
module_kib (const JmemIdentity *id)
{
  if (id == NULL || id->variant_source == NULL || g_str_equal (id->variant_source, "memory-size"))
    return -1;
  return jmem_identity_module_ram_kib (id);
}

/* The GPU memory the driver reports, from the rows that count (a row that
 * may be forged counts for nothing): one figure per PID (NVML merged the
 * compute and graphics lists already), exited PIDs it still counts
 * included. -1 when no answer counts. */
static void
gpu_reported (const JmemSnapshot *s, JmemAccountingInput *in)
{
  gint64 sum = 0, exited = 0;
  guint counted = 0, in_doubt = 0;

  in->gpu_reported_kib = in->gpu_exited_kib = -1;
  if (s->gpu_stack != JMEM_GPU_STACK_UNIFIED || s->gpu_apps == NULL)
    return;
  for (guint i = 0; i < s->gpu_apps->len; i++)
    {
      const JmemNvsmiApp *a = g_ptr_array_index (s->gpu_apps, i);
      gint64 kib;

      if (a->in_doubt)
        {
          in_doubt++;
          continue;
        }
      if (a->nvml_lists != 0)
        in->gpu_source = "nvml";
      if (a->used_memory_mib < 0)
        continue;
      kib = MIN (a->used_memory_mib, JMEM_ACCOUNTING_MAX_KIB / 1024) * 1024;
      sum = MIN (sum + kib, JMEM_ACCOUNTING_MAX_KIB + 1);
      if (!a->pid_exists)
        exited += kib;
      counted++;
    }
  if (in_doubt > 0 && counted == 0)
    return;
  in->gpu_reported_kib = sum;
  in->gpu_exited_kib = MIN (exited, sum);
}

static gint64
l4t_major (const JmemSnapshot *s)
{
  char *end = NULL;
  gint64 major;

  if (s->release == NULL || s->release->major == NULL)
    return -1;
  major = g_ascii_strtoll (s->release->major, &end, 10);
  return end == s->release->major || major <= 0 ? -1 : major;
}

JmemAccounting *
jmem_snapshot_accounting_new (const JmemSnapshot *s)
{
  guint n = s->processes != NULL ? s->processes->len : 0;
  g_autofree JmemAccountingProcess *procs = g_new0 (JmemAccountingProcess, MAX (n, 1));
  JmemAccountingInput in = {
    .meminfo = s->meminfo,
    .kernel_release = s->kernel_release,
    .unified_gpu = s->gpu_stack == JMEM_GPU_STACK_UNIFIED,
    .gpu_source = "nvidia-smi",
    .l4t_major = l4t_major (s),
    .nvmap_total_kib = -1,
    .nvmap_absent = s->nvmap_absent,
    .nvmap_pool_pages = s->nvmap_extras.pool_pages,
    .page_size = s->nvmap_extras.page_size,
    .nvmap_hugetlbfs_kib = s->nvmap_hugetlbfs_kib,
    .nvmap_hugetlbfs_column = s->nvmap_hugetlbfs_column,
    .nvmap_free_size_bytes = s->nvmap_extras.free_size_bytes,
    .zram_bytes = s->zram_bytes,
    .device_tree_bytes = s->device_tree_bytes,
    .module_kib = module_kib (s->identity),
    .module_name = s->identity != NULL ? s->identity->variant : NULL,
    .processes = procs,
    .n_processes = n,
  };

  if (s->meminfo == NULL)
    return NULL;
  gpu_reported (s, &in);
  if (s->nvmap_readable && s->nvmap_clients != NULL && s->nvmap_clients->has_total &&
      s->nvmap_clients->total_kib <= G_MAXINT64)
    in.nvmap_total_kib = (gint64) s->nvmap_clients->total_kib;
  for (guint i = 0; i < n; i++)
    {
      const JmemProcess *p = g_ptr_array_index (s->processes, i);

      procs[i] = (JmemAccountingProcess) {
        .pid = p->pid,
        .pss_kib = p->pss_kib,
        .rss_kib = p->rss_kib,
        .nvmap_kib = p->nvmap_kib,
        .nvmap_mapped_kib = p->nvmap_mapped_kib,
        .gpu_kib = p->gpu_kib,
      };
    }
  return jmem_accounting_compute (&in);
}
