/* SPDX-License-Identifier: GPL-2.0-or-later */
/* One tegrastats line, any generation (TX1 r28 .. Thor r38, Orin r39). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct {
  char   *name;       /* "VDD_GPU_SOC", "VIN_SYS_5V0", ... */
  gint64  current_mw;
  gint64  average_mw; /* -1 when the line gives one number */
} JmemTegrastatsRail;

typedef struct {
  char   *name;       /* "cpu", "gpu", "tj", "soc0", ... */
  double  celsius;
} JmemTegrastatsTemp;

typedef struct {
  char   *timestamp;       /* "07-25-2026 09:08:28" or NULL */
  gint64  ram_used_mib;
  gint64  ram_total_mib;
  gint64  lfb_blocks;      /* largest free block count */
  gint64  lfb_block_kib;   /* size of each, in KiB (2MB -> 2048, 512kB -> 512) */
  gint64  swap_used_mib;
  gint64  swap_total_mib;
  gint64  swap_cached_mib;
  gint64  emc_freq_percent;
  gint64  emc_freq_mhz;
  gint64  gr3d_freq_percent;  /* -1 when not shown (Thor prints "@[...]") */
  GArray *gr3d_freq_mhz;      /* gint64 per GPC/TPC, may be empty */
  GArray *cpu_percent;        /* gint64 per core, -1 for "off" */
  GPtrArray *temps;           /* JmemTegrastatsTemp */
  GPtrArray *rails;           /* JmemTegrastatsRail */
  guint   n_unknown_tokens;
} JmemTegrastats;

void jmem_tegrastats_free (JmemTegrastats *stats);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (JmemTegrastats, jmem_tegrastats_free)

JmemTegrastats *jmem_tegrastats_parse (const char *line, gsize len, GError **error);

G_END_DECLS
