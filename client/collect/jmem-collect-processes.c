/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Processes from /proc/PID. smaps_rollup first: one read gives RSS, PSS and
 * swap, which is all the sort needs. status (name, owner, state) only where
 * smaps_rollup is unreadable and for the processes a report names (see
 * jmem-collect-join.c); stat (start time, kernel thread), cgroup and cmdline
 * only for those. Under --all every process is named, and all of it is read
 * in the first pass. Reading /proc is most of what a snapshot costs, and the
 * kernel charges per file opened. */
#include "jmem-collect-private.h"

#include "jmem-names.h"
#include "jmem-procfs.h"
#include "jmem-text.h"
#include "jmem-users.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <gio/gio.h>
#include <unistd.h>

typedef enum {
  PROCESS_READ,
  PROCESS_EXITED,
  PROCESS_REFUSED,  /* status present but refused */
  PROCESS_DAMAGED,  /* status present but not a status file */
} ProcessRead;

/* Where a process's files are opened: PID/FILE beneath /proc, one open per
 * file, for the first pass, which reads one file of most processes; or FILE
 * beneath the process's own directory, for a process whose files are all
 * read: the kernel looks the PID up once, and every file comes from the same
 * process. In a tree, still beneath it and through no symbolic link. */
typedef struct {
  int  fd;
  char dir[32];     /* "/proc" or "/proc/PID", named in messages */
  char prefix[24];  /* "PID/" or "" */
} PidFiles;

static void
pid_files_in_proc (JmemCollectContext *ctx,
                   gint64              pid,
                   PidFiles           *at)
{
  at->fd = ctx->proc_fd;
  g_strlcpy (at->dir, "/proc", sizeof at->dir);
  g_snprintf (at->prefix, sizeof at->prefix, "%" G_GINT64_FORMAT "/", pid);
}

static gboolean
pid_files_open (JmemCollectContext *ctx,
                gint64              pid,
                PidFiles           *at,
                GError            **error)
{
  char name[24];

  g_snprintf (name, sizeof name, "%" G_GINT64_FORMAT, pid);
  g_snprintf (at->dir, sizeof at->dir, "/proc/%s", name);
  at->prefix[0] = '\0';
  at->fd = jmem_root_open_dir_at (ctx->files, ctx->proc_fd, "/proc", name, error);
  return at->fd >= 0;
}

static gboolean
read_pid_file (JmemCollectContext *ctx,
               const PidFiles     *at,
               const char         *file,
               gsize               max_bytes,
               GError            **error)
{
  char name[64];

  if (at->prefix[0] == '\0')
    return jmem_root_read_record_at (ctx->files, at->fd, at->dir, file, max_bytes, ctx->read_buf,
                                     error);
  g_snprintf (name, sizeof name, "%s%s", at->prefix, file);
  return jmem_root_read_record_at (ctx->files, at->fd, at->dir, name, max_bytes, ctx->read_buf,
                                   error);
}

static gboolean
exited (const GError *error)
{
  /* The kernel answers ESRCH (G_IO_ERROR_FAILED) or ENOENT once it is gone. */
  return g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND) ||
         g_error_matches (error, G_IO_ERROR, G_IO_ERROR_FAILED);
}

static JmemProcess *
process_new (gint64 pid)
{
  JmemProcess *p = g_new0 (JmemProcess, 1);

  /* The PID is the directory's: a damaged file cannot move numbers onto
   * another process. */
  p->pid = pid;
  p->uid = -1;
  p->state = '?';
  p->rss_kib = -1;
  p->pss_kib = -1;
  p->swap_kib = -1;
  p->nvmap_kib = -1;
  p->gpu_kib = -1;
  p->footprint_kib = -1;
  p->nvmap_mapped_kib = -1;
  p->start_time_ticks = -1;
  p->kernel_thread = -1;
  p->pss_age_samples = -1;
  return p;
}

typedef enum {
  ROLLUP_READ,
  ROLLUP_NO_MAP,   /* ESRCH, ENOENT or an empty file: no memory map (now) */
  ROLLUP_REFUSED,
} RollupRead;

/* RSS, PSS and swap in one read; not for kernel threads, zombies, other
 * users' processes and those that exited, which status then tells apart. */
static RollupRead
read_rollup (JmemCollectContext *ctx,
             const PidFiles     *at,
             JmemProcess        *p)
{
  g_autoptr(GError) error = NULL;
  JmemSmapsRollup rollup;

  if (!read_pid_file (ctx, at, "smaps_rollup", JMEM_MAX_PROC_BYTES, &error))
    return exited (error) ? ROLLUP_NO_MAP : ROLLUP_REFUSED;
  if (!jmem_smaps_rollup_parse ((const char *) ctx->read_buf->data, ctx->read_buf->len,
                                &rollup, NULL) ||
      rollup.rss_kib < 0 || rollup.pss_kib < 0)
    return ROLLUP_NO_MAP;
  p->rss_kib = rollup.rss_kib;
  p->pss_kib = rollup.pss_kib;
  p->swap_kib = rollup.swap_kib;
  return ROLLUP_READ;
}

/* Why @p, its status read, has no PSS: a kernel thread (as read_status()
 * tells one) has no memory map; any other process without one lost it in
 * between. NSpid lists a PID per namespace from /proc's down to the
 * process's. */
static JmemPssUnknown
pss_unknown (RollupRead rollup, const JmemProcess *p, guint ns_levels)
{
  if (p->kernel_thread > 0)
    return JMEM_PSS_UNKNOWN_KERNEL_THREAD;
  if (rollup == ROLLUP_NO_MAP)
    return JMEM_PSS_UNKNOWN_EXITED;
  return ns_levels > 1 ? JMEM_PSS_UNKNOWN_PID_NAMESPACE : JMEM_PSS_UNKNOWN_REFUSED;
}

/* Name, owner and state; RSS and swap too when smaps_rollup gave none. */
static ProcessRead
read_status (JmemCollectContext *ctx,
             const PidFiles     *at,
             JmemProcess        *p,
             guint              *ns_levels)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JmemProcStatus) status = NULL;
  GByteArray *buf = ctx->read_buf;

  if (!read_pid_file (ctx, at, "status", JMEM_MAX_SMALL_BYTES, &error))
    return exited (error) ? PROCESS_EXITED : PROCESS_REFUSED;
  status = jmem_proc_status_parse ((const char *) buf->data, buf->len, NULL);
  if (status == NULL)
    return PROCESS_DAMAGED;

  g_free (p->name);
  p->name = status->name != NULL ? g_steal_pointer (&status->name) : g_strdup ("");
  p->uid = status->uid;
  g_free (p->user);
  p->user = jmem_users_lookup (ctx->users, status->uid);
  p->state = status->state;
  if (ns_levels != NULL)
    *ns_levels = status->ns_pid_levels;
  /* Until stat says (a tree may hold no stat): kthreadd is PID 2, and the
   * parent of every other kernel thread. */
  if (p->kernel_thread < 0 && status->ppid >= 0)
    p->kernel_thread = p->pid == 2 || status->ppid == 2;
  if (p->pss_kib < 0)
    {
      p->rss_kib = status->vm_rss_kib;
      p->swap_kib = status->vm_swap_kib;
    }
  return PROCESS_READ;
}

/* Counts what could not be read, for the warnings; TRUE when @result is
 * PROCESS_READ. */
static gboolean
count_read (JmemCollectContext *ctx,
            ProcessRead         result)
{
  switch (result)
    {
    case PROCESS_READ:
      return TRUE;
    case PROCESS_EXITED:
      ctx->snapshot->n_processes_vanished++;
      break;
    case PROCESS_REFUSED:
      ctx->n_status_refused++;
      break;
    case PROCESS_DAMAGED:
      ctx->n_status_damaged++;
      break;
    }
  return FALSE;
}

/* A process whose directory could not be opened: gone, or refused. */
static gboolean
count_unopened (JmemCollectContext *ctx,
                const GError       *error)
{
  return count_read (ctx, error != NULL && !exited (error) ? PROCESS_REFUSED : PROCESS_EXITED);
}

/* Start time, kernel thread, container and command line; a process that
 * exits meanwhile keeps an empty command line, and a stat that is absent
 * (a tree) or unreadable an unknown start time. */
static void
read_details (JmemCollectContext *ctx,
              const PidFiles     *at,
              JmemProcess        *p)
{
  GByteArray *buf = ctx->read_buf;
  JmemCgroupInfo cgroup = { 0 };
  JmemProcStat stat;

  if (read_pid_file (ctx, at, "stat", JMEM_MAX_SMALL_BYTES, NULL) &&
      jmem_proc_stat_parse ((const char *) buf->data, buf->len, &stat, NULL))
    {
      p->start_time_ticks = stat.start_time_ticks;
      p->kernel_thread = (stat.flags & JMEM_PROC_PF_KTHREAD) != 0;
    }

  if (read_pid_file (ctx, at, "cgroup", JMEM_MAX_SMALL_BYTES, NULL) &&
      jmem_cgroup_parse ((const char *) buf->data, buf->len, &cgroup, NULL))
    {
      p->container_runtime = g_steal_pointer (&cgroup.runtime);
      p->container_id = g_steal_pointer (&cgroup.id);
      p->unit = jmem_cgroup_unit (cgroup.cgroup);
    }
  jmem_cgroup_info_clear (&cgroup);

  p->cmdline = read_pid_file (ctx, at, "cmdline", JMEM_MAX_PROC_BYTES, NULL)
                 ? jmem_cmdline_parse ((const char *) buf->data, buf->len)
                 : g_strdup ("");
}

/* Name, owner and state where the first pass left them unread, then the
 * details read_details() reads. */
static gboolean
read_named (JmemCollectContext *ctx,
            const PidFiles     *at,
            JmemProcess        *p)
{
  if (p->name == NULL && !count_read (ctx, read_status (ctx, at, p, NULL)))
    return FALSE;
  read_details (ctx, at, p);
  return TRUE;
}

gboolean
jmem_collect_process_named (JmemCollectContext *ctx,
                            JmemProcess        *p)
{
  g_autoptr(GError) error = NULL;
  PidFiles at;
  gboolean kept;

  if (p->cmdline != NULL)
    return TRUE;
  if (ctx->proc_fd < 0 || !pid_files_open (ctx, p->pid, &at, &error))
    {
      if (p->name == NULL)
        return count_unopened (ctx, error);
      p->cmdline = g_strdup ("");
      return TRUE;
    }
  kept = read_named (ctx, &at, p);
  close (at.fd);
  return kept;
}

/* RSS, PSS and swap; where smaps_rollup gives none, name, owner and state
 * from status, and why there is no PSS. FALSE: drop it. */
static gboolean
read_usage (JmemCollectContext *ctx,
            const PidFiles     *at,
            JmemProcess        *p)
{
  RollupRead rollup = read_rollup (ctx, at, p);
  guint ns_levels = 0;

  if (rollup == ROLLUP_READ)
    return TRUE;
  if (!count_read (ctx, read_status (ctx, at, p, &ns_levels)))
    return FALSE;
  g_hash_table_insert (ctx->pss_why, GINT_TO_POINTER ((gint) p->pid),
                       GINT_TO_POINTER (pss_unknown (rollup, p, ns_levels)));
  return TRUE;
}

/* The first pass's read of one process. When the report names every
 * process (--all), or a sampler keeps what is read, everything at once
 * through one directory descriptor, as a loop over the same files would;
 * with a sampler only where it cannot keep the last sample's. FALSE: drop
 * it. */
static gboolean
read_process (JmemCollectContext *ctx,
              JmemProcess        *p)
{
  g_autoptr(GError) error = NULL;
  JmemSampler *sampler = ctx->options->sampler;
  PidFiles at;
  gboolean kept;

  if (sampler != NULL)
    switch (jmem_sampler_reuse (sampler, ctx, p))
      {
      case JMEM_SAMPLER_KEPT:
        return TRUE;
      case JMEM_SAMPLER_EXITED:
        return count_read (ctx, PROCESS_EXITED);
      case JMEM_SAMPLER_READ_WHOLE:
        break;
      }
  else if (ctx->options->top >= 0)
    {
      pid_files_in_proc (ctx, p->pid, &at);
      return read_usage (ctx, &at, p);
    }
  if (!pid_files_open (ctx, p->pid, &at, &error))
    return count_unopened (ctx, error);
  kept = read_usage (ctx, &at, p) && read_named (ctx, &at, p);
  close (at.fd);
  if (kept && sampler != NULL)
    jmem_sampler_keep (sampler, ctx, p);
  return kept;
}

void
jmem_collect_processes (JmemCollectContext *ctx)
{
  JmemSnapshot *s = ctx->snapshot;
  g_autoptr(GError) error = NULL;
  struct dirent *e;
  DIR *dir;
  int list_fd;

  /* Kept open for the later passes; jmem_collect_snapshot() closes it. */
  ctx->proc_fd = jmem_root_open_dir (ctx->files, "/proc", &error);
  list_fd = ctx->proc_fd < 0 ? -1 : fcntl (ctx->proc_fd, F_DUPFD_CLOEXEC, 0);
  dir = list_fd < 0 ? NULL : fdopendir (list_fd);
  if (dir == NULL)
    {
      if (error == NULL)
        g_set_error (&error, G_IO_ERROR, g_io_error_from_errno (errno),
                     "cannot list /proc: %s", g_strerror (errno));
      if (list_fd >= 0)
        close (list_fd);
      jmem_snapshot_add_warning (s, "processes", NULL, "no process list: %s", error->message);
      return;
    }
  ctx->users = jmem_users_new (ctx->files);
  if (ctx->options->sampler != NULL)
    jmem_sampler_begin (ctx->options->sampler);

  while ((e = readdir (dir)) != NULL)
    {
      const char *name = e->d_name;
      guint64 pid;
      JmemProcess *p;

      if (!g_ascii_isdigit (name[0]) ||
          !g_ascii_string_to_unsigned (name, 10, 1, G_MAXINT32, &pid, NULL))
        continue;
      p = process_new ((gint64) pid);
      if (read_process (ctx, p))
        g_ptr_array_add (s->processes, p);
      else
        jmem_process_free (p);
    }
  closedir (dir);
  if (ctx->options->sampler != NULL)
    jmem_sampler_end (ctx->options->sampler);
}

void
jmem_collect_process_warnings (JmemCollectContext *ctx)
{
  JmemSnapshot *s = ctx->snapshot;

  if (ctx->n_status_refused > 0)
    jmem_snapshot_add_warning (s, "processes", NULL,
                               "%u %s could not be read (status refused)",
                               ctx->n_status_refused,
                               jmem_text_plural (ctx->n_status_refused, "process", "processes"));
  if (ctx->n_status_damaged > 0)
    jmem_snapshot_add_warning (s, "processes", NULL,
                               "%u %s a damaged status file and %s skipped",
                               ctx->n_status_damaged,
                               jmem_text_plural (ctx->n_status_damaged, "process had", "processes had"),
                               jmem_text_plural (ctx->n_status_damaged, "was", "were"));
}
