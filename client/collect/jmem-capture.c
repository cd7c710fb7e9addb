/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "jmem-capture.h"

#include "jmem-capture-marker.h"

#include "jmem-collect-private.h"
#include "jmem-glib-compat.h"
#include "jmem-names.h"
#include "jmem-helper-client.h"
#include "jmem-nvmap-source.h"
#include "jmem-nvml.h"
#include "jmem-nvml-record.h"
#include "jmem-nvsmi.h"
#include "jmem-run.h"
#include "jmem-text.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <gio/gio.h>
#include <string.h>
#include <unistd.h>

typedef struct {
  JmemRoot                 *out;   /* the capture being written */
  JmemRoot                 *live;  /* what it copies */
  const JmemCaptureOptions *options;
  GPtrArray                *notes;
  GHashTable               *uids;  /* of the captured processes, for etc/passwd */
  JmemCaptureWritten       *written;
  guint                     timeout_ms;
} Capture;

static gboolean
write_file (Capture *c, const char *rel, const char *data, gsize len, GError **error)
{
  if (!jmem_root_write (c->out, rel, data, len, error))
    return FALSE;
  c->written->n_files++;
  c->written->n_bytes += len;
  return TRUE;
}

/* The handle header's words, up to UID: which token of a handle row holds
 * the kernel pointer (-1: no UID column). */
static int
uid_token_index (const char *line, gsize len)
{
  g_autofree char *copy = g_strndup (line, len);
  g_auto(GStrv) words = g_strsplit_set (copy, " \t", -1);
  int index = 0;

  for (guint i = 0; words[i] != NULL; i++)
    {
      if (words[i][0] == '\0')
        continue;
      if (g_str_equal (words[i], "UID"))
        return index;
      index++;
    }
  return -1;
}

void
jmem_capture_blank_kernel_pointers (char *data, gsize len)
{
  /* Without a handle header the parser assumes the r35/r36 columns. */
  int uid_index = 9;
  gboolean header_seen = FALSE;
  gsize pos = 0;

  while (pos < len)
    {
      char *line = data + pos;
      char *nl = memchr (line, '\n', len - pos);
      gsize line_len = nl ? (gsize) (nl - line) : len - pos;
      gsize i = 0;

      pos += line_len + 1;
      while (i < line_len && line[i] == ' ')
        i++;
      if (i == 0 || i == line_len)
        continue;
      if (line_len - i >= 4 && memcmp (line + i, "BASE", 4) == 0)
        {
          if (!header_seen)
            uid_index = uid_token_index (line, line_len);
          header_seen = TRUE;
          continue;
        }
      /* A handle row: overwrite its UID token with zeros, as the kernel
       * prints it under kptr_restrict, so every reader still parses it. */
      for (int t = 0; uid_index >= 0 && i < line_len; t++)
        {
          gsize start = i;

          while (i < line_len && line[i] != ' ' && line[i] != '\t')
            i++;
          if (t == uid_index)
            {
              memset (line + start, '0', i - start);
              break;
            }
          while (i < line_len && (line[i] == ' ' || line[i] == '\t'))
            i++;
        }
    }
}

/* Copies a live file; absent or refused files are simply not captured. */
static gboolean
copy_file (Capture *c, const char *path, gsize max_bytes, gboolean *copied, GError **error)
{
  g_autofree char *data = NULL;
  gsize len = 0;

  *copied = FALSE;
  if (!jmem_root_read (c->live, path, max_bytes, &data, &len, NULL))
    return TRUE;
  *copied = TRUE;
  if (g_str_equal (path, JMEM_NVMAP_ALLOCATIONS_PATH))
    jmem_capture_blank_kernel_pointers (data, len);
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
    "/proc/meminfo", "/proc/uptime", "/proc/sys/kernel/hostname", "/proc/sys/kernel/osrelease",
    "/proc/device-tree/model", "/etc/nv_boot_control.conf", "/etc/nv_tegra_release",
    /* what names a system that is no Jetson (a GB10): world-readable, no serial */
    "/sys/class/dmi/id/sys_vendor", "/sys/class/dmi/id/product_name",
    "/sys/class/dmi/id/product_family", "/sys/class/dmi/id/board_name",
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
      g_autofree char *link = jmem_root_read_link (c->live, targets[i], NULL);

      if (link == NULL)
        continue;
      /* The link's text only: the capture never points into the live system
       * for anything jmem reads, and a tree's links are read, never followed. */
      if (!jmem_root_symlink (c->out, targets[i], link, error))
        return FALSE;
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
capture_processes (Capture *c, GError **error)
{
  static const char * const files[] = { "smaps_rollup", "stat", "cgroup", "cmdline" };
  g_autoptr(GByteArray) buf = g_byte_array_sized_new (16384);
  int proc_fd = jmem_root_open_dir (c->live, "/proc", error);
  int list_fd = proc_fd < 0 ? -1 : fcntl (proc_fd, F_DUPFD_CLOEXEC, 0);
  DIR *proc = list_fd < 0 ? NULL : fdopendir (list_fd);
  gboolean ok = TRUE;
  struct dirent *e;
  guint vanished = 0;

  if (proc == NULL)
    {
      if (error != NULL && *error == NULL)
        g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errno),
                     "Cannot list /proc: %s", g_strerror (errno));
      if (list_fd >= 0)
        close (list_fd);
      if (proc_fd >= 0)
        close (proc_fd);
      return FALSE;
    }
  while (ok && (e = readdir (proc)) != NULL)
    {
      const char *name = e->d_name;
      char rel[64];
      gint64 uid;

      if (!g_ascii_isdigit (name[0]) || strlen (name) > 20)
        continue;
      g_snprintf (rel, sizeof rel, "%s/status", name);
      if (!jmem_root_read_at (c->live, proc_fd, "/proc", rel, JMEM_MAX_SMALL_BYTES, buf, NULL))
        {
          vanished++;
          continue;
        }
      {
        g_autofree char *status = g_strndup ((const char *) buf->data, buf->len);
        g_autofree char *dest = g_strdup_printf ("/proc/%s/status", name);

        if (!write_file (c, dest, (const char *) buf->data, buf->len, error))
          {
            ok = FALSE;
            break;
          }
        uid = uid_from_status (status);
        if (uid >= 0)
          g_hash_table_add (c->uids, g_memdup2 (&uid, sizeof uid));
      }
      for (gsize i = 0; ok && i < G_N_ELEMENTS (files); i++)
        {
          g_autofree char *dest = g_strdup_printf ("/proc/%s/%s", name, files[i]);

          g_snprintf (rel, sizeof rel, "%s/%s", name, files[i]);
          if (jmem_root_read_at (c->live, proc_fd, "/proc", rel, JMEM_MAX_PROC_BYTES, buf, NULL))
            ok = write_file (c, dest, (const char *) buf->data, buf->len, error);
        }
    }
  closedir (proc);
  close (proc_fd);
  if (!ok)
    return FALSE;
  if (vanished > 0)
    g_ptr_array_add (c->notes, g_strdup_printf ("%u %s while being captured", vanished,
                                                 jmem_text_plural (vanished, "process ended", "processes ended")));
  return TRUE;
}

/* Only the account lines of users that own a captured process. */
static gboolean
capture_passwd (Capture *c, GError **error)
{
  g_autofree char *data = NULL;
  g_auto(GStrv) lines = NULL;
  g_autoptr(GString) out = g_string_new (NULL);

  if (!jmem_root_read (c->live, "/etc/passwd", JMEM_MAX_PROC_BYTES, &data, NULL, NULL))
    return TRUE;
  lines = g_strsplit (data, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_auto(GStrv) f = g_strsplit (lines[i], ":", 4);
      gint64 uid;

      if (g_strv_length (f) < 3)
        continue;
      uid = g_ascii_strtoll (f[2], NULL, 10);
      if (g_hash_table_contains (c->uids, &uid))
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

/* Whether the captured answer lists a PID whose process the capture lacks
 * (it ended before its files were copied): jmem reading the capture could
 * then vouch for none of the rows after it. */
static gboolean
apps_list_gone (Capture *c)
{
  g_autofree char *data = NULL;
  g_autoptr(GPtrArray) apps = NULL;
  gsize len = 0;

  if (!jmem_root_read (c->out, "/nvidia-smi/query-compute-apps.csv", JMEM_MAX_PROC_BYTES,
                       &data, &len, NULL))
    return FALSE;
  apps = jmem_nvsmi_apps_parse (data, len, NULL, NULL);
  for (guint i = 0; apps != NULL && i < apps->len; i++)
    {
      const JmemNvsmiApp *a = g_ptr_array_index (apps, i);
      g_autofree char *status = g_strdup_printf ("/proc/%" G_GINT64_FORMAT "/status", a->pid);
      g_autofree char *copied = NULL;

      if (!jmem_root_read (c->out, status, JMEM_MAX_PROC_BYTES, &copied, NULL, NULL))
        return TRUE;
    }
  return FALSE;
}

/* What NVML says, where it loads on the unified stack: the source live
 * jmem prefers, so that --sysroot reads what jmem would have read. */
static gboolean
capture_nvml (Capture *c, GError **error)
{
  g_auto(JmemNvmlAnswer) answer = { 0 };
  g_autofree char *text = NULL;

  if (!jmem_nvml_query (&answer) ||
      jmem_nvsmi_stack_from_gpus (answer.gpus) != JMEM_GPU_STACK_UNIFIED)
    return TRUE;
  text = jmem_nvml_record_render (answer.gpus, answer.apps);
  return write_file (c, JMEM_NVML_RECORD_PATH, text, strlen (text), error);
}

static gboolean
capture_gpu (Capture *c, GError **error)
{
  const char *gpu[] = { "nvidia-smi", JMEM_NVSMI_QUERY_GPU, JMEM_NVSMI_FORMAT, NULL };
  const char *apps[] = { "nvidia-smi", JMEM_NVSMI_QUERY_APPS, JMEM_NVSMI_FORMAT, NULL };
  const char *nvpmodel[] = { "nvpmodel", "-q", NULL };

  if (!capture_nvml (c, error) ||
      !capture_command (c, gpu, "/nvidia-smi/query-gpu.csv",
                        "/nvidia-smi/query-gpu.exit-status", c->timeout_ms, error) ||
      !capture_command (c, apps, "/nvidia-smi/query-compute-apps.csv",
                        "/nvidia-smi/query-compute-apps.exit-status", c->timeout_ms, error))
    return FALSE;
  /* churn: the driver drops an ended process from its next answer, which
   * is recorded beside the first for jmem to ask again as it does live */
  if (apps_list_gone (c) &&
      !capture_command (c, apps, "/nvidia-smi/" JMEM_NVSMI_APPS_AGAIN ".csv",
                        "/nvidia-smi/" JMEM_NVSMI_APPS_AGAIN ".exit-status", c->timeout_ms, error))
    return FALSE;
  return capture_command (c, nvpmodel, "/nvpmodel/query.txt", NULL, c->timeout_ms, error);
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

/* "@prefix@value@suffix\n", or nothing for an unknown @value. */
static gboolean
write_number (Capture *c, const char *path, const char *prefix, gint64 value,
              const char *suffix, GError **error)
{
  g_autofree char *text = NULL;

  if (value < 0)
    return TRUE;
  text = g_strdup_printf ("%s%" G_GINT64_FORMAT "%s\n", prefix, value, suffix);
  return write_file (c, path, text, strlen (text), error);
}

/* The helper's maps, free_size and page pool, written as the kernel prints
 * them (maps as it came, its kernel pointers zeroed by the helper). */
static gboolean
capture_nvmap_extras (Capture *c, GError **error)
{
  JmemHelperCallOptions options = { .allow_interactive = c->options->allow_interactive };
  JmemNvmapExtras extras = JMEM_NVMAP_EXTRAS_INIT;
  g_autoptr(GError) local = NULL;
  g_autofree char *maps = NULL;
  gboolean ok;

  if (!jmem_helper_get_nvmap_extras (&options, &extras, &maps, &local))
    {
      g_ptr_array_add (c->notes, g_strdup_printf ("NvMap maps, free_size and page pool not "
                                                  "captured: %s", local->message));
      jmem_nvmap_extras_clear (&extras);
      return TRUE;
    }
  ok = write_file (c, JMEM_NVMAP_MAPS_PATH, maps, strlen (maps), error) &&
       write_number (c, JMEM_NVMAP_FREE_SIZE_PATH, "Max allocatable IOVMM memory: ",
                     extras.free_size_bytes, " bytes", error) &&
       write_number (c, JMEM_NVMAP_POOL_PAGES_PATH, "",
                     extras.pool_pages >= 0 ? extras.pool_pages - MAX (extras.pool_to_zero, 0) : -1,
                     "", error) &&
       write_number (c, JMEM_NVMAP_POOL_TO_ZERO_PATH, "",
                     extras.pool_pages >= 0 ? MAX (extras.pool_to_zero, 0) : -1, "", error);
  jmem_nvmap_extras_clear (&extras);
  return ok;
}

/* The mappings of each process holding NvMap: what the footprint takes
 * its CPU-mapped buffers out with. Only those processes: smaps is large. */
static gboolean
capture_nvmap_smaps (Capture *c, GError **error)
{
  g_autoptr(JmemRoot) out_view = NULL;
  g_autofree char *data = NULL;
  g_autoptr(JmemNvmapClients) clients = NULL;
  g_autoptr(GHashTable) done = g_hash_table_new (NULL, NULL);
  gsize len = 0;

  /* the clients as this capture wrote them, whichever way they came */
  out_view = jmem_root_open (jmem_root_get_path (c->out), NULL);
  if (out_view == NULL ||
      !jmem_root_read (out_view, JMEM_NVMAP_CLIENTS_PATH, JMEM_MAX_DEBUGFS_BYTES, &data, &len, NULL) ||
      (clients = jmem_nvmap_clients_parse (data, len, NULL)) == NULL)
    return TRUE;
  for (guint i = 0; i < clients->clients->len; i++)
    {
      const JmemNvmapClient *cl = g_ptr_array_index (clients->clients, i);
      g_autofree char *status = g_strdup_printf ("/proc/%u/status", cl->pid);
      g_autofree char *smaps = g_strdup_printf ("/proc/%u/smaps", cl->pid);

      if (cl->pid == 0 || !g_hash_table_add (done, GUINT_TO_POINTER (cl->pid)) ||
          !jmem_root_exists (out_view, status))
        continue;
      if (!copy_optional (c, smaps, 64u * 1024u * 1024u, error))
        return FALSE;
    }
  return TRUE;
}

/* The device tree's memory nodes (the board's RAM), zram's stores and the
 * page size: what the accounting reads beside meminfo; the free blocks,
 * the swap devices and the kernel's reserve: what the headroom reads. */
static gboolean
capture_memory_extras (Capture *c, GError **error)
{
  static const char * const headroom_files[] = {
    JMEM_BUDDYINFO_PATH, JMEM_SWAPS_PATH, JMEM_MIN_FREE_KBYTES_PATH,
  };

  g_auto(GStrv) nodes = jmem_root_list_dir (c->live, "/proc/device-tree", NULL);
  g_auto(GStrv) blocks = jmem_root_list_dir (c->live, "/sys/block", NULL);
  g_autofree char *page = g_strdup_printf ("%ld\n", sysconf (_SC_PAGESIZE));
  g_autoptr(GString) zram = g_string_new (NULL);

  if (!copy_optional (c, "/proc/device-tree/#address-cells", JMEM_MAX_SMALL_BYTES, error) ||
      !copy_optional (c, "/proc/device-tree/#size-cells", JMEM_MAX_SMALL_BYTES, error))
    return FALSE;
  for (gsize i = 0; i < G_N_ELEMENTS (headroom_files); i++)
    if (!copy_optional (c, headroom_files[i], JMEM_MAX_SMALL_BYTES, error))
      return FALSE;
  for (guint i = 0; nodes != NULL && nodes[i] != NULL; i++)
    {
      g_autofree char *reg = g_strdup_printf ("/proc/device-tree/%s/reg", nodes[i]);

      if ((g_str_equal (nodes[i], "memory") || g_str_has_prefix (nodes[i], "memory@")) &&
          strchr (nodes[i], '/') == NULL && !copy_optional (c, reg, JMEM_MAX_SMALL_BYTES, error))
        return FALSE;
    }
  for (guint i = 0; blocks != NULL && blocks[i] != NULL; i++)
    {
      g_autofree char *mm_stat = g_strdup_printf ("/sys/block/%s/mm_stat", blocks[i]);

      if (!g_str_has_prefix (blocks[i], "zram") || strchr (blocks[i], '/') != NULL)
        continue;
      if (!copy_optional (c, mm_stat, JMEM_MAX_SMALL_BYTES, error))
        return FALSE;
      g_string_append_printf (zram, "%s\n", blocks[i]);
    }
  /* Which zram devices there were, possibly none: without this list a
   * capture with no sys/block could not tell "no zram" from "not recorded". */
  return write_file (c, JMEM_CAPTURE_PAGE_SIZE_PATH, page, strlen (page), error) &&
         (blocks == NULL || write_file (c, JMEM_CAPTURE_ZRAM_PATH, zram->str, zram->len, error));
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
           copy_optional (c, JMEM_NVMAP_TOTAL_MEMORY_PATH, JMEM_MAX_SMALL_BYTES, error) &&
           copy_optional (c, JMEM_NVMAP_MAPS_PATH, JMEM_MAX_DEBUGFS_BYTES, error) &&
           copy_optional (c, JMEM_NVMAP_FREE_SIZE_PATH, JMEM_MAX_SMALL_BYTES, error) &&
           copy_optional (c, JMEM_NVMAP_POOL_PAGES_PATH, JMEM_MAX_SMALL_BYTES, error) &&
           copy_optional (c, JMEM_NVMAP_POOL_TO_ZERO_PATH, JMEM_MAX_SMALL_BYTES, error);

  clients = source->read_clients (&sctx, &total_bytes, &local);
  if (clients == NULL)
    {
      const char *action = jmem_nvmap_source_error_action (local);
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

      if (!write_file (c, JMEM_NVMAP_TOTAL_MEMORY_PATH, total, strlen (total), error))
        return FALSE;
    }
  return capture_nvmap_extras (c, error);
}

static gboolean
capture_thermal (Capture *c, GError **error)
{
  g_auto(GStrv) names = jmem_root_list_dir (c->live, "/sys/class/thermal", NULL);

  for (guint i = 0; names != NULL && names[i] != NULL; i++)
    {
      const char *name = names[i];
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
  JmemCollectContext ctx = { .options = &options, .root = NULL, .files = c->live,
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

/* Each step as the marker records it, in order. */
typedef gboolean (*CaptureStepFunc) (Capture *c, GError **error);

/* The board's memory totals with what the accounting reads beside them. */
static gboolean
capture_host_memory (Capture *c, GError **error)
{
  return capture_host (c, error) && capture_memory_extras (c, error);
}

/* NvMap, then the smaps of the processes it says map its buffers. */
static gboolean
capture_nvmap_holders (Capture *c, GError **error)
{
  return capture_nvmap (c, error) && capture_nvmap_smaps (c, error);
}

static const CaptureStepFunc capture_steps[JMEM_CAPTURE_N_STEPS] = {
  [JMEM_CAPTURE_STEP_HOST] = capture_host_memory,
  [JMEM_CAPTURE_STEP_PROCESSES] = capture_processes,
  [JMEM_CAPTURE_STEP_ACCOUNTS] = capture_passwd,
  [JMEM_CAPTURE_STEP_PROGRAMS] = capture_gpu,
  [JMEM_CAPTURE_STEP_NVMAP] = capture_nvmap_holders,
  [JMEM_CAPTURE_STEP_THERMAL] = capture_thermal,
  [JMEM_CAPTURE_STEP_SYSTEM] = capture_collected,
  [JMEM_CAPTURE_STEP_TEGRASTATS] = capture_tegrastats,
};

gboolean
jmem_capture_write (const char               *dir,
                    const JmemCaptureOptions *options,
                    GPtrArray                *notes,
                    JmemCaptureWritten       *written,
                    GError                  **error)
{
  g_autoptr(GHashTable) uids = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  g_autoptr(JmemRoot) out = NULL;
  g_autoptr(JmemRoot) live = jmem_root_open (NULL, error);
  g_autoptr(JmemCaptureMarker) marker = NULL;
  g_autoptr(GError) local = NULL;
  gboolean tegrastats = options->tegrastats_seconds > 0;
  Capture c = {
    .options = options,
    .notes = notes,
    .written = written,
    .uids = uids,
    .timeout_ms = options->command_timeout_ms ? options->command_timeout_ms
                                              : JMEM_COLLECT_COMMAND_TIMEOUT_MS,
  };

  *written = (JmemCaptureWritten) { 0 };
  out = jmem_root_create (dir, error);
  if (out == NULL)
    return FALSE;
  c.out = out;
  c.live = live;
  /* first of all, so that a capture stopped anywhere says so */
  marker = jmem_capture_marker_begin (out, tegrastats, &local);
  for (guint step = 0; marker != NULL && step < JMEM_CAPTURE_N_STEPS; step++)
    if ((step != JMEM_CAPTURE_STEP_TEGRASTATS || tegrastats) &&
        (!jmem_capture_marker_step (marker, step, &local) || !capture_steps[step] (&c, &local)))
      break;
  if (local == NULL && jmem_capture_marker_finish (marker, &local))
    return TRUE;
  g_set_error (error, local->domain, local->code, "%s; %s holds an incomplete capture%s: remove "
               "it and capture again", local->message, dir, marker != NULL ? ", marked as such" : "");
  return FALSE;
}
