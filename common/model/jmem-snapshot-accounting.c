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

JmemAccounting *
jmem_snapshot_accounting_new (const JmemSnapshot *s)
{
  guint n = s->processes != NULL ? s->processes->len : 0;
  g_autofree JmemAccountingProcess *procs = g_new0 (JmemAccountingProcess, MAX (n, 1));
  JmemAccountingInput in = {
    .meminfo = s->meminfo,
    .kernel_release = s->kernel_release,
    .unified_gpu = s->gpu_stack == JMEM_GPU_STACK_UNIFIED,
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
