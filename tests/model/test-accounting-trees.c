/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The accounting and the footprint on every captured tree, through the
 * collector as `jmem snapshot --sysroot` runs it: every tree adds up to
 * MemTotal, and each generation's rule holds (fixtures/trees/README.md and
 * each tree's README give the numbers asserted here and how they arise). */
#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>

#include "jmem-test.h"

#include "jmem-collect.h"
#include "jmem-nvmap-redact.h"
#include "jmem-snapshot.h"

static JmemSnapshot *
collect (const char *root)
{
  JmemCollectOptions options = { .sysroot = root, .top = -1 };
  g_autoptr(GError) error = NULL;
  JmemSnapshot *s = jmem_collect_snapshot (&options, &error);

  g_assert_no_error (error);
  g_assert_nonnull (s);
  return s;
}

static char *
tree (const char *name)
{
  return jmem_test_fixture ("trees", name, NULL);
}

static JmemProcess *
process (const JmemSnapshot *s, gint64 pid)
{
  for (guint i = 0; i < s->processes->len; i++)
    {
      JmemProcess *p = g_ptr_array_index (s->processes, i);

      if (p->pid == pid)
        return p;
    }
  g_assert_not_reached ();
}

static gint64
bucket (const JmemSnapshot *s, JmemBucketId id)
{
  return s->accounting->buckets[id].kib;
}

static gboolean
warned (const JmemSnapshot *s, const char *needle)
{
  for (guint i = 0; i < s->warnings->len; i++)
    if (strstr (((JmemWarning *) g_ptr_array_index (s->warnings, i))->message, needle) != NULL)
      return TRUE;
  return FALSE;
}

static void
assert_adds_up (const JmemSnapshot *s)
{
  const JmemAccounting *a = s->accounting;
  gint64 sum;

  g_assert_nonnull (a);
  g_assert_cmpint (a->mem_total_kib, ==, s->mem_total_kib);
  sum = a->unexplained_kib;
  for (guint i = 0; i < JMEM_N_BUCKETS; i++)
    if (a->buckets[i].kib >= 0)
      sum += a->buckets[i].kib;
  g_assert_cmpint (sum, ==, a->mem_total_kib);
}

/* Every tree in fixtures/trees, whatever it holds. */
static void
test_every_tree_adds_up (void)
{
  g_autofree char *dir = jmem_test_fixture ("trees", NULL);
  g_autoptr(GDir) trees = g_dir_open (dir, 0, NULL);
  const char *name;
  guint n = 0;

  g_assert_nonnull (trees);
  while ((name = g_dir_read_name (trees)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);
      g_autoptr(JmemSnapshot) s = NULL;

      if (!g_file_test (path, G_FILE_TEST_IS_DIR))
        continue;
      g_test_message ("tree %s", name);
      s = collect (path);
      assert_adds_up (s);
      n++;
    }
  g_assert_cmpuint (n, >=, 8);
}

/* A copy of @name under a new temporary directory, less @remove. */
static char *
copy_without (const char *name, const char * const *remove)
{
  g_autofree char *src = tree (name);
  g_autofree char *base = jmem_test_make_tmp ("jmem-accounting-XXXXXX", NULL);
  char *dst = g_build_filename (base, name, NULL);
  const char *cp[] = { "cp", "-a", src, dst, NULL };
  int status = -1;

  g_assert_true (g_spawn_sync (NULL, (char **) cp, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL,
                               NULL, NULL, &status, NULL));
  g_assert_cmpint (status, ==, 0);
  for (guint i = 0; remove != NULL && remove[i] != NULL; i++)
    {
      g_autofree char *path = g_build_filename (dst, remove[i], NULL);

      g_assert_cmpint (g_unlink (path), ==, 0);
    }
  return dst;
}

static void
remove_copy (const char *copy)
{
  g_autofree char *base = g_path_get_dirname (copy);
  const char *rm[] = { "rm", "-rf", base, NULL };

  g_assert_true (g_spawn_sync (NULL, (char **) rm, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL,
                               NULL, NULL, NULL, NULL));
}

/* The double count, through both sources: deepstream-app maps 6144 KiB of
 * its 12288 KiB of NvMap buffers; 3072 KiB of them are in its PSS of 34428
 * KiB, all 6144 in its RSS of 38300 (r36-orin-nano/README.md). */
static void
test_footprint_pss_from_smaps (void)
{
  g_autofree char *root = tree ("r36-orin-nano");
  g_autoptr(JmemSnapshot) s = collect (root);
  JmemProcess *ds = process (s, 4242);

  g_assert_cmpint (ds->pss_kib, ==, 34428);
  g_assert_cmpint (ds->nvmap_kib, ==, 12288);
  g_assert_cmpint (ds->nvmap_mapped_kib, ==, 3072);
  g_assert_cmpstr (ds->nvmap_mapped_source, ==, "smaps");
  g_assert_true (ds->footprint_pss);
  /* its non-NvMap PSS plus its share, not PSS + share (46716) */
  g_assert_cmpint (ds->footprint_kib, ==, 34428 - 3072 + 12288);
  /* a holder that maps nothing: NvMap's maps says so, nothing read */
  g_assert_cmpint (process (s, 950)->nvmap_mapped_kib, ==, 0);
  g_assert_cmpint (process (s, 950)->footprint_kib, ==, 17600 + 1024);
}

static void
test_footprint_rss_from_maps (void)
{
  const char *remove[] = { "proc/4242/smaps_rollup", "proc/4242/smaps", NULL };
  g_autofree char *root = copy_without ("r36-orin-nano", remove);
  g_autoptr(JmemSnapshot) s = collect (root);
  JmemProcess *ds = process (s, 4242);

  g_assert_cmpint (ds->pss_kib, ==, -1);
  g_assert_cmpint (ds->rss_kib, ==, 38300);
  /* what NvMap's maps lists for the process: 2048 + 4096 KiB */
  g_assert_cmpint (ds->nvmap_mapped_kib, ==, 6144);
  g_assert_cmpstr (ds->nvmap_mapped_source, ==, "nvmap-maps");
  g_assert_false (ds->footprint_pss);
  g_assert_cmpint (ds->footprint_kib, ==, 38300 - 6144 + 12288);
  assert_adds_up (s);
  remove_copy (root);
}

/* NvMap's maps unread: the dma-buf mappings by name, the camera's too. */
static void
test_footprint_by_name (void)
{
  const char *remove[] = { "sys/kernel/debug/nvmap/iovmm/maps", NULL };
  g_autofree char *root = copy_without ("r36-orin-nano", remove);
  g_autoptr(JmemSnapshot) s = collect (root);
  JmemProcess *ds = process (s, 4242);

  g_assert_cmpint (ds->nvmap_mapped_kib, ==, 3072 + 1024);
  g_assert_cmpstr (ds->nvmap_mapped_source, ==, "smaps-name");
  g_assert_cmpint (ds->footprint_kib, ==, 34428 - 4096 + 12288);
  remove_copy (root);
}

/* maps as the helper gives it, each VMA as [0, length): smaps by name,
 * never by those ranges (which would match nothing, or the wrong pages). */
static void
test_footprint_stripped_maps (void)
{
  g_autofree char *root = copy_without ("r36-orin-nano", NULL);
  g_autofree char *path = g_build_filename (root, "sys/kernel/debug/nvmap/iovmm/maps", NULL);
  g_autofree char *data = NULL;
  gsize len = 0;
  g_autoptr(JmemSnapshot) s = NULL;
  JmemProcess *ds;

  g_assert_true (g_file_get_contents (path, &data, &len, NULL));
  jmem_nvmap_redact (JMEM_NVMAP_TABLE_MAPS, JMEM_NVMAP_REDACT_UIDS | JMEM_NVMAP_REDACT_VMAS,
                     data, len);
  g_assert_true (g_file_set_contents (path, data, (gssize) len, NULL));
  s = collect (root);
  ds = process (s, 4242);
  g_assert_cmpint (ds->nvmap_mapped_kib, ==, 3072 + 1024);
  g_assert_cmpstr (ds->nvmap_mapped_source, ==, "smaps-name");
  g_assert_cmpint (process (s, 950)->nvmap_mapped_kib, ==, 0);
  remove_copy (root);
}

/* Neither smaps nor maps: nothing to take out, and the report says so. */
static void
test_footprint_unknown (void)
{
  const char *remove[] = { "sys/kernel/debug/nvmap/iovmm/maps", "proc/4242/smaps", NULL };
  g_autofree char *root = copy_without ("r36-orin-nano", remove);
  g_autoptr(JmemSnapshot) s = collect (root);
  JmemProcess *ds = process (s, 4242);

  g_assert_cmpint (ds->nvmap_mapped_kib, ==, -1);
  g_assert_null (ds->nvmap_mapped_source);
  g_assert_cmpint (ds->footprint_kib, ==, 34428 + 12288);
  g_assert_true (warned (s, "may count its CPU-mapped NvMap buffers twice"));
  remove_copy (root);
}

/* R36: NvMap from debugfs, the pool from pagepool/, free_size read; no
 * meminfo lines to compare. */
static void
test_r36 (void)
{
  g_autofree char *root = tree ("r36-orin-nano");
  g_autoptr(JmemSnapshot) s = collect (root);
  const JmemAccounting *a = s->accounting;

  assert_adds_up (s);
  g_assert_cmpstr (a->nvmap_source, ==, "debugfs");
  g_assert_cmpint (bucket (s, JMEM_BUCKET_NVMAP), ==, 13376);
  g_assert_cmpint (bucket (s, JMEM_BUCKET_NVMAP_POOL), ==, (7000 + 168) * 4);
  g_assert_cmpint (a->nvmap_iovmm_allocatable_kib, ==, G_GINT64_CONSTANT (4631674880) / 1024);
  g_assert_cmpint (bucket (s, JMEM_BUCKET_ZRAM), ==, 8192);
  g_assert_cmpint (a->unexplained_kib, ==, 120000);
  g_assert_cmpstr (a->physical_source, ==, "device-tree");
  g_assert_cmpint (a->physical_kib, ==, 8 * 1024 * 1024);
  g_assert_cmpint (a->firmware_reserved_kib, ==, 8 * 1024 * 1024 - 7802852);
}

/* R32: NvMapMemUsed and NvMapMemFree agree with debugfs; kernel 4.9's
 * VmallocUsed is unknown; smaps names dma-bufs anon_inode:dmabuf. */
static void
test_r32 (void)
{
  g_autofree char *root = tree ("r32-xavier-nx");
  g_autoptr(JmemSnapshot) s = collect (root);
  const JmemAccounting *a = s->accounting;
  JmemProcess *ds = process (s, 2800);

  assert_adds_up (s);
  g_assert_cmpint (a->warnings->len, ==, 0);
  g_assert_cmpint (bucket (s, JMEM_BUCKET_NVMAP), ==, 67292);
  g_assert_cmpint (bucket (s, JMEM_BUCKET_NVMAP_POOL), ==, 80000);
  g_assert_cmpint (bucket (s, JMEM_BUCKET_VMALLOC), ==, -1);
  g_assert_cmpint (a->unexplained_kib, ==, 96000);
  g_assert_cmpint (ds->nvmap_mapped_kib, ==, 4096);
  g_assert_cmpint (ds->footprint_kib, ==, 34428 - 4096 + 49152);
}

/* R39 on Orin: hugetlb-backed NvMap handles stay in hugetlb, no page twice. */
static void
test_r39_hugetlbfs (gconstpointer name)
{
  g_autofree char *root = tree (name);
  g_autoptr(JmemSnapshot) s = collect (root);
  const JmemAccounting *a = s->accounting;

  assert_adds_up (s);
  g_assert_true (s->nvmap_hugetlbfs_column);
  g_assert_cmpint (a->nvmap_hugetlbfs_kib, ==, 3145728);
  g_assert_cmpint (a->nvmap_total_kib, ==, 3145728 + 524288 + 128);
  g_assert_cmpint (bucket (s, JMEM_BUCKET_NVMAP), ==, 524288 + 128);
  g_assert_cmpint (bucket (s, JMEM_BUCKET_HUGETLB), ==, 2048 * 2048);
  g_assert_cmpint (a->hugetlb_free_kib, ==, 512 * 2048);
  g_assert_cmpint (a->unexplained_kib, ==, 200000);
}

/* Thor: the carveout is hugetlb; nvidia.ko's memory is the gpu bucket,
 * what the driver reports per process. The 4 GiB of huge pages in use may
 * be the same pages (the sources do not say): counted once, in gpu, and
 * named as the overlap. */
static void
test_thor (void)
{
  g_autofree char *root = tree ("thor-unified");
  g_autoptr(JmemSnapshot) s = collect (root);
  const JmemAccounting *a = s->accounting;

  assert_adds_up (s);
  g_assert_cmpint (bucket (s, JMEM_BUCKET_GPU), ==, (60 + 2) << 20);
  g_assert_cmpstr (a->buckets[JMEM_BUCKET_GPU].source, ==, "nvidia-smi");
  g_assert_cmpint (a->gpu_hugetlb_overlap_kib, ==, 2048 * 2048);
  g_assert_cmpint (bucket (s, JMEM_BUCKET_HUGETLB), ==, (3072 - 2048) * 2048);
  /* no NvMap on the unified stack: none, not unknown */
  g_assert_cmpint (bucket (s, JMEM_BUCKET_NVMAP), ==, 0);
  /* R38 with a live GPU process: the pool cannot be told apart */
  g_assert_cmpint (bucket (s, JMEM_BUCKET_GPU_POOL), ==, -1);
  g_assert_cmpint (a->reconciliation.gpu_kib, ==, (60 + 2) * 1024 * 1024);
  g_assert_cmpint (a->unexplained_kib, ==, (4 << 20) + 307200);
  g_assert_cmpstr (a->physical_source, ==, "device-tree");
  /* what processes hold counts their GPU memory: used less it */
  g_assert_cmpint (a->reconciliation.by_processes_kib, ==,
                   a->reconciliation.pss_kib + a->reconciliation.rss_without_pss_kib + ((60 + 2) << 20));
}

/* One listed PID gone, another still counted by the driver: the bucket is
 * the driver's whole figure (74.5 GiB, every face's GPU total), the
 * processes hold 74 GiB of it, and the 512 MiB of the exited PID is named. */
static void
test_thor_churn (void)
{
  g_autofree char *root = tree ("thor-churn");
  g_autoptr(JmemSnapshot) s = collect (root);
  const JmemAccounting *a = s->accounting;

  assert_adds_up (s);
  g_assert_cmpint (bucket (s, JMEM_BUCKET_GPU), ==, (74 << 20) + (1 << 19));
  g_assert_cmpint (a->gpu_reported_kib, ==, (74 << 20) + (1 << 19));
  g_assert_cmpint (a->gpu_exited_kib, ==, 1 << 19);
  g_assert_cmpint (a->reconciliation.gpu_kib, ==, 74 << 20);
  g_assert_cmpint (a->unexplained_kib, ==, (4 << 20) + 307200);
}

/* R38 after the model exited: no process holds GPU memory, and the 20 GiB
 * the driver keeps pooled is the gpu_pool bucket, an estimate named as
 * such, instead of the remainder. */
static void
test_thor_r38_pool (void)
{
  g_autofree char *root = tree ("thor-r38-pool");
  g_autoptr(JmemSnapshot) s = collect (root);
  const JmemAccounting *a = s->accounting;

  assert_adds_up (s);
  g_assert_cmpint (bucket (s, JMEM_BUCKET_GPU), ==, 0);
  g_assert_cmpint (a->gpu_hugetlb_overlap_kib, ==, 0);
  g_assert_cmpint (bucket (s, JMEM_BUCKET_HUGETLB), ==, 3072 * 2048);
  g_assert_cmpint (bucket (s, JMEM_BUCKET_GPU_POOL), ==, (20 << 20) + 307200);
  g_assert_true (a->buckets[JMEM_BUCKET_GPU_POOL].estimate);
  g_assert_cmpstr (a->buckets[JMEM_BUCKET_GPU_POOL].source, ==, "estimate");
  g_assert_cmpint (a->unexplained_kib, ==, 0);
}

/* The same board on R39.2: the driver returned the pages itself, so no
 * pool is taken out of the remainder, which keeps the drivers' 300 MiB. */
static void
test_thor_r39_idle (void)
{
  g_autofree char *root = tree ("thor-r39-idle");
  g_autoptr(JmemSnapshot) s = collect (root);
  const JmemAccounting *a = s->accounting;

  assert_adds_up (s);
  g_assert_cmpint (bucket (s, JMEM_BUCKET_GPU), ==, 0);
  g_assert_cmpint (bucket (s, JMEM_BUCKET_GPU_POOL), ==, 0);
  g_assert_false (a->buckets[JMEM_BUCKET_GPU_POOL].estimate);
  g_assert_cmpint (a->unexplained_kib, ==, 307200);
}

/* The vLLM board: meminfo's NvMap lines and debugfs agree; Xorg maps a
 * buffer of 8100 KiB, 4050 of it in its PSS. */
static void
test_orin (void)
{
  g_autofree char *root = tree ("orin-agx-nvgpu");
  g_autoptr(JmemSnapshot) s = collect (root);
  JmemProcess *xorg = process (s, 1731);

  assert_adds_up (s);
  g_assert_cmpint (s->accounting->warnings->len, ==, 0);
  g_assert_cmpint (bucket (s, JMEM_BUCKET_NVMAP_POOL), ==, 12288);
  g_assert_cmpint (s->accounting->unexplained_kib, ==, 180000);
  g_assert_cmpint (xorg->nvmap_mapped_kib, ==, 4050);
  g_assert_cmpint (xorg->footprint_kib, ==, 61000 - 4050 + 18140);
}

/* Fields past any RAM are refused with a warning; the sum still holds. */
static void
test_hostile (void)
{
  g_autofree char *root = tree ("hostile");
  g_autoptr(JmemSnapshot) s = collect (root);

  assert_adds_up (s);
  g_assert_cmpint (bucket (s, JMEM_BUCKET_PAGE_CACHE), ==, -1);
  g_assert_cmpint (bucket (s, JMEM_BUCKET_HUGETLB), ==, -1);
  g_assert_true (warned (s, "Cached reads 9223372036854775807 kB"));
  g_assert_true (warned (s, "HugePages_Total reads 9223372036854775807 pages"));
  g_assert_true (warned (s, "left out of the reconciliation"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/accounting-trees/every-tree-adds-up", test_every_tree_adds_up);
  g_test_add_func ("/accounting-trees/footprint/pss-smaps", test_footprint_pss_from_smaps);
  g_test_add_func ("/accounting-trees/footprint/rss-maps", test_footprint_rss_from_maps);
  g_test_add_func ("/accounting-trees/footprint/by-name", test_footprint_by_name);
  g_test_add_func ("/accounting-trees/footprint/unknown", test_footprint_unknown);
  g_test_add_func ("/accounting-trees/r32", test_r32);
  g_test_add_func ("/accounting-trees/r36", test_r36);
  g_test_add_data_func ("/accounting-trees/r39-hugetlbfs", "r39-orin-agx", test_r39_hugetlbfs);
  /* the 3 GiB handle held by two clients (SHARE 2): counted once */
  g_test_add_data_func ("/accounting-trees/r39-shared-hugetlbfs", "r39-shared-hugetlbfs",
                        test_r39_hugetlbfs);
  g_test_add_func ("/accounting-trees/footprint-stripped-maps", test_footprint_stripped_maps);
  g_test_add_func ("/accounting-trees/thor", test_thor);
  g_test_add_func ("/accounting-trees/thor-churn", test_thor_churn);
  g_test_add_func ("/accounting-trees/thor-r38-pool", test_thor_r38_pool);
  g_test_add_func ("/accounting-trees/thor-r39-idle", test_thor_r39_idle);
  g_test_add_func ("/accounting-trees/orin", test_orin);
  g_test_add_func ("/accounting-trees/hostile", test_hostile);
  return g_test_run ();
}
