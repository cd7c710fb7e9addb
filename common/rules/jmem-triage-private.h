/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the triage rules share: the figures every rule derives from the
 * snapshot once, and the helpers that build findings. */
#pragma once

#include "jmem-triage.h"

G_BEGIN_DECLS

/* One process holding GPU memory, by NvMap rows and/or nvidia-smi. */
typedef struct {
  gint64      pid;
  const char *name;        /* borrowed, valid UTF-8 */
  guint64     kib;         /* max (NvMap, nvidia-smi) */
  guint64     nvmap_kib;
  guint64     smi_kib;
  gboolean    pid_exists;
} JmemTriageHolder;

typedef struct {
  const JmemSnapshot *snapshot;
  GPtrArray *findings;

  gint64      mem_total_kib;      /* -1 unknown, as every figure here */
  gint64      mem_available_kib;
  gint64      gpu_total_kib;      /* NvMap total, else meminfo NvMapMemUsed; or nvidia-smi, the larger */
  const char *gpu_total_source;   /* "nvmap", "meminfo", "nvidia-smi" */
  GArray     *holders;            /* JmemTriageHolder, largest first */
  const JmemAccounting *accounting;  /* the snapshot's, or own_accounting; NULL without meminfo */
  JmemAccounting *own_accounting;    /* for a snapshot built without one */
} JmemTriage;

typedef void (*JmemTriageRule) (JmemTriage *triage);

void jmem_triage_rule_gpu_dominates (JmemTriage *t);
void jmem_triage_rule_single_process (JmemTriage *t);
void jmem_triage_rule_desktop_nvmap (JmemTriage *t);
void jmem_triage_rule_nvmap_orphan (JmemTriage *t);
void jmem_triage_rule_unexplained_large (JmemTriage *t);
void jmem_triage_rule_cuda_pool (JmemTriage *t);
void jmem_triage_rule_gpu_managed (JmemTriage *t);
void jmem_triage_rule_swap_heavy (JmemTriage *t);
void jmem_triage_rule_cma_exhausted (JmemTriage *t);
void jmem_triage_rule_thermal_hot (JmemTriage *t);
void jmem_triage_rule_lfb_fragmented (JmemTriage *t);
void jmem_triage_rule_headroom_low (JmemTriage *t);
void jmem_triage_rule_fragmented (JmemTriage *t);

/* Every rule says who can take its action (@by): there is no default, so
 * that no finding reaches an agent without it. */
JmemFinding *jmem_triage_add (JmemTriage  *t,
                              const char  *id,
                              JmemSeverity severity,
                              JmemActionBy by,
                              const char  *action,
                              const char  *format,
                              ...) G_GNUC_PRINTF (6, 7);

/* part / whole compared with percent / 100 exactly, for any 64-bit sizes;
 * FALSE when whole is 0. */
gboolean jmem_triage_at_least (guint64 part, guint64 whole, guint percent);
gboolean jmem_triage_above (guint64 part, guint64 whole, guint percent);
gboolean jmem_triage_below (guint64 part, guint64 whole, guint percent);

/* part / whole in percent, rounded to one decimal. */
double jmem_triage_percent (guint64 part, guint64 whole);

/* A meminfo field in KiB, -1 when absent. */
gint64 jmem_triage_meminfo (const JmemTriage *t, const char *name);

/* The collected process with @pid, or NULL. */
const JmemProcess *jmem_triage_process (const JmemTriage *t, gint64 pid);

/* a + b for sizes, negatives read as 0, capped at G_MAXINT64. */
gint64 jmem_triage_sum (gint64 a, gint64 b);

/* "14.1 GiB": a size for a message. */
char *jmem_triage_size (guint64 kib);

/* "PID 123 (name)" plus " in container abc" when known; valid UTF-8. */
char *jmem_triage_describe (const JmemTriage *t, gint64 pid, const char *name);

G_END_DECLS
