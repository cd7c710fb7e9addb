/* Parsers for /proc/PID/{status,smaps_rollup,cgroup,cmdline}. Unknown values are -1. */
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

/* NUL-separated argv, made valid UTF-8 and joined by single spaces; "" for
 * kernel threads (empty cmdline). */
char *jmem_cmdline_parse (const char *data, gsize len);

G_END_DECLS
