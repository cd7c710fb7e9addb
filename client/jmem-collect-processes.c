#include "jmem-collect-private.h"

#include "jmem-names.h"
#include "jmem-procfs.h"
#include "jmem-users.h"

#include <gio/gio.h>

typedef struct {
  guint n_unparsable;  /* status present but not a status file */
  guint n_unreadable;  /* status present but refused */
  guint n_no_pss;      /* smaps_rollup unreadable */
} Counts;

/* A PID whose directory is gone finished while we read it: normal. */
static gboolean
pid_gone (JmemCollectContext *ctx, const char *pid_dir, const GError *error)
{
  g_autofree char *full = NULL;

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
    return TRUE;
  full = jmem_collect_path (ctx, pid_dir);
  return !g_file_test (full, G_FILE_TEST_IS_DIR);
}

/* Returns FALSE when the process vanished. */
static gboolean
read_process (JmemCollectContext *ctx,
              JmemUsers          *users,
              gint64              pid,
              Counts             *counts,
              JmemProcess       **out)
{
  g_autofree char *dir = g_strdup_printf ("/proc/%" G_GINT64_FORMAT, pid);
  g_autofree char *path = NULL;
  g_autofree char *data = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JmemProcStatus) status = NULL;
  JmemSmapsRollup rollup;
  JmemCgroupInfo cgroup = { 0 };
  JmemProcess *p;
  gsize len = 0;

  *out = NULL;
  path = g_strconcat (dir, "/status", NULL);
  if (!jmem_collect_read_raw (ctx, path, JMEM_MAX_SMALL_BYTES, &data, &len, &error))
    {
      if (pid_gone (ctx, dir, error))
        return FALSE;
      counts->n_unreadable++;
      return TRUE;
    }
  status = jmem_proc_status_parse (data, len, NULL);
  if (status == NULL)
    {
      counts->n_unparsable++;
      return TRUE;
    }

  p = g_new0 (JmemProcess, 1);
  /* The PID is the directory's: a damaged status file cannot move numbers
   * onto another process. */
  p->pid = pid;
  p->name = g_strdup (status->name ? status->name : "");
  p->uid = status->uid;
  p->user = jmem_users_lookup (users, status->uid);
  p->state = status->state;
  p->rss_kib = status->vm_rss_kib;
  p->swap_kib = status->vm_swap_kib;
  p->pss_kib = -1;
  p->nvmap_kib = -1;
  p->gpu_kib = -1;
  p->footprint_kib = -1;

  g_clear_pointer (&path, g_free);
  g_clear_pointer (&data, g_free);
  g_clear_error (&error);
  path = g_strconcat (dir, "/smaps_rollup", NULL);
  if (jmem_collect_read_raw (ctx, path, JMEM_MAX_PROC_BYTES, &data, &len, &error))
    {
      if (jmem_smaps_rollup_parse (data, len, &rollup, NULL) && rollup.pss_kib >= 0)
        p->pss_kib = rollup.pss_kib;
    }
  else if (ctx->root == NULL && pid_gone (ctx, dir, error))
    {
      jmem_process_free (p);
      return FALSE;
    }
  /* Kernel threads have no memory map: no PSS is their truth, not a gap. */
  if (p->pss_kib < 0 && p->rss_kib >= 0)
    counts->n_no_pss++;

  g_clear_pointer (&path, g_free);
  g_clear_pointer (&data, g_free);
  path = g_strconcat (dir, "/cgroup", NULL);
  if (jmem_collect_read_raw (ctx, path, JMEM_MAX_SMALL_BYTES, &data, &len, NULL) &&
      jmem_cgroup_parse (data, len, &cgroup, NULL))
    {
      p->container_runtime = g_steal_pointer (&cgroup.runtime);
      p->container_id = g_steal_pointer (&cgroup.id);
    }
  jmem_cgroup_info_clear (&cgroup);

  g_clear_pointer (&path, g_free);
  g_clear_pointer (&data, g_free);
  path = g_strconcat (dir, "/cmdline", NULL);
  if (jmem_collect_read_raw (ctx, path, JMEM_MAX_PROC_BYTES, &data, &len, NULL))
    p->cmdline = jmem_cmdline_parse (data, len);
  else
    p->cmdline = g_strdup ("");

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
  Counts counts = { 0 };
  const char *name;

  if (dir == NULL)
    {
      jmem_snapshot_add_warning (s, "processes", NULL, "no process list: %s", error->message);
      return;
    }

  while ((name = g_dir_read_name (dir)) != NULL)
    {
      guint64 pid;
      JmemProcess *p = NULL;

      if (!g_ascii_isdigit (name[0]) ||
          !g_ascii_string_to_unsigned (name, 10, 1, G_MAXINT32, &pid, NULL))
        continue;
      if (!read_process (ctx, users, (gint64) pid, &counts, &p))
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
  if (counts.n_no_pss > 0)
    jmem_snapshot_add_warning (s, "processes",
                               ctx->root == NULL ? "run jmem as the processes' owner or as root to see their PSS" : NULL,
                               "PSS unknown for %u processes (smaps_rollup unreadable): "
                               "their pss_kib is null and RSS stands in for the footprint",
                               counts.n_no_pss);
}
