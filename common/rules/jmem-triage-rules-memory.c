/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Rules about system memory: memory in no bucket, swap, CMA, and what a new
 * allocation can still get (the headroom's figures, jmem-headroom.c). */
#include "jmem-triage-private.h"

/* The accounting's remainder: memory in no meminfo field and no NvMap
 * figure, less what nvidia-smi reports on the unified stack. */
void
jmem_triage_rule_unexplained_large (JmemTriage *t)
{
  const JmemAccounting *a = t->accounting;
  const JmemSnapshot *s = t->snapshot;
  gint64 remainder, gpu = 0, residual;
  g_autoptr(GString) unknown = g_string_new (NULL);
  g_autofree char *size = NULL, *gpu_text = NULL;
  JmemFinding *f;

  if (a == NULL || a->mem_total_kib <= 0 || a->unexplained_kib <= 0)
    return;
  remainder = a->unexplained_kib;
  /* the GPU memory the driver reports is the gpu bucket; only while that is
   * unknown can the processes' figure be taken out of the remainder */
  if (s->gpu_stack == JMEM_GPU_STACK_UNIFIED && a->buckets[JMEM_BUCKET_GPU].kib < 0 &&
      a->reconciliation.gpu_kib > 0)
    gpu = MIN (a->reconciliation.gpu_kib, remainder);
  residual = remainder - gpu;
  if (!jmem_triage_above ((guint64) residual, (guint64) a->mem_total_kib,
                          JMEM_TRIAGE_UNEXPLAINED_PERCENT))
    return;

  for (guint i = 0; i < JMEM_N_BUCKETS; i++)
    if (a->buckets[i].kib < 0)
      g_string_append_printf (unknown, "%s%s", unknown->len ? ", " : "",
                              jmem_accounting_bucket_label (i));
  size = jmem_triage_size ((guint64) residual);
  gpu_text = jmem_triage_size ((guint64) gpu);
  /* With a bucket unknown, the remainder holds its memory too: the rule
   * cannot tell a leak from a source it could not read, and says so at
   * info level instead of warning about a leak. */
  if (unknown->len > 0)
    f = jmem_triage_add (t, "unexplained-large", JMEM_SEVERITY_INFO, JMEM_ACTION_ADMIN,
                         "See what each unknown bucket is made of (`jmem snapshot --json`: "
                         "accounting.buckets, fields and note), give jmem what it lacks (NvMap "
                         "and its page pool through the helper: join the jmem group) and look "
                         "again.",
                         "%s (%.1f %% of RAM) is in no bucket jmem could fill, and these buckets "
                         "are unknown, so their memory is in it: %s%s%s%s",
                         size, jmem_triage_percent ((guint64) residual, (guint64) a->mem_total_kib),
                         unknown->str,
                         gpu > 0 ? "; besides it, the " : "", gpu > 0 ? gpu_text : "",
                         gpu > 0 ? " nvidia-smi reports for GPU memory" : "");
  else
    f = jmem_triage_add (t, "unexplained-large", JMEM_SEVERITY_WARNING, JMEM_ACTION_ADMIN,
                         "Look at the kernel's own allocations: `sudo cat /proc/vmallocinfo` (who "
                         "calls vmalloc), `sudo slabtop -o`, NvMap's orphan handles (`sudo cat "
                         "/sys/kernel/debug/nvmap/iovmm/orphan_handles`) and CMA users.",
                         "%s (%.1f %% of RAM) is in use but in no bucket: no meminfo field and no "
                         "NvMap figure holds it (a driver's own memory, or a leak)%s%s%s",
                         size, jmem_triage_percent ((guint64) residual, (guint64) a->mem_total_kib),
                         gpu > 0 ? "; besides it, the " : "", gpu > 0 ? gpu_text : "",
                         gpu > 0 ? " nvidia-smi reports for GPU memory" : "");
  jmem_finding_add_number (f, "unexplained_kib", (double) a->unexplained_kib, "KiB");
  jmem_finding_add_number (f, "gpu_reported_kib", (double) gpu, "KiB");
  jmem_finding_add_number (f, "residual_kib", (double) residual, "KiB");
  jmem_finding_add_number (f, "mem_total_kib", (double) a->mem_total_kib, "KiB");
  jmem_finding_add_number (f, "percent_of_mem_total",
                           jmem_triage_percent ((guint64) residual, (guint64) a->mem_total_kib),
                           "percent");
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
  f = jmem_triage_add (t, "swap-heavy", JMEM_SEVERITY_WARNING, JMEM_ACTION_ANY_USER,
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
  f = jmem_triage_add (t, "cma-exhausted", JMEM_SEVERITY_WARNING, JMEM_ACTION_ADMIN,
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

/* What stands in the way, for an action: the largest holders and the
 * services, as the headroom names them. */
static char *
holders_text (const JmemHeadroom *h)
{
  g_autoptr(GString) s = g_string_new (NULL);

  for (guint i = 0; i < h->holders->len; i++)
    {
      const JmemHeadroomHolder *hd = g_ptr_array_index (h->holders, i);
      g_autofree char *size = jmem_triage_size ((guint64) hd->footprint_kib);

      g_string_append_printf (s, "%sPID %" G_GINT64_FORMAT " (%s) %s", i > 0 ? ", " : "", hd->pid,
                              hd->name != NULL ? hd->name : "?", size);
    }
  return g_string_free (g_steal_pointer (&s), FALSE);
}

void
jmem_triage_rule_headroom_low (JmemTriage *t)
{
  const JmemHeadroom *h = t->snapshot->headroom;
  g_autofree char *after = NULL, *now = NULL, *total = NULL, *holders = NULL, *action = NULL;
  gint64 mem_total = t->accounting != NULL ? t->accounting->mem_total_kib : -1;
  gboolean critical;
  JmemFinding *f;

  if (h == NULL || h->allocatable_after_reclaim_kib < 0 || mem_total <= 0 ||
      !jmem_triage_below ((guint64) h->allocatable_after_reclaim_kib, (guint64) mem_total,
                          JMEM_TRIAGE_HEADROOM_LOW_PERCENT))
    return;
  critical = jmem_triage_below ((guint64) h->allocatable_after_reclaim_kib, (guint64) mem_total,
                                JMEM_TRIAGE_HEADROOM_CRITICAL_PERCENT);
  after = jmem_triage_size ((guint64) h->allocatable_after_reclaim_kib);
  now = jmem_triage_size ((guint64) MAX (h->allocatable_now_kib, 0));
  total = jmem_triage_size ((guint64) mem_total);
  holders = holders_text (h);
  action = g_strdup_printf ("Check that a GPU job fits before starting it (`jmem headroom "
                            "--need SIZE`); to make room, stop what holds the most (%s)%s.",
                            holders[0] != '\0' ? holders : "see `jmem snapshot`",
                            h->swap_free_kib == 0 ? ", or enable zram swap" : "");
  f = jmem_triage_add (t, "headroom-low", critical ? JMEM_SEVERITY_CRITICAL : JMEM_SEVERITY_WARNING,
                       h->swap_free_kib == 0 ? JMEM_ACTION_ADMIN : JMEM_ACTION_ANY_USER, action,
                       "Only %s (%.1f %% of %s) can be allocated even after the kernel reclaims "
                       "what it can (%s without reclaim): a new model or engine build will fail "
                       "or wake the OOM killer",
                       after, jmem_triage_percent ((guint64) h->allocatable_after_reclaim_kib,
                                                   (guint64) mem_total),
                       total, now);
  jmem_finding_add_number (f, "allocatable_now_kib", (double) MAX (h->allocatable_now_kib, 0), "KiB");
  jmem_finding_add_number (f, "allocatable_after_reclaim_kib",
                           (double) h->allocatable_after_reclaim_kib, "KiB");
  jmem_finding_add_number (f, "mem_total_kib", (double) mem_total, "KiB");
  jmem_finding_add_number (f, "percent_of_mem_total",
                           jmem_triage_percent ((guint64) h->allocatable_after_reclaim_kib,
                                                (guint64) mem_total), "percent");
}

void
jmem_triage_rule_fragmented (JmemTriage *t)
{
  const JmemHeadroom *h = t->snapshot->headroom;
  g_autofree char *block = NULL, *free_text = NULL;
  JmemFinding *f;

  if (h == NULL || !h->fragmented)
    return;
  block = jmem_triage_size ((guint64) h->largest_free_block_kib);
  free_text = jmem_triage_size ((guint64) h->buddy_free_kib);
  f = jmem_triage_add (t, "fragmented", JMEM_SEVERITY_WARNING, JMEM_ACTION_ADMIN,
                       "Compact memory (`jmem drop-caches --compact`) before starting camera, video "
                       "or huge-page users; if it comes back, restart the long-running pipelines "
                       "that churn buffers, and reserve contiguous memory through CMA at boot.",
                       "%s is free, but no free block is larger than %s (/proc/buddyinfo): GPU "
                       "allocations take single pages, but contiguous buffers (camera, video, "
                       "CMA, huge pages) fail or stall on compaction",
                       free_text, block);
  jmem_finding_add_number (f, "largest_free_block_kib", (double) h->largest_free_block_kib, "KiB");
  jmem_finding_add_number (f, "largest_free_blocks", (double) h->largest_free_blocks, "count");
  jmem_finding_add_number (f, "free_kib", (double) h->buddy_free_kib, "KiB");
  jmem_finding_add_number (f, "huge_free_kib", (double) MAX (h->huge_free_kib, 0), "KiB");
  jmem_finding_add_number (f, "page_size_bytes", (double) h->page_size, "bytes");
}
