/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The headroom's arithmetic (jmem-headroom.c) on meminfo written for each
 * rule: what "now" and "after reclaim" are made of, zram's cost, the free
 * blocks in the page size read, the verdict at its boundaries, and what it
 * names. tests/client/test-headroom.py runs `jmem headroom` on the captured trees. */
#include <string.h>

#include <glib.h>

#include "jmem-test.h"

#include "jmem-accounting.h"
#include "jmem-buddyinfo.h"
#include "jmem-headroom.h"
#include "jmem-meminfo.h"
#include "jmem-swaps.h"

/* A board whose numbers each test changes: 8 GiB, 2 GiB free, 3 GiB of
 * page cache (500 MiB mapped), 1 GiB anonymous, 2 GiB of zram swap. */
typedef struct {
  gint64 free, cma_total, cma_free, file, mapped, anon, sreclaim, kreclaim, swap_total, swap_free;
  gint64 huge_total, huge_free;
  gint64 nvmap_used, nvmap_free;   /* meminfo's NvMap lines; -1: none */
} Board;

static const Board base = {
  .free = 2097152, .cma_total = 262144, .cma_free = 200000, .file = 3145728, .mapped = 512000,
  .anon = 1048576, .sreclaim = 200000, .kreclaim = 240000, .swap_total = 2097152,
  .swap_free = 2097152, .nvmap_used = 1048576, .nvmap_free = 40960,
};

static JmemMeminfo *
meminfo_of (const Board *b)
{
  g_autoptr(GString) t = g_string_new (NULL);
  g_autoptr(GError) error = NULL;
  JmemMeminfo *m;

  g_string_append_printf (t, "MemTotal: 8000000 kB\nMemFree: %" G_GINT64_FORMAT " kB\n", b->free);
  g_string_append_printf (t, "Buffers: 0 kB\nCached: %" G_GINT64_FORMAT " kB\nShmem: 0 kB\n", b->file);
  g_string_append_printf (t, "Active(file): %" G_GINT64_FORMAT " kB\nInactive(file): %" G_GINT64_FORMAT " kB\n",
                          b->file / 2, b->file - b->file / 2);
  g_string_append_printf (t, "Active(anon): %" G_GINT64_FORMAT " kB\nInactive(anon): %" G_GINT64_FORMAT " kB\n",
                          b->anon / 4, b->anon - b->anon / 4);
  g_string_append_printf (t, "Unevictable: 0 kB\nAnonPages: %" G_GINT64_FORMAT " kB\n", b->anon);
  g_string_append_printf (t, "Mapped: %" G_GINT64_FORMAT " kB\n", b->mapped);
  g_string_append_printf (t, "SReclaimable: %" G_GINT64_FORMAT " kB\nSUnreclaim: 100000 kB\n", b->sreclaim);
  g_string_append_printf (t, "KReclaimable: %" G_GINT64_FORMAT " kB\n", b->kreclaim);
  g_string_append_printf (t, "SwapTotal: %" G_GINT64_FORMAT " kB\nSwapFree: %" G_GINT64_FORMAT " kB\n",
                          b->swap_total, b->swap_free);
  if (b->cma_total >= 0)
    g_string_append_printf (t, "CmaTotal: %" G_GINT64_FORMAT " kB\nCmaFree: %" G_GINT64_FORMAT " kB\n",
                            b->cma_total, b->cma_free);
  if (b->nvmap_used >= 0)
    g_string_append_printf (t, "NvMapMemFree: %" G_GINT64_FORMAT " kB\nNvMapMemUsed: %" G_GINT64_FORMAT " kB\n",
                            b->nvmap_free, b->nvmap_used);
  g_string_append_printf (t, "HugePages_Total: %" G_GINT64_FORMAT "\nHugePages_Free: %" G_GINT64_FORMAT
                          "\nHugepagesize: 2048 kB\nHugetlb: %" G_GINT64_FORMAT " kB\n",
                          b->huge_total, b->huge_free, b->huge_total * 2048);
  m = jmem_meminfo_parse (t->str, t->len, &error);
  g_assert_no_error (error);
  return m;
}

typedef struct {
  JmemMeminfo      *meminfo;
  JmemAccounting   *accounting;
  JmemBuddyinfo    *buddyinfo;
  JmemSwaps         swaps;
  JmemHeadroomInput in;
} Case;

static void
case_clear (Case *c)
{
  g_clear_pointer (&c->accounting, jmem_accounting_free);
  g_clear_pointer (&c->meminfo, jmem_meminfo_free);
  g_clear_pointer (&c->buddyinfo, jmem_buddyinfo_free);
}
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Case, case_clear)

static void
case_init (Case *c, const Board *b, gboolean unified)
{
  JmemAccountingInput ain = {
    .nvmap_total_kib = -1, .nvmap_pool_pages = -1, .page_size = 4096, .nvmap_hugetlbfs_kib = -1,
    .nvmap_free_size_bytes = -1, .zram_bytes = 0, .device_tree_bytes = -1, .module_kib = -1,
    .kernel_release = "5.15.148-tegra", .unified_gpu = unified,
  };

  c->meminfo = meminfo_of (b);
  ain.meminfo = c->meminfo;
  c->accounting = jmem_accounting_compute (&ain);
  /* all swap is zram, as nvzramconfig sets it up */
  c->swaps = (JmemSwaps) { .n_zram = 1, .zram_size_kib = b->swap_total,
                           .zram_used_kib = b->swap_total - b->swap_free };
  c->in = (JmemHeadroomInput) {
    .accounting = c->accounting, .meminfo = c->meminfo, .page_size = 4096, .min_free_kib = 16384,
    .swaps = &c->swaps, .zram_orig_bytes = G_GINT64_CONSTANT (3) << 30, .zram_used_bytes = G_GINT64_CONSTANT (1) << 30,
    .unified_gpu = unified, .need_kib = -1,
  };
}

static gint64
term (const JmemHeadroom *h, JmemHeadroomTermId id)
{
  return h->terms[id].kib;
}

static gboolean
has_text (GPtrArray *texts, const char *needle)
{
  for (guint i = 0; i < texts->len; i++)
    if (strstr (g_ptr_array_index (texts, i), needle) != NULL)
      return TRUE;
  return FALSE;
}

static void
test_now_and_after (void)
{
  g_auto(Case) c = { 0 };
  g_autoptr(JmemHeadroom) h = NULL;
  gint64 now, drop, swap;

  case_init (&c, &base, FALSE);
  h = jmem_headroom_compute (&c.in);
  /* MemFree - CmaFree - min_free_kbytes + NvMap's pool (NvMapMemFree) */
  now = 2097152 - 200000 - 16384 + 40960;
  g_assert_cmpint (h->allocatable_now_kib, ==, now);
  g_assert_cmpint (term (h, JMEM_HEADROOM_TERM_FREE), ==, 2097152);
  g_assert_true (h->terms[JMEM_HEADROOM_TERM_CMA_FREE].subtract);
  g_assert_cmpint (term (h, JMEM_HEADROOM_TERM_GPU_CARVEOUT), ==, 0);
  /* the unmapped page cache, half of the reclaimable kernel memory */
  g_assert_cmpint (term (h, JMEM_HEADROOM_TERM_PAGE_CACHE), ==, 3145728 - 512000);
  g_assert_cmpint (term (h, JMEM_HEADROOM_TERM_SLAB), ==, 240000 / 2);
  drop = 3145728 - 512000 + 120000;
  g_assert_cmpint (h->drop_caches_kib, ==, drop);
  /* all of the anonymous LRU fits in zram, which keeps a third of it at 3:1 */
  swap = (gint64) (1048576.0 * (1.0 - 1.0 / 3.0));
  g_assert_cmpint (term (h, JMEM_HEADROOM_TERM_SWAP), ==, swap);
  g_assert_false (h->zram_ratio_assumed);
  g_assert_cmpfloat_with_epsilon (h->zram_ratio, 3.0, 1e-9);
  g_assert_cmpint (h->allocatable_after_reclaim_kib, ==, now + drop + swap);
  g_assert_cmpint (h->verdict, ==, JMEM_HEADROOM_NO_NEED);
  g_assert_cmpuint (h->actions->len, ==, 0);
  /* the sources are named */
  g_assert_cmpstr (h->terms[JMEM_HEADROOM_TERM_RESERVE].fields, ==, "vm.min_free_kbytes");
  g_assert_cmpstr (h->terms[JMEM_HEADROOM_TERM_PAGE_CACHE].fields, ==,
                   "Active(file) + Inactive(file) - Mapped");
}

static void
test_reserve_larger_than_free (void)
{
  Board b = base;
  g_auto(Case) c = { 0 };
  g_autoptr(JmemHeadroom) h = NULL;

  /* CMA and the reserve take more than is free: nothing, then the pool */
  b.free = 150000;
  b.cma_free = 140000;
  case_init (&c, &b, FALSE);
  h = jmem_headroom_compute (&c.in);
  g_assert_cmpint (h->allocatable_now_kib, ==, 40960);
}

static void
test_unknowns_are_said (void)
{
  Board b = base;
  g_auto(Case) c = { 0 };
  g_autoptr(JmemHeadroom) h = NULL;

  b.cma_total = -1;  /* no CMA lines */
  case_init (&c, &b, FALSE);
  c.in.min_free_kib = -1;
  c.in.swaps = NULL;
  h = jmem_headroom_compute (&c.in);
  g_assert_cmpint (term (h, JMEM_HEADROOM_TERM_CMA_FREE), ==, 0);
  g_assert_cmpint (term (h, JMEM_HEADROOM_TERM_RESERVE), ==, -1);
  g_assert_nonnull (strstr (h->terms[JMEM_HEADROOM_TERM_RESERVE].note, "upper bound"));
  g_assert_cmpint (h->allocatable_now_kib, ==, 2097152 + 40960);
  /* swap whose devices are unknown counts as storage, and says so */
  g_assert_cmpint (term (h, JMEM_HEADROOM_TERM_SWAP), ==, 1048576);
  g_assert_nonnull (strstr (h->terms[JMEM_HEADROOM_TERM_SWAP].note, "/proc/swaps was not read"));
  g_assert_true (has_text (h->notes, "buddyinfo was not read"));
}

static void
test_zram_ratio_assumed (void)
{
  g_auto(Case) c = { 0 };
  g_autoptr(JmemHeadroom) h = NULL;

  case_init (&c, &base, FALSE);
  c.in.zram_orig_bytes = 0;  /* nothing stored: nothing to measure */
  h = jmem_headroom_compute (&c.in);
  g_assert_true (h->zram_ratio_assumed);
  g_assert_cmpint (term (h, JMEM_HEADROOM_TERM_SWAP), ==, 1048576 / 2);
  g_assert_nonnull (strstr (h->terms[JMEM_HEADROOM_TERM_SWAP].note, "assumed"));
}

static void
test_swap_full_or_none (void)
{
  Board b = base;
  g_auto(Case) c = { 0 };
  g_autoptr(JmemHeadroom) h = NULL;

  b.swap_total = 0;
  b.swap_free = 0;
  case_init (&c, &b, FALSE);
  c.in.need_kib = 8 * 1024 * 1024;
  h = jmem_headroom_compute (&c.in);
  g_assert_cmpint (term (h, JMEM_HEADROOM_TERM_SWAP), ==, 0);
  g_assert_cmpstr (h->terms[JMEM_HEADROOM_TERM_SWAP].note, ==, "no swap is enabled");
  /* does not fit: enabling zram is one of the ways */
  g_assert_cmpint (h->verdict, ==, JMEM_HEADROOM_DOES_NOT_FIT);
  g_assert_true (has_text (h->actions, "nvzramconfig"));
}

static void
test_verdict_boundaries (void)
{
  g_auto(Case) c = { 0 };
  g_autoptr(JmemHeadroom) probe = NULL;
  gint64 now, after;

  case_init (&c, &base, FALSE);
  probe = jmem_headroom_compute (&c.in);
  now = probe->allocatable_now_kib;
  after = probe->allocatable_after_reclaim_kib;
  {
    const struct { gint64 need; JmemHeadroomVerdict verdict; gint64 shortfall; int status; } cases[] = {
      { 0, JMEM_HEADROOM_FITS_NOW, 0, 0 },
      { now, JMEM_HEADROOM_FITS_NOW, 0, 0 },
      { now + 1, JMEM_HEADROOM_FITS_AFTER_RECLAIM, 1, 1 },
      { after, JMEM_HEADROOM_FITS_AFTER_RECLAIM, after - now, 1 },
      { after + 1, JMEM_HEADROOM_DOES_NOT_FIT, 1, 2 },
    };

    for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
      {
        g_autoptr(JmemHeadroom) h = NULL;

        c.in.need_kib = cases[i].need;
        h = jmem_headroom_compute (&c.in);
        g_assert_cmpint (h->verdict, ==, cases[i].verdict);
        g_assert_cmpint (h->shortfall_kib, ==, cases[i].shortfall);
        g_assert_cmpint (jmem_headroom_exit_status (h->verdict), ==, cases[i].status);
      }
  }
  g_assert_cmpint (jmem_headroom_exit_status (JMEM_HEADROOM_UNKNOWN), ==, -1);
  g_assert_cmpstr (jmem_headroom_verdict_name (JMEM_HEADROOM_FITS_AFTER_RECLAIM), ==, "fits-after-reclaim");
  g_assert_null (jmem_headroom_verdict_name (JMEM_HEADROOM_NO_NEED));
}

static void
test_actions_name_commands (void)
{
  static const JmemHeadroomProcess procs[] = {
    { .pid = 7100, .name = "trtexec", .footprint_kib = 5000000, .nvmap_kib = 4800000, .gpu_kib = -1 },
    { .pid = 6100, .name = "ollama", .unit = "ollama.service", .footprint_kib = 900000, .nvmap_kib = 0, .gpu_kib = -1 },
    { .pid = 1731, .name = "Xorg", .desktop = TRUE, .footprint_kib = 300000, .nvmap_kib = 20000, .gpu_kib = -1 },
    { .pid = 2831, .name = "gnome-shell", .desktop = TRUE, .footprint_kib = 200000, .nvmap_kib = 5000, .gpu_kib = -1 },
    { .pid = 900, .name = "ollama-helper", .unit = "ollama.service", .footprint_kib = 100, .nvmap_kib = 0, .gpu_kib = -1 },
    { .pid = 2, .name = "kthreadd", .footprint_kib = 0, .nvmap_kib = -1, .gpu_kib = -1 },
  };
  g_auto(Case) c = { 0 };
  g_autoptr(JmemHeadroom) fits = NULL, after = NULL, no = NULL;
  const JmemHeadroomService *svc;

  case_init (&c, &base, FALSE);
  c.in.processes = procs;
  c.in.n_processes = G_N_ELEMENTS (procs);
  c.in.display_manager = "gdm3.service";

  c.in.need_kib = 1024;
  fits = jmem_headroom_compute (&c.in);
  g_assert_cmpuint (fits->actions->len, ==, 0);

  /* just past now: the page cache is enough, and --drop would do it */
  c.in.need_kib = 2097152;
  after = jmem_headroom_compute (&c.in);
  g_assert_cmpint (after->verdict, ==, JMEM_HEADROOM_FITS_AFTER_RECLAIM);
  g_assert_true (g_str_has_prefix (g_ptr_array_index (after->actions, 0), "jmem drop-caches"));
  /* as one types it: --drop acts only with the need, here 2 GiB */
  g_assert_true (has_text (after->actions, "jmem headroom --need 2G --drop does it"));
  g_assert_true (has_text (after->actions, "ollama.service (879.0 MiB)"));
  g_assert_true (has_text (after->actions, "gdm3.service (488.3 MiB, the desktop)"));

  /* the services, by what their processes hold; the desktop's session
   * goes to the display manager */
  g_assert_cmpuint (after->services->len, ==, 2);
  svc = g_ptr_array_index (after->services, 0);
  g_assert_cmpstr (svc->unit, ==, "ollama.service");
  g_assert_cmpint (svc->kib, ==, 900100);
  g_assert_cmpuint (svc->n_processes, ==, 2);
  svc = g_ptr_array_index (after->services, 1);
  g_assert_true (svc->desktop);
  g_assert_cmpint (svc->kib, ==, 500000);

  /* too large: the largest holders are named, NvMap with them */
  c.in.need_kib = 64 * 1024 * 1024;
  no = jmem_headroom_compute (&c.in);
  g_assert_cmpint (no->verdict, ==, JMEM_HEADROOM_DOES_NOT_FIT);
  g_assert_cmpuint (no->holders->len, ==, 3);
  g_assert_true (has_text (no->actions, "held by PID 7100 trtexec 4.8 GiB, 4.6 GiB of it NvMap"));
  g_assert_false (has_text (no->actions, "jmem drop-caches"));
}

static JmemBuddyinfo *
buddyinfo_fixture (const char *name)
{
  g_autofree char *path = jmem_test_fixture ("vm", name, NULL);
  g_autofree char *data = NULL;
  g_autoptr(GError) error = NULL;
  JmemBuddyinfo *b;
  gsize len;

  g_assert_true (g_file_get_contents (path, &data, &len, &error));
  b = jmem_buddyinfo_parse (data, len, &error);
  g_assert_no_error (error);
  return b;
}

static void
test_blocks_in_the_page_size_read (void)
{
  g_auto(Case) c = { 0 };
  g_autoptr(JmemHeadroom) h = NULL, unknown = NULL;
  const JmemHeadroomZone *normal;

  case_init (&c, &base, FALSE);
  c.buddyinfo = buddyinfo_fixture ("buddyinfo.rendered-arm64-64k.txt");
  c.in.buddyinfo = c.buddyinfo;
  /* 64 KiB pages: order 13 is 512 MiB, never 32 MiB */
  c.in.page_size = 65536;
  h = jmem_headroom_compute (&c.in);
  g_assert_cmpint (h->page_size, ==, 65536);
  g_assert_cmpint (h->largest_free_block_kib, ==, 512 * 1024);
  g_assert_cmpuint (h->largest_free_blocks, ==, 2 + 5);
  g_assert_cmpstr (h->largest_free_block_zone, ==, "DMA");
  normal = g_ptr_array_index (h->zones, 1);
  g_assert_cmpint (normal->largest_order, ==, 13);
  g_assert_cmpint (normal->free_kib, ==, 64 * (310 + 120 * 2 + 64 * 4 + 30 * 8 + 18 * 16 + 9 * 32 + 4 * 64 +
                                               2 * 128 + 256 + 512 + 3 * 4096 + 5 * 8192));
  /* 2 MiB and up: order 5 and up */
  g_assert_cmpint (normal->huge_free_kib, ==, 64 * (9 * 32 + 4 * 64 + 2 * 128 + 256 + 512 + 3 * 4096 + 5 * 8192));
  g_assert_false (h->fragmented);

  /* without the page size: the orders only, and a note */
  c.in.page_size = -1;
  unknown = jmem_headroom_compute (&c.in);
  g_assert_cmpint (unknown->largest_free_block_kib, ==, -1);
  g_assert_cmpint (((JmemHeadroomZone *) g_ptr_array_index (unknown->zones, 1))->largest_order, ==, 13);
  g_assert_true (has_text (unknown->notes, "page size"));
}

static void
test_fragmented_threshold (void)
{
  g_auto(Case) c = { 0 };
  g_autoptr(JmemHeadroom) h = NULL;
  g_autoptr(JmemBuddyinfo) few = NULL;

  case_init (&c, &base, FALSE);
  c.buddyinfo = buddyinfo_fixture ("buddyinfo.rendered-fragmented.txt");
  c.in.buddyinfo = c.buddyinfo;
  h = jmem_headroom_compute (&c.in);
  g_assert_cmpint (h->largest_free_block_kib, ==, 32);
  g_assert_true (h->fragmented);
  g_assert_cmpint (h->huge_free_kib, ==, 0);

  /* little free: small blocks are all there is, no fragmentation to speak of */
  few = jmem_buddyinfo_parse ("Node 0, zone Normal 1000 0 0 1\n", 31, NULL);
  c.in.buddyinfo = few;
  g_clear_pointer (&h, jmem_headroom_free);
  h = jmem_headroom_compute (&c.in);
  g_assert_cmpint (h->largest_free_block_kib, ==, 32);
  g_assert_false (h->fragmented);
}

static void
test_counts_past_any_ram (void)
{
  static const char text[] = "Node 0, zone Normal 9223372036854775807 0 0 0 0 0 0 0 0 0 9223372036854775807\n";
  g_auto(Case) c = { 0 };
  g_autoptr(JmemHeadroom) h = NULL;

  case_init (&c, &base, FALSE);
  c.buddyinfo = jmem_buddyinfo_parse (text, strlen (text), NULL);
  c.in.buddyinfo = c.buddyinfo;
  h = jmem_headroom_compute (&c.in);
  /* saturated at the accounting's limit, never wrapped */
  g_assert_cmpint (h->buddy_free_kib, ==, JMEM_ACCOUNTING_MAX_KIB);
  g_assert_cmpint (h->largest_free_block_kib, ==, 4096);
}

static void
test_gpu_carveout (void)
{
  Board b = base;
  g_auto(Case) c = { 0 };
  g_autoptr(JmemHeadroom) thor = NULL, plain = NULL;

  b.huge_total = 3072;
  b.huge_free = 1024;
  b.nvmap_used = -1;
  case_init (&c, &b, TRUE);
  thor = jmem_headroom_compute (&c.in);
  /* the unified stack's hugetlb pool is the GPU's: its free pages count */
  g_assert_true (thor->gpu_carveout);
  g_assert_cmpint (term (thor, JMEM_HEADROOM_TERM_GPU_CARVEOUT), ==, 1024 * 2048);
  g_assert_cmpint (thor->allocatable_now_kib, ==, 2097152 - 200000 - 16384 + 1024 * 2048);
  g_assert_cmpint (thor->app_note_kib, ==, -1);
  case_clear (&c);

  /* the same pool on the nvgpu stack without NvMap handles made of it:
   * hugetlbfs's, not the GPU's */
  case_init (&c, &b, FALSE);
  plain = jmem_headroom_compute (&c.in);
  g_assert_false (plain->gpu_carveout);
  g_assert_cmpint (term (plain, JMEM_HEADROOM_TERM_GPU_CARVEOUT), ==, 0);
  g_assert_nonnull (plain->terms[JMEM_HEADROOM_TERM_GPU_CARVEOUT].note);
  case_clear (&c);

  /* a server with a discrete GPU on the unified stack: its memory is its
   * own, the hugetlb pool is no carveout of it, and the figures say whose */
  {
    g_autoptr(JmemHeadroom) server = NULL;

    case_init (&c, &b, TRUE);
    c.in.discrete_gpu = TRUE;
    server = jmem_headroom_compute (&c.in);
    g_assert_false (server->gpu_carveout);
    g_assert_true (has_text (server->notes, "discrete GPU allocates from its own memory"));
  }
}

static void
test_app_note (void)
{
  Board b = base;
  g_auto(Case) c = { 0 };
  g_autoptr(JmemHeadroom) fits_swap = NULL, over = NULL;
  gint64 host;

  /* host memory (used - NvMap) below SwapFree: MemTotal - NvMap */
  b.swap_total = b.swap_free = 8000000;
  case_init (&c, &b, FALSE);
  fits_swap = jmem_headroom_compute (&c.in);
  g_assert_cmpint (fits_swap->app_note_kib, ==, 8000000 - 1048576);
  case_clear (&c);

  /* above it: MemTotal - (host - SwapFree) */
  case_init (&c, &base, FALSE);
  over = jmem_headroom_compute (&c.in);
  host = 8000000 - 2097152 - 1048576;
  g_assert_cmpint (over->app_note_kib, ==, 8000000 - (host - 2097152));
  g_assert_nonnull (strstr (over->app_note_fields, "SwapFree"));
}

static void
test_no_meminfo (void)
{
  JmemHeadroomInput in = { .page_size = 4096, .min_free_kib = -1, .need_kib = 1024,
                           .zram_orig_bytes = -1, .zram_used_bytes = -1 };
  g_autoptr(JmemHeadroom) h = jmem_headroom_compute (&in);

  g_assert_cmpint (h->allocatable_now_kib, ==, -1);
  g_assert_cmpint (h->verdict, ==, JMEM_HEADROOM_UNKNOWN);
  g_assert_true (has_text (h->notes, "nothing to estimate"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/headroom/now-and-after", test_now_and_after);
  g_test_add_func ("/headroom/reserve-larger-than-free", test_reserve_larger_than_free);
  g_test_add_func ("/headroom/unknowns-are-said", test_unknowns_are_said);
  g_test_add_func ("/headroom/zram-ratio-assumed", test_zram_ratio_assumed);
  g_test_add_func ("/headroom/swap-none", test_swap_full_or_none);
  g_test_add_func ("/headroom/verdict-boundaries", test_verdict_boundaries);
  g_test_add_func ("/headroom/actions-name-commands", test_actions_name_commands);
  g_test_add_func ("/headroom/blocks-in-the-page-size-read", test_blocks_in_the_page_size_read);
  g_test_add_func ("/headroom/fragmented-threshold", test_fragmented_threshold);
  g_test_add_func ("/headroom/counts-past-any-ram", test_counts_past_any_ram);
  g_test_add_func ("/headroom/gpu-carveout", test_gpu_carveout);
  g_test_add_func ("/headroom/app-note", test_app_note);
  g_test_add_func ("/headroom/no-meminfo", test_no_meminfo);
  return g_test_run ();
}
