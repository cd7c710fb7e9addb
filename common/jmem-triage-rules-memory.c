/* Rules about system memory: used memory nothing explains, swap and CMA. */
#include "jmem-triage-private.h"

void
jmem_triage_rule_unexplained_used (JmemTriage *t)
{
  gint64 used, explained, unexplained, slab, sunreclaim, cma_total, shmem;
  g_autofree char *u = NULL, *e = NULL, *x = NULL, *kernel = NULL;
  JmemFinding *f;

  if (t->mem_total_kib <= 0 || t->mem_available_kib < 0 || t->rss_sum_kib < 0)
    return;
  used = MAX (t->mem_total_kib - t->mem_available_kib, 0);
  explained = jmem_triage_sum (t->rss_sum_kib, t->gpu_total_kib);
  unexplained = MAX (used - explained, 0);
  if (!jmem_triage_above ((guint64) unexplained, (guint64) t->mem_total_kib,
                          JMEM_TRIAGE_UNEXPLAINED_PERCENT))
    return;

  slab = jmem_triage_meminfo (t, "Slab");
  sunreclaim = jmem_triage_meminfo (t, "SUnreclaim");
  cma_total = jmem_triage_meminfo (t, "CmaTotal");
  shmem = jmem_triage_meminfo (t, "Shmem");
  u = jmem_triage_size ((guint64) used);
  e = jmem_triage_size ((guint64) explained);
  x = jmem_triage_size ((guint64) unexplained);
  {
    g_autoptr(GString) k = g_string_new (NULL);
    const struct { const char *name; gint64 kib; } fields[] = {
      { "Slab", slab }, { "SUnreclaim", sunreclaim }, { "Shmem", shmem }, { "CmaTotal", cma_total },
    };

    for (gsize i = 0; i < G_N_ELEMENTS (fields); i++)
      if (fields[i].kib > 0)
        {
          g_autofree char *s = jmem_triage_size ((guint64) fields[i].kib);
          g_string_append_printf (k, "%s%s %s", k->len ? ", " : "", fields[i].name, s);
        }
    kernel = g_string_free (g_steal_pointer (&k), FALSE);
  }

  f = jmem_triage_add (t, "unexplained-used", JMEM_SEVERITY_WARNING,
                       "Look at kernel memory: SUnreclaim (`sudo slabtop -o`), Shmem and tmpfs "
                       "(`df -t tmpfs`), CMA users and driver reservations; on L4T before r39, "
                       "also at the pages of exited CUDA processes (see cuda-pool-retained).",
                       "%s in use but process RSS and GPU memory explain only %s: %s (%.1f %% of "
                       "RAM) unexplained%s%s",
                       u, e, x,
                       jmem_triage_percent ((guint64) unexplained, (guint64) t->mem_total_kib),
                       kernel[0] ? "; " : "", kernel);
  jmem_finding_add_number (f, "used_kib", (double) used, "KiB");
  jmem_finding_add_number (f, "rss_sum_kib", (double) t->rss_sum_kib, "KiB");
  jmem_finding_add_number (f, "gpu_total_kib", (double) MAX (t->gpu_total_kib, 0), "KiB");
  jmem_finding_add_number (f, "unexplained_kib", (double) unexplained, "KiB");
  jmem_finding_add_number (f, "percent_of_mem_total",
                           jmem_triage_percent ((guint64) unexplained, (guint64) t->mem_total_kib),
                           "percent");
  if (slab >= 0)
    jmem_finding_add_number (f, "slab_kib", (double) slab, "KiB");
  if (sunreclaim >= 0)
    jmem_finding_add_number (f, "sunreclaim_kib", (double) sunreclaim, "KiB");
  if (cma_total >= 0)
    jmem_finding_add_number (f, "cma_total_kib", (double) cma_total, "KiB");
}

void
jmem_triage_rule_swap_heavy (JmemTriage *t)
{
  gint64 total = jmem_triage_meminfo (t, "SwapTotal");
  gint64 free_kib = jmem_triage_meminfo (t, "SwapFree");
  g_autofree char *u = NULL, *s = NULL;
  gint64 used;
  JmemFinding *f;

  if (total <= 0 || free_kib < 0)
    return;
  used = MAX (total - free_kib, 0);
  if (!jmem_triage_above ((guint64) used, (guint64) total, JMEM_TRIAGE_SWAP_USED_PERCENT))
    return;

  u = jmem_triage_size ((guint64) used);
  s = jmem_triage_size ((guint64) total);
  f = jmem_triage_add (t, "swap-heavy", JMEM_SEVERITY_WARNING,
                       "Find the largest footprints in `jmem snapshot` and shrink or stop them.",
                       "Swap is %.1f %% used: %s of %s; RAM is short, and swap on eMMC or SD cards "
                       "stalls the whole system (zram swaps to RAM)",
                       jmem_triage_percent ((guint64) used, (guint64) total), u, s);
  jmem_finding_add_number (f, "swap_used_kib", (double) used, "KiB");
  jmem_finding_add_number (f, "swap_total_kib", (double) total, "KiB");
  jmem_finding_add_number (f, "percent_used", jmem_triage_percent ((guint64) used, (guint64) total),
                           "percent");
}

void
jmem_triage_rule_cma_exhausted (JmemTriage *t)
{
  gint64 total = jmem_triage_meminfo (t, "CmaTotal");
  gint64 free_kib = jmem_triage_meminfo (t, "CmaFree");
  g_autofree char *fr = NULL, *s = NULL;
  JmemFinding *f;

  if (total <= 0 || free_kib < 0 ||
      !jmem_triage_below ((guint64) free_kib, (guint64) total, JMEM_TRIAGE_CMA_FREE_PERCENT))
    return;

  fr = jmem_triage_size ((guint64) free_kib);
  s = jmem_triage_size ((guint64) total);
  f = jmem_triage_add (t, "cma-exhausted", JMEM_SEVERITY_WARNING,
                       "Stop idle capture or GStreamer pipelines (nvargus-daemon clients), or "
                       "enlarge CMA with the cma= kernel argument in /boot/extlinux/extlinux.conf.",
                       "CMA is nearly exhausted: %s free of %s (%.1f %%); camera, video and "
                       "display buffers need it for contiguous memory",
                       fr, s, jmem_triage_percent ((guint64) free_kib, (guint64) total));
  jmem_finding_add_number (f, "cma_free_kib", (double) free_kib, "KiB");
  jmem_finding_add_number (f, "cma_total_kib", (double) total, "KiB");
  jmem_finding_add_number (f, "percent_free", jmem_triage_percent ((guint64) free_kib, (guint64) total),
                           "percent");
}
