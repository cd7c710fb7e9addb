/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The headroom's kernel inputs beside meminfo: /proc/buddyinfo and
 * /proc/swaps, on real, rendered and hostile files. */
#include <string.h>

#include "jmem-test.h"

#include "jmem-buddyinfo.h"
#include "jmem-error.h"
#include "jmem-swaps.h"

static char *
fixture (const char *name, gsize *len)
{
  g_autofree char *path = jmem_test_fixture ("vm", name, NULL);
  g_autoptr(GError) error = NULL;
  char *data = NULL;

  g_assert_true (g_file_get_contents (path, &data, len, &error));
  return data;
}

static JmemBuddyinfo *
buddyinfo (const char *name)
{
  gsize len;
  g_autofree char *data = fixture (name, &len);
  g_autoptr(GError) error = NULL;
  JmemBuddyinfo *b = jmem_buddyinfo_parse (data, len, &error);

  g_assert_no_error (error);
  g_assert_nonnull (b);
  return b;
}

static void
test_this_machine (void)
{
  g_autoptr(JmemBuddyinfo) b = buddyinfo ("buddyinfo.this-machine.txt");

  g_assert_cmpuint (b->n_malformed, ==, 0);
  g_assert_cmpuint (b->zones->len, >=, 1);
  for (guint i = 0; i < b->zones->len; i++)
    {
      const JmemBuddyZone *z = g_ptr_array_index (b->zones, i);

      /* 4 KiB pages on x86-64: MAX_ORDER 10, 11 columns */
      g_assert_cmpuint (z->n_orders, ==, 11);
      g_assert_cmpuint (z->node, ==, 0);
    }
  g_assert_cmpstr (((JmemBuddyZone *) g_ptr_array_index (b->zones, 0))->zone, ==, "DMA");
}

static void
test_64k_pages (void)
{
  g_autoptr(JmemBuddyinfo) b = buddyinfo ("buddyinfo.rendered-arm64-64k.txt");
  const JmemBuddyZone *normal;

  g_assert_cmpuint (b->zones->len, ==, 2);
  normal = g_ptr_array_index (b->zones, 1);
  g_assert_cmpstr (normal->zone, ==, "Normal");
  g_assert_cmpuint (normal->n_orders, ==, 14);
  g_assert_cmpuint (normal->blocks[0], ==, 310);
  g_assert_cmpuint (normal->blocks[13], ==, 5);
}

static void
test_hostile (void)
{
  g_autoptr(JmemBuddyinfo) b = buddyinfo ("buddyinfo.hostile.txt");
  const JmemBuddyZone *z;

  /* the one good line survives; every other is counted, none is half read */
  g_assert_cmpuint (b->zones->len, ==, 2);
  z = g_ptr_array_index (b->zones, 0);
  g_assert_cmpstr (z->zone, ==, "Movable");
  g_assert_cmpuint (z->blocks[10], ==, 1);
  z = g_ptr_array_index (b->zones, 1);
  g_assert_true (g_utf8_validate (z->zone, -1, NULL));
  g_assert_cmpuint (b->n_malformed, ==, 7);
}

static void
test_refused (void)
{
  static const char *const cases[] = { "", "\n\n", "garbage\n", "Node 0, zone Normal\n",
                                       "Filename Type Size Used Priority\n" };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(JmemBuddyinfo) b = jmem_buddyinfo_parse (cases[i], strlen (cases[i]), &error);

      g_assert_null (b);
      g_assert_error (error, JMEM_ERROR, JMEM_ERROR_FAILED);
    }
}

static void
test_swaps (void)
{
  gsize len;
  g_autofree char *zram = fixture ("swaps.rendered-zram-and-file.txt", &len);
  g_autofree char *none = NULL, *hostile = NULL;
  g_autoptr(GError) error = NULL;
  JmemSwaps s;

  g_assert_true (jmem_swaps_parse (zram, len, &s, &error));
  g_assert_cmpuint (s.n_zram, ==, 4);
  g_assert_cmpuint (s.n_other, ==, 1);
  g_assert_cmpint (s.zram_size_kib, ==, 4 * 1002932);
  g_assert_cmpint (s.zram_used_kib, ==, 1024 + 2048 + 3072);
  g_assert_cmpint (s.other_size_kib, ==, 16777212);
  g_assert_cmpuint (s.n_malformed, ==, 0);

  none = fixture ("swaps.this-machine-none.txt", &len);
  g_assert_true (jmem_swaps_parse (none, len, &s, &error));
  g_assert_cmpuint (s.n_zram + s.n_other, ==, 0);

  hostile = fixture ("swaps.hostile.txt", &len);
  g_assert_true (jmem_swaps_parse (hostile, len, &s, &error));
  g_assert_cmpuint (s.n_zram, ==, 1);
  g_assert_cmpint (s.zram_size_kib, ==, 4096);
  g_assert_cmpint (s.zram_used_kib, ==, 1024);
  g_assert_cmpuint (s.n_malformed, ==, 5);

  g_assert_false (jmem_swaps_parse ("/dev/zram0 partition 1 0 5\n", 27, &s, &error));
  g_assert_error (error, JMEM_ERROR, JMEM_ERROR_FAILED);
  g_assert_cmpuint (s.n_zram, ==, 0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/buddyinfo/this-machine", test_this_machine);
  g_test_add_func ("/buddyinfo/64k-pages", test_64k_pages);
  g_test_add_func ("/buddyinfo/hostile", test_hostile);
  g_test_add_func ("/buddyinfo/refused", test_refused);
  g_test_add_func ("/swaps/parse", test_swaps);
  return g_test_run ();
}
