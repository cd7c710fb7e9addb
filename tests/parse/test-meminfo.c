/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The /proc/meminfo parser on this machine, captures of each L4T generation,
 * and malformed or truncated files. */
#include "jmem-error.h"
#include "jmem-file.h"
#include "jmem-meminfo.h"
#include "jmem-test.h"

static char *
load (const char *name, gsize *len)
{
  g_autofree char *path = jmem_test_fixture ("meminfo", name, NULL);
  g_autoptr(GError) error = NULL;
  char *data = NULL;

  jmem_file_read_capped (path, 1 << 20, &data, len, &error);
  g_assert_no_error (error);
  return data;
}

static const JmemMeminfoField *
field (const JmemMeminfo *mi, const char *name)
{
  for (guint i = 0; i < mi->fields->len; i++)
    {
      const JmemMeminfoField *f = &g_array_index (mi->fields, JmemMeminfoField, i);
      if (g_str_equal (f->name, name))
        return f;
    }
  g_error ("no field %s", name);
}

static void
test_this_machine (void)
{
  gsize len;
  g_autofree char *data = load ("meminfo.this-machine.txt", &len);
  g_autoptr(GError) error = NULL;
  g_autoptr(JmemMeminfo) mi = jmem_meminfo_parse (data, len, &error);
  const JmemMeminfoField *f;

  g_assert_no_error (error);
  g_assert_cmpuint (mi->fields->len, ==, 53);
  g_assert_cmpuint (mi->n_malformed, ==, 0);
  g_assert_cmpstr (g_array_index (mi->fields, JmemMeminfoField, 0).name, ==, "MemTotal");
  g_assert_cmpint (jmem_meminfo_get_kib (mi, "MemTotal"), ==, 24683548);
  g_assert_cmpint (jmem_meminfo_get_kib (mi, "MemAvailable"), ==, 24307076);
  g_assert_cmpint (jmem_meminfo_get_kib (mi, "Hugepagesize"), ==, 2048);
  f = field (mi, "HugePages_Total");
  g_assert_false (f->is_kib);
  /* A count is not a size. */
  g_assert_cmpint (jmem_meminfo_get_kib (mi, "HugePages_Total"), ==, -1);
  g_assert_cmpint (jmem_meminfo_get_kib (mi, "NvMapMemUsed"), ==, -1);
  f = field (mi, "Active(anon)");
  g_assert_true (f->is_kib);
}

static void
test_l4t32_nvmap (void)
{
  gsize len;
  g_autofree char *data = load ("meminfo.reference-l4t32-nvmap.txt", &len);
  g_autoptr(GError) error = NULL;
  g_autoptr(JmemMeminfo) mi = jmem_meminfo_parse (data, len, &error);
  const JmemMeminfoField *f;

  g_assert_no_error (error);
  g_assert_cmpuint (mi->fields->len, ==, 20);
  g_assert_cmpuint (mi->n_malformed, ==, 0);
  g_assert_cmpint (jmem_meminfo_get_kib (mi, "MemTotal"), ==, 8038504);
  g_assert_cmpint (jmem_meminfo_get_kib (mi, "CmaTotal"), ==, 491520);
  g_assert_cmpint (jmem_meminfo_get_kib (mi, "CmaFree"), ==, 474132);
  g_assert_cmpint (jmem_meminfo_get_kib (mi, "NvMapMemFree"), ==, 123456);
  g_assert_cmpint (jmem_meminfo_get_kib (mi, "NvMapMemUsed"), ==, 654321);
  g_assert_cmpint (jmem_meminfo_get_kib (mi, "Active(anon)"), ==, 918372);
  f = field (mi, "HugePages_Free");
  g_assert_false (f->is_kib);
  g_assert_cmpuint (f->value, ==, 0);
  /* File order is kept. */
  g_assert_cmpstr (g_array_index (mi->fields, JmemMeminfoField, 19).name, ==, "NvMapMemUsed");
}

static void
test_malformed_lines (void)
{
  gsize len;
  g_autofree char *data = load ("meminfo.hostile-malformed-lines.txt", &len);
  g_autoptr(GError) error = NULL;
  g_autoptr(JmemMeminfo) mi = jmem_meminfo_parse (data, len, &error);
  const JmemMeminfoField *f;

  g_assert_no_error (error);
  g_assert_cmpuint (mi->fields->len, ==, 3);
  g_assert_cmpuint (mi->n_malformed, ==, 8);
  g_assert_cmpint (jmem_meminfo_get_kib (mi, "MemTotal"), ==, 8038504);
  g_assert_cmpint (jmem_meminfo_get_kib (mi, "Shmem"), ==, 40136);
  g_assert_cmpint (jmem_meminfo_get_kib (mi, "MemFree"), ==, -1);
  g_assert_cmpint (jmem_meminfo_get_kib (mi, "Cached"), ==, -1);
  g_assert_cmpint (jmem_meminfo_get_kib (mi, "Buffers"), ==, -1);
  g_assert_cmpint (jmem_meminfo_get_kib (mi, "SwapFree"), ==, -1);
  f = field (mi, "HugePages_Total");
  g_assert_cmpuint (f->value, ==, 4);
}

static void
test_truncated (void)
{
  gsize len;
  g_autofree char *data = load ("meminfo.hostile-truncated.txt", &len);
  g_autoptr(GError) error = NULL;
  g_autoptr(JmemMeminfo) mi = jmem_meminfo_parse (data, len, &error);

  g_assert_no_error (error);
  g_assert_cmpuint (mi->fields->len, ==, 2);
  /* "MemAvailable:    66" has no newline: cut short, not a unit-less count. */
  g_assert_cmpuint (mi->n_malformed, ==, 1);
  g_assert_cmpint (jmem_meminfo_get_kib (mi, "MemFree"), ==, 5212040);
  g_assert_cmpint (jmem_meminfo_get_kib (mi, "MemAvailable"), ==, -1);
}

static void
test_garbage_and_empty (void)
{
  gsize len;
  g_autofree char *data = load ("meminfo.hostile-garbage.bin", &len);
  g_autoptr(GError) error = NULL;
  JmemMeminfo *mi = jmem_meminfo_parse (data, len, &error);

  g_assert_null (mi);
  g_assert_error (error, JMEM_ERROR, JMEM_ERROR_FAILED);
  g_clear_error (&error);

  mi = jmem_meminfo_parse ("", 0, &error);
  g_assert_null (mi);
  g_assert_error (error, JMEM_ERROR, JMEM_ERROR_FAILED);
}

static void
test_embedded_nul (void)
{
  static const char data[] = "MemTotal:   100 kB\nMem\0Free:   5 kB\nCached: 7 kB\n";
  g_autoptr(GError) error = NULL;
  g_autoptr(JmemMeminfo) mi = jmem_meminfo_parse (data, sizeof data - 1, &error);

  g_assert_no_error (error);
  g_assert_cmpint (jmem_meminfo_get_kib (mi, "MemTotal"), ==, 100);
  g_assert_cmpint (jmem_meminfo_get_kib (mi, "Cached"), ==, 7);
  g_assert_cmpuint (mi->n_malformed, ==, 1);
}

static void
test_live (void)
{
  g_autofree char *data = NULL;
  gsize len;
  g_autoptr(GError) error = NULL;
  g_autoptr(JmemMeminfo) mi = NULL;

  jmem_file_read_capped ("/proc/meminfo", 1 << 20, &data, &len, &error);
  g_assert_no_error (error);
  mi = jmem_meminfo_parse (data, len, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (mi->n_malformed, ==, 0);
  g_assert_cmpint (jmem_meminfo_get_kib (mi, "MemTotal"), >, 0);
  g_assert_cmpint (jmem_meminfo_get_kib (mi, "MemFree"), <=,
                   jmem_meminfo_get_kib (mi, "MemTotal"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/meminfo/this-machine", test_this_machine);
  g_test_add_func ("/meminfo/l4t32-cma-nvmap", test_l4t32_nvmap);
  g_test_add_func ("/meminfo/malformed-lines", test_malformed_lines);
  g_test_add_func ("/meminfo/truncated", test_truncated);
  g_test_add_func ("/meminfo/garbage-and-empty", test_garbage_and_empty);
  g_test_add_func ("/meminfo/embedded-nul", test_embedded_nul);
  g_test_add_func ("/meminfo/live", test_live);
  return g_test_run ();
}
