/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The arithmetic of "can this board still allocate N". Sizes are KiB, -1
 * unknown. The rules and their sources are in docs/headroom.md. */
#include "jmem-headroom.h"

#include <stdarg.h>
#include <string.h>

#include "jmem-size.h"
#include "jmem-text.h"

static const struct {
  const char *name;
  const char *label;
} term_names[JMEM_HEADROOM_N_TERMS] = {
  [JMEM_HEADROOM_TERM_FREE] = { "free", "free" },
  [JMEM_HEADROOM_TERM_CMA_FREE] = { "cma_free", "CMA free" },
  [JMEM_HEADROOM_TERM_RESERVE] = { "reserve", "kernel reserve" },
  [JMEM_HEADROOM_TERM_NVMAP_POOL] = { "nvmap_pool", "NvMap pool" },
  [JMEM_HEADROOM_TERM_GPU_CARVEOUT] = { "gpu_carveout", "GPU carveout" },
  [JMEM_HEADROOM_TERM_PAGE_CACHE] = { "page_cache", "page cache" },
  [JMEM_HEADROOM_TERM_SLAB] = { "slab", "slab" },
  [JMEM_HEADROOM_TERM_GPU_POOL] = { "gpu_pool", "GPU driver pool" },
  [JMEM_HEADROOM_TERM_SWAP] = { "swap", "swap" },
};

const char *
jmem_headroom_term_name (JmemHeadroomTermId id)
{
  g_return_val_if_fail (id < JMEM_HEADROOM_N_TERMS, "unknown");
  return term_names[id].name;
}

const char *
jmem_headroom_drop_caches_what (const JmemHeadroom *h)
{
  const JmemHeadroomTerm *pool = &h->terms[JMEM_HEADROOM_TERM_GPU_POOL];

  if (pool->kib <= 0)
    return "page cache and slab";
  return pool->source != NULL && g_str_equal (pool->source, "estimate")
         ? "page cache, slab and the GPU driver's pool (an estimate)"
         : "page cache, slab and the GPU driver's pool";
}

const char *
jmem_headroom_term_label (JmemHeadroomTermId id)
{
  g_return_val_if_fail (id < JMEM_HEADROOM_N_TERMS, "unknown");
  return term_names[id].label;
}

const char *
jmem_headroom_verdict_name (JmemHeadroomVerdict verdict)
{
  switch (verdict)
    {
    case JMEM_HEADROOM_FITS_NOW: return "fits-now";
    case JMEM_HEADROOM_FITS_AFTER_RECLAIM: return "fits-after-reclaim";
    case JMEM_HEADROOM_DOES_NOT_FIT: return "does-not-fit";
    case JMEM_HEADROOM_UNKNOWN: return "unknown";
    case JMEM_HEADROOM_NO_NEED: break;
    }
  return NULL;
}

int
jmem_headroom_exit_status (JmemHeadroomVerdict verdict)
{
  switch (verdict)
    {
    case JMEM_HEADROOM_NO_NEED:
    case JMEM_HEADROOM_FITS_NOW: return 0;
    case JMEM_HEADROOM_FITS_AFTER_RECLAIM: return 1;
    case JMEM_HEADROOM_DOES_NOT_FIT: return 2;
    case JMEM_HEADROOM_UNKNOWN: break;
    }
  return -1;
}

static void
zone_free (JmemHeadroomZone *z)
{
  g_free (z->zone);
  g_free (z);
}

static void
holder_free (JmemHeadroomHolder *h)
{
  g_free (h->name);
  g_free (h->user);
  g_free (h->unit);
  g_free (h);
}

static void
service_free (JmemHeadroomService *s)
{
  g_free (s->unit);
  g_free (s);
}

void
jmem_headroom_free (JmemHeadroom *h)
{
  if (h == NULL)
    return;
  for (guint i = 0; i < JMEM_HEADROOM_N_TERMS; i++)
    {
      g_free (h->terms[i].fields);
      g_free (h->terms[i].note);
    }
  g_free (h->largest_free_block_zone);
  g_free (h->app_note_fields);
  g_ptr_array_unref (h->zones);
  g_ptr_array_unref (h->holders);
  g_ptr_array_unref (h->services);
  g_ptr_array_unref (h->actions);
  g_ptr_array_unref (h->notes);
  g_free (h);
}

static void G_GNUC_PRINTF (2, 3)
add_line (GPtrArray *to, const char *format, ...)
{
  va_list args;

  va_start (args, format);
  g_ptr_array_add (to, g_strdup_vprintf (format, args));
  va_end (args);
}

static void
set_term (JmemHeadroom *h, JmemHeadroomTermId id, gint64 kib, const char *source,
          const char *fields, char *note_owned)
{
  JmemHeadroomTerm *t = &h->terms[id];

  t->kib = kib >= 0 ? MIN (kib, JMEM_ACCOUNTING_MAX_KIB) : -1;
  t->source = source;
  g_free (t->fields);
  t->fields = g_strdup (fields);
  g_free (t->note);
  t->note = note_owned;
}

static gint64
bucket (const JmemHeadroomInput *in, JmemBucketId id)
{
  return in->accounting->buckets[id].kib;
}

/* A meminfo field within the accounting's limit, -1 absent or refused. */
static gint64
field (const JmemHeadroomInput *in, const char *name)
{
  gint64 kib = in->meminfo != NULL ? jmem_meminfo_get_kib (in->meminfo, name) : -1;

  return kib > JMEM_ACCOUNTING_MAX_KIB ? -1 : kib;
}

static gint64
known (gint64 kib)
{
  return MAX (kib, 0);
}

/* ---- now: what an allocation gets without the kernel reclaiming ---- */

#define RESERVE_UNREAD "/proc/sys/vm/min_free_kbytes was not read: the kernel's reserve is " \
                       "not taken off, so allocatable now is an upper bound"

static void
now_terms (JmemHeadroom *h, const JmemHeadroomInput *in)
{
  const JmemAccounting *a = in->accounting;
  gint64 free_kib = bucket (in, JMEM_BUCKET_FREE);
  gint64 pool = bucket (in, JMEM_BUCKET_NVMAP_POOL);

  /* a meminfo that contradicts itself (a broken capture, a kernel bug)
   * never makes the board larger than it is */
  if (free_kib > a->mem_total_kib)
    {
      g_autofree char *free_text = jmem_text_size (free_kib);
      g_autofree char *total_text = jmem_text_size (a->mem_total_kib);

      add_line (h->notes, "MemFree (%s) is above MemTotal (%s): /proc/meminfo contradicts "
                "itself; free memory is counted as MemTotal, and no figure here passes it",
                free_text, total_text);
      set_term (h, JMEM_HEADROOM_TERM_FREE, a->mem_total_kib, "meminfo", "MemTotal",
                g_strdup_printf ("MemFree (%s) is above MemTotal: counted as MemTotal", free_text));
      free_kib = a->mem_total_kib;
    }
  else
    set_term (h, JMEM_HEADROOM_TERM_FREE, free_kib, "meminfo", "MemFree",
              free_kib < 0 ? g_strdup ("MemFree is absent: nothing can be said") : NULL);

  h->terms[JMEM_HEADROOM_TERM_CMA_FREE].subtract = TRUE;
  if (a->cma_total_kib < 0)
    set_term (h, JMEM_HEADROOM_TERM_CMA_FREE, 0, "meminfo", "CmaFree",
              g_strdup ("no CMA lines: a kernel without CMA"));
  else
    set_term (h, JMEM_HEADROOM_TERM_CMA_FREE, a->cma_free_kib, "meminfo", "CmaFree",
              g_strdup ("free CMA pages are in MemFree, but NvMap does not allocate from CMA "
                        "(nvmap_ioctl.c, system_heap_free_mem): they wait for camera, video and "
                        "display buffers"));

  h->terms[JMEM_HEADROOM_TERM_RESERVE].subtract = TRUE;
  if (in->min_free_kib >= 0)
    set_term (h, JMEM_HEADROOM_TERM_RESERVE, in->min_free_kib, "sysctl", "vm.min_free_kbytes",
              g_strdup ("below the min watermark only the kernel's own emergencies are served; "
                        "an allocation there waits for reclaim (mm/page_alloc.c)"));
  else
    {
      set_term (h, JMEM_HEADROOM_TERM_RESERVE, -1, "sysctl", "vm.min_free_kbytes",
                g_strdup (RESERVE_UNREAD));
      add_line (h->notes, RESERVE_UNREAD);
    }

  if (pool >= 0)
    set_term (h, JMEM_HEADROOM_TERM_NVMAP_POOL, pool, in->accounting->buckets[JMEM_BUCKET_NVMAP_POOL].source,
              in->accounting->buckets[JMEM_BUCKET_NVMAP_POOL].fields,
              g_strdup ("free pages NvMap keeps; its next allocations take them first (nvmap_pp.c)"));
  else
    set_term (h, JMEM_HEADROOM_TERM_NVMAP_POOL, -1, "nvmap",
              in->accounting->buckets[JMEM_BUCKET_NVMAP_POOL].fields,
              g_strdup ("the page pool was not read: allocatable now may be larger by it"));

  if (h->gpu_carveout)
    set_term (h, JMEM_HEADROOM_TERM_GPU_CARVEOUT, h->hugetlb_free_kib, "meminfo",
              "HugePages_Free * Hugepagesize",
              g_strdup ("free pages of the GPU's hugetlb carveout (nv_hugetlbfs_init): GPU "
                        "allocations take them, nothing else does"));
  else
    set_term (h, JMEM_HEADROOM_TERM_GPU_CARVEOUT, 0, "meminfo", "HugePages_Free * Hugepagesize",
              known (h->hugetlb_total_kib) > 0
              ? g_strdup ("the hugetlb pool serves hugetlbfs users, not GPU allocations here")
              : NULL);

  if (free_kib < 0)
    return;
  h->allocatable_now_kib = MAX (free_kib - known (h->terms[JMEM_HEADROOM_TERM_CMA_FREE].kib)
                                - known (h->terms[JMEM_HEADROOM_TERM_RESERVE].kib), 0)
                           + known (h->terms[JMEM_HEADROOM_TERM_NVMAP_POOL].kib)
                           + known (h->terms[JMEM_HEADROOM_TERM_GPU_CARVEOUT].kib);
}

/* ---- what reclaim adds ---- */

/* zram's compression: what it holds over the RAM that takes, when it holds
 * enough to tell; else the assumption, said. */
static void
zram_ratio (JmemHeadroom *h, const JmemHeadroomInput *in)
{
  if (in->zram_orig_bytes >= 1024 * 1024 && in->zram_used_bytes > 0 &&
      in->zram_orig_bytes >= in->zram_used_bytes)
    {
      h->zram_ratio = MIN ((double) in->zram_orig_bytes / (double) in->zram_used_bytes, 16.0);
      return;
    }
  h->zram_ratio = JMEM_HEADROOM_ZRAM_ASSUMED_RATIO;
  h->zram_ratio_assumed = TRUE;
}

static void
swap_term (JmemHeadroom *h, const JmemHeadroomInput *in)
{
  gint64 active = field (in, "Active(anon)"), inactive = field (in, "Inactive(anon)");
  gint64 swap_total = field (in, "SwapTotal");
  gint64 anon = active >= 0 && inactive >= 0 ? active + inactive : -1;
  gint64 zram_free, other_free, take_zram, take_other, freed;
  const char *fields = "min (Active(anon) + Inactive(anon), SwapFree), less what zram keeps";

  h->swap_free_kib = field (in, "SwapFree");
  if (swap_total == 0 || h->swap_free_kib == 0)
    {
      set_term (h, JMEM_HEADROOM_TERM_SWAP, 0, "meminfo", fields,
                g_strdup (swap_total == 0 ? "no swap is enabled" : "swap is full"));
      return;
    }
  if (anon < 0 || h->swap_free_kib < 0)
    {
      set_term (h, JMEM_HEADROOM_TERM_SWAP, -1, "meminfo", fields,
                g_strdup ("SwapFree or the anonymous LRU fields are absent"));
      return;
    }
  if (in->swaps == NULL)
    {
      /* which devices swap is on is unknown: counted as storage, said */
      set_term (h, JMEM_HEADROOM_TERM_SWAP, MIN (anon, h->swap_free_kib), "meminfo", fields,
                g_strdup ("/proc/swaps was not read: swap counted as storage; on zram a page "
                          "swapped out frees only part of a page"));
      return;
    }
  zram_free = MIN (MAX (in->swaps->zram_size_kib - in->swaps->zram_used_kib, 0), h->swap_free_kib);
  other_free = MIN (MAX (in->swaps->other_size_kib - in->swaps->other_used_kib, 0),
                    h->swap_free_kib - zram_free);
  if (in->swaps->n_zram > 0)
    zram_ratio (h, in);
  /* zram first: Jetson's nvzramconfig gives it the higher priority */
  take_zram = MIN (anon, zram_free);
  take_other = MIN (anon - take_zram, other_free);
  freed = take_other + (gint64) ((double) take_zram * (1.0 - 1.0 / MAX (h->zram_ratio, 1.0)));
  set_term (h, JMEM_HEADROOM_TERM_SWAP, freed, "swaps", fields,
            in->swaps->n_zram == 0 ? NULL
            : g_strdup_printf ("a page swapped to zram stays in RAM compressed: each frees "
                               "%.0f %% of itself at %.1f:1%s", 100.0 * (1.0 - 1.0 / h->zram_ratio),
                               h->zram_ratio,
                               h->zram_ratio_assumed ? " (assumed: zram holds too little to "
                                                       "measure)" : " (zram's mm_stat)"));
}

/* drop_caches returns what R38's nvidia.ko keeps pooled (NVIDIA's
 * jetson-memory-audit skill; the 590 driver's pool has a shrinker,
 * nv_mem_pool_shrinker_scan): the accounting's gpu_pool, with its source,
 * an estimate where it is one. */
static void
gpu_pool_term (JmemHeadroom *h, const JmemHeadroomInput *in)
{
  const JmemBucket *b = &in->accounting->buckets[JMEM_BUCKET_GPU_POOL];

  set_term (h, JMEM_HEADROOM_TERM_GPU_POOL, b->kib, b->source != NULL ? b->source : "estimate",
            "the accounting's gpu_pool",
            g_strdup (b->kib > 0
                      ? "before L4T r39 drop_caches returns the pages nvidia.ko keeps pooled "
                        "(NVIDIA's jetson-memory-audit skill; from 590 its shrinker, "
                        "nv_mem_pool_shrinker_scan, frees them); the pool's size is the "
                        "accounting's estimate, an upper bound"
                      : b->note));
}

static void
reclaim_terms (JmemHeadroom *h, const JmemHeadroomInput *in)
{
  gint64 cache = bucket (in, JMEM_BUCKET_PAGE_CACHE), mapped = field (in, "Mapped");
  gint64 slab = bucket (in, JMEM_BUCKET_SLAB_RECLAIMABLE);
  gint64 misc = bucket (in, JMEM_BUCKET_KERNEL_RECLAIMABLE);

  if (cache < 0)
    set_term (h, JMEM_HEADROOM_TERM_PAGE_CACHE, -1, "meminfo",
              "Active(file) + Inactive(file) - Mapped", g_strdup ("the file LRU fields are absent"));
  else if (mapped < 0)
    set_term (h, JMEM_HEADROOM_TERM_PAGE_CACHE, cache, "meminfo", "Active(file) + Inactive(file)",
              g_strdup ("no Mapped line: mapped files are not taken out, an upper bound"));
  else
    set_term (h, JMEM_HEADROOM_TERM_PAGE_CACHE, MAX (cache - mapped, 0), "meminfo",
              "Active(file) + Inactive(file) - Mapped",
              g_strdup ("drop_caches frees unmapped clean pages (after the helper's sync) and "
                        "leaves mapped files, such as programs and mmapped model weights"));

  if (slab < 0)
    set_term (h, JMEM_HEADROOM_TERM_SLAB, -1, "meminfo", "(SReclaimable + KReclaimable - "
              "SReclaimable) / 2", g_strdup ("SReclaimable is absent"));
  else
    set_term (h, JMEM_HEADROOM_TERM_SLAB, (slab + known (misc)) / 2, "meminfo",
              "(SReclaimable + KReclaimable - SReclaimable) / 2",
              g_strdup ("half, as the kernel's MemAvailable counts it (si_mem_available): "
                        "objects in use cannot be freed"));
  gpu_pool_term (h, in);
  swap_term (h, in);

  h->drop_caches_kib = known (h->terms[JMEM_HEADROOM_TERM_PAGE_CACHE].kib) +
                       known (h->terms[JMEM_HEADROOM_TERM_SLAB].kib) +
                       known (h->terms[JMEM_HEADROOM_TERM_GPU_POOL].kib);
  if (h->allocatable_now_kib >= 0)
    h->allocatable_after_reclaim_kib = h->allocatable_now_kib + h->drop_caches_kib +
                                       known (h->terms[JMEM_HEADROOM_TERM_SWAP].kib);
}

/* No allocation gets more than the RAM: terms that overlap where meminfo
 * contradicts itself are cut to MemTotal, and said. */
static void
within_total (JmemHeadroom *h, const JmemHeadroomInput *in)
{
  gint64 total = in->accounting->mem_total_kib;

  if (h->allocatable_after_reclaim_kib <= total)
    return;
  h->allocatable_now_kib = MIN (h->allocatable_now_kib, total);
  h->allocatable_after_reclaim_kib = total;
  add_line (h->notes, "the terms add up to more than MemTotal: allocatable now and after "
            "reclaim are counted as MemTotal at most");
}

/* ---- buddyinfo: contiguous free blocks ---- */

static gboolean
page_size_valid (gint64 page_size)
{
  return page_size >= 4096 && page_size <= 1024 * 1024 && (page_size & (page_size - 1)) == 0;
}

/* @count blocks of @block_kib, saturated at JMEM_ACCOUNTING_MAX_KIB. */
static gint64
blocks_kib (guint64 count, gint64 block_kib)
{
  if (block_kib > 0 && count > (guint64) (JMEM_ACCOUNTING_MAX_KIB / block_kib))
    return JMEM_ACCOUNTING_MAX_KIB;
  return (gint64) count * block_kib;
}

static void
free_blocks (JmemHeadroom *h, const JmemHeadroomInput *in)
{
  gboolean sized = page_size_valid (in->page_size);
  gint largest = -1;

  if (in->buddyinfo == NULL)
    {
      add_line (h->notes, "/proc/buddyinfo was not read: the largest free block is unknown");
      return;
    }
  if (!sized)
    add_line (h->notes, "the page size of the system read is unknown (a capture without "
              "jmem/page-size): block sizes are not assumed, only their orders are known");
  h->buddy_free_kib = h->huge_free_kib = sized ? 0 : -1;
  for (guint i = 0; i < in->buddyinfo->zones->len; i++)
    {
      const JmemBuddyZone *bz = g_ptr_array_index (in->buddyinfo->zones, i);
      JmemHeadroomZone *z = g_new0 (JmemHeadroomZone, 1);

      z->node = bz->node;
      z->zone = g_strdup (bz->zone);
      z->largest_order = -1;
      z->free_kib = z->largest_block_kib = z->huge_free_kib = sized ? 0 : -1;
      for (guint o = 0; o < bz->n_orders; o++)
        {
          gint64 block = sized ? (in->page_size << o) / 1024 : -1;
          gint64 kib = blocks_kib (bz->blocks[o], block);

          if (bz->blocks[o] == 0)
            continue;
          z->largest_order = (gint) o;
          z->largest_blocks = bz->blocks[o];
          z->largest_block_kib = block;
          if (!sized)
            continue;
          z->free_kib = MIN (z->free_kib + kib, JMEM_ACCOUNTING_MAX_KIB);
          if (block >= JMEM_HEADROOM_HUGE_BLOCK_KIB)
            z->huge_free_kib = MIN (z->huge_free_kib + kib, JMEM_ACCOUNTING_MAX_KIB);
        }
      if (sized)
        {
          h->buddy_free_kib = MIN (h->buddy_free_kib + z->free_kib, JMEM_ACCOUNTING_MAX_KIB);
          h->huge_free_kib = MIN (h->huge_free_kib + z->huge_free_kib, JMEM_ACCOUNTING_MAX_KIB);
        }
      largest = MAX (largest, z->largest_order);
      g_ptr_array_add (h->zones, z);
    }
  if (in->buddyinfo->n_malformed > 0)
    add_line (h->notes, "%u malformed buddyinfo %s skipped", in->buddyinfo->n_malformed,
              jmem_text_plural (in->buddyinfo->n_malformed, "line was", "lines were"));
  if (largest < 0)
    {
      h->largest_free_block_kib = 0;
      return;
    }
  /* tegrastats' lfb: the largest order free anywhere, and how many such
   * blocks the zones hold together */
  for (guint i = 0; i < h->zones->len; i++)
    {
      const JmemHeadroomZone *z = g_ptr_array_index (h->zones, i);

      if (z->largest_order != largest)
        continue;
      h->largest_free_blocks += z->largest_blocks;
      if (h->largest_free_block_zone == NULL)
        h->largest_free_block_zone = g_strdup (z->zone);
    }
  h->largest_free_block_kib = sized ? (in->page_size << largest) / 1024 : -1;
  h->fragmented = sized && h->largest_free_block_kib < JMEM_HEADROOM_HUGE_BLOCK_KIB &&
                  h->buddy_free_kib >= JMEM_HEADROOM_FRAGMENTED_MIN_FREE_KIB;
}

/* ---- NVIDIA's estimate, for comparison ---- */

/* CUDA for Tegra application note, "Estimating Total Allocatable Device
 * Memory on an Integrated GPU Device". */
static void
app_note (JmemHeadroom *h, const JmemHeadroomInput *in)
{
  gint64 total = in->accounting->mem_total_kib, free_kib = field (in, "MemFree");
  gint64 device = in->accounting->nvmap_total_kib, host;

  if (in->unified_gpu || device < 0 || free_kib < 0 || h->swap_free_kib < 0)
    {
      add_line (h->notes, "the CUDA for Tegra application note's estimate needs NvMap's total "
                "(NvMapMemUsed or iovmm/clients), MemFree and SwapFree: %s",
                in->unified_gpu ? "the unified stack has no NvMap"
                : device >= 0 ? "MemFree or SwapFree is absent"
                : in->accounting->buckets[JMEM_BUCKET_NVMAP].kib == 0 ? "this system has no NvMap"
                : "NvMap's total was not read");
      return;
    }
  host = MAX (total - free_kib - device, 0);
  if (host < h->swap_free_kib)
    {
      h->app_note_kib = MAX (total - device, 0);
      h->app_note_fields = g_strdup ("MemTotal - NvMap in use (used memory fits in SwapFree)");
    }
  else
    {
      h->app_note_kib = MAX (total - (host - h->swap_free_kib), 0);
      h->app_note_fields = g_strdup ("MemTotal - (MemTotal - MemFree - NvMap in use - SwapFree)");
    }
}

/* ---- who holds the memory ---- */

static int
compare_service (gconstpointer a, gconstpointer b)
{
  const JmemHeadroomService *x = *(JmemHeadroomService * const *) a;
  const JmemHeadroomService *y = *(JmemHeadroomService * const *) b;

  if (x->kib != y->kib)
    return x->kib > y->kib ? -1 : 1;
  return g_strcmp0 (x->unit, y->unit);
}

static void
holders (JmemHeadroom *h, const JmemHeadroomInput *in)
{
  g_autoptr(GHashTable) by_unit = g_hash_table_new (g_str_hash, g_str_equal);

  for (guint i = 0; i < in->n_processes; i++)
    {
      const JmemHeadroomProcess *p = &in->processes[i];
      const char *unit = p->unit;
      JmemHeadroomService *s;

      if (p->footprint_kib <= 0)
        continue;
      if (h->holders->len < JMEM_HEADROOM_MAX_NAMED)
        {
          JmemHeadroomHolder *hd = g_new0 (JmemHeadroomHolder, 1);

          hd->pid = p->pid;
          hd->name = g_strdup (p->name);
          hd->user = g_strdup (p->user);
          hd->unit = g_strdup (p->unit);
          hd->footprint_kib = p->footprint_kib;
          hd->nvmap_kib = p->nvmap_kib;
          hd->gpu_kib = p->gpu_kib;
          g_ptr_array_add (h->holders, hd);
        }
      /* a desktop session runs in the user's slice: stopping the display
       * manager is what ends it */
      if (unit == NULL && p->desktop && in->display_manager != NULL)
        unit = in->display_manager;
      if (unit == NULL)
        continue;
      s = g_hash_table_lookup (by_unit, unit);
      if (s == NULL)
        {
          s = g_new0 (JmemHeadroomService, 1);
          s->unit = g_strdup (unit);
          s->desktop = unit == in->display_manager;
          g_ptr_array_add (h->services, s);
          g_hash_table_insert (by_unit, s->unit, s);
        }
      s->kib = MIN (s->kib + p->footprint_kib, JMEM_ACCOUNTING_MAX_KIB);
      s->n_processes++;
    }
  g_ptr_array_sort (h->services, compare_service);
  for (guint i = 0; i < h->services->len; i++)
    if (((JmemHeadroomService *) g_ptr_array_index (h->services, i))->kib < JMEM_HEADROOM_MIN_SERVICE_KIB)
      {
        g_ptr_array_set_size (h->services, i);
        break;
      }
  if (h->services->len > JMEM_HEADROOM_MAX_NAMED)
    g_ptr_array_set_size (h->services, JMEM_HEADROOM_MAX_NAMED);
}

/* ---- the verdict and what to do ---- */

char *
jmem_headroom_services_text (const JmemHeadroom *h)
{
  g_autoptr(GString) s = g_string_new (NULL);

  for (guint i = 0; i < h->services->len; i++)
    {
      const JmemHeadroomService *sv = g_ptr_array_index (h->services, i);
      g_autofree char *size = jmem_text_size (sv->kib);

      g_string_append_printf (s, "%s%s (%s%s)", i > 0 ? ", " : "", sv->unit, size,
                              sv->desktop ? ", the desktop" : "");
    }
  return g_string_free (g_steal_pointer (&s), FALSE);
}

static char *
holder_text (const JmemHeadroomHolder *hd)
{
  g_autofree char *size = jmem_text_size (hd->footprint_kib);
  g_autofree char *gpu = jmem_text_size (MAX (hd->nvmap_kib, hd->gpu_kib));
  g_autoptr(GString) s = g_string_new (NULL);

  g_string_append_printf (s, "PID %" G_GINT64_FORMAT " %s", hd->pid, hd->name != NULL ? hd->name : "?");
  if (hd->unit != NULL)
    g_string_append_printf (s, " (%s)", hd->unit);
  g_string_append_printf (s, " %s", size);
  if (MAX (hd->nvmap_kib, hd->gpu_kib) > 0)
    g_string_append_printf (s, ", %s of it %s", gpu, hd->nvmap_kib >= hd->gpu_kib ? "NvMap" : "GPU");
  return g_string_free (g_steal_pointer (&s), FALSE);
}

static void
actions (JmemHeadroom *h, const JmemHeadroomInput *in)
{
  gint64 swap = known (h->terms[JMEM_HEADROOM_TERM_SWAP].kib);
  gint64 swap_total = field (in, "SwapTotal"), anon = field (in, "AnonPages");
  g_autofree char *services = jmem_headroom_services_text (h);

  if (h->verdict == JMEM_HEADROOM_FITS_AFTER_RECLAIM)
    {
      g_autofree char *drop = jmem_text_size (h->drop_caches_kib);
      g_autofree char *swapped = jmem_text_size (swap);
      g_autofree char *need = jmem_size_option_text (h->need_kib);

      const char *what = jmem_headroom_drop_caches_what (h);

      /* the command as one types it: --drop acts only with the need */
      if (h->drop_caches_kib > 0 && h->allocatable_now_kib + h->drop_caches_kib >= h->need_kib)
        add_line (h->actions, "jmem drop-caches: frees up to %s of %s (enough: "
                  "jmem headroom --need %s --drop does it)", drop, what, need);
      else if (h->drop_caches_kib > 0)
        add_line (h->actions, "jmem drop-caches: frees up to %s of %s", drop, what);
      if (h->allocatable_now_kib + h->drop_caches_kib < h->need_kib && swap > 0)
        add_line (h->actions, "the rest comes from swap: the kernel pushes up to %s of "
                  "anonymous memory out as the allocation needs it (slower for what it swaps)",
                  swapped);
    }
  if (h->verdict == JMEM_HEADROOM_DOES_NOT_FIT)
    for (guint i = 0; i < h->holders->len; i++)
      {
        g_autofree char *text = holder_text (g_ptr_array_index (h->holders, i));

        add_line (h->actions, "held by %s", text);
      }
  if (h->fragmented)
    add_line (h->actions, "memory is fragmented (no free block of 2 MiB): GPU allocations take "
              "single pages, but contiguous buffers (camera, CMA, huge pages) may fail; "
              "jmem drop-caches --compact merges free pages");
  if (h->verdict == JMEM_HEADROOM_FITS_NOW)
    return;
  if (h->services->len > 0)
    add_line (h->actions, "stop what holds memory (sudo systemctl stop UNIT): %s", services);
  if (swap_total == 0 && anon > 0)
    {
      g_autofree char *size = jmem_text_size ((gint64) ((double) anon * (1.0 - 1.0 / JMEM_HEADROOM_ZRAM_ASSUMED_RATIO)));

      add_line (h->actions, "enable swap in RAM (sudo systemctl enable --now nvzramconfig on "
                "JetPack): zram could free about %s of the anonymous memory", size);
    }
}

static void
verdict (JmemHeadroom *h, const JmemHeadroomInput *in)
{
  h->need_kib = in->need_kib;
  if (in->need_kib < 0)
    {
      h->verdict = JMEM_HEADROOM_NO_NEED;
      return;
    }
  if (h->allocatable_now_kib < 0)
    {
      h->verdict = JMEM_HEADROOM_UNKNOWN;
      h->shortfall_kib = -1;
      return;
    }
  if (in->need_kib <= h->allocatable_now_kib)
    h->verdict = JMEM_HEADROOM_FITS_NOW;
  else if (in->need_kib <= h->allocatable_after_reclaim_kib)
    {
      h->verdict = JMEM_HEADROOM_FITS_AFTER_RECLAIM;
      h->shortfall_kib = in->need_kib - h->allocatable_now_kib;
    }
  else
    {
      h->verdict = JMEM_HEADROOM_DOES_NOT_FIT;
      h->shortfall_kib = in->need_kib - MAX (h->allocatable_after_reclaim_kib, h->allocatable_now_kib);
    }
  actions (h, in);
}

JmemHeadroom *
jmem_headroom_compute (const JmemHeadroomInput *in)
{
  JmemHeadroom *h = g_new0 (JmemHeadroom, 1);
  const JmemAccounting *a = in->accounting;

  h->need_kib = -1;
  h->allocatable_now_kib = h->allocatable_after_reclaim_kib = -1;
  h->page_size = h->largest_free_block_kib = h->buddy_free_kib = h->huge_free_kib = -1;
  h->cma_total_kib = h->cma_free_kib = h->hugetlb_total_kib = h->hugetlb_free_kib = -1;
  h->swap_free_kib = h->nvmap_free_size_kib = h->app_note_kib = -1;
  for (guint i = 0; i < JMEM_HEADROOM_N_TERMS; i++)
    {
      h->terms[i].id = i;
      h->terms[i].kib = -1;
    }
  h->zones = g_ptr_array_new_with_free_func ((GDestroyNotify) zone_free);
  h->holders = g_ptr_array_new_with_free_func ((GDestroyNotify) holder_free);
  h->services = g_ptr_array_new_with_free_func ((GDestroyNotify) service_free);
  h->actions = g_ptr_array_new_with_free_func (g_free);
  h->notes = g_ptr_array_new_with_free_func (g_free);

  h->page_size = page_size_valid (in->page_size) ? in->page_size : -1;
  free_blocks (h, in);
  if (a == NULL || a->mem_total_kib <= 0)
    {
      add_line (h->notes, "no accounting of the RAM (meminfo unread): nothing to estimate");
      h->need_kib = in->need_kib;
      h->verdict = in->need_kib < 0 ? JMEM_HEADROOM_NO_NEED : JMEM_HEADROOM_UNKNOWN;
      h->shortfall_kib = in->need_kib < 0 ? 0 : -1;
      return h;
    }
  h->cma_total_kib = a->cma_total_kib;
  h->cma_free_kib = a->cma_free_kib;
  /* the pool whole: the accounting counts its pages in use that may be
   * GPU memory in gpu */
  h->hugetlb_total_kib = a->buckets[JMEM_BUCKET_HUGETLB].kib < 0 ? -1
                         : a->buckets[JMEM_BUCKET_HUGETLB].kib + MAX (a->gpu_hugetlb_overlap_kib, 0);
  h->hugetlb_free_kib = a->hugetlb_free_kib;
  h->nvmap_free_size_kib = a->nvmap_iovmm_allocatable_kib;
  /* the pool is the GPU's on the unified stack (nv_hugetlbfs_init), and
   * where NvMap made handles of its pages (FROM_HUGETLBFS) */
  h->gpu_carveout = !in->discrete_gpu && known (h->hugetlb_total_kib) > 0 &&
                    h->hugetlb_free_kib >= 0 && (in->unified_gpu || a->nvmap_hugetlbfs_kib > 0);
  if (in->discrete_gpu)
    add_line (h->notes, "this is no Jetson: a discrete GPU allocates from its own memory "
              "(nvidia-smi's memory.free), and these figures are the system RAM's, what the CPU "
              "side of a job (pinned and host buffers, the model loaded before it is copied) gets");

  now_terms (h, in);
  reclaim_terms (h, in);
  within_total (h, in);
  app_note (h, in);
  holders (h, in);
  verdict (h, in);
  if (h->gpu_carveout)
    add_line (h->notes, "the public sources read do not say whether a GPU allocation larger "
              "than the carveout's free pages takes ordinary pages for the rest: jmem counts both");
  return h;
}
