/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "jmem-platform.h"

#include "jmem-text.h"

#include <string.h>

/* NVML's and nvidia-smi's names of GPUs that have no memory of their own
 * (NVIDIA's DGX Spark known issues: "nvidia-smi reports memory usage: Not
 * Supported"); a GPU the list misses is still told by its missing total. */
static const char * const unified_gpu_names[] = { "NVIDIA GB10", NULL };

/* DMI names of GB10 systems (canonical/secboot#560 quotes their modalias):
 * NVIDIA's "NVIDIA_DGX_Spark", its prototypes' "DGX Spark", Dell's "Dell Pro
 * Max with GB10"; matched without case, spaces and underscores. */
static const char * const unified_dmi_names[] = { "dgxspark", "gb10", NULL };

void
jmem_platform_free (JmemPlatform *platform)
{
  if (platform == NULL)
    return;
  g_free (platform->name);
  g_free (platform->vendor);
  g_free (platform->board);
  g_clear_pointer (&platform->evidence, g_ptr_array_unref);
  g_free (platform);
}

const char *
jmem_platform_kind_to_string (JmemPlatformKind kind)
{
  switch (kind)
    {
    case JMEM_PLATFORM_JETSON:
      return "jetson";
    case JMEM_PLATFORM_UNIFIED_MEMORY:
      return "unified-memory";
    case JMEM_PLATFORM_OTHER:
    default:
      return "other";
    }
}

const char *
jmem_jetson_part_to_string (JmemJetsonPart part)
{
  static const char * const names[JMEM_JETSON_N_PARTS] = {
    [JMEM_JETSON_PART_L4T] = "l4t",
    [JMEM_JETSON_PART_NVMAP] = "nvmap",
    [JMEM_JETSON_PART_POWER_MODE] = "power-mode",
    [JMEM_JETSON_PART_TEGRASTATS] = "tegrastats",
  };

  return part < JMEM_JETSON_N_PARTS ? names[part] : "unknown";
}

const char *
jmem_platform_not_applying (const JmemPlatform *platform, JmemJetsonPart part)
{
  static const char * const why[JMEM_JETSON_N_PARTS] = {
    [JMEM_JETSON_PART_L4T] = "L4T (/etc/nv_tegra_release) is a Jetson's release: this system is "
                             "not a Jetson",
    [JMEM_JETSON_PART_NVMAP] = "NvMap is the allocator of a Jetson's nvgpu driver stack: here "
                               "the nvidia.ko driver holds the GPU memory, and NVML or nvidia-smi "
                               "reports it per process",
    [JMEM_JETSON_PART_POWER_MODE] = "nvpmodel sets a Jetson's power modes: this system has none",
    [JMEM_JETSON_PART_TEGRASTATS] = "tegrastats is a Jetson's monitor (nvidia-l4t-tools): this "
                                    "system has none",
  };

  if (platform == NULL || platform->kind != JMEM_PLATFORM_UNIFIED_MEMORY ||
      part >= JMEM_JETSON_N_PARTS)
    return NULL;
  return why[part];
}

/* @value lower-cased without spaces and underscores, for matching names
 * whose firmware spells them either way. */
static char *
squeeze (const char *value)
{
  GString *out = g_string_new (NULL);

  for (const char *p = value; *p != '\0'; p++)
    if (*p != ' ' && *p != '_')
      g_string_append_c (out, g_ascii_tolower (*p));
  return g_string_free (out, FALSE);
}

static gboolean
dmi_names_unified (const char *value)
{
  g_autofree char *squeezed = NULL;

  if (value == NULL)
    return FALSE;
  squeezed = squeeze (value);
  for (guint i = 0; unified_dmi_names[i] != NULL; i++)
    if (strstr (squeezed, unified_dmi_names[i]) != NULL)
      return TRUE;
  return FALSE;
}

/* The first GPU whose memory is the system's: its name is a unified-memory
 * chip's, or it reports no total (a discrete GPU always reports its own);
 * NULL when none. @why says which. */
static const JmemNvsmiGpu *
unified_gpu (const JmemPlatformEvidence *e, const char **why)
{
  if (e->gpu_stack != JMEM_GPU_STACK_UNIFIED || e->gpus == NULL)
    return NULL;
  for (guint i = 0; i < e->gpus->len; i++)
    {
      const JmemNvsmiGpu *gpu = g_ptr_array_index ((GPtrArray *) e->gpus, i);

      if (gpu->name != NULL && g_strv_contains (unified_gpu_names, gpu->name))
        {
          *why = "is a unified-memory chip";
          return gpu;
        }
      if (gpu->memory_total_mib < 0)
        {
          *why = "reports no memory of its own";
          return gpu;
        }
    }
  return NULL;
}

static char *
dmi_text (const char *value)
{
  return value != NULL && value[0] != '\0' ? jmem_text_make_valid (value, -1) : NULL;
}

JmemPlatform *
jmem_platform_recognise (const JmemPlatformEvidence *e)
{
  JmemPlatform *p = g_new0 (JmemPlatform, 1);
  gboolean jetson_model = e->jetson_generation != NULL &&
                          !g_str_equal (e->jetson_generation, "unknown");
  const JmemNvsmiGpu *gpu;
  const char *why = NULL;

  p->evidence = g_ptr_array_new_with_free_func (g_free);
  p->name = dmi_text (e->dmi_product_name);
  p->vendor = dmi_text (e->dmi_sys_vendor);
  p->board = dmi_text (e->dmi_board_name);
  if (e->tegra_release || jetson_model)
    {
      p->kind = JMEM_PLATFORM_JETSON;
      if (e->tegra_release)
        g_ptr_array_add (p->evidence, g_strdup ("/etc/nv_tegra_release: an L4T release"));
      if (jetson_model)
        g_ptr_array_add (p->evidence,
                         g_strdup_printf ("device-tree model of a Jetson %s", e->jetson_generation));
      return p;
    }
  g_ptr_array_add (p->evidence, g_strdup ("no /etc/nv_tegra_release and no Jetson device-tree model"));
  gpu = unified_gpu (e, &why);
  if (gpu != NULL)
    g_ptr_array_add (p->evidence,
                     g_strdup_printf ("GPU %" G_GINT64_FORMAT " \"%s\" (unified nvidia.ko "
                                      "stack) %s: it shares the system RAM",
                                      gpu->index, gpu->name ? gpu->name : "", why));
  if (p->name != NULL || p->vendor != NULL)
    g_ptr_array_add (p->evidence,
                     g_strdup_printf ("DMI: vendor %s, product %s, board %s",
                                      p->vendor ? p->vendor : "-", p->name ? p->name : "-",
                                      p->board ? p->board : "-"));
  if (gpu == NULL && (dmi_names_unified (e->dmi_product_name) ||
                      dmi_names_unified (e->dmi_product_family)))
    {
      g_ptr_array_add (p->evidence,
                       g_strdup ("DMI names a GB10 system, whose GPU shares the system RAM "
                                 "(no GPU answered)"));
      p->kind = JMEM_PLATFORM_UNIFIED_MEMORY;
      return p;
    }
  p->kind = gpu != NULL ? JMEM_PLATFORM_UNIFIED_MEMORY : JMEM_PLATFORM_OTHER;
  return p;
}
