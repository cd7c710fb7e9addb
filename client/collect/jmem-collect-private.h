/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The collector's pieces: one source per file, sharing this context. */
#pragma once

#include <glib.h>

#include "jmem-collect.h"
#include "jmem-root.h"
#include "jmem-snapshot.h"
#include "jmem-users.h"

G_BEGIN_DECLS

typedef struct {
  const JmemCollectOptions *options;
  const char   *root;          /* the --sysroot tree, NULL for the live system */
  JmemRoot     *files;         /* where every file is read: the tree or the live system */
  guint         timeout_ms;
  JmemSnapshot *snapshot;
  gboolean      gpu_apps_read; /* every process holding GPU memory is listed */
  int           proc_fd;       /* the root's /proc while processes are read, else -1 */
  GByteArray   *read_buf;      /* reused for every /proc/PID file */
  JmemUsers    *users;         /* uid -> name, while processes are read */
  guint         n_status_refused;
  guint         n_status_damaged;
  GHashTable   *pss_why;       /* PID -> JmemPssUnknown, for each smaps_rollup unread */
  JmemCollectBoot *boot;       /* options->boot */
} JmemCollectContext;

/* Why smaps_rollup gave a process no PSS, as root sees it. */
typedef enum {
  JMEM_PSS_UNKNOWN_REFUSED = 1,
  JMEM_PSS_UNKNOWN_KERNEL_THREAD,  /* PID 2 or a child of it: no memory map */
  JMEM_PSS_UNKNOWN_PID_NAMESPACE,  /* refused, and in a PID namespace below jmem's */
  JMEM_PSS_UNKNOWN_EXITED,         /* its memory map went away while it was read */
} JmemPssUnknown;

typedef struct {
  gint64         pid;
  JmemPssUnknown why;
} JmemPssGap;

/* The warning for @n_unknown processes without PSS, naming the first
 * @n_gaps of them (at most five are named) and why each has none. */
char *jmem_collect_pss_unknown_text (guint             n_unknown,
                                     const JmemPssGap *gaps,
                                     guint             n_gaps);

/* Per-boot facts (jmem-collect-boot.c): forgets what was kept when the
 * boot_id changed (or loads what the boot's file kept); then
 * jmem_root_read() read once per boot. A probe (the
 * output of a program such as nvidia-smi --query-gpu or nvpmodel -q) is
 * kept by its caller when its answer holds until a reboot: @data NULL keeps
 * "not installed". jmem_collect_boot_probe() is TRUE when one is kept, and
 * gives its output (NULL: not installed). */
void jmem_collect_boot_check (JmemCollectContext *ctx);
/* Writes what was kept to the boot's file when it holds something new. */
void jmem_collect_boot_save (const JmemCollectContext *ctx);
gboolean jmem_collect_read_boot_raw (const JmemCollectContext *ctx,
                                     const char               *path,
                                     gsize                     max_bytes,
                                     char                    **data,
                                     gsize                    *len,
                                     GError                  **error);
gboolean jmem_collect_boot_probe (const JmemCollectContext *ctx,
                                  const char               *name,
                                  char                    **data,
                                  gsize                    *len);
void jmem_collect_boot_keep_probe (const JmemCollectContext *ctx,
                                   const char               *name,
                                   const char               *data,
                                   gsize                     len);

/* The sampler's side of jmem_collect_processes() (jmem-sampler.c): a
 * sample begins, each listed process is either kept from an earlier sample
 * (KEPT: @p filled in), gone (EXITED) or to be read whole, after which
 * jmem_sampler_keep() takes a copy; the end forgets the processes not
 * listed. */
typedef enum {
  JMEM_SAMPLER_READ_WHOLE,
  JMEM_SAMPLER_KEPT,
  JMEM_SAMPLER_EXITED,
} JmemSamplerRead;

void jmem_sampler_begin (JmemSampler *sampler);
JmemSamplerRead jmem_sampler_reuse (JmemSampler        *sampler,
                                    JmemCollectContext *ctx,
                                    JmemProcess        *p);
void jmem_sampler_keep (JmemSampler        *sampler,
                        JmemCollectContext *ctx,
                        JmemProcess        *p);
void jmem_sampler_end (JmemSampler *sampler);

void jmem_collect_meminfo (JmemCollectContext *ctx);
void jmem_collect_identity (JmemCollectContext *ctx);
/* Every process with its RSS, PSS (where readable) and swap; name, owner
 * and state only where smaps_rollup was unreadable: the name is NULL until
 * jmem_collect_process_named() reads it. With options->top < 0 (every
 * process named) all of it at once. */
void jmem_collect_processes (JmemCollectContext *ctx);
/* Name, owner and state (from status, where not read yet), container and
 * command line of a process the report names; FALSE when it exited or its
 * status is refused or damaged (counted for
 * jmem_collect_process_warnings()): drop it. */
gboolean jmem_collect_process_named (JmemCollectContext *ctx,
                                     JmemProcess        *process);
/* What the passes above could not read, as snapshot warnings. */
void jmem_collect_process_warnings (JmemCollectContext *ctx);
void jmem_collect_gpu (JmemCollectContext *ctx);
/* After identity and the GPU: what kind of system this is (jmem-platform.h). */
void jmem_collect_platform (JmemCollectContext *ctx);
void jmem_collect_nvmap (JmemCollectContext *ctx);
void jmem_collect_thermal (JmemCollectContext *ctx);
void jmem_collect_power_mode (JmemCollectContext *ctx);
void jmem_collect_disks (JmemCollectContext *ctx);
void jmem_collect_services (JmemCollectContext *ctx);
void jmem_collect_tegrastats (JmemCollectContext *ctx);

/* What the RAM accounting reads beside meminfo and NvMap (zram's stores,
 * the device tree's memory nodes): jmem-collect-accounting.c. */
void jmem_collect_memory_extras (JmemCollectContext *ctx);
/* For each process holding NvMap, the NvMap pages inside its PSS (or RSS):
 * from its smaps, matched by NvMap's maps or by the mappings' names. */
void jmem_collect_nvmap_mapped (JmemCollectContext *ctx);
/* The accounting over everything read, every process included. */
void jmem_collect_accounting (JmemCollectContext *ctx);

/* What the headroom reads beside the accounting (buddyinfo, swaps, the
 * kernel's reserve, the page size): jmem-collect-headroom.c. */
void jmem_collect_headroom_inputs (JmemCollectContext *ctx);
/* The headroom for no particular need, after the accounting. */
void jmem_collect_headroom (JmemCollectContext *ctx);

/* Per-PID NvMap totals, the joins onto processes, footprint, order, --top. */
void jmem_collect_join (JmemCollectContext *ctx);

/* The names of the services reported, NULL-terminated. */
extern const char * const jmem_collect_service_names[];

G_END_DECLS
