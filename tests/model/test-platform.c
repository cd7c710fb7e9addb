/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The kind of system told from its evidence (jmem-platform.h): a GB10 by its
 * GPU's name, an unnamed unified-memory GPU by its missing memory total, a
 * GB10 whose GPU did not answer by DMI; a discrete GPU, an Orin without its
 * release file and a Jetson are none of them. */
#include "jmem-platform.h"

static GPtrArray *
gpus (const char *name, gint64 total_mib)
{
  GPtrArray *list = g_ptr_array_new_with_free_func ((GDestroyNotify) jmem_nvsmi_gpu_free);
  JmemNvsmiGpu *gpu = g_new0 (JmemNvsmiGpu, 1);

  gpu->index = 0;
  gpu->name = g_strdup (name);
  gpu->memory_total_mib = total_mib;
  gpu->memory_used_mib = -1;
  gpu->memory_free_mib = -1;
  g_ptr_array_add (list, gpu);
  return list;
}

static gboolean
has_evidence (const JmemPlatform *p, const char *needle)
{
  for (guint i = 0; i < p->evidence->len; i++)
    if (g_strstr_len (g_ptr_array_index (p->evidence, i), -1, needle) != NULL)
      return TRUE;
  return FALSE;
}

static void
assert_jetson_parts_apply (const JmemPlatform *p)
{
  for (JmemJetsonPart part = 0; part < JMEM_JETSON_N_PARTS; part++)
    g_assert_null (jmem_platform_not_applying (p, part));
}

/* A DGX Spark: nvidia-smi names the GPU "NVIDIA GB10", every memory figure
 * [N/A] (unslothai/unsloth#10283), DMI names the system. */
static void
test_gb10 (void)
{
  g_autoptr(GPtrArray) list = gpus ("NVIDIA GB10", -1);
  JmemPlatformEvidence e = {
    .dmi_sys_vendor = "NVIDIA", .dmi_product_name = "NVIDIA_DGX_Spark", .dmi_board_name = "P4242",
    .gpu_stack = JMEM_GPU_STACK_UNIFIED, .gpus = list,
  };
  g_autoptr(JmemPlatform) p = jmem_platform_recognise (&e);

  g_assert_cmpint (p->kind, ==, JMEM_PLATFORM_UNIFIED_MEMORY);
  g_assert_cmpstr (jmem_platform_kind_to_string (p->kind), ==, "unified-memory");
  g_assert_cmpstr (p->name, ==, "NVIDIA_DGX_Spark");
  g_assert_true (has_evidence (p, "\"NVIDIA GB10\""));
  g_assert_true (has_evidence (p, "product NVIDIA_DGX_Spark"));
  for (JmemJetsonPart part = 0; part < JMEM_JETSON_N_PARTS; part++)
    g_assert_nonnull (jmem_platform_not_applying (p, part));
  g_assert_cmpstr (jmem_jetson_part_to_string (JMEM_JETSON_PART_NVMAP), ==, "nvmap");
}

/* A unified-memory GPU the list does not name: no memory of its own. */
static void
test_unnamed_unified (void)
{
  g_autoptr(GPtrArray) list = gpus ("NVIDIA Future Superchip", -1);
  JmemPlatformEvidence e = { .gpu_stack = JMEM_GPU_STACK_UNIFIED, .gpus = list };
  g_autoptr(JmemPlatform) p = jmem_platform_recognise (&e);

  g_assert_cmpint (p->kind, ==, JMEM_PLATFORM_UNIFIED_MEMORY);
  g_assert_true (has_evidence (p, "reports no memory of its own"));
}

/* A GB10 whose driver did not answer: DMI alone, spelt with spaces. */
static void
test_dmi_only (void)
{
  JmemPlatformEvidence e = { .dmi_sys_vendor = "Dell Inc.",
                             .dmi_product_name = "Dell Pro Max with GB10 FCM1253" };
  g_autoptr(JmemPlatform) p = jmem_platform_recognise (&e);

  g_assert_cmpint (p->kind, ==, JMEM_PLATFORM_UNIFIED_MEMORY);
  g_assert_true (has_evidence (p, "no GPU answered"));
}

/* A discrete GPU reports its own memory: another machine, whose Jetson
 * parts are left to the "not a Jetson" warning. */
static void
test_discrete (void)
{
  g_autoptr(GPtrArray) list = gpus ("NVIDIA GeForce RTX 3090", 24576);
  JmemPlatformEvidence e = { .dmi_sys_vendor = "ASUS", .dmi_product_name = "System Product Name",
                             .gpu_stack = JMEM_GPU_STACK_UNIFIED, .gpus = list };
  g_autoptr(JmemPlatform) p = jmem_platform_recognise (&e);

  g_assert_cmpint (p->kind, ==, JMEM_PLATFORM_OTHER);
  assert_jetson_parts_apply (p);
}

/* An Orin without its release file is nvgpu, all [N/A]: not unified, and
 * its device tree makes it a Jetson. */
static void
test_jetson (void)
{
  g_autoptr(GPtrArray) list = gpus ("Orin (nvgpu)", -1);
  JmemPlatformEvidence orin = { .jetson_generation = "orin", .gpu_stack = JMEM_GPU_STACK_NVGPU,
                                .gpus = list };
  JmemPlatformEvidence bare = { .gpu_stack = JMEM_GPU_STACK_NVGPU, .gpus = list };
  JmemPlatformEvidence thor = { .tegra_release = TRUE, .jetson_generation = "thor" };
  g_autoptr(JmemPlatform) p = jmem_platform_recognise (&orin);
  g_autoptr(JmemPlatform) q = jmem_platform_recognise (&bare);
  g_autoptr(JmemPlatform) t = jmem_platform_recognise (&thor);

  g_assert_cmpint (p->kind, ==, JMEM_PLATFORM_JETSON);
  assert_jetson_parts_apply (p);
  g_assert_cmpint (q->kind, ==, JMEM_PLATFORM_OTHER);
  g_assert_cmpint (t->kind, ==, JMEM_PLATFORM_JETSON);
  g_assert_true (has_evidence (t, "nv_tegra_release"));
  assert_jetson_parts_apply (t);
  assert_jetson_parts_apply (NULL);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/platform/gb10", test_gb10);
  g_test_add_func ("/platform/unnamed-unified", test_unnamed_unified);
  g_test_add_func ("/platform/dmi-only", test_dmi_only);
  g_test_add_func ("/platform/discrete", test_discrete);
  g_test_add_func ("/platform/jetson", test_jetson);
  return g_test_run ();
}
