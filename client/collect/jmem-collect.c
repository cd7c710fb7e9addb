/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "jmem-collect-private.h"

#include "jmem-capture-marker.h"
#include "jmem-error.h"

#include <unistd.h>

static gboolean
sysroot_has_data (JmemRoot *root)
{
  g_auto(GStrv) names = NULL;

  if (jmem_root_exists (root, "/proc/meminfo"))
    return TRUE;
  names = jmem_root_list_dir (root, "/proc", NULL);
  for (guint i = 0; names != NULL && names[i] != NULL; i++)
    if (g_ascii_isdigit (names[i][0]))
      return TRUE;
  return FALSE;
}

/* What the tree held that was not read: named, so nobody mistakes a
 * missing number for a measured one. */
static void
warn_refused (JmemSnapshot *snapshot, JmemRoot *root)
{
  const GPtrArray *refused = jmem_root_get_refused (root);

  for (guint i = 0; i < refused->len; i++)
    jmem_snapshot_add_warning (snapshot, "sysroot", "write a new capture with `jmem capture DIR`",
                               "%s/%s, and was not read: a capture holds only regular files "
                               "and directories", jmem_root_get_path (root),
                               (const char *) g_ptr_array_index (refused, i));
}

/* A capture that was stopped before its end is not a whole board: say so,
 * and what it lacks, before anyone reads its numbers as complete. */
static void
warn_incomplete (JmemSnapshot *snapshot, JmemRoot *root)
{
  g_autofree char *incomplete = jmem_capture_marker_describe (root);

  if (incomplete != NULL)
    jmem_snapshot_add_warning (snapshot, JMEM_COLLECT_CAPTURE_SOURCE, JMEM_CAPTURE_MARKER_ACTION,
                               "%s", incomplete);
}

JmemSnapshot *
jmem_collect_snapshot (const JmemCollectOptions *options,
                       GError                  **error)
{
  g_autoptr(JmemSnapshot) snapshot = NULL;
  g_autoptr(JmemRoot) files = NULL;
  JmemCollectContext ctx = { 0 };
  const char *root = options->sysroot;

  if (root != NULL && (root[0] == '\0' || g_str_equal (root, "/")))
    root = NULL;

  files = jmem_root_open (root, error);
  if (files == NULL)
    return NULL;
  if (root != NULL)
    {
      if (!sysroot_has_data (files))
        {
          const GPtrArray *refused = jmem_root_get_refused (files);
          g_autofree char *incomplete = jmem_capture_marker_describe (files);

          g_set_error (error, JMEM_ERROR, JMEM_ERROR_NOT_AVAILABLE,
                       "%s holds no capture: neither proc/meminfo nor proc/PID "
                       "directories%s%s%s%s (write one with `jmem capture DIR`)", root,
                       refused->len > 0 ? "; " : "",
                       refused->len > 0 ? (const char *) g_ptr_array_index (refused, 0) : "",
                       incomplete != NULL ? "; " : "", incomplete != NULL ? incomplete : "");
          return NULL;
        }
    }

  snapshot = jmem_snapshot_new ();
  snapshot->sysroot = g_strdup (root);
  ctx.options = options;
  ctx.root = root;
  ctx.files = files;
  ctx.timeout_ms = options->command_timeout_ms ? options->command_timeout_ms
                                               : JMEM_COLLECT_COMMAND_TIMEOUT_MS;
  ctx.snapshot = snapshot;
  ctx.proc_fd = -1;
  ctx.read_buf = g_byte_array_sized_new (16384);
  ctx.pss_why = g_hash_table_new (NULL, NULL);
  ctx.boot = options->boot;
  jmem_collect_boot_check (&ctx);

  /* meminfo first: identity falls back on the memory size. */
  jmem_collect_meminfo (&ctx);
  jmem_collect_identity (&ctx);
  jmem_collect_memory_extras (&ctx);
  jmem_collect_headroom_inputs (&ctx);
  jmem_collect_processes (&ctx);
  jmem_collect_gpu (&ctx);
  jmem_collect_platform (&ctx);
  jmem_collect_nvmap (&ctx);
  jmem_collect_thermal (&ctx);
  jmem_collect_power_mode (&ctx);
  jmem_collect_disks (&ctx);
  jmem_collect_services (&ctx);
  if (options->tegrastats_seconds > 0)
    jmem_collect_tegrastats (&ctx);
  jmem_collect_join (&ctx);
  warn_refused (snapshot, files);
  if (root != NULL)
    warn_incomplete (snapshot, files);
  jmem_collect_boot_save (&ctx);
  if (ctx.proc_fd >= 0)
    close (ctx.proc_fd);
  g_clear_pointer (&ctx.users, jmem_users_free);
  g_byte_array_unref (ctx.read_buf);
  g_hash_table_unref (ctx.pss_why);

  return g_steal_pointer (&snapshot);
}
