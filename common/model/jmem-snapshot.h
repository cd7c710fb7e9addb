/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The snapshot: everything one `jmem snapshot` reports. Collected by the
 * client (client/collect/jmem-collect*.c), written by jmem-snapshot-json.c and the
 * human view. Unknown numbers are -1 and print as null. */
#pragma once

#include <glib.h>

#include "jmem-accounting.h"
#include "jmem-buddyinfo.h"
#include "jmem-headroom.h"
#include "jmem-meminfo.h"
#include "jmem-nvmap.h"
#include "jmem-nvsmi.h"
#include "jmem-platform.h"
#include "jmem-release.h"
#include "jmem-swaps.h"
#include "jmem-tegrastats.h"

G_BEGIN_DECLS

#define JMEM_SNAPSHOT_SCHEMA_VERSION 3
/* The oldest version diff and history still read: each version only adds
 * or reshapes what they do not read (3: every action says admin). */
#define JMEM_SNAPSHOT_SCHEMA_VERSION_MIN 1

typedef struct {
  char *source;   /* "nvmap", "nvidia-smi", "processes", ... */
  char *message;  /* what is missing and why */
  char *action;   /* what to do about it, or NULL */
} JmemWarning;

typedef struct {
  gint64  pid;
  char   *name;           /* valid UTF-8 */
  char   *user;           /* NULL when the uid has no name */
  gint64  uid;
  char    state;
  gint64  rss_kib;
  gint64  pss_kib;        /* -1 when smaps_rollup is unreadable */
  gint64  swap_kib;
  gint64  nvmap_kib;      /* sum of the PID's NvMap client rows; -1 when NvMap unread */
  gint64  gpu_kib;        /* nvidia-smi used_memory; -1 when not reported */
  gint64  nvmap_mapped_kib; /* NvMap pages inside the base (PSS or RSS); -1 unknown, 0 none */
  const char *nvmap_mapped_source; /* "smaps" (VMAs NvMap's maps names), "smaps-name"
                                    * (dma-buf VMAs), "nvmap-maps" (mapped size), NULL */
  gboolean footprint_pss; /* the base is PSS (else RSS) */
  gint64  footprint_kib;  /* (base - nvmap_mapped) + swap + max(nvmap, gpu): the sort key */
  char   *container_runtime;
  char   *container_id;
  char   *unit;           /* the system service it runs in ("ollama.service"), or NULL */
  char   *cmdline;        /* valid UTF-8, may be "" */
  gint64  start_time_ticks; /* /proc/PID/stat field 22: clock ticks after boot; -1 unknown */
  gint    kernel_thread;  /* 1, 0, or -1 when unknown */
  gint    pss_age_samples;/* samples since PSS, swap, name, owner, state, container and
                           * command line were read (jmem-sampler.h); -1 outside a sampler */
} JmemProcess;

typedef struct {
  gint64  pid;
  char   *process;        /* name from the first NvMap row */
  guint   n_clients;
  guint64 size_kib;
  gboolean pid_exists;    /* FALSE when no /proc/PID: a leak or an exited process;
                           * TRUE (not looked up) when the PIDs are the host's */
} JmemNvmapPidTotal;

typedef struct {
  char   *zone;           /* thermal_zoneN */
  char   *type;
  double  celsius;
} JmemThermal;

/* What Tegra's thermal driver reads for a sensor that is powered off (the
 * cv* zones while the DLA and PVA sleep): -256 °C, below absolute zero. */
#define JMEM_THERMAL_OFF_CELSIUS (-256.0)

typedef struct {
  char   *mount_point;
  char   *device;
  char   *fs_type;
  guint64 size_kib;
  guint64 used_kib;
  guint64 available_kib;
} JmemDisk;

typedef struct {
  char *name;           /* "gdm3.service" */
  char *load_state;     /* "loaded", "not-found", ... */
  char *active_state;   /* "active", "inactive", ... */
  char *unit_file_state;/* "enabled", "disabled", "masked", ... or NULL */
} JmemService;

typedef struct {
  /* collection */
  char    *hostname;
  gint64   timestamp_unix;
  gint64   uptime_seconds;      /* /proc/uptime, -1 unknown */
  char    *sysroot;             /* NULL for the live system */
  gboolean is_jetson;

  /* identity */
  JmemIdentity     *identity;
  JmemTegraRelease *release;     /* NULL off a Jetson */
  JmemPlatform     *platform;    /* what kind of system; NULL until recognised (after the GPU) */
  gint64            mem_total_kib;
  char             *default_target;
  char             *kernel_release;

  /* memory */
  JmemMeminfo *meminfo;

  /* GPU */
  JmemGpuStack  gpu_stack;
  char         *gpu_source;      /* "nvidia-smi", "nvmap", "nvidia-smi+nvmap", "none" */
  GPtrArray    *gpu_evidence;    /* char*: probe lines, exit status, ... */
  GPtrArray    *gpus;            /* JmemNvsmiGpu */
  GPtrArray    *gpu_apps;        /* JmemNvsmiApp */
  gboolean      gpu_apps_trusted;/* FALSE when a row may be forged (it follows
                                  * the row of a process whose name or command
                                  * line holds a newline or cannot be read, or
                                  * a line was malformed): each such row is
                                  * in_doubt, shown but counted for nobody */

  /* NvMap */
  gboolean          nvmap_readable;
  gboolean          nvmap_absent;    /* the system has no NvMap (not merely unreadable) */
  char             *nvmap_via;       /* "helper", "debugfs", "sysroot" or NULL */
  char             *nvmap_error;     /* why unreadable */
  JmemNvmapClients *nvmap_clients;
  gint64            nvmap_stats_total_bytes; /* stats/total_memory, -1 if absent */
  gboolean          nvmap_pids_host; /* rows' PIDs are another namespace's: not joined */
  GPtrArray        *nvmap_by_pid;    /* JmemNvmapPidTotal, largest first */
  gint64            nvmap_unattributed_kib;  /* total - sum(rows), may be negative; -1 unknown */
  JmemNvmapExtras   nvmap_extras;    /* maps, free_size, page pool; parts -1 / NULL unread */
  char             *nvmap_extras_error; /* why they were not read, or NULL */
  gint64            nvmap_hugetlbfs_kib; /* handles with FROM_HUGETLBFS 1; -1 unread */
  gboolean          nvmap_hugetlbfs_column;

  /* what the accounting reads beside meminfo and NvMap */
  gint64            zram_bytes;      /* sum of zram mm_stat mem_used_total; -1 unread */
  gint64            device_tree_bytes; /* sum of the /memory nodes' sizes; -1 none */
  JmemAccounting   *accounting;      /* NULL when meminfo was unread */

  /* what the headroom reads beside the accounting */
  gint64            page_size;       /* bytes, of the system read (a capture records it); -1 */
  JmemBuddyinfo    *buddyinfo;       /* NULL unread */
  JmemSwaps        *swaps;           /* NULL unread */
  gint64            min_free_kib;    /* vm.min_free_kbytes; -1 unread */
  gint64            zram_orig_bytes; /* what zram holds, uncompressed; -1 unread */
  JmemHeadroom     *headroom;        /* for no particular need; NULL until collected */

  /* processes */
  GPtrArray *processes;         /* JmemProcess, largest footprint first */
  guint      n_processes_total; /* before --top */
  guint      n_processes_vanished;

  /* host */
  GPtrArray *thermal;           /* JmemThermal */
  char      *power_mode;        /* nvpmodel -q, NULL when absent */
  GPtrArray *disks;             /* JmemDisk */
  GPtrArray *services;          /* JmemService; NULL when systemd was unreachable */
  JmemTegrastats *tegrastats;   /* NULL unless asked */

  GPtrArray *warnings;          /* JmemWarning */

  GPtrArray *findings;          /* JmemFinding (jmem-finding.h); NULL until triage runs */
} JmemSnapshot;

JmemSnapshot *jmem_snapshot_new (void);
void jmem_snapshot_free (JmemSnapshot *snapshot);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (JmemSnapshot, jmem_snapshot_free)

void jmem_snapshot_add_warning (JmemSnapshot *snapshot,
                                const char   *source,
                                const char   *action,
                                const char   *format,
                                ...) G_GNUC_PRINTF (4, 5);

/* The accounting of what @snapshot collected (jmem-accounting.h); NULL
 * without meminfo. The collector keeps it in snapshot->accounting. */
JmemAccounting *jmem_snapshot_accounting_new (const JmemSnapshot *snapshot);

/* The headroom of what @snapshot collected, for @need_kib (-1: none); the
 * accounting must be there (jmem_snapshot_accounting_new()). The collector
 * keeps the one without a need in snapshot->headroom. */
JmemHeadroom *jmem_snapshot_headroom_new (const JmemSnapshot *snapshot,
                                          gint64              need_kib);

void jmem_process_free (JmemProcess *process);
/* A deep copy. */
JmemProcess *jmem_process_copy (const JmemProcess *process);
void jmem_nvmap_pid_total_free (JmemNvmapPidTotal *total);
void jmem_thermal_free (JmemThermal *thermal);
void jmem_disk_free (JmemDisk *disk);
void jmem_service_free (JmemService *service);
void jmem_warning_free (JmemWarning *warning);

G_END_DECLS
