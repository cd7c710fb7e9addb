#include "jmem-capture.h"

#include "jmem-collect-private.h"
#include "jmem-file.h"
#include "jmem-glib-compat.h"
#include "jmem-names.h"
#include "jmem-nvmap-source.h"
#include "jmem-nvsmi.h"
#include "jmem-run.h"

#include <errno.h>
#include <gio/gio.h>
#include <glib/gstdio.h>
#include <unistd.h>

typedef struct {
  const char               *dir;
  const JmemCaptureOptions *options;
  GPtrArray                *notes;
  guint                     timeout_ms;
} Capture;

static gboolean
write_file (Capture *c, const char *rel, const char *data, gsize len, GError **error)
{
  g_autofree char *path = jmem_sysroot_path (c->dir, rel);
  g_autofree char *parent = g_path_get_dirname (path);

  if (g_mkdir_with_parents (parent, 0755) != 0)
    {
      int saved = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   "Cannot create %s: %s", parent, g_strerror (saved));
      return FALSE;
    }
  return g_file_set_contents_full (path, data, (gssize) len, G_FILE_SET_CONTENTS_NONE, 0644, error);
}

/* Copies a live file; absent or refused files are simply not captured. */
static gboolean
copy_file (Capture *c, const char *path, gsize max_bytes, gboolean *copied, GError **error)
{
  g_autofree char *data = NULL;
  gsize len = 0;

  *copied = FALSE;
  if (!jmem_file_read_capped (path, max_bytes, &data, &len, NULL))
    return TRUE;
  *copied = TRUE;
  return write_file (c, path, data, len, error);
}

static gboolean
copy_optional (Capture *c, const char *path, gsize max_bytes, GError **error)
{
  gboolean copied;

  return copy_file (c, path, max_bytes, &copied, error);
}

static gboolean
capture_host (Capture *c, GError **error)
{
  static const char * const files[] = {
    "/proc/meminfo", "/proc/sys/kernel/hostname", "/proc/sys/kernel/osrelease",
    "/proc/device-tree/model", "/etc/nv_boot_control.conf", "/etc/nv_tegra_release",
  };
  static const char * const targets[] = {
    "/etc/systemd/system/default.target", "/lib/systemd/system/default.target",
    "/usr/lib/systemd/system/default.target",
  };
  g_autofree char *now = g_strdup_printf ("%" G_GINT64_FORMAT "\n",
                                          g_get_real_time () / G_USEC_PER_SEC);

  for (gsize i = 0; i < G_N_ELEMENTS (files); i++)
    if (!copy_optional (c, files[i], JMEM_MAX_SMALL_BYTES, error))
      return FALSE;

  for (gsize i = 0; i < G_N_ELEMENTS (targets); i++)
    {
      g_autofree char *link = g_file_read_link (targets[i], NULL);
      g_autofree char *dest = jmem_sysroot_path (c->dir, targets[i]);
      g_autofree char *parent = g_path_get_dirname (dest);

      if (link == NULL)
        continue;
      /* The link's text only: the capture never points into the live system
       * for anything jmem reads. */
      if (g_mkdir_with_parents (parent, 0755) != 0 || symlink (link, dest) != 0)
        {
          int saved = errno;
          g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                       "Cannot write %s: %s", dest, g_strerror (saved));
          return FALSE;
        }
      break;
    }
  return write_file (c, "/jmem/captured-at", now, strlen (now), error);
}

/* Returns the uid of the process from its status, or -1. */
static gint64
uid_from_status (const char *status)
{
  const char *line = strstr (status, "\nUid:");

  return line ? g_ascii_strtoll (line + 5, NULL, 10) : -1;
}

static gboolean
capture_processes (Capture *c, GHashTable *uids, GError **error)
{
  static const char * const files[] = { "smaps_rollup", "cgroup", "cmdline" };
  g_autoptr(GDir) proc = g_dir_open ("/proc", 0, error);
  const char *name;
  guint vanished = 0;

  if (proc == NULL)
    return FALSE;
  while ((name = g_dir_read_name (proc)) != NULL)
    {
      g_autofree char *status_path = NULL;
      g_autofree char *status = NULL;
      gsize len = 0;
      gint64 uid;

      if (!g_ascii_isdigit (name[0]))
        continue;
      status_path = g_strdup_printf ("/proc/%s/status", name);
      if (!jmem_file_read_capped (status_path, JMEM_MAX_SMALL_BYTES, &status, &len, NULL))
        {
          vanished++;
          continue;
        }
      if (!write_file (c, status_path, status, len, error))
        return FALSE;
      uid = uid_from_status (status);
      if (uid >= 0)
        g_hash_table_add (uids, g_memdup2 (&uid, sizeof uid));
      for (gsize i = 0; i < G_N_ELEMENTS (files); i++)
        {
          g_autofree char *path = g_strdup_printf ("/proc/%s/%s", name, files[i]);

          if (!copy_optional (c, path, JMEM_MAX_PROC_BYTES, error))
            return FALSE;
        }
    }
  if (vanished > 0)
    g_ptr_array_add (c->notes, g_strdup_printf ("%u processes ended while being captured", vanished));
  return TRUE;
}

/* Only the account lines of users that own a captured process. */
static gboolean
capture_passwd (Capture *c, GHashTable *uids, GError **error)
{
  g_autofree char *data = NULL;
  g_auto(GStrv) lines = NULL;
  g_autoptr(GString) out = g_string_new (NULL);

  if (!jmem_file_read_capped ("/etc/passwd", JMEM_MAX_PROC_BYTES, &data, NULL, NULL))
    return TRUE;
  lines = g_strsplit (data, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_auto(GStrv) f = g_strsplit (lines[i], ":", 4);
      gint64 uid;

      if (g_strv_length (f) < 3)
        continue;
      uid = g_ascii_strtoll (f[2], NULL, 10);
      if (g_hash_table_contains (uids, &uid))
        g_string_append_printf (out, "%s:x:%s:::\n", f[0], f[2]);
    }
  return write_file (c, "/etc/passwd", out->str, out->len, error);
}

static gboolean
capture_command (Capture *c, const char * const *argv, const char *rel_out,
                 const char *rel_status, guint timeout_ms, GError **error)
{
  g_autoptr(GError) local = NULL;
  g_autofree char *status = NULL;
  JmemRunResult r;

  if (!jmem_run (argv, timeout_ms, JMEM_MAX_PROC_BYTES, &r, &local))
    status = g_strdup (g_error_matches (local, G_SPAWN_ERROR, G_SPAWN_ERROR_NOENT) ?
                         "not-found" : "failed");
  else
    {
      status = r.timed_out ? g_strdup ("timeout") : g_strdup_printf ("%d", r.exit_status);
      if (!write_file (c, rel_out, r.out, r.out_len, error))
        {
          jmem_run_result_clear (&r);
          return FALSE;
        }
      jmem_run_result_clear (&r);
    }
  if (rel_status == NULL)
    return TRUE;
  return write_file (c, rel_status, status, strlen (status), error);
}

static gboolean
capture_gpu (Capture *c, GError **error)
{
  const char *gpu[] = { "nvidia-smi", JMEM_NVSMI_QUERY_GPU, JMEM_NVSMI_FORMAT, NULL };
  const char *apps[] = { "nvidia-smi", JMEM_NVSMI_QUERY_APPS, JMEM_NVSMI_FORMAT, NULL };
  const char *nvpmodel[] = { "nvpmodel", "-q", NULL };

  return capture_command (c, gpu, "/nvidia-smi/query-gpu.csv",
                          "/nvidia-smi/query-gpu.exit-status", c->timeout_ms, error) &&
         capture_command (c, apps, "/nvidia-smi/query-compute-apps.csv",
                          "/nvidia-smi/query-compute-apps.exit-status", c->timeout_ms, error) &&
         capture_command (c, nvpmodel, "/nvpmodel/query.txt", NULL, c->timeout_ms, error);
}

/* The helper hands back parsed rows: write them in the kernel's layout. */
char *
jmem_capture_render_clients (const JmemNvmapClients *clients)
{
  GString *out = g_string_new (NULL);

  g_string_append_printf (out, "%-18s %18s %8s %11s\n", "CLIENT", "PROCESS", "PID", "SIZE");
  for (guint i = 0; i < clients->clients->len; i++)
    {
      const JmemNvmapClient *cl = g_ptr_array_index (clients->clients, i);
      g_autofree char *process = g_strdup (cl->process);

      /* A line break inside a name would split the row. */
      g_strdelimit (process, "\r\n", '?');
      g_string_append_printf (out, "%-18s %18s %8u %10" G_GUINT64_FORMAT "K\n",
                              cl->client, process, cl->pid, cl->size_kib);
    }
  if (clients->has_total)
    g_string_append_printf (out, "%-18s %18s %8s %10" G_GUINT64_FORMAT "K\n",
                            "total", "", "", clients->total_kib);
  return g_string_free (out, FALSE);
}

static gboolean
capture_nvmap (Capture *c, GError **error)
{
  JmemNvmapSourceContext sctx = { .root = NULL, .allow_interactive = c->options->allow_interactive };
  g_autoptr(GError) local = NULL;
  const JmemNvmapSource *source = jmem_nvmap_source_choose (&sctx, &local);
  g_autoptr(JmemNvmapClients) clients = NULL;
  g_autofree char *text = NULL;
  gint64 total_bytes = -1;

  if (source == NULL)
    {
      g_ptr_array_add (c->notes, g_strdup_printf ("NvMap not captured: %s", local->message));
      return TRUE;
    }
  if (g_str_equal (source->via, "debugfs"))
    return copy_optional (c, JMEM_NVMAP_CLIENTS_PATH, JMEM_MAX_DEBUGFS_BYTES, error) &&
           copy_optional (c, JMEM_NVMAP_ALLOCATIONS_PATH, JMEM_MAX_DEBUGFS_BYTES, error) &&
           copy_optional (c, JMEM_NVMAP_TOTAL_MEMORY_PATH, JMEM_MAX_SMALL_BYTES, error);

  clients = source->read_clients (&sctx, &total_bytes, &local);
  if (clients == NULL)
    {
      const char *action = jmem_nvmap_source_error_action (source, local);
      g_ptr_array_add (c->notes, g_strdup_printf ("NvMap not captured: %s%s%s", local->message,
                                                  action ? ": " : "", action ? action : ""));
      return TRUE;
    }
  text = jmem_capture_render_clients (clients);
  if (!write_file (c, JMEM_NVMAP_CLIENTS_PATH, text, strlen (text), error))
    return FALSE;
  if (total_bytes >= 0)
    {
      g_autofree char *total = g_strdup_printf ("%" G_GINT64_FORMAT "\n", total_bytes);
      return write_file (c, JMEM_NVMAP_TOTAL_MEMORY_PATH, total, strlen (total), error);
    }
  return TRUE;
}

static gboolean
capture_thermal (Capture *c, GError **error)
{
  g_autoptr(GDir) dir = g_dir_open ("/sys/class/thermal", 0, NULL);
  const char *name;

  if (dir == NULL)
    return TRUE;
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *type = g_strdup_printf ("/sys/class/thermal/%s/type", name);
      g_autofree char *temp = g_strdup_printf ("/sys/class/thermal/%s/temp", name);

      if (g_str_has_prefix (name, "thermal_zone") &&
          (!copy_optional (c, type, JMEM_MAX_SMALL_BYTES, error) ||
           !copy_optional (c, temp, JMEM_MAX_SMALL_BYTES, error)))
        return FALSE;
    }
  return TRUE;
}

/* Disks and services are not files: the live collector's answers, as TSV. */
static gboolean
capture_collected (Capture *c, GError **error)
{
  JmemCollectOptions options = { .top = -1, .command_timeout_ms = c->timeout_ms };
  g_autoptr(JmemSnapshot) s = jmem_snapshot_new ();
  JmemCollectContext ctx = { .options = &options, .root = NULL,
                             .timeout_ms = c->timeout_ms, .snapshot = s };
  g_autoptr(GString) disks = g_string_new (NULL);

  jmem_collect_disks (&ctx);
  jmem_collect_services (&ctx);
  for (guint i = 0; i < s->disks->len; i++)
    {
      JmemDisk *d = g_ptr_array_index (s->disks, i);

      /* Mount points may hold tabs and newlines (\011, \012 in mounts). */
      g_strdelimit (d->mount_point, "\t\n", '?');
      g_strdelimit (d->device, "\t\n", '?');
      g_string_append_printf (disks, "%s\t%s\t%s\t%" G_GUINT64_FORMAT "\t%" G_GUINT64_FORMAT
                              "\t%" G_GUINT64_FORMAT "\n", d->mount_point, d->device,
                              d->fs_type, d->size_kib, d->used_kib, d->available_kib);
    }
  if (!write_file (c, "/jmem/disks.tsv", disks->str, disks->len, error))
    return FALSE;
  if (s->services != NULL)
    {
      g_autoptr(GString) units = g_string_new (NULL);

      for (guint i = 0; i < s->services->len; i++)
        {
          JmemService *svc = g_ptr_array_index (s->services, i);
          g_string_append_printf (units, "%s\t%s\t%s\t%s\n", svc->name, svc->load_state,
                                  svc->active_state,
                                  svc->unit_file_state ? svc->unit_file_state : "-");
        }
      if (!write_file (c, "/systemd/units.tsv", units->str, units->len, error))
        return FALSE;
    }
  else
    g_ptr_array_add (c->notes, g_strdup ("service states not captured: systemd is not reachable"));
  return TRUE;
}

static gboolean
capture_tegrastats (Capture *c, GError **error)
{
  g_autofree char *interval = g_strdup_printf ("%u", MIN (c->options->tegrastats_seconds * 1000, 1000u));
  const char *argv[] = { "tegrastats", "--interval", interval, NULL };

  return capture_command (c, argv, "/tegrastats/line.txt", NULL,
                          c->options->tegrastats_seconds * 1000 + 500, error);
}

static gboolean
prepare_dir (const char *dir, GError **error)
{
  g_autoptr(GDir) d = NULL;

  if (g_mkdir_with_parents (dir, 0755) != 0)
    {
      int saved = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   "Cannot create %s: %s", dir, g_strerror (saved));
      return FALSE;
    }
  d = g_dir_open (dir, 0, error);
  if (d == NULL)
    return FALSE;
  if (g_dir_read_name (d) != NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_EXISTS,
                   "%s exists and is not empty: choose a new directory", dir);
      return FALSE;
    }
  if (access (dir, W_OK) != 0)
    {
      int saved = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   "Cannot write to %s: %s", dir, g_strerror (saved));
      return FALSE;
    }
  return TRUE;
}

gboolean
jmem_capture_write (const char               *dir,
                    const JmemCaptureOptions *options,
                    GPtrArray                *notes,
                    GError                  **error)
{
  g_autoptr(GHashTable) uids = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  Capture c = {
    .dir = dir,
    .options = options,
    .notes = notes,
    .timeout_ms = options->command_timeout_ms ? options->command_timeout_ms
                                              : JMEM_COLLECT_COMMAND_TIMEOUT_MS,
  };

  if (!prepare_dir (dir, error))
    return FALSE;
  return capture_host (&c, error) &&
         capture_processes (&c, uids, error) &&
         capture_passwd (&c, uids, error) &&
         capture_gpu (&c, error) &&
         capture_nvmap (&c, error) &&
         capture_thermal (&c, error) &&
         capture_collected (&c, error) &&
         (options->tegrastats_seconds == 0 || capture_tegrastats (&c, error));
}
