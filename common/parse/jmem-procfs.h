/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Parsers for /proc/PID/{status,stat,statm,smaps_rollup,cgroup,cmdline}. Unknown values are -1. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct {
  char    *name;        /* Name:, unescaped (the kernel escapes \n and \\), valid UTF-8 */
  char     state;       /* 'R', 'S', 'Z', ... or '?' */
  gint64   pid;
  gint64   ppid;
  gint64   uid;         /* real uid */
  gint64   vm_rss_kib;
  gint64   rss_anon_kib;
  gint64   rss_file_kib;
  gint64   rss_shmem_kib;
  gint64   vm_swap_kib;
  gint64   threads;
  guint    ns_pid_levels; /* NSpid: entries, one per PID namespace from /proc's down (0: no line) */
} JmemProcStatus;

void jmem_proc_status_free (JmemProcStatus *status);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (JmemProcStatus, jmem_proc_status_free)
JmemProcStatus *jmem_proc_status_parse (const char *data, gsize len, GError **error);

/* The fields of /proc/PID/stat jmem reads (proc(5) numbers them from 1). */
typedef struct {
  gint64  pid;              /* 1 */
  char    state;            /* 3 */
  gint64  ppid;             /* 4 */
  guint64 flags;            /* 9: PF_* */
  gint64  start_time_ticks; /* 22: clock ticks (sysconf (_SC_CLK_TCK)) after boot */
} JmemProcStat;

/* PF_KTHREAD (include/linux/sched.h): set for kernel threads only, which
 * rename themselves, have no memory of their own and no command line. */
#define JMEM_PROC_PF_KTHREAD 0x00200000u

/* The name (field 2) sits in parentheses and may hold any byte but NUL,
 * parentheses, spaces and newlines included; the fields after it start
 * after the LAST ")". FALSE with @error when a field is missing or not a
 * number; @out is then all -1 ('?', 0 flags). */
gboolean jmem_proc_stat_parse (const char *data, gsize len,
                               JmemProcStat *out, GError **error);

/* /proc/PID/statm: sizes in pages, from counters the kernel keeps (no walk
 * of the page tables, unlike smaps_rollup), which makes it the cheap test
 * of whether a process's memory moved since it was last read. */
typedef struct {
  guint64 size;      /* 1: virtual size */
  guint64 resident;  /* 2: RSS */
  guint64 shared;    /* 3: resident file-backed and shmem pages */
  guint64 text;      /* 4: code */
  guint64 data;      /* 6: data and stack */
} JmemProcStatm;

/* Seven decimal numbers separated by single spaces (the kernel's format,
 * fs/proc/array.c proc_pid_statm()), a newline at most after them. FALSE
 * with @error otherwise. */
gboolean jmem_proc_statm_parse (const char *data, gsize len,
                                JmemProcStatm *out, GError **error);

typedef struct {
  gint64 rss_kib;
  gint64 pss_kib;
  gint64 pss_anon_kib;
  gint64 pss_file_kib;
  gint64 pss_shmem_kib;
  gint64 swap_kib;
  gint64 swap_pss_kib;
} JmemSmapsRollup;

gboolean jmem_smaps_rollup_parse (const char *data, gsize len,
                                  JmemSmapsRollup *out, GError **error);

/* Container runtime and id from /proc/PID/cgroup (v1 or v2): docker, containerd
 * (cri-containerd), podman (libpod), crio, kubepods. NULL/NULL when none. */
typedef struct {
  char *runtime;
  char *id;         /* full hex id */
  char *cgroup;     /* the cgroup path it came from (v2 line, or the first v1 one) */
} JmemCgroupInfo;

void jmem_cgroup_info_clear (JmemCgroupInfo *info);
gboolean jmem_cgroup_parse (const char *data, gsize len,
                            JmemCgroupInfo *out, GError **error);

/* The system service a cgroup path puts a process in: "NAME.service" for
 * "/system.slice/NAME.service" and anything beneath it, else NULL (user
 * sessions, a container's scope, the root). What `systemctl stop` takes. */
char *jmem_cgroup_unit (const char *cgroup);

/* NUL-separated argv, made valid UTF-8 and joined by single spaces; "" for
 * kernel threads (empty cmdline). */
char *jmem_cmdline_parse (const char *data, gsize len);

G_END_DECLS
