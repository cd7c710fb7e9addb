/* Processes from /proc/PID: status for every process; smaps_rollup, cgroup
 * and cmdline only for those the sort and the report need (see
 * jmem-collect-join.c): reading /proc is most of what a snapshot costs. */
#include "jmem-collect-private.h"

#include "jmem-file.h"
#include "jmem-names.h"
#include "jmem-procfs.h"
#include "jmem-users.h"

#include <errno.h>
#include <fcntl.h>
#include <gio/gio.h>
#include <unistd.h>

typedef struct {
  guint n_unparsable;  /* status present but not a status file */
  guint n_unreadable;  /* status present but refused */
} Counts;

/* Reads PID/@file relative to the open /proc: one open per file, which is
 * what the kernel charges for, and no path built from the root each time. */
static gboolean
read_pid_file (JmemCollectContext *ctx,
               gint64              pid,
               const char         *file,
               gsize               max_bytes,
               GError            **error)
{
  char name[64];

  g_snprintf (name, sizeof name, "%" G_GINT64_FORMAT "/%s", pid, file);
  return jmem_file_read_at (ctx->proc_fd, name, max_bytes, ctx->read_buf, error);
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
read_process (JmemCollectContext *ctx,
              gint64              pid,
              JmemUsers          *users,
              Counts             *counts,
              JmemProcess       **out)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JmemProcStatus) status = NULL;
  GByteArray *buf = ctx->read_buf;
  JmemProcess *p;

  *out = NULL;
  if (!read_pid_file (ctx, pid, "status", JMEM_MAX_SMALL_BYTES, &error))
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

  *out = p;
  return TRUE;
}

gboolean
jmem_collect_process_pss (JmemCollectContext *ctx,
                          JmemProcess        *p)
{
  JmemSmapsRollup rollup;

  if (ctx->proc_fd < 0 ||
      !read_pid_file (ctx, p->pid, "smaps_rollup", JMEM_MAX_PROC_BYTES, NULL))
    return FALSE;
  if (!jmem_smaps_rollup_parse ((const char *) ctx->read_buf->data, ctx->read_buf->len,
                                &rollup, NULL) || rollup.pss_kib < 0)
    return FALSE;
  p->pss_kib = rollup.pss_kib;
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
  Counts counts = { 0 };
  const char *name;

  if (dir == NULL)
    {
      jmem_snapshot_add_warning (s, "processes", NULL, "no process list: %s", error->message);
      return;
    }
  /* Kept open for the later passes; jmem_collect_snapshot() closes it. */
  ctx->proc_fd = open (proc, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (ctx->proc_fd < 0)
    {
      jmem_snapshot_add_warning (s, "processes", NULL, "no process list: cannot open %s: %s",
                                 proc, g_strerror (errno));
      return;
    }

  while ((name = g_dir_read_name (dir)) != NULL)
    {
      guint64 pid;
      JmemProcess *p = NULL;

      if (!g_ascii_isdigit (name[0]) ||
          !g_ascii_string_to_unsigned (name, 10, 1, G_MAXINT32, &pid, NULL))
        continue;
      if (!read_process (ctx, (gint64) pid, users, &counts, &p))
        s->n_processes_vanished++;
      else if (p != NULL)
        g_ptr_array_add (s->processes, p);
    }

  if (counts.n_unreadable > 0)
    jmem_snapshot_add_warning (s, "processes", NULL,
                               "%u processes could not be read (status refused)",
                               counts.n_unreadable);
  if (counts.n_unparsable > 0)
    jmem_snapshot_add_warning (s, "processes", NULL,
                               "%u processes had a damaged status file and were skipped",
                               counts.n_unparsable);
}

void
jmem_collect_process_details (JmemCollectContext *ctx,
                              JmemProcess        *p)
{
  char name[24];
  GByteArray *buf = ctx->read_buf;
  JmemCgroupInfo cgroup = { 0 };
  int pid_fd;

  if (p->cmdline != NULL)
    return;
  p->cmdline = g_strdup ("");
  if (ctx->proc_fd < 0)
    return;

  /* One directory descriptor: both files come from the same process. */
  g_snprintf (name, sizeof name, "%" G_GINT64_FORMAT, p->pid);
  pid_fd = openat (ctx->proc_fd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (pid_fd < 0)
    return;

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
