#include "jmem-collect-private.h"

#include "jmem-error.h"
#include "jmem-file.h"
#include "jmem-names.h"
#include "jmem-text.h"

#include <string.h>
#include <unistd.h>

char *
jmem_collect_path (const JmemCollectContext *ctx, const char *path)
{
  return jmem_sysroot_path (ctx->root, path);
}

gboolean
jmem_collect_read_raw (const JmemCollectContext *ctx,
                       const char               *path,
                       gsize                     max_bytes,
                       char                    **data,
                       gsize                    *len,
                       GError                  **error)
{
  g_autofree char *full = jmem_collect_path (ctx, path);

  return jmem_file_read_capped (full, max_bytes, data, len, error);
}

char *
jmem_collect_read_text (const JmemCollectContext *ctx,
                        const char               *path,
                        GError                  **error)
{
  g_autofree char *data = NULL;
  gsize len = 0;
  char *text;

  if (!jmem_collect_read_raw (ctx, path, JMEM_MAX_SMALL_BYTES, &data, &len, error))
    return NULL;
  /* device-tree strings end in NUL: keep what precedes it. */
  len = strnlen (data, len);
  text = jmem_text_make_valid (data, (gssize) len);
  return g_strchomp (text);
}

static gboolean
sysroot_has_data (const char *root)
{
  g_autofree char *meminfo = jmem_sysroot_path (root, "/proc/meminfo");
  g_autofree char *proc = jmem_sysroot_path (root, "/proc");
  g_autoptr(GDir) dir = NULL;
  const char *name;

  if (g_file_test (meminfo, G_FILE_TEST_EXISTS))
    return TRUE;
  dir = g_dir_open (proc, 0, NULL);
  if (dir == NULL)
    return FALSE;
  while ((name = g_dir_read_name (dir)) != NULL)
    if (g_ascii_isdigit (name[0]))
      return TRUE;
  return FALSE;
}

JmemSnapshot *
jmem_collect_snapshot (const JmemCollectOptions *options,
                       GError                  **error)
{
  g_autoptr(JmemSnapshot) snapshot = NULL;
  JmemCollectContext ctx = { 0 };
  const char *root = options->sysroot;

  if (root != NULL && (root[0] == '\0' || g_str_equal (root, "/")))
    root = NULL;

  if (root != NULL)
    {
      if (!g_file_test (root, G_FILE_TEST_IS_DIR))
        {
          g_set_error (error, JMEM_ERROR, JMEM_ERROR_NOT_AVAILABLE,
                       "%s is not a directory", root);
          return NULL;
        }
      if (!sysroot_has_data (root))
        {
          g_set_error (error, JMEM_ERROR, JMEM_ERROR_NOT_AVAILABLE,
                       "%s holds no capture: neither proc/meminfo nor proc/PID "
                       "directories (write one with `jmem capture DIR`)", root);
          return NULL;
        }
    }

  snapshot = jmem_snapshot_new ();
  snapshot->sysroot = g_strdup (root);
  ctx.options = options;
  ctx.root = root;
  ctx.timeout_ms = options->command_timeout_ms ? options->command_timeout_ms
                                               : JMEM_COLLECT_COMMAND_TIMEOUT_MS;
  ctx.snapshot = snapshot;
  ctx.proc_fd = -1;
  ctx.read_buf = g_byte_array_sized_new (16384);
  ctx.boot = options->boot;
  jmem_collect_boot_check (&ctx);

  /* meminfo first: identity falls back on the memory size. */
  jmem_collect_meminfo (&ctx);
  jmem_collect_identity (&ctx);
  jmem_collect_processes (&ctx);
  jmem_collect_gpu (&ctx);
  jmem_collect_nvmap (&ctx);
  jmem_collect_thermal (&ctx);
  jmem_collect_power_mode (&ctx);
  jmem_collect_disks (&ctx);
  jmem_collect_services (&ctx);
  if (options->tegrastats_seconds > 0)
    jmem_collect_tegrastats (&ctx);
  jmem_collect_join (&ctx);
  if (ctx.proc_fd >= 0)
    close (ctx.proc_fd);
  g_clear_pointer (&ctx.users, jmem_users_free);
  g_byte_array_unref (ctx.read_buf);

  return g_steal_pointer (&snapshot);
}
