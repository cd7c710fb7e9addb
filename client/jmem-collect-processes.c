/* Processes from /proc/PID: status and smaps_rollup for every process (the
 * sort needs them), cgroup and cmdline only for those a report shows. */
#include "jmem-collect-private.h"

#include "jmem-file.h"
#include "jmem-names.h"
#include "jmem-procfs.h"
#include "jmem-users.h"

#include <errno.h>
#include <fcntl.h>
#include <gio/gio.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct {
  guint n_unparsable;  /* status present but not a status file */
  guint n_unreadable;  /* status present but refused */
  guint n_no_pss;      /* smaps_rollup unreadable */
} Counts;

/* One open of the PID's directory: every file read through it comes from that
 * process, and ESRCH/ENOENT afterwards means it exited. */
static int
open_pid_dir (int proc_fd, gint64 pid, guint64 *inode)
{
  char name[24];
  struct stat st;
  int fd;

  g_snprintf (name, sizeof name, "%" G_GINT64_FORMAT, pid);
  fd = openat (proc_fd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0 && inode != NULL)
    *inode = fstat (fd, &st) == 0 ? (guint64) st.st_ino : 0;
  return fd;
}

static gboolean
exited (const GError *error)
{
  /* The kernel answers ESRCH (G_IO_ERROR_FAILED) or ENOENT once it is gone. */
  return g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND) ||
         g_error_matches (error, G_IO_ERROR, G_IO_ERROR_FAILED);
}

/* Returns FALSE when the process vanished; *out stays NULL when it exists
 * but could not be read. */
static gboolean
read_process (int          pid_fd,
              gint64       pid,
              JmemUsers   *users,
              GByteArray  *buf,
              Counts      *counts,
              JmemProcess **out)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JmemProcStatus) status = NULL;
  JmemSmapsRollup rollup;
  JmemProcess *p;

  *out = NULL;
  if (!jmem_file_read_at (pid_fd, "status", JMEM_MAX_SMALL_BYTES, buf, &error))
    {
      if (exited (error))
        return FALSE;
      counts->n_unreadable++;
      return TRUE;
    }
  status = jmem_proc_status_parse ((const char *) buf->data, buf->len, NULL);
  if (status == NULL)
    {
      counts->n_unparsable++;
      return TRUE;
    }

  p = g_new0 (JmemProcess, 1);
  /* The PID is the directory's: a damaged status file cannot move numbers
   * onto another process. */
  p->pid = pid;
  p->name = g_steal_pointer (&status->name);
  if (p->name == NULL)
    p->name = g_strdup ("");
  p->uid = status->uid;
  p->user = jmem_users_lookup (users, status->uid);
  p->state = status->state;
  p->rss_kib = status->vm_rss_kib;
  p->swap_kib = status->vm_swap_kib;
  p->pss_kib = -1;
  p->nvmap_kib = -1;
  p->gpu_kib = -1;
  p->footprint_kib = -1;

  g_clear_error (&error);
  if (jmem_file_read_at (pid_fd, "smaps_rollup", JMEM_MAX_PROC_BYTES, buf, &error))
    {
      if (jmem_smaps_rollup_parse ((const char *) buf->data, buf->len, &rollup, NULL) &&
          rollup.pss_kib >= 0)
        p->pss_kib = rollup.pss_kib;
    }
  else if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_FAILED))
    {
      /* ESRCH: it exited between the two reads. */
      jmem_process_free (p);
      return FALSE;
    }
  /* Kernel threads have no memory map: no PSS is their truth, not a gap. */
  if (p->pss_kib < 0 && p->rss_kib >= 0)
    counts->n_no_pss++;

  *out = p;
  return TRUE;
}

void
jmem_collect_processes (JmemCollectContext *ctx)
{
  JmemSnapshot *s = ctx->snapshot;
  g_autofree char *proc = jmem_collect_path (ctx, "/proc");
  g_autoptr(GError) error = NULL;
  g_autoptr(GDir) dir = g_dir_open (proc, 0, &error);
  g_autoptr(JmemUsers) users = jmem_users_new (ctx->root);
  g_autoptr(GByteArray) buf = g_byte_array_sized_new (16384);
  Counts counts = { 0 };
  const char *name;
  int proc_fd;

  if (dir == NULL)
    {
      jmem_snapshot_add_warning (s, "processes", NULL, "no process list: %s", error->message);
      return;
    }
  proc_fd = open (proc, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (proc_fd < 0)
    {
      jmem_snapshot_add_warning (s, "processes", NULL, "no process list: cannot open %s: %s",
                                 proc, g_strerror (errno));
      return;
    }

  ctx->process_inodes = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      guint64 pid;
      guint64 inode = 0;
      JmemProcess *p = NULL;
      int pid_fd;

      if (!g_ascii_isdigit (name[0]) ||
          !g_ascii_string_to_unsigned (name, 10, 1, G_MAXINT32, &pid, NULL))
        continue;
      pid_fd = open_pid_dir (proc_fd, (gint64) pid, &inode);
      if (pid_fd < 0)
        {
          s->n_processes_vanished++;
          continue;
        }
      if (!read_process (pid_fd, (gint64) pid, users, buf, &counts, &p))
        s->n_processes_vanished++;
      else if (p != NULL)
        {
          g_ptr_array_add (s->processes, p);
          g_hash_table_insert (ctx->process_inodes, g_memdup2 (&p->pid, sizeof p->pid),
                               g_memdup2 (&inode, sizeof inode));
        }
      close (pid_fd);
    }
  close (proc_fd);

  if (counts.n_unreadable > 0)
    jmem_snapshot_add_warning (s, "processes", NULL,
                               "%u processes could not be read (status refused)",
                               counts.n_unreadable);
  if (counts.n_unparsable > 0)
    jmem_snapshot_add_warning (s, "processes", NULL,
                               "%u processes had a damaged status file and were skipped",
                               counts.n_unparsable);
  if (counts.n_no_pss > 0)
    jmem_snapshot_add_warning (s, "processes",
                               ctx->root == NULL ? "run jmem as the processes' owner or as root to see their PSS" : NULL,
                               "PSS unknown for %u processes (smaps_rollup unreadable): "
                               "their pss_kib is null and RSS stands in for the footprint",
                               counts.n_no_pss);
}

void
jmem_collect_process_details (JmemCollectContext *ctx,
                              JmemProcess        *p)
{
  g_autofree char *proc = NULL;
  g_autoptr(GByteArray) buf = NULL;
  JmemCgroupInfo cgroup = { 0 };
  guint64 *inode_then;
  guint64 inode_now = 0;
  int proc_fd, pid_fd;

  if (p->cmdline != NULL)
    return;
  p->cmdline = g_strdup ("");

  proc = jmem_collect_path (ctx, "/proc");
  proc_fd = open (proc, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (proc_fd < 0)
    return;
  pid_fd = open_pid_dir (proc_fd, p->pid, &inode_now);
  close (proc_fd);
  if (pid_fd < 0)
    return;

  /* A new process that took the PID since the first pass is not this one. */
  inode_then = ctx->process_inodes ? g_hash_table_lookup (ctx->process_inodes, &p->pid) : NULL;
  if (inode_then != NULL && *inode_then != inode_now)
    {
      close (pid_fd);
      return;
    }

  buf = g_byte_array_sized_new (4096);
  if (jmem_file_read_at (pid_fd, "cgroup", JMEM_MAX_SMALL_BYTES, buf, NULL) &&
      jmem_cgroup_parse ((const char *) buf->data, buf->len, &cgroup, NULL))
    {
      p->container_runtime = g_steal_pointer (&cgroup.runtime);
      p->container_id = g_steal_pointer (&cgroup.id);
    }
  jmem_cgroup_info_clear (&cgroup);

  if (jmem_file_read_at (pid_fd, "cmdline", JMEM_MAX_PROC_BYTES, buf, NULL))
    {
      g_free (p->cmdline);
      p->cmdline = jmem_cmdline_parse ((const char *) buf->data, buf->len);
    }
  close (pid_fd);
}
