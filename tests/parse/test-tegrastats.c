/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tegrastats lines of each generation (TX1 to Thor): RAM, swap, the largest
 * free block, and tokens documented but never seen. */
#include "jmem-error.h"
#include "jmem-file.h"
#include "jmem-tegrastats.h"

#include <string.h>

#include "jmem-test.h"

/* The fixture's non-comment lines, in order. */
static GPtrArray *
load_lines (const char *name)
{
  g_autofree char *path = jmem_test_fixture ("tegrastats", name, NULL);
  g_autoptr(GError) error = NULL;
  g_autofree char *data = NULL;
  g_auto(GStrv) lines = NULL;
  GPtrArray *out = g_ptr_array_new_with_free_func (g_free);

  jmem_file_read_capped (path, 1 << 20, &data, NULL, &error);
  g_assert_no_error (error);
  lines = g_strsplit (data, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    if (lines[i][0] != '\0' && lines[i][0] != '#')
      g_ptr_array_add (out, g_strdup (lines[i]));
  return out;
}

static JmemTegrastats *
parse_ok (const char *line)
{
  g_autoptr(GError) error = NULL;
  JmemTegrastats *st = jmem_tegrastats_parse (line, strlen (line), &error);

  g_assert_no_error (error);
  g_assert_nonnull (st);
  return st;
}

#define CPU(st, i) g_array_index ((st)->cpu_percent, gint64, (i))
#define GR3D(st, i) g_array_index ((st)->gr3d_freq_mhz, gint64, (i))

static const JmemTegrastatsRail *
rail (const JmemTegrastats *st, guint i)
{
  return g_ptr_array_index (st->rails, i);
}

static const JmemTegrastatsTemp *
temp (const JmemTegrastats *st, guint i)
{
  return g_ptr_array_index (st->temps, i);
}

static void
test_orin_jp72 (void)
{
  g_autoptr(GPtrArray) lines = load_lines ("tegrastats__orin_agx_JP7.2_R39.2__jtop_test_06.txt");
  g_autoptr(JmemTegrastats) st = NULL;

  g_assert_cmpuint (lines->len, ==, 1);
  st = parse_ok (g_ptr_array_index (lines, 0));
  g_assert_cmpuint (st->n_unknown_tokens, ==, 0);
  g_assert_cmpstr (st->timestamp, ==, "07-25-2026 09:08:28");
  g_assert_cmpint (st->ram_used_mib, ==, 20642);
  g_assert_cmpint (st->ram_total_mib, ==, 62817);
  g_assert_cmpint (st->lfb_blocks, ==, 1);
  g_assert_cmpint (st->lfb_block_kib, ==, 2048);
  g_assert_cmpint (st->swap_used_mib, ==, -1);
  g_assert_cmpint (st->swap_total_mib, ==, -1);
  g_assert_cmpint (st->emc_freq_percent, ==, 3);
  g_assert_cmpint (st->emc_freq_mhz, ==, 3199);
  g_assert_cmpint (st->gr3d_freq_percent, ==, 12);
  g_assert_cmpuint (st->gr3d_freq_mhz->len, ==, 2);
  g_assert_cmpint (GR3D (st, 0), ==, 1300);
  g_assert_cmpint (GR3D (st, 1), ==, 1300);
  g_assert_cmpuint (st->cpu_percent->len, ==, 12);
  g_assert_cmpint (CPU (st, 0), ==, 23);
  g_assert_cmpint (CPU (st, 8), ==, 33);
  g_assert_cmpint (CPU (st, 11), ==, 27);
  g_assert_cmpuint (st->temps->len, ==, 4);
  g_assert_cmpstr (temp (st, 0)->name, ==, "cpu");
  g_assert_cmpfloat_with_epsilon (temp (st, 0)->celsius, 52.968, 1e-9);
  g_assert_cmpstr (temp (st, 3)->name, ==, "gpu");
  g_assert_cmpfloat_with_epsilon (temp (st, 3)->celsius, 47.625, 1e-9);
  g_assert_cmpuint (st->rails->len, ==, 3);
  g_assert_cmpstr (rail (st, 0)->name, ==, "VDD_GPU_SOC");
  g_assert_cmpint (rail (st, 0)->current_mw, ==, 5139);
  g_assert_cmpint (rail (st, 0)->average_mw, ==, 5139);
  g_assert_cmpstr (rail (st, 2)->name, ==, "VIN_SYS_5V0");
  g_assert_cmpint (rail (st, 2)->current_mw, ==, 5500);
}

static void
test_thor_r38 (void)
{
  g_autoptr(GPtrArray) lines = load_lines ("tegrastats__thor_agx_devkit_R38.4__nvidia_skills.txt");
  g_autoptr(JmemTegrastats) st = NULL;

  g_assert_cmpuint (lines->len, ==, 1);
  st = parse_ok (g_ptr_array_index (lines, 0));
  g_assert_cmpuint (st->n_unknown_tokens, ==, 0);
  g_assert_cmpstr (st->timestamp, ==, "04-21-2026 15:50:52");
  g_assert_cmpint (st->ram_used_mib, ==, 105265);
  g_assert_cmpint (st->ram_total_mib, ==, 125772);
  g_assert_cmpint (st->lfb_blocks, ==, 34);
  g_assert_cmpint (st->lfb_block_kib, ==, 4096);
  g_assert_cmpint (st->swap_total_mib, ==, -1);
  g_assert_cmpint (st->emc_freq_percent, ==, 0);
  g_assert_cmpint (st->emc_freq_mhz, ==, 2750);
  /* "GR3D_FREQ @[314,314,314]": no percentage */
  g_assert_cmpint (st->gr3d_freq_percent, ==, -1);
  g_assert_cmpuint (st->gr3d_freq_mhz->len, ==, 3);
  g_assert_cmpint (GR3D (st, 2), ==, 314);
  g_assert_cmpuint (st->cpu_percent->len, ==, 14);
  g_assert_cmpint (CPU (st, 6), ==, 1);
  g_assert_cmpint (CPU (st, 11), ==, 8);
  g_assert_cmpuint (st->temps->len, ==, 5);
  g_assert_cmpstr (temp (st, 1)->name, ==, "tj");
  g_assert_cmpfloat_with_epsilon (temp (st, 1)->celsius, 38.875, 1e-9);
  g_assert_cmpstr (temp (st, 4)->name, ==, "soc345");
  g_assert_cmpuint (st->rails->len, ==, 4);
  g_assert_cmpstr (rail (st, 0)->name, ==, "VDD_GPU");
  g_assert_cmpint (rail (st, 0)->current_mw, ==, 1962);
  g_assert_cmpint (rail (st, 0)->average_mw, ==, 1962);
  g_assert_cmpstr (rail (st, 3)->name, ==, "VIN");
  g_assert_cmpint (rail (st, 3)->current_mw, ==, 19780);
}

static void
test_tx1_r28 (void)
{
  g_autoptr(GPtrArray) lines = load_lines ("tegrastats__TX1_L4T28.1__hordiales_jetson-tx1-dev_SCRIPTS_md.txt");
  static const gint64 cpu2[] = { 1, 0, 4, 0 };
  g_autoptr(JmemTegrastats) a = NULL, b = NULL, d = NULL;

  g_assert_cmpuint (lines->len, ==, 4);
  for (guint i = 0; i < lines->len; i++)
    {
      g_autoptr(JmemTegrastats) st = parse_ok (g_ptr_array_index (lines, i));

      g_assert_cmpuint (st->n_unknown_tokens, ==, 0);
      g_assert_null (st->timestamp);
      g_assert_cmpint (st->ram_total_mib, ==, 3983);
      g_assert_cmpint (st->swap_total_mib, ==, 8192);
      g_assert_cmpuint (st->cpu_percent->len, ==, 4);
      g_assert_cmpuint (st->rails->len, ==, 0);
    }
  a = parse_ok (g_ptr_array_index (lines, 0));
  g_assert_cmpint (a->ram_used_mib, ==, 3691);
  g_assert_cmpint (a->lfb_blocks, ==, 3);
  g_assert_cmpint (a->lfb_block_kib, ==, 2048);
  g_assert_cmpint (a->swap_used_mib, ==, 2780);
  g_assert_cmpint (a->swap_cached_mib, ==, 284);
  g_assert_cmpint (a->emc_freq_percent, ==, 0);
  g_assert_cmpint (a->emc_freq_mhz, ==, 1600);
  g_assert_cmpint (a->gr3d_freq_percent, ==, 0);
  g_assert_cmpint (GR3D (a, 0), ==, 998);
  b = parse_ok (g_ptr_array_index (lines, 1));
  for (guint i = 0; i < 4; i++)
    g_assert_cmpint (CPU (b, i), ==, cpu2[i]);
  d = parse_ok (g_ptr_array_index (lines, 3));
  g_assert_cmpint (d->lfb_blocks, ==, 47);
  g_assert_cmpint (d->lfb_block_kib, ==, 4096);
  g_assert_cmpint (d->gr3d_freq_percent, ==, 39);
  g_assert_cmpint (GR3D (d, 0), ==, 76);
  g_assert_cmpint (CPU (d, 2), ==, 65);
}

static void
test_r32_doc_tokens (void)
{
  g_autoptr(GPtrArray) lines = load_lines ("tegrastats__DOC_EXAMPLES__L4T_r32.5_AppendixTegraStats.txt");
  g_autoptr(JmemTegrastats) ram = NULL, swap = NULL, iram = NULL, cpu = NULL;

  g_assert_cmpuint (lines->len, ==, 4);
  ram = parse_ok (g_ptr_array_index (lines, 0));
  g_assert_cmpint (ram->ram_used_mib, ==, 220);
  g_assert_cmpint (ram->ram_total_mib, ==, 38955);
  g_assert_cmpint (ram->lfb_blocks, ==, 847);
  g_assert_cmpint (ram->lfb_block_kib, ==, 4096);
  swap = parse_ok (g_ptr_array_index (lines, 1));
  g_assert_cmpint (swap->swap_used_mib, ==, 0);
  g_assert_cmpint (swap->swap_total_mib, ==, 1978);
  g_assert_cmpint (swap->swap_cached_mib, ==, 0);
  g_assert_cmpint (swap->ram_total_mib, ==, -1);
  /* IRAM is on-chip memory: recognised, not mixed into RAM's lfb. */
  iram = parse_ok (g_ptr_array_index (lines, 2));
  g_assert_cmpuint (iram->n_unknown_tokens, ==, 0);
  g_assert_cmpint (iram->lfb_blocks, ==, -1);
  cpu = parse_ok (g_ptr_array_index (lines, 3));
  g_assert_cmpuint (cpu->cpu_percent->len, ==, 4);
  g_assert_cmpint (CPU (cpu, 1), ==, 5);
}

static void
test_variants (void)
{
  g_autoptr(JmemTegrastats) st =
    parse_ok ("RAM 1/2MB (lfb 512kB) CPU [off,50%@1200,off] EMC_FREQ 0% GR3D_FREQ 0% "
              "MTS fg 0% bg 0% NVDEC 1164 POM_5V_IN 3567/3567 PLL@41C Tboard@30C thermal@40.5C "
              "VDD_IN 1000mW");

  g_assert_cmpint (st->lfb_blocks, ==, 1);
  g_assert_cmpint (st->lfb_block_kib, ==, 512);
  g_assert_cmpuint (st->cpu_percent->len, ==, 3);
  g_assert_cmpint (CPU (st, 0), ==, -1);
  g_assert_cmpint (CPU (st, 1), ==, 50);
  g_assert_cmpint (CPU (st, 2), ==, -1);
  g_assert_cmpint (st->emc_freq_percent, ==, 0);
  g_assert_cmpint (st->emc_freq_mhz, ==, -1);
  g_assert_cmpint (st->gr3d_freq_percent, ==, 0);
  g_assert_cmpuint (st->gr3d_freq_mhz->len, ==, 0);
  g_assert_cmpuint (st->rails->len, ==, 2);
  g_assert_cmpstr (rail (st, 0)->name, ==, "POM_5V_IN");
  g_assert_cmpint (rail (st, 0)->current_mw, ==, 3567);
  g_assert_cmpint (rail (st, 0)->average_mw, ==, 3567);
  g_assert_cmpuint (st->temps->len, ==, 3);
  g_assert_cmpfloat_with_epsilon (temp (st, 2)->celsius, 40.5, 1e-9);
  /* "VDD_IN 1000mW": one number, no average. */
  g_assert_cmpstr (rail (st, 1)->name, ==, "VDD_IN");
  g_assert_cmpint (rail (st, 1)->current_mw, ==, 1000);
  g_assert_cmpint (rail (st, 1)->average_mw, ==, -1);
  g_assert_cmpuint (st->n_unknown_tokens, ==, 0);
}

static void
test_hostile (void)
{
  g_autoptr(GPtrArray) lines = load_lines ("tegrastats.hostile.txt");
  g_autoptr(JmemTegrastats) st = NULL;
  g_autoptr(GError) error = NULL;
  JmemTegrastats *none;

  st = parse_ok (g_ptr_array_index (lines, 0));
  g_assert_cmpint (st->ram_used_mib, ==, 1);
  g_assert_cmpint (st->lfb_blocks, ==, -1);
  g_assert_cmpuint (st->cpu_percent->len, ==, 0);
  g_assert_cmpint (st->gr3d_freq_percent, ==, -1);
  g_assert_cmpuint (st->rails->len, ==, 0);
  g_assert_cmpuint (st->temps->len, ==, 0);
  g_assert_cmpuint (st->n_unknown_tokens, >=, 10);

  none = jmem_tegrastats_parse ("", 0, &error);
  g_assert_null (none);
  g_assert_error (error, JMEM_ERROR, JMEM_ERROR_FAILED);
  g_clear_error (&error);
  none = jmem_tegrastats_parse ("hello world\0RAM 1/2MB", 22, &error);
  g_assert_null (none);
  g_assert_error (error, JMEM_ERROR, JMEM_ERROR_FAILED);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/tegrastats/orin-jp7.2", test_orin_jp72);
  g_test_add_func ("/tegrastats/thor-r38.4", test_thor_r38);
  g_test_add_func ("/tegrastats/tx1-r28", test_tx1_r28);
  g_test_add_func ("/tegrastats/r32-doc-tokens", test_r32_doc_tokens);
  g_test_add_func ("/tegrastats/variants", test_variants);
  g_test_add_func ("/tegrastats/hostile", test_hostile);
  return g_test_run ();
}
