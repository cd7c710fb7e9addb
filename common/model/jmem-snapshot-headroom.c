/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The headroom's input from what a snapshot collected: one place, for the
 * collector, the headroom operation and triage. */
#include "jmem-snapshot.h"

#include "jmem-desktop.h"

/* The display manager the snapshot found running: stopping it ends the
 * desktop session, whose processes live in the user's slice. */
static const char *
display_manager (const JmemSnapshot *s)
{
  static const char * const names[] = {
    "gdm3.service", "gdm.service", "lightdm.service", "sddm.service", "display-manager.service",
  };

  for (guint i = 0; s->services != NULL && i < s->services->len; i++)
    {
      const JmemService *svc = g_ptr_array_index (s->services, i);

      for (gsize n = 0; n < G_N_ELEMENTS (names); n++)
        if (g_str_equal (svc->name, names[n]) && g_strcmp0 (svc->active_state, "active") == 0)
          return svc->name;
    }
  return NULL;
}

JmemHeadroom *
jmem_snapshot_headroom_new (const JmemSnapshot *s,
                            gint64              need_kib)
{
  guint n = s->processes != NULL ? s->processes->len : 0;
  g_autofree JmemHeadroomProcess *procs = g_new0 (JmemHeadroomProcess, MAX (n, 1));
  JmemHeadroomInput in = {
    .accounting = s->accounting,
    .meminfo = s->meminfo,
    .buddyinfo = s->buddyinfo,
    .page_size = s->page_size,
    .min_free_kib = s->min_free_kib,
    .swaps = s->swaps,
    .zram_orig_bytes = s->zram_orig_bytes,
    .zram_used_bytes = s->zram_bytes,
    .unified_gpu = s->gpu_stack == JMEM_GPU_STACK_UNIFIED,
    /* a GB10's GPU shares the RAM as a Jetson's does */
    .discrete_gpu = !s->is_jetson && s->gpus != NULL && s->gpus->len > 0 &&
                    (s->platform == NULL || s->platform->kind != JMEM_PLATFORM_UNIFIED_MEMORY),
    .display_manager = display_manager (s),
    .processes = procs,
    .n_processes = n,
    .need_kib = need_kib,
  };

  for (guint i = 0; i < n; i++)
    {
      const JmemProcess *p = g_ptr_array_index (s->processes, i);

      procs[i] = (JmemHeadroomProcess) {
        .pid = p->pid,
        .name = p->name,
        .user = p->user,
        .unit = p->unit,
        .desktop = jmem_process_is_desktop (p->name),
        .footprint_kib = p->kernel_thread > 0 ? 0 : p->footprint_kib,
        .nvmap_kib = p->nvmap_kib,
        .gpu_kib = p->gpu_kib,
      };
    }
  return jmem_headroom_compute (&in);
}
