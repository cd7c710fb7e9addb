/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The arithmetic of "where the RAM is". Each bucket names the fields it is
 * made of; the rules that keep the buckets disjoint, and the sources they
 * come from, are in docs/accounting.md. Sizes are KiB; -1 is unknown. */
#include "jmem-accounting.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "jmem-text.h"

static const struct {
  const char *name;
  const char *label;
} bucket_names[JMEM_N_BUCKETS] = {
  [JMEM_BUCKET_FREE] = { "free", "free" },
  [JMEM_BUCKET_PAGE_CACHE] = { "page_cache", "page cache" },
  [JMEM_BUCKET_PAGE_CACHE_LOCKED] = { "page_cache_locked", "locked cache" },
  [JMEM_BUCKET_SHMEM] = { "shmem", "shmem/tmpfs" },
  [JMEM_BUCKET_ANON] = { "anon", "anonymous" },
  [JMEM_BUCKET_SLAB_RECLAIMABLE] = { "slab_reclaimable", "slab (reclaim)" },
  [JMEM_BUCKET_SLAB_UNRECLAIMABLE] = { "slab_unreclaimable", "slab (unreclaim)" },
  [JMEM_BUCKET_KERNEL_RECLAIMABLE] = { "kernel_reclaimable", "kernel reclaim" },
  [JMEM_BUCKET_KERNEL_STACK] = { "kernel_stack", "kernel stacks" },
  [JMEM_BUCKET_PAGE_TABLES] = { "page_tables", "page tables" },
  [JMEM_BUCKET_VMALLOC] = { "vmalloc", "vmalloc" },
  [JMEM_BUCKET_PERCPU] = { "percpu", "per-CPU" },
  [JMEM_BUCKET_HUGETLB] = { "hugetlb", "hugetlb pages" },
  [JMEM_BUCKET_ZRAM] = { "zram", "zram store" },
  [JMEM_BUCKET_ZSWAP] = { "zswap", "zswap pool" },
  [JMEM_BUCKET_NVMAP] = { "nvmap", "NvMap in use" },
  [JMEM_BUCKET_NVMAP_POOL] = { "nvmap_pool", "NvMap page pool" },
  [JMEM_BUCKET_GPU] = { "gpu", "GPU (nvidia.ko)" },
  [JMEM_BUCKET_GPU_POOL] = { "gpu_pool", "GPU driver pool" },
};

const char *
jmem_accounting_bucket_name (JmemBucketId id)
{
  g_return_val_if_fail (id < JMEM_N_BUCKETS, "unknown");
  return bucket_names[id].name;
}

const char *
jmem_accounting_bucket_label (JmemBucketId id)
{
  g_return_val_if_fail (id < JMEM_N_BUCKETS, "unknown");
  return bucket_names[id].label;
}

void
jmem_accounting_free (JmemAccounting *a)
{
  if (a == NULL)
    return;
  for (guint i = 0; i < JMEM_N_BUCKETS; i++)
    {
      g_free (a->buckets[i].fields);
      g_free (a->buckets[i].note);
    }
  g_free (a->physical_note);
  g_ptr_array_unref (a->notes);
  g_ptr_array_unref (a->warnings);
  g_free (a);
}

typedef struct {
  JmemAccounting            *acc;
  const JmemAccountingInput *in;
  GHashTable                *refused;  /* field names warned about */
} Ctx;

static void G_GNUC_PRINTF (2, 3)
note (GPtrArray *to, const char *format, ...)
{
  va_list args;

  va_start (args, format);
  g_ptr_array_add (to, g_strdup_vprintf (format, args));
  va_end (args);
}

/* A value past JMEM_ACCOUNTING_MAX_KIB is no RAM: refused once, with a warning. */
static gint64
checked_in (Ctx *c, const char *name, gint64 value, const char *unit)
{
  if (value < 0)
    return -1;
  if (value > JMEM_ACCOUNTING_MAX_KIB)
    {
      if (g_hash_table_add (c->refused, (gpointer) name))
        note (c->acc->warnings, "%s reads %" G_GINT64_FORMAT " %s, past any RAM jmem can count "
              "(2^42 KiB): refused, never wrapped; it counts as unknown", name, value, unit);
      return -1;
    }
  return value;
}

static gint64
checked (Ctx *c, const char *name, gint64 kib)
{
  return checked_in (c, name, kib, "kB");
}

static gint64
field (Ctx *c, const char *name)
{
  return checked (c, name, jmem_meminfo_get_kib (c->in->meminfo, name));
}

/* A count without a unit (HugePages_Total), -1 when absent. */
static gint64
count (Ctx *c, const char *name)
{
  const JmemMeminfo *m = c->in->meminfo;

  for (guint i = 0; i < m->fields->len; i++)
    {
      const JmemMeminfoField *f = &g_array_index (m->fields, JmemMeminfoField, i);

      if (!f->is_kib && g_str_equal (f->name, name))
        return checked_in (c, name, (gint64) MIN (f->value, (guint64) G_MAXINT64), "pages");
    }
  return -1;
}

/* Sums and differences of checked values cannot pass 64 bits: each term
 * is below 2^42. */
static gint64
sum_known (gint64 a, gint64 b)
{
  return a < 0 || b < 0 ? -1 : a + b;
}

/* @n * @kib, refused like a field when it would pass JMEM_ACCOUNTING_MAX_KIB. */
static gint64
times (Ctx *c, const char *name, gint64 n, gint64 kib)
{
  if (n < 0 || kib < 0)
    return -1;
  if (kib > 0 && n > JMEM_ACCOUNTING_MAX_KIB / kib)
    return checked (c, name, JMEM_ACCOUNTING_MAX_KIB + 1);
  return n * kib;
}

static void
set_bucket (Ctx *c, JmemBucketId id, gint64 kib, const char *source, const char *fields,
            char *note_owned)
{
  JmemBucket *b = &c->acc->buckets[id];

  b->kib = kib;
  b->source = source;
  g_free (b->fields);
  b->fields = g_strdup (fields);
  g_free (b->note);
  b->note = note_owned;
}

static void
unknown_bucket (Ctx *c, JmemBucketId id, const char *source, const char *fields, const char *why)
{
  set_bucket (c, id, -1, source, fields, g_strdup (why));
}

/* "5.15.148-tegra" -> 5015; -1 when unreadable. */
static int
kernel_version (const char *release)
{
  char *end = NULL;
  gint64 major, minor;

  if (release == NULL)
    return -1;
  major = g_ascii_strtoll (release, &end, 10);
  if (end == release || *end != '.' || major < 2 || major > 99)
    return -1;
  minor = g_ascii_strtoll (end + 1, NULL, 10);
  if (minor < 0 || minor > 999)
    return -1;
  return (int) (major * 1000 + minor);
}

/* ---- the LRU: page cache, shmem, anonymous ---- */

static void
lru_buckets (Ctx *c)
{
  gint64 active_file = field (c, "Active(file)"), inactive_file = field (c, "Inactive(file)");
  gint64 active_anon = field (c, "Active(anon)"), inactive_anon = field (c, "Inactive(anon)");
  gint64 unevictable = field (c, "Unevictable");
  gint64 buffers = field (c, "Buffers"), cached = field (c, "Cached"), shmem = field (c, "Shmem");
  gint64 file_lru = sum_known (active_file, inactive_file);
  gint64 lru = sum_known (sum_known (file_lru, sum_known (active_anon, inactive_anon)), unevictable);
  gint64 page_cache = sum_known (buffers, cached);  /* shmem included (fs/proc/meminfo.c) */
  gint64 file_cache = page_cache >= 0 && shmem >= 0 ? MAX (page_cache - shmem, 0) : -1;

  if (shmem >= 0)
    set_bucket (c, JMEM_BUCKET_SHMEM, shmem, "meminfo", "Shmem",
                g_strdup ("tmpfs, /dev/shm, memfd and shared anonymous memory; the kernel counts "
                          "it within Cached, and it is taken out of the page cache here"));
  else
    unknown_bucket (c, JMEM_BUCKET_SHMEM, "meminfo", "Shmem", "Shmem is absent");

  if (file_cache >= 0 && file_lru >= 0)
    {
      gint64 reclaimable = MIN (file_lru, file_cache);

      set_bucket (c, JMEM_BUCKET_PAGE_CACHE, reclaimable, "meminfo",
                  "Active(file) + Inactive(file)",
                  g_strdup ("the file LRU: what the kernel can drop (Dirty and Writeback pages "
                            "after they are written)"));
      set_bucket (c, JMEM_BUCKET_PAGE_CACHE_LOCKED, file_cache - reclaimable, "meminfo",
                  "Buffers + Cached - Shmem - Active(file) - Inactive(file)",
                  g_strdup ("page cache off the file LRU (mlocked files, ramfs): not dropped"));
    }
  else
    {
      unknown_bucket (c, JMEM_BUCKET_PAGE_CACHE, "meminfo", "Active(file) + Inactive(file)",
                      "a field of the file LRU is absent");
      unknown_bucket (c, JMEM_BUCKET_PAGE_CACHE_LOCKED, "meminfo",
                      "Buffers + Cached - Shmem - Active(file) - Inactive(file)",
                      "a field of the page cache is absent");
    }

  /* Every LRU page less the page cache: anonymous pages and the swap
   * cache, each page once (a mapped swap-cache page is in both AnonPages
   * and SwapCached; MADV_FREE pages sit on the file LRU but are
   * anonymous: both land here). */
  if (lru >= 0 && page_cache >= 0)
    set_bucket (c, JMEM_BUCKET_ANON, MAX (lru - page_cache, 0), "meminfo",
                "Active(anon) + Inactive(anon) + Active(file) + Inactive(file) + Unevictable"
                " - Buffers - Cached",
                g_strdup ("every LRU page but the page cache: processes' anonymous memory "
                          "(AnonPages) and the swap cache (SwapCached), a page in both counted once"));
  else
    {
      gint64 anon = field (c, "AnonPages");

      if (anon >= 0)
        set_bucket (c, JMEM_BUCKET_ANON, anon, "meminfo", "AnonPages",
                    g_strdup ("the LRU fields are absent: AnonPages alone, without the swap cache"));
      else
        unknown_bucket (c, JMEM_BUCKET_ANON, "meminfo", "AnonPages",
                        "neither the LRU fields nor AnonPages are present");
    }
}

/* ---- kernel memory ---- */

static void
kernel_buckets (Ctx *c)
{
  gint64 sreclaimable = field (c, "SReclaimable"), sunreclaim = field (c, "SUnreclaim");
  gint64 kreclaimable = field (c, "KReclaimable");
  gint64 stack = field (c, "KernelStack"), scs = field (c, "ShadowCallStack");
  gint64 tables = field (c, "PageTables"), sec_tables = field (c, "SecPageTables");
  gint64 vmalloc = field (c, "VmallocUsed"), percpu = field (c, "Percpu");
  gint64 stacks = sum_known (stack, MAX (scs, 0));
  int version = kernel_version (c->in->kernel_release);

  if (sreclaimable >= 0)
    set_bucket (c, JMEM_BUCKET_SLAB_RECLAIMABLE, sreclaimable, "meminfo", "SReclaimable", NULL);
  else
    unknown_bucket (c, JMEM_BUCKET_SLAB_RECLAIMABLE, "meminfo", "SReclaimable", "SReclaimable is absent");
  if (sunreclaim >= 0)
    set_bucket (c, JMEM_BUCKET_SLAB_UNRECLAIMABLE, sunreclaim, "meminfo", "SUnreclaim", NULL);
  else
    unknown_bucket (c, JMEM_BUCKET_SLAB_UNRECLAIMABLE, "meminfo", "SUnreclaim", "SUnreclaim is absent");

  /* Linux 4.20 added KReclaimable = SReclaimable + NR_KERNEL_MISC_RECLAIMABLE. */
  if (kreclaimable >= 0 && sreclaimable >= 0)
    set_bucket (c, JMEM_BUCKET_KERNEL_RECLAIMABLE, MAX (kreclaimable - sreclaimable, 0), "meminfo",
                "KReclaimable - SReclaimable",
                g_strdup ("driver memory the kernel may reclaim (NR_KERNEL_MISC_RECLAIMABLE)"));
  else if (kreclaimable < 0 && !g_hash_table_contains (c->refused, "KReclaimable"))
    set_bucket (c, JMEM_BUCKET_KERNEL_RECLAIMABLE, 0, "meminfo", "KReclaimable - SReclaimable",
                g_strdup ("no KReclaimable line: a kernel before Linux 4.20 has no such memory"));
  else
    unknown_bucket (c, JMEM_BUCKET_KERNEL_RECLAIMABLE, "meminfo", "KReclaimable - SReclaimable",
                    "KReclaimable or SReclaimable is unknown");

  if (stacks >= 0)
    set_bucket (c, JMEM_BUCKET_KERNEL_STACK, stacks, "meminfo",
                scs >= 0 ? "KernelStack + ShadowCallStack" : "KernelStack", NULL);
  else
    unknown_bucket (c, JMEM_BUCKET_KERNEL_STACK, "meminfo", "KernelStack", "KernelStack is absent");

  if (tables >= 0)
    set_bucket (c, JMEM_BUCKET_PAGE_TABLES, tables + MAX (sec_tables, 0), "meminfo",
                sec_tables >= 0 ? "PageTables + SecPageTables" : "PageTables", NULL);
  else
    unknown_bucket (c, JMEM_BUCKET_PAGE_TABLES, "meminfo", "PageTables", "PageTables is absent");

  /* Linux 4.4 to 5.2 print VmallocUsed as a constant 0 (4.9's meminfo.c:
   * show_val_kb (m, "VmallocUsed:", 0ul)); 5.3 brought vmalloc_nr_pages(). */
  if (vmalloc < 0)
    unknown_bucket (c, JMEM_BUCKET_VMALLOC, "meminfo", "VmallocUsed", "VmallocUsed is absent");
  else if (vmalloc == 0 && (version < 0 || version < 5003))
    unknown_bucket (c, JMEM_BUCKET_VMALLOC, "meminfo", "VmallocUsed",
                    "this kernel prints VmallocUsed as 0 (Linux 4.4 to 5.2): vmalloc memory "
                    "is in unexplained");
  else if (stacks > 0 && vmalloc >= stacks && (version < 0 || version >= 4014))
    {
      /* CONFIG_VMAP_STACK (default y on arm64 since 4.14, x86-64 since 4.9)
       * takes stacks from vmalloc, which vmalloc_nr_pages() counts. */
      set_bucket (c, JMEM_BUCKET_VMALLOC, vmalloc - stacks, "meminfo",
                  scs >= 0 ? "VmallocUsed - KernelStack - ShadowCallStack" : "VmallocUsed - KernelStack",
                  g_strdup (version < 0
                            ? "kernel stacks taken out: assumed vmalloc'ed (CONFIG_VMAP_STACK), "
                              "as VmallocUsed covers them; the kernel release is unknown"
                            : "kernel stacks taken out: CONFIG_VMAP_STACK (the default since "
                              "Linux 4.14 on arm64) allocates them from vmalloc"));
    }
  else
    set_bucket (c, JMEM_BUCKET_VMALLOC, vmalloc, "meminfo", "VmallocUsed",
                stacks > 0 && version >= 4014
                ? g_strdup ("VmallocUsed is below KernelStack: this kernel's stacks are not "
                            "vmalloc'ed, so they are not taken out")
                : NULL);

  if (percpu >= 0)
    set_bucket (c, JMEM_BUCKET_PERCPU, percpu, "meminfo", "Percpu",
                g_strdup ("includes the first chunk, which the boot allocator took before "
                          "MemTotal was counted (mm/percpu.c): up to a few MiB outside MemTotal"));
  else
    unknown_bucket (c, JMEM_BUCKET_PERCPU, "meminfo", "Percpu",
                    "no Percpu line (before Linux 4.16): per-CPU memory is in unexplained");
}

/* ---- hugetlb, zram, zswap ---- */

static void
pool_buckets (Ctx *c)
{
  gint64 hugetlb = field (c, "Hugetlb"), size = field (c, "Hugepagesize");
  gint64 total = count (c, "HugePages_Total"), free_pages = count (c, "HugePages_Free");
  gint64 zswap = field (c, "Zswap");
  const JmemAccountingInput *in = c->in;

  if (size >= 0 && free_pages >= 0)
    c->acc->hugetlb_free_kib = times (c, "HugePages_Free * Hugepagesize", free_pages, size);
  /* Hugetlb (Linux 4.16) counts every huge page size; before it, the
   * default size's pool only. Free pool pages are out of MemFree as well. */
  if (hugetlb >= 0)
    set_bucket (c, JMEM_BUCKET_HUGETLB, hugetlb, "meminfo", "Hugetlb",
                in->unified_gpu && hugetlb > 0
                ? g_strdup ("on the unified stack the GPU's carveout (reserved at boot by "
                            "nv_hugetlbfs_init), used and free")
                : g_strdup ("huge pages reserved for hugetlbfs, used and free"));
  else if (total >= 0 && size >= 0)
    {
      set_bucket (c, JMEM_BUCKET_HUGETLB, times (c, "HugePages_Total * Hugepagesize", total, size),
                  "meminfo",
                  "HugePages_Total * Hugepagesize",
                  g_strdup ("the default huge page size only (no Hugetlb line before Linux 4.16)"));
    }
  else if (g_hash_table_contains (c->refused, "HugePages_Total") ||
           g_hash_table_contains (c->refused, "Hugepagesize"))
    unknown_bucket (c, JMEM_BUCKET_HUGETLB, "meminfo", "HugePages_Total * Hugepagesize",
                    "a HugePages field was refused");
  else
    set_bucket (c, JMEM_BUCKET_HUGETLB, 0, "meminfo", "HugePages_Total * Hugepagesize",
                g_strdup ("no HugePages lines: a kernel without hugetlbfs"));

  if (in->zram_bytes >= 0)
    set_bucket (c, JMEM_BUCKET_ZRAM, checked (c, "zram mm_stat", in->zram_bytes / 1024), "zram",
                "mem_used_total of /sys/block/zram*/mm_stat",
                g_strdup ("the compressed store's own pages, in no meminfo field"));
  else
    unknown_bucket (c, JMEM_BUCKET_ZRAM, "zram", "mem_used_total of /sys/block/zram*/mm_stat",
                    "/sys/block was not read (a capture without it): a zram store would be in "
                    "unexplained");

  if (zswap >= 0)
    set_bucket (c, JMEM_BUCKET_ZSWAP, zswap, "meminfo", "Zswap", NULL);
  else
    set_bucket (c, JMEM_BUCKET_ZSWAP, 0, "meminfo", "Zswap",
                g_strdup ("no Zswap line (before Linux 5.19, or no zswap)"));
}

/* ---- NvMap ---- */

/* The two reads are moments apart and allocations come and go: a gap
 * below 2 % of the larger, or 16 MiB, is the same figure. */
static gboolean
agree (gint64 a, gint64 b)
{
  gint64 gap = ABS (a - b), larger = MAX (a, b);

  return gap <= MAX (larger / 50, 16 * 1024);
}

static void
nvmap_buckets (Ctx *c)
{
  JmemAccounting *a = c->acc;
  const JmemAccountingInput *in = c->in;
  gint64 debugfs = checked (c, "NvMap total", in->nvmap_total_kib);
  gint64 meminfo_used = field (c, "NvMapMemUsed"), meminfo_free = field (c, "NvMapMemFree");
  gint64 pool = -1, used;
  g_autofree char *size_text = NULL, *other = NULL;

  a->nvmap_hugetlbfs_kib = in->nvmap_hugetlbfs_kib >= 0 ? checked (c, "FROM_HUGETLBFS", in->nvmap_hugetlbfs_kib) : -1;
  if (in->nvmap_free_size_bytes >= 0)
    a->nvmap_iovmm_allocatable_kib = checked (c, "iovmm/free_size", in->nvmap_free_size_bytes / 1024);

  if (debugfs >= 0)
    {
      a->nvmap_source = "debugfs";
      used = debugfs;
      if (meminfo_used >= 0 && !agree (debugfs, meminfo_used))
        {
          size_text = jmem_text_size (debugfs);
          other = jmem_text_size (meminfo_used);
          note (a->warnings, "NvMap's debugfs total (%s) and meminfo's NvMapMemUsed (%s) disagree "
                "by more than 2 %%: the debugfs total is used", size_text, other);
        }
    }
  else if (meminfo_used >= 0)
    {
      a->nvmap_source = "meminfo";
      used = meminfo_used;
    }
  else
    used = -1;
  a->nvmap_total_kib = used;

  if (used < 0 && in->nvmap_absent)
    set_bucket (c, JMEM_BUCKET_NVMAP, 0, "nvmap", "iovmm/clients total",
                g_strdup ("no NvMap on this system"));
  else if (used < 0)
    unknown_bucket (c, JMEM_BUCKET_NVMAP, "nvmap", "iovmm/clients total",
                    "NvMap unread and no NvMapMemUsed line: its memory is in unexplained");
  else
    {
      gint64 huge = a->nvmap_hugetlbfs_kib;
      const char *fields = a->nvmap_source[0] == 'd' ? "iovmm/clients total" : "NvMapMemUsed";
      g_autofree char *fields_huge = g_strdup_printf ("%s - FROM_HUGETLBFS handles", fields);

      if (huge > 0)
        set_bucket (c, JMEM_BUCKET_NVMAP, MAX (used - huge, 0), "nvmap", fields_huge,
                    g_strdup ("handles with FROM_HUGETLBFS 1 are hugetlb pages "
                              "(nvmap_alloc.c: alloc_handle_from_va) and stay in that bucket"));
      else if (huge < 0 && in->nvmap_hugetlbfs_column)
        set_bucket (c, JMEM_BUCKET_NVMAP, used, "nvmap", fields,
                    g_strdup ("this driver can wrap hugetlb pages as NvMap handles (FROM_HUGETLBFS); "
                              "their size was not read, so they may count here and as hugetlb "
                              "pages"));
      else
        set_bucket (c, JMEM_BUCKET_NVMAP, used, "nvmap", fields,
                    g_strdup ("pages NvMap allocated, on no LRU and in no other meminfo field"));
    }

  if (in->nvmap_pool_pages >= 0 && in->page_size > 0)
    {
      pool = times (c, "NvMap page pool", checked_in (c, "NvMap page pool", in->nvmap_pool_pages, "pages"),
                    in->page_size / 1024);
      if (pool >= 0)
        {
          set_bucket (c, JMEM_BUCKET_NVMAP_POOL, pool, "nvmap",
                      "pagepool/page_pool_available_pages + page_pool_pages_to_zero",
                      g_strdup ("free pages NvMap keeps for its next allocations: not in MemFree; "
                                "its shrinker gives them back under pressure"));
          if (meminfo_free >= 0 && !agree (pool, meminfo_free))
            note (a->warnings, "NvMap's page pool in debugfs (%" G_GINT64_FORMAT " KiB) and "
                  "meminfo's NvMapMemFree (%" G_GINT64_FORMAT " KiB) disagree by more than 2 %%: "
                  "the debugfs figure is used", pool, meminfo_free);
          return;
        }
    }
  if (meminfo_free >= 0)
    set_bucket (c, JMEM_BUCKET_NVMAP_POOL, meminfo_free, "meminfo", "NvMapMemFree",
                g_strdup ("free pages NvMap keeps for its next allocations: not in MemFree"));
  else if (used >= 0)
    unknown_bucket (c, JMEM_BUCKET_NVMAP_POOL, "nvmap",
                    "pagepool/page_pool_available_pages + page_pool_pages_to_zero",
                    "the page pool was not read: its pages are in unexplained");
  else
    set_bucket (c, JMEM_BUCKET_NVMAP_POOL, 0, "nvmap",
                "pagepool/page_pool_available_pages + page_pool_pages_to_zero",
                g_strdup ("no NvMap"));
}

/* ---- the unified stack's GPU memory ---- */

/* What the driver reports per process (NVML, or nvidia-smi's rows that
 * count), exited PIDs it still counts included: pages nvidia.ko allocated
 * (alloc_pages in nv-vm.c), in no meminfo field. Whether libcuda backs any
 * of it with the hugetlb pages nv_hugetlbfs_init reserves, the public
 * sources do not say: up to the pool's used pages may be both, and that
 * part stays in hugetlb, named as the overlap. */
static void
gpu_bucket (Ctx *c)
{
  JmemAccounting *a = c->acc;
  const JmemAccountingInput *in = c->in;
  const char *fields = "per-process used GPU memory";
  gint64 reported = checked (c, "GPU memory", in->gpu_reported_kib);
  gint64 huge = a->buckets[JMEM_BUCKET_HUGETLB].kib, huge_used, overlap;
  const char *source = in->gpu_source != NULL ? in->gpu_source : "nvidia-smi";

  if (!in->unified_gpu)
    {
      set_bucket (c, JMEM_BUCKET_GPU, 0, source, fields,
                  g_strdup ("no unified GPU stack (nvidia.ko): a Jetson GPU's memory is NvMap's"));
      return;
    }
  if (reported < 0)
    {
      unknown_bucket (c, JMEM_BUCKET_GPU, source, fields,
                      "no per-process GPU answer that counts: the GPU's memory is in unexplained");
      return;
    }
  a->gpu_reported_kib = reported;
  a->gpu_exited_kib = MIN (MAX (in->gpu_exited_kib, 0), reported);
  huge_used = huge >= 0 && a->hugetlb_free_kib >= 0 ? MAX (huge - a->hugetlb_free_kib, 0)
              : MAX (huge, 0);
  overlap = MIN (reported, huge_used);
  a->gpu_hugetlb_overlap_kib = overlap;
  set_bucket (c, JMEM_BUCKET_GPU, reported, source, fields,
              g_strdup ("pages nvidia.ko allocated (nv-vm.c), in no meminfo field: what the driver "
                        "reports per process, PIDs it still counts after they exited included"));
  if (overlap > 0)
    {
      JmemBucket *h = &a->buckets[JMEM_BUCKET_HUGETLB];
      g_autofree char *o = jmem_text_size (overlap);
      g_autofree char *f = g_strdup_printf ("%s - GPU memory that may be its pages", h->fields);

      set_bucket (c, JMEM_BUCKET_HUGETLB, huge - overlap, h->source, f,
                  g_strdup_printf ("the GPU's carveout (nv_hugetlbfs_init); %s of its pages in use "
                                   "may be GPU memory the driver reports (the sources do not say "
                                   "whether CUDA allocates from this pool): counted once, in gpu "
                                   "(gpu.hugetlb_overlap_kib)", o));
    }
}

/* The pool nvidia.ko keeps after processes free their memory cannot be
 * read by a user (R38's code for it is not public): before r39, with
 * no live process holding GPU memory, the remainder is taken as the pool,
 * an upper bound that includes drivers' and firmware's own allocations. */
static void
gpu_pool_bucket (Ctx *c)
{
  JmemAccounting *a = c->acc;
  const JmemAccountingInput *in = c->in;
  const char *fields = "MemTotal - the other buckets";

  if (!in->unified_gpu)
    {
      set_bucket (c, JMEM_BUCKET_GPU_POOL, 0, "estimate", fields,
                  g_strdup ("no unified GPU stack (nvidia.ko)"));
      return;
    }
  if (in->l4t_major >= JMEM_ACCOUNTING_GPU_POOL_FIXED_MAJOR)
    {
      set_bucket (c, JMEM_BUCKET_GPU_POOL, 0, "estimate", fields,
                  g_strdup ("L4T r39 and later return the pages of exited processes by "
                            "themselves"));
      return;
    }
  if (in->l4t_major <= 0)
    {
      unknown_bucket (c, JMEM_BUCKET_GPU_POOL, "estimate", fields,
                      "the L4T release is unknown: whether the driver pools freed pages is "
                      "unknown, and any pooled pages are in unexplained");
      return;
    }
  /* the remainder holds the processes' GPU memory too while that is unknown */
  if (a->buckets[JMEM_BUCKET_GPU].kib < 0)
    {
      unknown_bucket (c, JMEM_BUCKET_GPU_POOL, "estimate", fields,
                      "the GPU memory processes hold is unknown, so the remainder cannot be "
                      "taken as the pool");
      return;
    }
  for (guint i = 0; i < in->n_processes; i++)
    if (in->processes[i].gpu_kib >= JMEM_ACCOUNTING_GPU_LIVE_MIN_KIB)
      {
        unknown_bucket (c, JMEM_BUCKET_GPU_POOL, "estimate", fields,
                        "a live process holds GPU memory, and pooled pages cannot be told "
                        "from the driver's other memory: any are in unexplained");
        return;
      }
  set_bucket (c, JMEM_BUCKET_GPU_POOL, MAX (a->unexplained_kib, 0), "estimate", fields,
              g_strdup ("no live process holds GPU memory, and before L4T r39 the "
                        "driver keeps the pages exited processes freed pooled; no file a user "
                        "can read gives its size, so the remainder is taken as the pool, an "
                        "upper bound that includes drivers' own memory; drop_caches returns it "
                        "(NVIDIA's jetson-memory-audit skill)"));
  a->buckets[JMEM_BUCKET_GPU_POOL].estimate = TRUE;
}

/* ---- physical RAM and what firmware kept ---- */

static void
physical (Ctx *c)
{
  JmemAccounting *a = c->acc;
  const JmemAccountingInput *in = c->in;
  gint64 dt = in->device_tree_bytes >= 0 ? checked (c, "device-tree memory", in->device_tree_bytes / 1024) : -1;

  if (dt >= 0 && dt >= a->mem_total_kib)
    {
      a->physical_kib = dt;
      a->physical_source = "device-tree";
      a->physical_note = g_strdup ("the /memory nodes the bootloader passed the kernel; where it "
                                   "leaves its own carveouts out of them, firmware_reserved is a "
                                   "lower bound");
    }
  else if (in->module_kib >= a->mem_total_kib && in->module_kib > 0)
    {
      a->physical_kib = in->module_kib;
      a->physical_source = "module";
      a->physical_note = g_strdup_printf ("the RAM of the %s module, by its part number",
                                          in->module_name ? in->module_name : "identified");
    }
  else
    a->physical_note = g_strdup (dt >= 0
                                 ? "the device tree's /memory nodes add up to less than MemTotal: "
                                   "not used"
                                 : "no /memory node in the device tree and no module of known "
                                   "size: the RAM firmware kept is unknown");
  if (a->physical_kib >= 0)
    a->firmware_reserved_kib = a->physical_kib - a->mem_total_kib;
}

/* ---- processes against the buckets ---- */

static void
reconcile (Ctx *c)
{
  JmemAccounting *a = c->acc;
  JmemReconciliation *r = &a->reconciliation;
  gint64 anon = field (c, "AnonPages"), mapped = field (c, "Mapped"), free_kib = field (c, "MemFree");
  gint64 gpu_beyond_nvmap = 0;

  *r = (JmemReconciliation) { 0 };
  r->kernel_mapped_kib = sum_known (anon, mapped);
  r->nvmap_kib = a->nvmap_total_kib;
  r->gpu_kib = -1;
  r->used_kib = free_kib >= 0 ? MAX (a->mem_total_kib - free_kib, 0) : -1;
  for (guint i = 0; i < c->in->n_processes; i++)
    {
      const JmemAccountingProcess *p = &c->in->processes[i];
      gint64 mapped_part = MAX (p->nvmap_mapped_kib, 0);

      /* a process claiming more than any RAM is left out, and said */
      if (p->pss_kib > JMEM_ACCOUNTING_MAX_KIB || p->rss_kib > JMEM_ACCOUNTING_MAX_KIB ||
          p->nvmap_kib > JMEM_ACCOUNTING_MAX_KIB || p->gpu_kib > JMEM_ACCOUNTING_MAX_KIB ||
          mapped_part > JMEM_ACCOUNTING_MAX_KIB)
        {
          note (a->warnings, "PID %" G_GINT64_FORMAT " reads sizes past any RAM jmem can count "
                "(2^42 KiB): left out of the reconciliation", p->pid);
          continue;
        }
      r->n_processes++;
      if (p->pss_kib >= 0)
        r->pss_kib += MAX (p->pss_kib - mapped_part, 0);
      else if (p->rss_kib >= 0)
        {
          r->n_without_pss++;
          r->rss_without_pss_kib += MAX (p->rss_kib - mapped_part, 0);
        }
      if (p->nvmap_kib > 0)
        r->nvmap_shares_kib += p->nvmap_kib;
      if (p->gpu_kib > 0)
        {
          r->gpu_kib = MAX (r->gpu_kib, 0) + p->gpu_kib;
          /* the footprint's max (NvMap share, GPU): a page once */
          gpu_beyond_nvmap += MAX (p->gpu_kib - MAX (p->nvmap_kib, 0), 0);
        }
    }
  r->by_processes_kib = r->pss_kib + r->rss_without_pss_kib + r->nvmap_shares_kib + gpu_beyond_nvmap;
  r->held_by_no_process_kib = r->used_kib >= 0 ? r->used_kib - r->by_processes_kib : -1;
}

static void
bucket_free (Ctx *c)
{
  gint64 free_kib = field (c, "MemFree");

  if (free_kib >= 0)
    set_bucket (c, JMEM_BUCKET_FREE, free_kib, "meminfo", "MemFree",
                g_strdup ("CmaFree is part of it: free CMA pages sit in the page allocator"));
  else
    unknown_bucket (c, JMEM_BUCKET_FREE, "meminfo", "MemFree", "MemFree is absent");
}

JmemAccounting *
jmem_accounting_compute (const JmemAccountingInput *input)
{
  g_autoptr(GHashTable) refused = g_hash_table_new (g_str_hash, g_str_equal);
  JmemAccounting *a = g_new0 (JmemAccounting, 1);
  Ctx c = { a, input, refused };
  gint64 total;

  a->notes = g_ptr_array_new_with_free_func (g_free);
  a->warnings = g_ptr_array_new_with_free_func (g_free);
  a->mem_total_kib = a->accounted_kib = a->unexplained_kib = -1;
  a->physical_kib = a->firmware_reserved_kib = -1;
  a->nvmap_total_kib = a->nvmap_hugetlbfs_kib = a->nvmap_iovmm_allocatable_kib = -1;
  a->hugetlb_free_kib = a->cma_total_kib = a->cma_free_kib = -1;
  a->gpu_reported_kib = a->gpu_hugetlb_overlap_kib = -1;
  for (guint i = 0; i < JMEM_N_BUCKETS; i++)
    {
      a->buckets[i].id = i;
      a->buckets[i].kib = -1;
    }

  if (input->meminfo == NULL || (total = field (&c, "MemTotal")) <= 0)
    {
      note (a->notes, "%s: nothing to account",
            input->meminfo == NULL ? "/proc/meminfo was not read" : "MemTotal is absent or refused");
      return a;
    }
  a->mem_total_kib = total;

  bucket_free (&c);
  lru_buckets (&c);
  kernel_buckets (&c);
  pool_buckets (&c);
  nvmap_buckets (&c);
  gpu_bucket (&c);
  a->cma_total_kib = field (&c, "CmaTotal");
  a->cma_free_kib = field (&c, "CmaFree");

  a->accounted_kib = 0;
  for (guint i = 0; i < JMEM_N_BUCKETS; i++)
    if (a->buckets[i].kib >= 0)
      a->accounted_kib += a->buckets[i].kib;
  a->unexplained_kib = total - a->accounted_kib;
  gpu_pool_bucket (&c);
  if (a->buckets[JMEM_BUCKET_GPU_POOL].kib > 0)
    {
      a->accounted_kib += a->buckets[JMEM_BUCKET_GPU_POOL].kib;
      a->unexplained_kib -= a->buckets[JMEM_BUCKET_GPU_POOL].kib;
    }

  if (a->cma_total_kib > 0)
    note (a->notes, "CMA (%" G_GINT64_FORMAT " KiB) has no bucket of its own: its free pages are "
          "in free, pages lent to movable allocations in the LRU buckets, and what drivers took "
          "with dma_alloc in unexplained (meminfo does not split them)", a->cma_total_kib);
  if (input->unified_gpu)
    note (a->notes, "the unified GPU stack (nvidia.ko) allocates its own memory, in no meminfo "
          "field: the gpu bucket is what the driver reports per process; memory CUDA manages "
          "(cudaMallocManaged) is under-reported there and lands in the process's RSS (anon)");
  if (a->unexplained_kib < 0)
    note (a->notes, "the buckets add up to more than MemTotal: pages are counted twice (Percpu's "
          "first chunk lies outside MemTotal; NvMap handles made from process memory, "
          "NVMAP_IOC_FROM_VA, count in NvMap and in anonymous memory)");
  physical (&c);
  reconcile (&c);
  return a;
}

const JmemBucket *
jmem_accounting_largest_used (const JmemAccounting *a)
{
  const JmemBucket *best = NULL;

  for (guint i = 0; i < JMEM_N_BUCKETS; i++)
    if (i != JMEM_BUCKET_FREE && a->buckets[i].kib > 0 &&
        (best == NULL || a->buckets[i].kib > best->kib))
      best = &a->buckets[i];
  return best;
}

gint64
jmem_accounting_footprint (gint64    pss_kib,
                           gint64    rss_kib,
                           gint64    swap_kib,
                           gint64    nvmap_kib,
                           gint64    gpu_kib,
                           gint64    nvmap_mapped_kib,
                           gboolean *used_pss)
{
  gint64 base = pss_kib >= 0 ? pss_kib : rss_kib;
  gint64 device = MAX (MAX (nvmap_kib, gpu_kib), 0);
  gint64 total;

  if (used_pss != NULL)
    *used_pss = pss_kib >= 0;
  if (base < 0)
    return -1;
  /* the NvMap pages in the base count once, in the share */
  base = MAX (base - MAX (nvmap_mapped_kib, 0), 0);
  total = base;
  if (MAX (swap_kib, 0) > G_MAXINT64 - total)
    return G_MAXINT64;
  total += MAX (swap_kib, 0);
  if (device > G_MAXINT64 - total)
    return G_MAXINT64;
  return total + device;
}

gboolean
jmem_accounting_device_tree_bytes (const guint8 *reg,
                                   gsize         len,
                                   guint         address_cells,
                                   guint         size_cells,
                                   guint64      *bytes)
{
  gsize pair = 4 * (gsize) (address_cells + size_cells);
  guint64 sum = 0;

  if (address_cells < 1 || address_cells > 2 || size_cells < 1 || size_cells > 2 ||
      len == 0 || len % pair != 0)
    return FALSE;
  for (gsize off = 0; off < len; off += pair)
    {
      const guint8 *s = reg + off + 4 * address_cells;
      guint64 size = 0;

      for (guint i = 0; i < 4 * size_cells; i++)
        size = (size << 8) | s[i];
      if (size > G_MAXUINT64 - sum)
        return FALSE;
      sum += size;
    }
  *bytes = sum;
  return TRUE;
}

gboolean
jmem_accounting_zram_mm_stat (const char *data,
                              gsize       len,
                              guint64    *orig_bytes,
                              guint64    *used_bytes)
{
  gsize i = 0;

  /* orig_data_size compr_data_size mem_used_total ... (zram.rst) */
  for (guint field_index = 0; field_index < 3; field_index++)
    {
      guint64 v = 0;
      gsize start;

      while (i < len && g_ascii_isspace (data[i]))
        i++;
      start = i;
      while (i < len && g_ascii_isdigit (data[i]))
        i++;
      if (!jmem_text_parse_decimal (data + start, i - start, G_MAXUINT64, &v) ||
          (i < len && !g_ascii_isspace (data[i])))
        return FALSE;
      if (field_index == 0)
        *orig_bytes = v;
      if (field_index == 2)
        {
          *used_bytes = v;
          return TRUE;
        }
    }
  return FALSE;
}
