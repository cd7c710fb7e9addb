/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The helper's redaction of iovmm/allocations and iovmm/maps on files the
 * kernel would print for hostile process names and tags: no kernel pointer
 * and no VMA address left, and the client reads what is left as it read
 * the original (nvmap-redact-check.c). */
#include <string.h>

#include "jmem-test.h"

#include "jmem-nvmap-redact.h"
#include "nvmap-redact-check.h"

/* Every pointer the kernel prints here starts with this, and no name or
 * tag holds it: any of it left in a redacted file is a leak. */
#define POINTER_MARK "ffffff80"

/* What any user can name a process (prctl(PR_SET_NAME), 15 bytes) or tag
 * a buffer (31 bytes) with. */
static const char *const hostile[] = {
  "Xorg", "", " ", "\n BASE UID", "\nBASE UID", "\n  BASE SIZE UID", "a\nb",
  "\n", "\n\n", "12 34K", " 1731 18140K", "\ntotal 4K", "CLIENT", "\nCLIENT PID",
  "\n                                             0", "K\nK", "-", "1-2 4K", "\t\t",
  "\n      BASE   UID FROM_HUGETLBFS", "ab\n ffff-ffff 4K", "\nNote: x",
  "\n                                      1 4K 1 1 1 1 1 1 1 0 1 x",
};

static const char *
pick (GRand *rand, gsize max)
{
  const char *s = hostile[g_rand_int_range (rand, 0, G_N_ELEMENTS (hostile))];

  return strlen (s) <= max ? s : "x";
}

static void
add_pointer (GString *out, GRand *rand, int width)
{
  g_string_append_printf (out, "%*s" POINTER_MARK "%08x", width - 16, "", g_rand_int (rand));
}

/* iovmm/allocations as nvmap_debug_allocations_show() prints it. */
static char *
make_allocations (GRand *rand, gboolean huge)
{
  GString *out = g_string_new (NULL);
  guint n_clients = g_rand_int_range (rand, 1, 5);

  g_string_append_printf (out, "%-18s %18s %8s %11s\n", "CLIENT", "PROCESS", "PID", "SIZE");
  g_string_append_printf (out, "%-18s %18s %8s %11s %8s %6s %6s %6s %6s %6s %6s %8s%s\n", "", "",
                          "BASE", "SIZE", "FLAGS", "REFS", "DUPES", "PINS", "KMAPS", "UMAPS",
                          "SHARE", "UID", huge ? " FROM_HUGETLBFS" : "");
  for (guint c = 0; c < n_clients; c++)
    {
      guint n_handles = g_rand_int_range (rand, 1, 4);

      g_string_append_printf (out, "%-18s %18s %8u %10uK\n", "user", pick (rand, 15),
                              1000 + c, 4096 * n_handles);
      for (guint h = 0; h < n_handles; h++)
        {
          g_string_append_printf (out, "%-18s %-18s %8x %10uK %8x %6u %6u %6u %6u %6u %6u ", "", "",
                                  0, 4096, 0x10120001, 2, 1, 0, 0, 1, 1 + h % 2);
          add_pointer (out, rand, 16);
          if (huge)
            g_string_append_printf (out, " %6u", h % 2);
          g_string_append_printf (out, " %s\n", pick (rand, 31));
        }
      g_string_append (out, "\n");
    }
  g_string_append_printf (out, "%-18s %-18s %8s %10uK\n", "total", "", "", 4096 * n_clients);
  return g_string_free (out, FALSE);
}

/* iovmm/maps as nvmap_debug_maps_show() prints it. */
static char *
make_maps (GRand *rand)
{
  GString *out = g_string_new (NULL);
  guint n_clients = g_rand_int_range (rand, 1, 5);

  g_string_append_printf (out, "%-18s %18s %8s %11s\n", "CLIENT", "PROCESS", "PID", "SIZE");
  g_string_append_printf (out, "%-18s %18s %8s %11s %8s %6s %9s %21s %18s\n", "", "", "BASE",
                          "SIZE", "FLAGS", "SHARE", "UID", "MAPS", "MAPSIZE");
  for (guint c = 0; c < n_clients; c++)
    {
      g_string_append_printf (out, "%-18s %18s %8u %10uK\n", "user", pick (rand, 15), 1000 + c,
                              8192);
      g_string_append_printf (out, "%-18s %-18s %8x %10uK %8x %6u ", "", "", 0, 8192,
                              0x10120001, 1);
      add_pointer (out, rand, 16);
      g_string_append_printf (out, " %12s %12s %6uK\n", "", "", 8192);
      for (guint v = 0; v < 2; v++)
        g_string_append_printf (out, "%-18s %-18s %8s %11s %8s %6s %16s %-12x-%12x %6uK\n",
                                "", "", "", "", "", "", "",
                                0x7f000000u + v * 0x400000u, 0x7f400000u + v * 0x400000u, 4096);
      g_string_append (out, "\n");
    }
  g_string_append_printf (out, "%-18s %-18s %8s %10uK\n", "total", "", "", 8192 * n_clients);
  return g_string_free (out, FALSE);
}

static void
check_file (JmemNvmapTableFile file, char *data)
{
  gsize len = strlen (data);
  g_autofree char *why = jmem_nvmap_redact_check (data, len);

  if (why != NULL)
    g_test_message ("file:\n%s", data);
  g_assert_null (why);
  jmem_nvmap_redact (file, JMEM_NVMAP_REDACT_UIDS | JMEM_NVMAP_REDACT_VMAS, data, len);
  if (strstr (data, POINTER_MARK) != NULL || strstr (data, "7f0") != NULL ||
      strstr (data, "7f4") != NULL)
    g_test_message ("redacted:\n%s", data);
  g_assert_null (strstr (data, POINTER_MARK));
  if (file == JMEM_NVMAP_TABLE_MAPS)
    {
      g_assert_null (strstr (data, "7f0"));
      g_assert_null (strstr (data, "7f4"));
    }
}

static void
test_generated (void)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (26);

  for (guint i = 0; i < 2000; i++)
    {
      g_autofree char *a = make_allocations (rand, i % 2);
      g_autofree char *m = make_maps (rand);

      check_file (JMEM_NVMAP_TABLE_ALLOCATIONS, a);
      check_file (JMEM_NVMAP_TABLE_MAPS, m);
    }
}

/* The report's case: a process named "\n BASE UID" (10 bytes) splits its
 * row, and the rest of it must not pass for a header that moves the UID
 * column of every later handle. */
static void
test_name_posing_as_header (void)
{
  g_autofree char *file = g_strdup (
    "CLIENT                        PROCESS      PID        SIZE\n"
    "                                          BASE        SIZE    FLAGS   REFS  DUPES   PINS  KMAPS  UMAPS  SHARE      UID\n"
    "user                       \n BASE UID     4242       4096K\n"
    "                                             0       4096K 10120001      2      1      0      0      1      1 ffffff80a1b2c3d4 nvbuf\n"
    "\n"
    "user                                root        1       4096K\n"
    "                                             0       4096K 10120001      2      1      0      0      1      1 ffffff80a1b2c400 x\n"
    "\n"
    "total                                                8192K\n");
  g_autoptr(JmemNvmapAllocations) a = NULL;
  g_autoptr(GError) error = NULL;

  jmem_nvmap_redact (JMEM_NVMAP_TABLE_ALLOCATIONS, JMEM_NVMAP_REDACT_UIDS, file, strlen (file));
  g_assert_null (strstr (file, POINTER_MARK));
  a = jmem_nvmap_allocations_parse (file, strlen (file), &error);
  g_assert_no_error (error);
  g_assert_cmpuint (a->clients->len, ==, 2);
  g_assert_cmpstr (((JmemNvmapClientHandles *) g_ptr_array_index (a->clients, 0))->client->process,
                   ==, "\n BASE UID");
  for (guint i = 0; i < 2; i++)
    {
      JmemNvmapClientHandles *ch = g_ptr_array_index (a->clients, i);

      g_assert_cmpuint (ch->handles->len, ==, 1);
      g_assert_cmpuint (((JmemNvmapHandle *) g_ptr_array_index (ch->handles, 0))->size_kib, ==,
                        4096);
    }
  g_assert_cmpuint (a->n_malformed, ==, 0);
}

/* The same through a tag: its second line is damage, not a header. */
static void
test_tag_posing_as_header (void)
{
  g_autofree char *file = g_strdup (
    "CLIENT                        PROCESS      PID        SIZE\n"
    "                                          BASE        SIZE    FLAGS  SHARE       UID                  MAPS            MAPSIZE\n"
    "user                   deepstream-app     4242      12288K\n"
    "                                             0       8192K 10120001      1 ffffff80a1b2c3d4                             2048K\n"
    "                                                                                            ffff8a000000-ffff8a200000   2048K\n"
    " BASE UID\n"
    "                                             0       4096K 10120001      1 ffffff80a1b2c400                             4096K\n"
    "                                                                                                 7000000-     7400000   4096K\n"
    "\n"
    "total                                               12288K\n");
  g_autoptr(JmemNvmapMaps) maps = NULL;
  const JmemNvmapClientMaps *cm;
  g_autoptr(GError) error = NULL;

  jmem_nvmap_redact (JMEM_NVMAP_TABLE_MAPS, JMEM_NVMAP_REDACT_UIDS | JMEM_NVMAP_REDACT_VMAS,
                     file, strlen (file));
  g_assert_null (strstr (file, POINTER_MARK));
  g_assert_null (strstr (file, "ffff8a"));
  g_assert_null (strstr (file, "7000000"));
  maps = jmem_nvmap_maps_parse (file, strlen (file), &error);
  g_assert_no_error (error);
  g_assert_cmpuint (maps->clients->len, ==, 1);
  cm = g_ptr_array_index (maps->clients, 0);
  g_assert_cmpuint (cm->mapped_kib, ==, 6144);
  g_assert_cmpuint (cm->n_handles, ==, 2);
  g_assert_cmpuint (cm->vmas->len, ==, 2);
  /* sizes kept, addresses gone */
  g_assert_cmpuint (g_array_index (cm->vmas, JmemNvmapVma, 0).start, ==, 0);
  g_assert_cmpuint (g_array_index (cm->vmas, JmemNvmapVma, 0).end, ==, 0x200000);
  g_assert_cmpuint (g_array_index (cm->vmas, JmemNvmapVma, 1).end, ==, 0x400000);
  g_assert_cmpuint (maps->n_malformed, ==, 1);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/nvmap-redact/generated", test_generated);
  g_test_add_func ("/nvmap-redact/name-posing-as-header", test_name_posing_as_header);
  g_test_add_func ("/nvmap-redact/tag-posing-as-header", test_tag_posing_as_header);
  return g_test_run ();
}
