/* SPDX-License-Identifier: GPL-2.0-or-later */
/* /proc/PID/smaps sums: a real capture, the per-generation trees' NvMap
 * processes (tests/model/test-accounting.c) and hostile input. */
#include <string.h>

#include <glib.h>

#include "jmem-test.h"

#include "jmem-error.h"
#include "jmem-smaps.h"

static char *
load (const char *name, gsize *len)
{
  g_autofree char *path = jmem_test_fixture (name, NULL);
  g_autoptr(GError) error = NULL;
  char *data = NULL;

  g_file_get_contents (path, &data, len, &error);
  g_assert_no_error (error);
  return data;
}

static gboolean
match_all (const JmemSmapsVma *vma, gpointer user_data)
{
  return TRUE;
}

static gboolean
match_nvmap_name (const JmemSmapsVma *vma, gpointer user_data)
{
  return jmem_smaps_path_is_nvmap (vma->path, vma->path_len);
}

static gboolean
match_start (const JmemSmapsVma *vma, gpointer user_data)
{
  return vma->start == *(guint64 *) user_data;
}

/* A sleep(1) on Linux 6.18: 36 mappings, Pss 108 kB, Rss 1576 kB (awk
 * over the file says so), and no dma-buf among them. */
static void
test_real (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *data = NULL;
  JmemSmapsSum sum;
  guint64 heap = 0x55d655d8a000;
  gsize len;

  data = load ("procfs/smaps.this-machine-sleep.txt", &len);
  g_assert_true (jmem_smaps_sum (data, len, match_all, NULL, &sum, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (sum.n_vmas, ==, 36);
  g_assert_cmpuint (sum.pss_kib, ==, 108);
  g_assert_cmpuint (sum.rss_kib, ==, 1576);
  g_assert_cmpuint (sum.size_kib, ==, 2576);
  g_assert_cmpuint (sum.n_malformed, ==, 0);

  g_assert_true (jmem_smaps_sum (data, len, match_nvmap_name, NULL, &sum, &error));
  g_assert_cmpuint (sum.n_vmas, ==, 0);
  g_assert_cmpuint (sum.pss_kib, ==, 0);

  /* one mapping, picked by its address */
  g_assert_true (jmem_smaps_sum (data, len, match_start, &heap, &sum, &error));
  g_assert_cmpuint (sum.n_vmas, ==, 1);
}

static void
test_names (void)
{
  const struct { const char *path; gboolean nvmap; } cases[] = {
    { "/dmabuf:", TRUE },
    { "/dmabuf:nvbufsurface", TRUE },
    { "anon_inode:dmabuf", TRUE },
    { "/dev/nvmap", TRUE },
    { "/dev/nvmap2", FALSE },
    { "/dmabuf", FALSE },
    { "[heap]", FALSE },
    { "/usr/lib/x/dmabuf:", FALSE },
    { "", FALSE },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    g_assert_cmpint (jmem_smaps_path_is_nvmap (cases[i].path, strlen (cases[i].path)), ==,
                     cases[i].nvmap);
}

static void
test_hostile (void)
{
  /* A path holding the kernel's escaped newline and a forged header after
   * it; a field line before any header; a size word; no final newline. */
  static const char data[] =
    "Rss:                 999 kB\n"
    "ffff8a000000-ffff8a200000 rw-s 00000000 00:0c 41                         /dmabuf:x\\012ffff0-ffff1 r 0 0:0 0 /dmabuf:\n"
    "Size:               2048 kB\n"
    "Rss:                2048 kB\n"
    "Pss:                1024 kB\n"
    "Pss:                 many kB\n"
    "VmFlags: rd wr sh mr mw me ms dc de dd\n"
    "7f0000000000-7f0000001000 rw-p 00000000 00:00 0 \n"
    "Rss:                   4 kB\n"
    "Pss:                   4 kB";
  g_autoptr(GError) error = NULL;
  JmemSmapsSum sum;

  g_assert_true (jmem_smaps_sum (data, sizeof data - 1, match_nvmap_name, NULL, &sum, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (sum.n_vmas, ==, 1);
  g_assert_cmpuint (sum.rss_kib, ==, 2048);
  g_assert_cmpuint (sum.pss_kib, ==, 1024);
  g_assert_cmpuint (sum.n_malformed, ==, 1);

  g_assert_true (jmem_smaps_sum (data, sizeof data - 1, match_all, NULL, &sum, &error));
  g_assert_cmpuint (sum.pss_kib, ==, 1028);

  /* sums past 2^63 KiB are refused, never wrapped */
  {
    static const char huge[] =
      "1000-2000 rw-s 00000000 00:0c 41 /dmabuf:\n"
      "Pss: 9223372036854775000 kB\n"
      "3000-4000 rw-s 00000000 00:0c 42 /dmabuf:\n"
      "Pss: 9223372036854775000 kB\n";

    g_assert_false (jmem_smaps_sum (huge, sizeof huge - 1, match_all, NULL, &sum, &error));
    g_assert_error (error, JMEM_ERROR, JMEM_ERROR_FAILED);
    g_clear_error (&error);
  }
  /* not smaps at all; an empty one is a process without memory */
  g_assert_false (jmem_smaps_sum ("hello\n", 6, match_all, NULL, &sum, &error));
  g_assert_error (error, JMEM_ERROR, JMEM_ERROR_FAILED);
  g_clear_error (&error);
  g_assert_true (jmem_smaps_sum ("", 0, match_all, NULL, &sum, &error));
  g_assert_cmpuint (sum.n_vmas, ==, 0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/smaps/real", test_real);
  g_test_add_func ("/smaps/names", test_names);
  g_test_add_func ("/smaps/hostile", test_hostile);
  return g_test_run ();
}
