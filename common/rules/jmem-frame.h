/* SPDX-License-Identifier: GPL-2.0-or-later */
/* One sample as the faces over time show it (jmem top, jmem plot): the
 * header's numbers and a row per process, from a snapshot document (a line
 * of a jmem watch history) or from a live JmemSnapshot. Unknown numbers are
 * -1, unknown strings NULL; strings are valid UTF-8, not yet escaped.
 *
 * The sections a history recorded by an older jmem lacks (the accounting of
 * MemTotal, the headroom) are read from the document whenever it carries
 * them, so a face shows them from the first snapshot that has them, live or
 * recorded. */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

#include "jmem-snapshot.h"

G_BEGIN_DECLS

typedef struct {
  gint64   pid;
  gint64   start_time_ticks;  /* with pid, one process for its lifetime; -1 unknown */
  char    *name;
  char    *user;
  char    *container;         /* "runtime/id", NULL outside a container */
  gint64   footprint_kib;
  gint64   pss_kib;
  gint64   rss_kib;
  gint64   nvmap_kib;
  gint64   gpu_kib;
  gint64   swap_kib;
  gint     pss_age_samples;   /* 0 read for this sample, N kept from N samples ago, -1 unknown */
  gboolean kernel_thread;
} JmemFrameProcess;

/* What one PID holds by one source: its NvMap total (nvmap.by_pid), or
 * the GPU memory nvidia-smi/NVML reports for it (gpu.processes); complete
 * in every sample even when the process list is cut (jmem watch --top) or
 * its /proc entry was unreadable. */
typedef struct {
  gint64  pid;
  char   *name;
  gint64  size_kib;
} JmemFrameHolder;

/* A bucket of the accounting of MemTotal (docs/accounting.md). */
typedef struct {
  char   *name;    /* the stable id ("page_cache"); "unexplained" for the remainder */
  char   *label;   /* as the snapshot shows it ("page cache") */
  gint64  kib;     /* -1 unknown */
} JmemFrameBucket;

typedef struct {
  gint64  timestamp_unix;
  gint64  uptime_s;
  char   *hostname;
  char   *board;          /* device-tree model, else the product line, else DMI's product */
  char   *l4t;
  gboolean l4t_applies;   /* FALSE on a system with no L4T at all (a GB10) */
  char   *sysroot;        /* the captured tree, NULL for the live system */

  gint64  mem_total_kib;
  gint64  mem_available_kib;
  gint64  mem_used_kib;
  gint64  swap_total_kib;
  gint64  swap_used_kib;

  gint64  nvmap_total_kib;
  char   *nvmap_source;   /* "helper", "debugfs", "sysroot", "meminfo" or NULL (unread) */
  char   *nvmap_error;    /* why unread */
  char   *gpu_source;     /* gpu.source: "nvmap", "nvidia-smi", "nvidia-smi+nvmap", "none" */
  gint64  gpu_used_kib;   /* the GPUs' used memory, else their processes' sum */

  /* headroom (when the snapshot has it) */
  gboolean has_headroom;
  gint64   allocatable_now_kib;
  gint64   allocatable_after_reclaim_kib;
  gint64   largest_free_block_kib;

  GPtrArray *buckets;     /* JmemFrameBucket, the accounting of MemTotal in the snapshot's
                           * order, the remainder last; NULL without one */
  gint64     overlap_kib; /* > 0: the buckets add up to more than MemTotal by this much */

  GPtrArray *processes;   /* JmemFrameProcess, in the snapshot's order (footprint) */
  guint      n_processes_total;
  GPtrArray *nvmap_by_pid;/* JmemFrameHolder */
  GPtrArray *gpu_by_pid;  /* JmemFrameHolder, where the per-process rows are trusted */
} JmemFrame;

void jmem_frame_free (JmemFrame *frame);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (JmemFrame, jmem_frame_free)

/* From a snapshot document that passed jmem_diff_check_snapshot() (what
 * jmem_history_read() hands over); members it lacks stay unknown. */
JmemFrame *jmem_frame_from_json (JsonNode *snapshot);

/* From a live snapshot: its rows straight from the model, its header as a
 * document would give it. */
JmemFrame *jmem_frame_from_snapshot (JmemSnapshot *snapshot);

/* "runtime/id" of a container, or NULL outside one. */
char *jmem_frame_container_key (const char *runtime,
                                const char *id);

/* The container as a table shows it: the id's first 12 characters (as
 * `docker ps`), else the runtime; NULL outside a container. */
char *jmem_frame_container_short (const char *key);

/* The line `jmem summary` prints, from a frame: "total T, available A,
 * allocatable now H, NvMap N, GPU G, top PID P (NAME) F, largest bucket:
 * B S" (H: the headroom's allocatable_now_kib); escaped for a terminal. The
 * top holder is the largest footprint, or a PID whose NvMap or GPU memory
 * alone is larger (its /proc entry unreadable): "top PID P (NAME) NvMap S";
 * B is the bucket's stable name. */
char *jmem_frame_summary_line (const JmemFrame *frame);

G_END_DECLS
