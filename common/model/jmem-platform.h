/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What kind of system a snapshot describes, from its evidence: a Jetson, an
 * NVIDIA system whose GPU shares the system RAM without being a Jetson (DGX
 * Spark's GB10), or another machine; and which Jetson-only parts do not
 * apply on it. */
#pragma once

#include <glib.h>

#include "jmem-nvsmi.h"

G_BEGIN_DECLS

typedef enum {
  JMEM_PLATFORM_OTHER,          /* no Jetson, no NVIDIA GPU sharing the system RAM */
  JMEM_PLATFORM_JETSON,
  JMEM_PLATFORM_UNIFIED_MEMORY, /* no Jetson; its NVIDIA GPU shares the system RAM (GB10) */
} JmemPlatformKind;

/* The parts of jmem's report that exist only on a Jetson. */
typedef enum {
  JMEM_JETSON_PART_L4T,         /* /etc/nv_tegra_release */
  JMEM_JETSON_PART_NVMAP,       /* NvMap, nvgpu's allocator */
  JMEM_JETSON_PART_POWER_MODE,  /* nvpmodel */
  JMEM_JETSON_PART_TEGRASTATS,
  JMEM_JETSON_N_PARTS,
} JmemJetsonPart;

typedef struct {
  JmemPlatformKind kind;
  char      *name;      /* DMI product_name, valid UTF-8; NULL when absent */
  char      *vendor;    /* DMI sys_vendor; NULL when absent */
  char      *board;     /* DMI board_name; NULL when absent */
  GPtrArray *evidence;  /* char*: what decided the kind */
} JmemPlatform;

/* What the kind is told from; any string may be NULL (absent). */
typedef struct {
  gboolean         tegra_release;     /* /etc/nv_tegra_release was read */
  const char      *jetson_generation; /* the identity's; NULL or "unknown" for none */
  const char      *dmi_sys_vendor;
  const char      *dmi_product_name;
  const char      *dmi_product_family;
  const char      *dmi_board_name;
  JmemGpuStack     gpu_stack;
  const GPtrArray *gpus;              /* JmemNvsmiGpu, or NULL */
} JmemPlatformEvidence;

JmemPlatform *jmem_platform_recognise (const JmemPlatformEvidence *evidence);
void jmem_platform_free (JmemPlatform *platform);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (JmemPlatform, jmem_platform_free)

/* "jetson", "unified-memory", "other". */
const char *jmem_platform_kind_to_string (JmemPlatformKind kind);
/* "l4t", "nvmap", "power-mode", "tegrastats". */
const char *jmem_jetson_part_to_string (JmemJetsonPart part);

/* Why @part does not apply on @platform, or NULL where it does or may (a
 * Jetson, another machine, an unknown platform). */
const char *jmem_platform_not_applying (const JmemPlatform *platform, JmemJetsonPart part);

G_END_DECLS
