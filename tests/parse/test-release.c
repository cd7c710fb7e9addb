/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Board identity: /etc/nv_tegra_release, the boot-control file and the
 * device tree on each L4T generation (Thor's wrapped date included) and
 * hostile files. */
#include "jmem-error.h"
#include "jmem-file.h"
#include "jmem-release.h"
#include "jmem-test.h"

static char *
load (const char *name, gsize *len)
{
  g_autofree char *path = jmem_test_fixture ("etc", name, NULL);
  g_autoptr(GError) error = NULL;
  char *data = NULL;

  jmem_file_read_capped (path, 1 << 20, &data, len, &error);
  g_assert_no_error (error);
  return data;
}

static JmemTegraRelease *
release_fixture (const char *name)
{
  gsize len;
  g_autofree char *data = load (name, &len);
  g_autoptr(GError) error = NULL;
  JmemTegraRelease *rel = jmem_tegra_release_parse (data, len, &error);

  g_assert_no_error (error);
  g_assert_nonnull (rel);
  return rel;
}

static void
test_thor_r38_4 (void)
{
  g_autoptr(JmemTegraRelease) rel = release_fixture ("nv_tegra_release.thor-R38.4.txt");

  g_assert_cmpstr (rel->major, ==, "38");
  g_assert_cmpstr (rel->revision, ==, "4.0");
  g_assert_cmpstr (rel->version, ==, "38.4.0");
  g_assert_cmpstr (rel->gcid, ==, "43443517");
  g_assert_cmpstr (rel->board, ==, "generic");
  g_assert_cmpstr (rel->date, ==, "Wed Dec 31 00:15:19 UTC 2025");
  g_assert_cmpstr (rel->kernel_variant, ==, "oot");
}

static void
test_thor_r38_2_wrapped (void)
{
  g_autoptr(JmemTegraRelease) rel = release_fixture ("nv_tegra_release.thor-R38.2-wrapped.txt");

  g_assert_cmpstr (rel->version, ==, "38.2.0");
  g_assert_cmpstr (rel->gcid, ==, "41844464");
  g_assert_cmpstr (rel->date, ==, "Fri Aug 22 00:55:42 UTC 2025");
  g_assert_cmpstr (rel->kernel_variant, ==, "oot");
}

static void
test_older (void)
{
  g_autoptr(JmemTegraRelease) r36 = release_fixture ("nv_tegra_release.reference-r36.4.txt");
  g_autoptr(JmemTegraRelease) r32 = release_fixture ("nv_tegra_release.reference-r32.7.txt");

  g_assert_cmpstr (r36->version, ==, "36.4.0");
  g_assert_cmpstr (r36->date, ==, "Fri Sep 13 04:36:44 UTC 2024");
  g_assert_cmpstr (r32->version, ==, "32.7.1");
  g_assert_cmpstr (r32->board, ==, "t186ref");
  g_assert_null (r32->kernel_variant);
}

static void
test_release_hostile (void)
{
  g_autoptr(JmemTegraRelease) bad = release_fixture ("nv_tegra_release.hostile-bad-revision.txt");
  gsize len;
  g_autofree char *garbage = load ("nv_tegra_release.hostile-garbage.bin", &len);
  g_autoptr(GError) error = NULL;
  JmemTegraRelease *none;

  /* The major is certain, the revision is not: only "36" is claimed. */
  g_assert_cmpstr (bad->major, ==, "36");
  g_assert_null (bad->revision);
  g_assert_cmpstr (bad->version, ==, "36");
  g_assert_true (g_utf8_validate (bad->gcid, -1, NULL));
  g_assert_null (bad->date);

  none = jmem_tegra_release_parse (garbage, len, &error);
  g_assert_null (none);
  g_assert_error (error, JMEM_ERROR, JMEM_ERROR_FAILED);
  g_clear_error (&error);
  none = jmem_tegra_release_parse ("", 0, &error);
  g_assert_null (none);
  g_assert_error (error, JMEM_ERROR, JMEM_ERROR_FAILED);
}

static GHashTable *
boot_control_fixture (const char *name)
{
  gsize len;
  g_autofree char *data = load (name, &len);

  return jmem_boot_control_parse (data, len);
}

static void
test_boot_control (void)
{
  g_autoptr(GHashTable) bc = boot_control_fixture ("nv_boot_control.conf.reference-orin-agx-64gb.txt");
  g_autoptr(GHashTable) hostile = boot_control_fixture ("nv_boot_control.conf.hostile.txt");

  g_assert_cmpuint (g_hash_table_size (bc), ==, 8);
  g_assert_cmpstr (g_hash_table_lookup (bc, "TNSPEC"), ==,
                   "3701-500-0005-G.0-1-0-jetson-agx-orin-devkit-mmcblk0p1");
  g_assert_cmpstr (g_hash_table_lookup (bc, "COMPATIBLE_SPEC"), ==,
                   "3701--0005--1--jetson-agx-orin-devkit-");
  g_assert_cmpstr (g_hash_table_lookup (bc, "TEGRA_CHIPID"), ==, "0x23");
  g_assert_cmpstr (g_hash_table_lookup (bc, "TEGRA_OTA_BOOT_DEVICE"), ==, "/dev/mtdblock0");

  /* "TNSPEC  notaboardid" and the indented COMPATIBLE_SPEC are kept as
   * text; resolving them finds no board. */
  g_assert_cmpuint (g_hash_table_size (hostile), ==, 2);
  g_assert_cmpstr (g_hash_table_lookup (hostile, "TNSPEC"), ==, "notaboardid");
  g_assert_cmpstr (g_hash_table_lookup (hostile, "COMPATIBLE_SPEC"), ==, "9999--0001--1--x");
}

typedef struct {
  const char *model;
  const char *tnspec;
  const char *compatible;
  gint64      mem_kib;
  const char *sku;
  const char *generation;
  const char *product_line;
  const char *variant;
  const char *source;
} IdentityCase;

#define GIB (G_GINT64_CONSTANT (1024) * 1024)

static void
test_identity (void)
{
  const IdentityCase cases[] = {
    /* boot-control decides first */
    { "NVIDIA Jetson AGX Orin Developer Kit", "3701-500-0005-G.0-1-0-jetson-agx-orin-devkit-mmcblk0p1",
      "3701--0005--1--jetson-agx-orin-devkit-", 30 * GIB,
      "orin-agx", "orin", "Jetson AGX Orin", "orin-agx-64gb", "boot-control:TNSPEC" },
    { NULL, "3701-500-0000-G.0-1-0-jetson-agx-orin-devkit-mmcblk0p1", NULL, -1,
      "orin-agx", "orin", "Jetson AGX Orin", "orin-agx-32gb", "boot-control:TNSPEC" },
    { NULL, "3701-300-0004-F.0-1-0-x-mmcblk0p1", NULL, -1,
      "orin-agx", "orin", "Jetson AGX Orin", "orin-agx-32gb", "boot-control:TNSPEC" },
    { NULL, "3701-300-0008-F.0-1-0-x-mmcblk0p1", NULL, -1,
      "orin-agx", "orin", "Jetson AGX Orin", "orin-agx-industrial", "boot-control:TNSPEC" },
    { "NVIDIA Jetson Orin NX Engineering Reference Developer Kit", "3767-300-0000-K.2-1-1-x-nvme0n1p1", NULL, -1,
      "orin-nx", "orin", "Jetson Orin NX", "orin-nx-16gb", "boot-control:TNSPEC" },
    { NULL, "garbage", "3767--0001--1--jetson-orin-nano-devkit-", -1,
      "orin-nx", "orin", "Jetson Orin NX", "orin-nx-8gb", "boot-control:COMPATIBLE_SPEC" },
    { NULL, NULL, "3767--0003--1--x-", -1,
      "orin-nano", "orin", "Jetson Orin Nano", "orin-nano-8gb", "boot-control:COMPATIBLE_SPEC" },
    { NULL, NULL, "3767--0004--1--jetson-orin-nano-devkit-", -1,
      "orin-nano", "orin", "Jetson Orin Nano", "orin-nano-4gb", "boot-control:COMPATIBLE_SPEC" },
    { NULL, NULL, "3767--0005--1--jetson-orin-nano-devkit-", -1,
      "orin-nano", "orin", "Jetson Orin Nano", "orin-nano-8gb", "boot-control:COMPATIBLE_SPEC" },
    { NULL, "3834-500-0008-A.0-1-0-jetson-agx-thor-devkit-nvme0n1p1", NULL, -1,
      "thor", "thor", "Jetson AGX Thor", "thor-t5000", "boot-control:TNSPEC" },
    { NULL, "3834-500-0010-A.0-1-0-x-nvme0n1p1", NULL, 120 * GIB,
      "thor", "thor", "Jetson AGX Thor", "thor-t4000", "boot-control:TNSPEC" },
    /* then the model string */
    { "NVIDIA Jetson AGX Thor Developer Kit", NULL, NULL, 60 * GIB,
      "thor", "thor", "Jetson AGX Thor", "thor-t5000", "model" },
    { "NVIDIA Jetson Orin Nano Developer Kit", NULL, NULL, 3 * GIB,
      "orin-nano", "orin", "Jetson Orin Nano", "orin-nano-8gb", "model" },
    { "Jetson AGX Orin 64GB", NULL, NULL, -1,
      "orin-agx", "orin", "Jetson AGX Orin", "orin-agx-64gb", "model" },
    /* then the memory size */
    { "NVIDIA Jetson AGX Orin Developer Kit", NULL, NULL, 30 * GIB,
      "orin-agx", "orin", "Jetson AGX Orin", "orin-agx-32gb", "memory-size" },
    { "NVIDIA Jetson AGX Orin", NULL, NULL, 62 * GIB,
      "orin-agx", "orin", "Jetson AGX Orin", "orin-agx-64gb", "memory-size" },
    /* 7.7 GiB fits no AGX Orin module: the variant is unknown, not 32gb. */
    { "NVIDIA Jetson AGX Orin", NULL, NULL, 7 * GIB + 700 * 1024,
      "orin-agx", "orin", "Jetson AGX Orin", NULL, NULL },
    { "NVIDIA Jetson Orin NX Engineering Reference Developer Kit", NULL, NULL, 15 * GIB,
      "orin-nx", "orin", "Jetson Orin NX", "orin-nx-16gb", "memory-size" },
    { "NVIDIA Jetson Orin NX Engineering Reference Developer Kit", NULL, NULL, 7 * GIB,
      "orin-nx", "orin", "Jetson Orin NX", "orin-nx-8gb", "memory-size" },
    { "Jetson Thor", NULL, NULL, 62 * GIB,
      "thor", "thor", "Jetson AGX Thor", "thor-t4000", "memory-size" },
    /* nothing decides the variant */
    { "NVIDIA Jetson AGX Orin Developer Kit", NULL, NULL, -1,
      "orin-agx", "orin", "Jetson AGX Orin", NULL, NULL },
    /* older generations */
    { "NVIDIA Jetson AGX Xavier", NULL, NULL, 30 * GIB,
      "xavier", "xavier", "Jetson Xavier", NULL, NULL },
    { "quill", NULL, NULL, -1, "tx2", "tx2", "Jetson TX2", NULL, NULL },
    { "NVIDIA Jetson Nano Developer Kit", NULL, NULL, -1, "nano", "tx1", "Jetson Nano", NULL, NULL },
    { "NVIDIA Jetson TX1", NULL, NULL, -1, "tx1", "tx1", "Jetson TX1", NULL, NULL },
    /* not a Jetson */
    { "Raspberry Pi 5 Model B Rev 1.0", NULL, NULL, 8 * GIB, "unknown", "unknown", NULL, NULL, NULL },
    { NULL, "9999-000-0001-x", NULL, -1, "unknown", "unknown", NULL, NULL, NULL },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      const IdentityCase *c = &cases[i];
      g_autoptr(GHashTable) bc = g_hash_table_new (g_str_hash, g_str_equal);
      g_autoptr(JmemIdentity) id = NULL;

      g_test_message ("case %" G_GSIZE_FORMAT ": %s", i, c->model ? c->model : "(no model)");
      if (c->tnspec != NULL)
        g_hash_table_insert (bc, (gpointer) "TNSPEC", (gpointer) c->tnspec);
      if (c->compatible != NULL)
        g_hash_table_insert (bc, (gpointer) "COMPATIBLE_SPEC", (gpointer) c->compatible);
      id = jmem_identity_resolve (c->model, bc, c->mem_kib);
      g_assert_cmpstr (id->model, ==, c->model);
      g_assert_cmpstr (id->sku, ==, c->sku);
      g_assert_cmpstr (id->generation, ==, c->generation);
      g_assert_cmpstr (id->product_line, ==, c->product_line);
      g_assert_cmpstr (id->variant, ==, c->variant);
      g_assert_cmpstr (id->variant_source, ==, c->source);
    }
}

static void
test_identity_raw_model (void)
{
  /* /proc/device-tree/model as read: trailing NUL dropped by the reader,
   * padding and invalid bytes left. */
  g_autoptr(JmemIdentity) id =
    jmem_identity_resolve ("NVIDIA Jetson Orin Nano Developer Kit \n", NULL, -1);
  g_autoptr(JmemIdentity) bad = jmem_identity_resolve ("\377Thor\376", NULL, -1);
  g_autoptr(JmemIdentity) none = jmem_identity_resolve (NULL, NULL, -1);
  g_autoptr(GHashTable) bc = boot_control_fixture ("nv_boot_control.conf.reference-orin-nano-compat-only.txt");
  g_autoptr(JmemIdentity) nano = jmem_identity_resolve (NULL, bc, 7 * GIB);

  g_assert_cmpstr (id->model, ==, "NVIDIA Jetson Orin Nano Developer Kit");
  g_assert_cmpstr (id->variant, ==, "orin-nano-8gb");
  g_assert_true (g_utf8_validate (bad->model, -1, NULL));
  g_assert_cmpstr (bad->sku, ==, "thor");
  g_assert_null (bad->variant);
  g_assert_null (none->model);
  g_assert_cmpstr (none->sku, ==, "unknown");
  /* The board id beats the memory size. */
  g_assert_cmpstr (nano->variant, ==, "orin-nano-4gb");
  g_assert_cmpstr (nano->variant_source, ==, "boot-control:COMPATIBLE_SPEC");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/release/thor-r38.4", test_thor_r38_4);
  g_test_add_func ("/release/thor-r38.2-wrapped-date", test_thor_r38_2_wrapped);
  g_test_add_func ("/release/r36-r32", test_older);
  g_test_add_func ("/release/hostile", test_release_hostile);
  g_test_add_func ("/release/boot-control", test_boot_control);
  g_test_add_func ("/release/identity", test_identity);
  g_test_add_func ("/release/identity-raw-model", test_identity_raw_model);
  return g_test_run ();
}
