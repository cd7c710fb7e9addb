/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The accounting's rules on meminfo written for each one, and the
 * footprint's arithmetic. tests/model/test-accounting-trees.c runs it on every
 * captured tree. */
#include <string.h>

#include <glib.h>

#include "jmem-accounting.h"
#include "jmem-meminfo.h"

static JmemMeminfo *
meminfo (const char *text)
{
  g_autoptr(GError) error = NULL;
  JmemMeminfo *m = jmem_meminfo_parse (text, strlen (text), &error);

  g_assert_no_error (error);
  return m;
}

/* g_string_replace() is newer than the GLib floor. */
static void
replace_once (GString *text, const char *from, const char *to, guint n)
{
  const char *at = strstr (text->str, from);

  g_assert_cmpuint (n, ==, 1);
  g_assert_nonnull (at);
  {
    gssize pos = at - text->str;

    g_string_erase (text, pos, (gssize) strlen (from));
    g_string_insert (text, pos, to);
  }
}

static JmemAccountingInput
input_for (const JmemMeminfo *m, const char *kernel)
{
  JmemAccountingInput in = {
    .meminfo = m,
    .kernel_release = kernel,
    .nvmap_total_kib = -1,
    .nvmap_pool_pages = -1,
    .page_size = 4096,
    .nvmap_hugetlbfs_kib = -1,
    .nvmap_free_size_bytes = -1,
    .zram_bytes = -1,
    .device_tree_bytes = -1,
    .module_kib = -1,
    .gpu_reported_kib = -1,
    .gpu_exited_kib = -1,
    .l4t_major = -1,
  };
  return in;
}

static gint64
bucket (const JmemAccounting *a, JmemBucketId id)
{
  return a->buckets[id].kib;
}

/* What every accounting promises: the known buckets and the remainder are
 * MemTotal, to the KiB. */
static void
assert_adds_up (const JmemAccounting *a)
{
  gint64 sum = a->unexplained_kib;

  g_assert_cmpint (a->mem_total_kib, >, 0);
  for (guint i = 0; i < JMEM_N_BUCKETS; i++)
    if (a->buckets[i].kib >= 0)
      sum += a->buckets[i].kib;
  g_assert_cmpint (sum, ==, a->mem_total_kib);
}

static gboolean
has_text (GPtrArray *texts, const char *needle)
{
  for (guint i = 0; i < texts->len; i++)
    if (strstr (g_ptr_array_index (texts, i), needle) != NULL)
      return TRUE;
  return FALSE;
}

/* A 5.15 meminfo in which every page is known: the LRU holds 600 file
 * pages (100 of them shmem, 50 mlocked file pages on the unevictable list)
 * and 400 anonymous or swap-cache pages. */
static const char lru_meminfo[] =
  "MemTotal:        1000000 kB\n"
  "MemFree:          300000 kB\n"
  "Buffers:           10000 kB\n"
  "Cached:           340000 kB\n"
  "SwapCached:        20000 kB\n"
  "Active(anon):     150000 kB\n"
  "Inactive(anon):   120000 kB\n"
  "Active(file):     100000 kB\n"
  "Inactive(file):   150000 kB\n"
  "Unevictable:       80000 kB\n"
  "AnonPages:        170000 kB\n"
  "Mapped:            40000 kB\n"
  "Shmem:            100000 kB\n"
  "KReclaimable:      25000 kB\n"
  "Slab:              50000 kB\n"
  "SReclaimable:      20000 kB\n"
  "SUnreclaim:        30000 kB\n"
  "KernelStack:        4000 kB\n"
  "PageTables:         6000 kB\n"
  "VmallocUsed:       12000 kB\n"
  "Percpu:             1000 kB\n"
  "CmaTotal:          65536 kB\n"
  "CmaFree:           60000 kB\n"
  "HugePages_Total:       0\n"
  "HugePages_Free:        0\n"
  "Hugepagesize:       2048 kB\n"
  "Hugetlb:               0 kB\n";

static void
test_lru (void)
{
  g_autoptr(JmemMeminfo) m = meminfo (lru_meminfo);
  JmemAccountingInput in = input_for (m, "5.15.148-tegra");
  g_autoptr(JmemAccounting) a = jmem_accounting_compute (&in);

  assert_adds_up (a);
  g_assert_cmpint (bucket (a, JMEM_BUCKET_FREE), ==, 300000);
  /* Buffers + Cached - Shmem = 250000: all of it on the file LRU */
  g_assert_cmpint (bucket (a, JMEM_BUCKET_PAGE_CACHE), ==, 250000);
  g_assert_cmpint (bucket (a, JMEM_BUCKET_PAGE_CACHE_LOCKED), ==, 0);
  g_assert_cmpint (bucket (a, JMEM_BUCKET_SHMEM), ==, 100000);
  /* the LRU (600000) less the page cache with shmem (350000) */
  g_assert_cmpint (bucket (a, JMEM_BUCKET_ANON), ==, 250000);
  g_assert_cmpint (bucket (a, JMEM_BUCKET_SLAB_RECLAIMABLE), ==, 20000);
  g_assert_cmpint (bucket (a, JMEM_BUCKET_SLAB_UNRECLAIMABLE), ==, 30000);
  g_assert_cmpint (bucket (a, JMEM_BUCKET_KERNEL_RECLAIMABLE), ==, 5000);
  g_assert_cmpint (bucket (a, JMEM_BUCKET_KERNEL_STACK), ==, 4000);
  g_assert_cmpint (bucket (a, JMEM_BUCKET_PAGE_TABLES), ==, 6000);
  /* vmalloc'ed stacks taken out of VmallocUsed */
  g_assert_cmpint (bucket (a, JMEM_BUCKET_VMALLOC), ==, 8000);
  g_assert_cmpstr (a->buckets[JMEM_BUCKET_VMALLOC].fields, ==, "VmallocUsed - KernelStack");
  g_assert_cmpint (bucket (a, JMEM_BUCKET_PERCPU), ==, 1000);
  g_assert_cmpint (bucket (a, JMEM_BUCKET_HUGETLB), ==, 0);
  g_assert_cmpint (bucket (a, JMEM_BUCKET_NVMAP), ==, -1);
  g_assert_cmpint (a->unexplained_kib, ==, 1000000 - 974000);
  g_assert_cmpint (a->cma_total_kib, ==, 65536);
  g_assert_cmpstr (a->buckets[JMEM_BUCKET_PAGE_CACHE].fields, ==, "Active(file) + Inactive(file)");
  /* the reconciliation's kernel side */
  g_assert_cmpint (a->reconciliation.kernel_mapped_kib, ==, 210000);
  g_assert_cmpint (a->reconciliation.used_kib, ==, 700000);
  g_assert_cmpstr (jmem_accounting_largest_used (a)->fields, ==, "Active(file) + Inactive(file)");
}

/* Mlocked or ramfs page cache is off the file LRU; MADV_FREE pages are on
 * it but anonymous: neither may move a page between buckets wrongly. */
static void
test_locked_cache (void)
{
  g_autoptr(GString) text = g_string_new (lru_meminfo);
  g_autoptr(JmemMeminfo) m = NULL;
  g_autoptr(JmemAccounting) a = NULL;
  JmemAccountingInput in;

  /* 30000 of the file LRU's pages moved to the unevictable list */
  replace_once (text, "Inactive(file):   150000", "Inactive(file):   120000", 1);
  replace_once (text, "Unevictable:       80000", "Unevictable:      110000", 1);
  m = meminfo (text->str);
  in = input_for (m, "5.15.148-tegra");
  a = jmem_accounting_compute (&in);
  assert_adds_up (a);
  g_assert_cmpint (bucket (a, JMEM_BUCKET_PAGE_CACHE), ==, 220000);
  g_assert_cmpint (bucket (a, JMEM_BUCKET_PAGE_CACHE_LOCKED), ==, 30000);
  g_assert_cmpint (bucket (a, JMEM_BUCKET_ANON), ==, 250000);
}

/* Linux 4.9 (L4T R32): VmallocUsed is a constant 0, no KReclaimable, no
 * Percpu, no Hugetlb; NvMap in meminfo. */
static const char r32_meminfo[] =
  "MemTotal:        7860348 kB\n"
  "MemFree:         2000000 kB\n"
  "Buffers:           50000 kB\n"
  "Cached:          1500000 kB\n"
  "Active(anon):     900000 kB\n"
  "Inactive(anon):   200000 kB\n"
  "Active(file):     700000 kB\n"
  "Inactive(file):   750000 kB\n"
  "Unevictable:           0 kB\n"
  "AnonPages:       1000000 kB\n"
  "Mapped:           300000 kB\n"
  "Shmem:           100000 kB\n"
  "Slab:             200000 kB\n"
  "SReclaimable:     120000 kB\n"
  "SUnreclaim:        80000 kB\n"
  "KernelStack:       12000 kB\n"
  "PageTables:        20000 kB\n"
  "VmallocUsed:           0 kB\n"
  "NvMapMemFree:      94784 kB\n"
  "NvMapMemUsed:    2805068 kB\n"
  "CmaTotal:         753664 kB\n"
  "CmaFree:          719864 kB\n"
  "HugePages_Total:       0\n"
  "Hugepagesize:       2048 kB\n";

static void
test_r32 (void)
{
  g_autoptr(JmemMeminfo) m = meminfo (r32_meminfo);
  JmemAccountingInput in = input_for (m, "4.9.337-tegra");
  g_autoptr(JmemAccounting) a = NULL;

  a = jmem_accounting_compute (&in);
  assert_adds_up (a);
  g_assert_cmpint (bucket (a, JMEM_BUCKET_VMALLOC), ==, -1);
  g_assert_nonnull (strstr (a->buckets[JMEM_BUCKET_VMALLOC].note, "4.4 to 5.2"));
  g_assert_cmpint (bucket (a, JMEM_BUCKET_KERNEL_STACK), ==, 12000);
  g_assert_cmpint (bucket (a, JMEM_BUCKET_KERNEL_RECLAIMABLE), ==, 0);
  g_assert_cmpint (bucket (a, JMEM_BUCKET_NVMAP), ==, 2805068);
  g_assert_cmpstr (a->nvmap_source, ==, "meminfo");
  g_assert_cmpint (bucket (a, JMEM_BUCKET_NVMAP_POOL), ==, 94784);
  g_assert_cmpstr (a->buckets[JMEM_BUCKET_NVMAP_POOL].fields, ==, "NvMapMemFree");
  g_assert_cmpint (a->warnings->len, ==, 0);
  g_clear_pointer (&a, jmem_accounting_free);

  /* debugfs read too: its total wins, and the two must agree */
  in.nvmap_total_kib = 2805000;
  in.nvmap_pool_pages = 94784 / 4;
  a = jmem_accounting_compute (&in);
  assert_adds_up (a);
  g_assert_cmpstr (a->nvmap_source, ==, "debugfs");
  g_assert_cmpint (bucket (a, JMEM_BUCKET_NVMAP), ==, 2805000);
  g_assert_cmpint (bucket (a, JMEM_BUCKET_NVMAP_POOL), ==, 94784);
  g_assert_cmpint (a->warnings->len, ==, 0);
  g_clear_pointer (&a, jmem_accounting_free);

  in.nvmap_total_kib = 1000000;
  a = jmem_accounting_compute (&in);
  assert_adds_up (a);
  g_assert_cmpint (bucket (a, JMEM_BUCKET_NVMAP), ==, 1000000);
  g_assert_true (has_text (a->warnings, "disagree"));
}

static void
test_vmalloc_rules (void)
{
  g_autoptr(GString) text = g_string_new (lru_meminfo);
  g_autoptr(JmemMeminfo) m = NULL;
  JmemAccountingInput in;

  /* an unknown kernel: stacks taken out when VmallocUsed covers them */
  {
    g_autoptr(JmemMeminfo) m1 = meminfo (lru_meminfo);
    g_autoptr(JmemAccounting) a = NULL;

    in = input_for (m1, NULL);
    a = jmem_accounting_compute (&in);
    g_assert_cmpint (bucket (a, JMEM_BUCKET_VMALLOC), ==, 8000);
    g_assert_nonnull (strstr (a->buckets[JMEM_BUCKET_VMALLOC].note, "assumed"));
  }
  /* VmallocUsed below KernelStack: the stacks are not vmalloc'ed */
  replace_once (text, "VmallocUsed:       12000", "VmallocUsed:        3000", 1);
  m = meminfo (text->str);
  in = input_for (m, "6.8.12-tegra");
  {
    g_autoptr(JmemAccounting) a = jmem_accounting_compute (&in);

    assert_adds_up (a);
    g_assert_cmpint (bucket (a, JMEM_BUCKET_VMALLOC), ==, 3000);
    g_assert_cmpint (bucket (a, JMEM_BUCKET_KERNEL_STACK), ==, 4000);
  }
}

/* Thor: the GPU's carveout is a hugetlb pool, used and free alike out of
 * MemFree. On the 2025 NvMap driver, handles made from those pages
 * (FROM_HUGETLBFS) are taken out of NvMap, so no page counts twice. */
static void
test_hugetlb (void)
{
  g_autoptr(GString) text = g_string_new (lru_meminfo);
  g_autoptr(JmemMeminfo) m = NULL;
  JmemAccountingInput in;

  replace_once (text, "HugePages_Total:       0", "HugePages_Total:     100", 1);
  replace_once (text, "HugePages_Free:        0", "HugePages_Free:       40", 1);
  replace_once (text, "Hugetlb:               0", "Hugetlb:          204800", 1);
  replace_once (text, "MemFree:          300000", "MemFree:           95200", 1);
  m = meminfo (text->str);
  in = input_for (m, "6.8.12-tegra");
  in.unified_gpu = TRUE;
  {
    g_autoptr(JmemAccounting) a = jmem_accounting_compute (&in);

    assert_adds_up (a);
    g_assert_cmpint (bucket (a, JMEM_BUCKET_HUGETLB), ==, 204800);
    g_assert_cmpint (a->hugetlb_free_kib, ==, 40 * 2048);
    g_assert_nonnull (strstr (a->buckets[JMEM_BUCKET_HUGETLB].note, "nv_hugetlbfs_init"));
    g_assert_true (has_text (a->notes, "nvidia.ko"));
  }

  in.unified_gpu = FALSE;
  in.nvmap_total_kib = 150000;
  in.nvmap_hugetlbfs_kib = 120000;
  in.nvmap_hugetlbfs_column = TRUE;
  {
    g_autoptr(JmemAccounting) a = jmem_accounting_compute (&in);

    assert_adds_up (a);
    g_assert_cmpint (bucket (a, JMEM_BUCKET_NVMAP), ==, 30000);
    g_assert_cmpint (a->nvmap_total_kib, ==, 150000);
    g_assert_cmpint (a->nvmap_hugetlbfs_kib, ==, 120000);
  }
  /* the column is there, the allocations were not read: said, not guessed */
  in.nvmap_hugetlbfs_kib = -1;
  {
    g_autoptr(JmemAccounting) a = jmem_accounting_compute (&in);

    g_assert_cmpint (bucket (a, JMEM_BUCKET_NVMAP), ==, 150000);
    g_assert_nonnull (strstr (a->buckets[JMEM_BUCKET_NVMAP].note, "FROM_HUGETLBFS"));
  }
}

/* A field past any RAM is refused with a warning and counted as unknown;
 * the sum still holds, and nothing wraps. */
static void
test_refused (void)
{
  g_autoptr(GString) text = g_string_new (lru_meminfo);
  g_autoptr(JmemMeminfo) m = NULL;
  JmemAccountingInput in;

  replace_once (text, "Cached:           340000", "Cached:          9223372036854775807", 1);
  replace_once (text, "HugePages_Total:       0", "HugePages_Total:  9223372036854775807", 1);
  replace_once (text, "Hugetlb:               0 kB\n", "", 1);
  m = meminfo (text->str);
  in = input_for (m, "5.15.0");
  in.nvmap_pool_pages = G_MAXINT64;
  in.nvmap_total_kib = 0;
  {
    g_autoptr(JmemAccounting) a = jmem_accounting_compute (&in);

    assert_adds_up (a);
    g_assert_cmpint (bucket (a, JMEM_BUCKET_PAGE_CACHE), ==, -1);
    g_assert_cmpint (bucket (a, JMEM_BUCKET_HUGETLB), ==, -1);
    g_assert_cmpint (bucket (a, JMEM_BUCKET_NVMAP_POOL), ==, -1);
    g_assert_true (has_text (a->warnings, "Cached reads 9223372036854775807 kB"));
    g_assert_true (has_text (a->warnings, "HugePages_Total"));
    g_assert_true (has_text (a->warnings, "NvMap page pool"));
    g_assert_cmpint (a->unexplained_kib, >, 0);
  }

  /* no MemTotal, no accounting, and the reason */
  {
    g_autoptr(JmemMeminfo) m2 = meminfo ("MemFree: 12 kB\n");
    JmemAccountingInput in2 = input_for (m2, NULL);
    g_autoptr(JmemAccounting) a = jmem_accounting_compute (&in2);

    g_assert_cmpint (a->mem_total_kib, ==, -1);
    g_assert_true (has_text (a->notes, "MemTotal"));
  }
}

static void
test_physical (void)
{
  g_autoptr(JmemMeminfo) m = meminfo (lru_meminfo);
  JmemAccountingInput in = input_for (m, "5.15.0");

  in.device_tree_bytes = G_GINT64_CONSTANT (1073741824);
  in.module_kib = 2 * 1024 * 1024;
  {
    g_autoptr(JmemAccounting) a = jmem_accounting_compute (&in);

    g_assert_cmpstr (a->physical_source, ==, "device-tree");
    g_assert_cmpint (a->physical_kib, ==, 1048576);
    g_assert_cmpint (a->firmware_reserved_kib, ==, 48576);
  }
  /* a device tree below MemTotal is wrong: the module's size then */
  in.device_tree_bytes = 1024;
  in.module_name = "orin-nano-4gb";
  {
    g_autoptr(JmemAccounting) a = jmem_accounting_compute (&in);

    g_assert_cmpstr (a->physical_source, ==, "module");
    g_assert_cmpint (a->firmware_reserved_kib, ==, 2 * 1024 * 1024 - 1000000);
    g_assert_nonnull (strstr (a->physical_note, "orin-nano-4gb"));
  }
  in.module_kib = -1;
  in.device_tree_bytes = -1;
  {
    g_autoptr(JmemAccounting) a = jmem_accounting_compute (&in);

    g_assert_null (a->physical_source);
    g_assert_cmpint (a->physical_kib, ==, -1);
    g_assert_cmpint (a->firmware_reserved_kib, ==, -1);
    g_assert_nonnull (strstr (a->physical_note, "unknown"));
  }
}

/* Processes against the kernel's counts. */
static void
test_reconciliation (void)
{
  g_autoptr(JmemMeminfo) m = meminfo (lru_meminfo);
  JmemAccountingInput in = input_for (m, "5.15.0");
  const JmemAccountingProcess procs[] = {
    { .pss_kib = 100000, .rss_kib = 120000, .nvmap_kib = 50000, .nvmap_mapped_kib = 10000, .gpu_kib = -1 },
    { .pss_kib = 30000, .rss_kib = 40000, .nvmap_kib = 0, .nvmap_mapped_kib = -1, .gpu_kib = -1 },
    { .pss_kib = -1, .rss_kib = 20000, .nvmap_kib = -1, .nvmap_mapped_kib = -1, .gpu_kib = -1 },
  };
  g_autoptr(JmemAccounting) a = NULL;

  in.processes = procs;
  in.n_processes = G_N_ELEMENTS (procs);
  in.nvmap_total_kib = 60000;
  a = jmem_accounting_compute (&in);
  g_assert_cmpuint (a->reconciliation.n_processes, ==, 3);
  g_assert_cmpuint (a->reconciliation.n_without_pss, ==, 1);
  g_assert_cmpint (a->reconciliation.pss_kib, ==, 120000);
  g_assert_cmpint (a->reconciliation.rss_without_pss_kib, ==, 20000);
  g_assert_cmpint (a->reconciliation.nvmap_shares_kib, ==, 50000);
  g_assert_cmpint (a->reconciliation.nvmap_kib, ==, 60000);
  g_assert_cmpint (a->reconciliation.by_processes_kib, ==, 190000);
  g_assert_cmpint (a->reconciliation.held_by_no_process_kib, ==, 700000 - 190000);
}

/* The double count (nvmap_fault.c): a process maps 2 MiB of an 8 MiB
 * buffer it alone holds. Its PSS has half of those pages (the driver adds
 * one to each page's mapcount), its RSS all of them. */
static void
test_footprint (void)
{
  gboolean pss = FALSE;

  /* PSS 33272 with 1024 of NvMap in it, NvMap share 8192 */
  g_assert_cmpint (jmem_accounting_footprint (33272, 37144, 0, 8192, -1, 1024, &pss), ==,
                   33272 - 1024 + 8192);
  g_assert_true (pss);
  /* the same process with its PSS unreadable: RSS less the mapped size */
  g_assert_cmpint (jmem_accounting_footprint (-1, 37144, 0, 8192, -1, 2048, &pss), ==,
                   37144 - 2048 + 8192);
  g_assert_false (pss);
  /* nothing known of the mapped part: as before, PSS + share */
  g_assert_cmpint (jmem_accounting_footprint (100, 200, 10, 50, -1, -1, NULL), ==, 160);
  /* GPU memory (nvidia-smi) where it is larger */
  g_assert_cmpint (jmem_accounting_footprint (100, 200, 0, 50, 300, 0, NULL), ==, 400);
  g_assert_cmpint (jmem_accounting_footprint (-1, -1, 0, 50, 300, 0, NULL), ==, -1);
  /* a mapped size larger than the base never makes it negative */
  g_assert_cmpint (jmem_accounting_footprint (10, 20, 0, 50, -1, 100, NULL), ==, 50);
  g_assert_cmpint (jmem_accounting_footprint (G_MAXINT64, 0, G_MAXINT64, G_MAXINT64, -1, 0, NULL),
                   ==, G_MAXINT64);
}

static void
test_device_tree (void)
{
  /* two cells each: 0x80000000 + 16 GiB, 0x500000000 + 0x70000000 */
  static const guint8 reg[] = {
    0, 0, 0, 0, 0x80, 0, 0, 0,   0, 0, 0, 0x04, 0, 0, 0, 0,
    0, 0, 0, 0x05, 0, 0, 0, 0,   0, 0, 0, 0, 0x70, 0, 0, 0,
  };
  static const guint8 one_cell[] = { 0x80, 0, 0, 0, 0x40, 0, 0, 0 };
  guint64 bytes = 0;

  g_assert_true (jmem_accounting_device_tree_bytes (reg, sizeof reg, 2, 2, &bytes));
  g_assert_cmpuint (bytes, ==, G_GUINT64_CONSTANT (0x400000000) + 0x70000000);
  g_assert_true (jmem_accounting_device_tree_bytes (one_cell, sizeof one_cell, 1, 1, &bytes));
  g_assert_cmpuint (bytes, ==, 0x40000000);
  g_assert_false (jmem_accounting_device_tree_bytes (reg, sizeof reg - 1, 2, 2, &bytes));
  g_assert_false (jmem_accounting_device_tree_bytes (reg, sizeof reg, 3, 2, &bytes));
  g_assert_false (jmem_accounting_device_tree_bytes (reg, 0, 2, 2, &bytes));
}

static void
test_zram (void)
{
  guint64 bytes = 0, orig = 0;

  g_assert_true (jmem_accounting_zram_mm_stat (
    "  4096000   1024000   1200000        0  1300000        0        0        0        0\n",
    85, &orig, &bytes));
  g_assert_cmpuint (bytes, ==, 1200000);
  g_assert_cmpuint (orig, ==, 4096000);
  g_assert_false (jmem_accounting_zram_mm_stat ("1 2\n", 4, &orig, &bytes));
  g_assert_false (jmem_accounting_zram_mm_stat ("1 2 x3\n", 7, &orig, &bytes));
  g_assert_false (jmem_accounting_zram_mm_stat ("1 2 99999999999999999999999\n", 28, &orig, &bytes));
  g_assert_false (jmem_accounting_zram_mm_stat ("x1 2 3\n", 7, &orig, &bytes));
}

static void
test_names (void)
{
  g_autoptr(GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);

  for (guint i = 0; i < JMEM_N_BUCKETS; i++)
    {
      const char *name = jmem_accounting_bucket_name (i);

      /* a Prometheus label value and a JSON key: lowercase words */
      g_assert_true (g_regex_match_simple ("^[a-z_]+$", name, 0, 0));
      g_assert_true (g_hash_table_add (seen, (gpointer) name));
      g_assert_cmpuint (strlen (jmem_accounting_bucket_label (i)), <=, 16);
    }
}

/* The unified stack: 1000 MiB of GPU memory reported, 200 MiB of it for an
 * exited PID; 512 MiB of huge pages, 256 MiB of them in use and so perhaps
 * the same pages: counted in gpu, out of hugetlb. The driver's pool is
 * estimated only on R38 with the GPU figure known and no live process
 * holding 256 MiB. */
static const char thor_meminfo[] =
  "MemTotal:        4194304 kB\n"
  "MemFree:         1048576 kB\n"
  "HugePages_Total:     256\n"
  "HugePages_Free:      128\n"
  "Hugepagesize:       2048 kB\n"
  "Hugetlb:          524288 kB\n";

static void
test_unified_gpu (void)
{
  g_autoptr(JmemMeminfo) m = meminfo (thor_meminfo);
  JmemAccountingProcess live = { .pid = 7, .pss_kib = 1000, .rss_kib = 1000, .nvmap_kib = -1,
                                 .nvmap_mapped_kib = -1, .gpu_kib = 800 * 1024 };
  JmemAccountingInput in = input_for (m, "6.8.12-tegra");

  in.unified_gpu = TRUE;
  in.gpu_reported_kib = 1000 * 1024;
  in.gpu_exited_kib = 200 * 1024;
  in.gpu_source = "nvml";
  in.l4t_major = 38;
  in.processes = &live;
  in.n_processes = 1;
  {
    g_autoptr(JmemAccounting) a = jmem_accounting_compute (&in);

    assert_adds_up (a);
    g_assert_cmpint (bucket (a, JMEM_BUCKET_GPU), ==, 1000 * 1024);
    g_assert_cmpstr (a->buckets[JMEM_BUCKET_GPU].source, ==, "nvml");
    g_assert_cmpint (a->gpu_hugetlb_overlap_kib, ==, 256 * 1024);
    g_assert_cmpint (bucket (a, JMEM_BUCKET_HUGETLB), ==, 256 * 1024);
    g_assert_cmpint (a->gpu_exited_kib, ==, 200 * 1024);
    /* a live process holds GPU memory: the pool cannot be told apart */
    g_assert_cmpint (bucket (a, JMEM_BUCKET_GPU_POOL), ==, -1);
    /* its GPU memory is held by a process; the exited PID's is not */
    g_assert_cmpint (a->reconciliation.gpu_kib, ==, 800 * 1024);
    g_assert_cmpint (a->reconciliation.by_processes_kib, ==, 1000 + 800 * 1024);
  }

  /* no live GPU process on R38: the remainder is the pool, an estimate */
  live.gpu_kib = 0;
  {
    g_autoptr(JmemAccounting) a = jmem_accounting_compute (&in);

    assert_adds_up (a);
    g_assert_cmpint (a->unexplained_kib, ==, 0);
    g_assert_cmpint (bucket (a, JMEM_BUCKET_GPU_POOL), ==,
                     4194304 - 1048576 - 256 * 1024 - 1000 * 1024);
    g_assert_true (a->buckets[JMEM_BUCKET_GPU_POOL].estimate);
  }

  /* the GPU figure unknown: the remainder holds it, so no pool is taken */
  in.gpu_reported_kib = -1;
  {
    g_autoptr(JmemAccounting) a = jmem_accounting_compute (&in);

    assert_adds_up (a);
    g_assert_cmpint (bucket (a, JMEM_BUCKET_GPU), ==, -1);
    g_assert_cmpint (bucket (a, JMEM_BUCKET_GPU_POOL), ==, -1);
    g_assert_cmpint (bucket (a, JMEM_BUCKET_HUGETLB), ==, 512 * 1024);
  }

  /* the release unknown, or r39: no estimate */
  in.gpu_reported_kib = 0;
  in.l4t_major = -1;
  {
    g_autoptr(JmemAccounting) a = jmem_accounting_compute (&in);

    g_assert_cmpint (bucket (a, JMEM_BUCKET_GPU_POOL), ==, -1);
  }
  in.l4t_major = 39;
  {
    g_autoptr(JmemAccounting) a = jmem_accounting_compute (&in);

    assert_adds_up (a);
    g_assert_cmpint (bucket (a, JMEM_BUCKET_GPU_POOL), ==, 0);
    g_assert_cmpint (a->unexplained_kib, >, 0);
  }

  /* off the unified stack both are none */
  in.unified_gpu = FALSE;
  {
    g_autoptr(JmemAccounting) a = jmem_accounting_compute (&in);

    g_assert_cmpint (bucket (a, JMEM_BUCKET_GPU), ==, 0);
    g_assert_cmpint (bucket (a, JMEM_BUCKET_GPU_POOL), ==, 0);
  }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/accounting/lru", test_lru);
  g_test_add_func ("/accounting/unified-gpu", test_unified_gpu);
  g_test_add_func ("/accounting/locked-cache", test_locked_cache);
  g_test_add_func ("/accounting/r32", test_r32);
  g_test_add_func ("/accounting/vmalloc-rules", test_vmalloc_rules);
  g_test_add_func ("/accounting/hugetlb", test_hugetlb);
  g_test_add_func ("/accounting/refused", test_refused);
  g_test_add_func ("/accounting/physical", test_physical);
  g_test_add_func ("/accounting/reconciliation", test_reconciliation);
  g_test_add_func ("/accounting/footprint", test_footprint);
  g_test_add_func ("/accounting/device-tree", test_device_tree);
  g_test_add_func ("/accounting/zram", test_zram);
  g_test_add_func ("/accounting/names", test_names);
  return g_test_run ();
}
