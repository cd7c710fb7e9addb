/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "jmem-nvmap-source.h"

#include "jmem-advice.h"
#include "jmem-capture-marker.h"
#include "jmem-client-error.h"
#include "jmem-error.h"
#include "jmem-root.h"
#include "jmem-helper-client.h"
#include "jmem-names.h"
#include "jmem-pid-namespace.h"
#include "jmem-platform.h"

#include <gio/gio.h>
#include <unistd.h>

/* ---- files: a captured tree, or debugfs itself as root ---- */

/* Read live, the PIDs are NvMap's: the initial namespace's, even for a root
 * jmem in a container. A capture's belong to its own /proc (0: not said). */
static guint64
files_pid_namespace (const JmemNvmapSourceContext *ctx)
{
  return ctx->root == NULL ? JMEM_PID_NAMESPACE_INITIAL : 0;
}

/* Read live, NvMap's files are missing only where debugfs is not mounted:
 * the kernel has NvMap (/dev/nvmap exists) and root reads them. */
static void
name_unmounted_debugfs (const JmemNvmapSourceContext *ctx,
                        GError                      **error)
{
  GError *missing;

  if (ctx->root != NULL || error == NULL ||
      !g_error_matches (*error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
    return;
  missing = g_error_new_literal (JMEM_CLIENT_ERROR, JMEM_CLIENT_ERROR_NO_DEBUGFS, (*error)->message);
  g_clear_error (error);
  g_propagate_error (error, missing);
}

/* A capture without a file it may hold (jmem capture copies what the
 * board has): an error the advice can name a way on for. */
static void
name_uncaptured (const JmemNvmapSourceContext *ctx,
                 GError                      **error)
{
  GError *missing;

  if (ctx->root == NULL || error == NULL ||
      !g_error_matches (*error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
    return;
  missing = g_error_new (JMEM_CLIENT_ERROR, JMEM_CLIENT_ERROR_NOT_CAPTURED,
                         "the capture holds no NvMap allocations (no %s)",
                         JMEM_NVMAP_ALLOCATIONS_PATH);
  g_clear_error (error);
  g_propagate_error (error, missing);
}

static JmemNvmapClients *
files_read_clients (const JmemNvmapSourceContext *ctx,
                    gint64                       *stats_total_bytes,
                    GError                      **error)
{
  g_autoptr(JmemRoot) root = jmem_root_open (ctx->root, error);
  g_autofree char *data = NULL;
  g_autofree char *total = NULL;
  JmemNvmapClients *clients;
  gsize len = 0, total_len = 0;
  guint64 bytes;
  gint64 unused_total;

  if (stats_total_bytes == NULL)
    stats_total_bytes = &unused_total;
  *stats_total_bytes = -1;
  if (root == NULL ||
      !jmem_root_read (root, JMEM_NVMAP_CLIENTS_PATH, JMEM_MAX_DEBUGFS_BYTES, &data, &len, error))
    {
      name_unmounted_debugfs (ctx, error);
      return NULL;
    }
  if (jmem_root_read (root, JMEM_NVMAP_TOTAL_MEMORY_PATH, JMEM_MAX_SMALL_BYTES, &total, &total_len,
                      NULL) &&
      jmem_nvmap_total_memory_parse (total, total_len, &bytes, NULL) && bytes <= G_MAXINT64)
    *stats_total_bytes = (gint64) bytes;
  clients = jmem_nvmap_clients_parse (data, len, error);
  if (clients != NULL)
    clients->pid_namespace = files_pid_namespace (ctx);
  return clients;
}

/* Live, debugfs prints the file anew at each read: one read, into a copy
 * that every walk then reads. A capture's file is walked where it is. */
static JmemNvmapAllocationsReader *
files_open_allocations (const JmemNvmapSourceContext *ctx,
                        GError                      **error)
{
  g_autoptr(JmemRoot) root = jmem_root_open (ctx->root, error);
  JmemNvmapAllocationsReader *reader;
  int fd;

  if (root == NULL)
    {
      name_unmounted_debugfs (ctx, error);
      return NULL;
    }
  /* a file the capture may have been stopped in the middle of */
  if (ctx->root != NULL && jmem_capture_marker_lacks (root, JMEM_CAPTURE_STEP_NVMAP))
    {
      g_autofree char *incomplete = jmem_capture_marker_describe (root);

      g_set_error (error, JMEM_ERROR, JMEM_ERROR_NOT_AVAILABLE,
                   "%s: its NvMap allocations are missing or cut short", incomplete);
      return NULL;
    }
  fd = jmem_root_open_file (root, JMEM_NVMAP_ALLOCATIONS_PATH, error);
  if (fd < 0)
    {
      name_uncaptured (ctx, error);
      name_unmounted_debugfs (ctx, error);
      return NULL;
    }
  if (ctx->root == NULL)
    {
      reader = jmem_nvmap_allocations_reader_new_copy (fd, JMEM_NVMAP_ALLOCATIONS_PATH,
                                                       JMEM_MAX_DEBUGFS_BYTES,
                                                       files_pid_namespace (ctx), error);
      close (fd);
      return reader;
    }
  return jmem_nvmap_allocations_reader_new_fd (fd, JMEM_NVMAP_ALLOCATIONS_PATH,
                                               JMEM_MAX_DEBUGFS_BYTES, files_pid_namespace (ctx));
}

static gint64
read_counter (JmemRoot *root, const char *path)
{
  g_autofree char *data = NULL;
  gsize len = 0;
  guint64 value;

  if (!jmem_root_read (root, path, JMEM_MAX_SMALL_BYTES, &data, &len, NULL) ||
      !jmem_nvmap_counter_parse (data, len, &value, NULL) || value > G_MAXINT64)
    return -1;
  return (gint64) value;
}

static gboolean
files_read_extras (const JmemNvmapSourceContext *ctx,
                   JmemNvmapExtras              *extras,
                   GError                      **error)
{
  g_autoptr(JmemRoot) root = jmem_root_open (ctx->root, error);
  g_autofree char *data = NULL;
  gsize len = 0;
  guint64 bytes;
  gint64 pool, to_zero;

  jmem_nvmap_extras_clear (extras);
  if (root == NULL)
    return FALSE;
  if (jmem_root_read (root, JMEM_NVMAP_MAPS_PATH, JMEM_MAX_DEBUGFS_BYTES, &data, &len, NULL))
    {
      extras->maps = jmem_nvmap_maps_parse (data, len, NULL);
      if (extras->maps != NULL)
        extras->maps->pid_namespace = files_pid_namespace (ctx);
    }
  g_clear_pointer (&data, g_free);
  if (jmem_root_read (root, JMEM_NVMAP_FREE_SIZE_PATH, JMEM_MAX_SMALL_BYTES, &data, &len, NULL) &&
      jmem_nvmap_free_size_parse (data, len, &bytes, NULL) && bytes <= G_MAXINT64)
    extras->free_size_bytes = (gint64) bytes;
  pool = read_counter (root, JMEM_NVMAP_POOL_PAGES_PATH);
  to_zero = read_counter (root, JMEM_NVMAP_POOL_TO_ZERO_PATH);
  if (pool >= 0)
    {
      extras->pool_to_zero = MIN (MAX (to_zero, 0), G_MAXINT64 - pool);
      extras->pool_pages = pool + extras->pool_to_zero;
    }
  /* a capture records the page size of the system it copied */
  extras->page_size = ctx->root == NULL ? (gint64) sysconf (_SC_PAGESIZE)
                                        : read_counter (root, JMEM_CAPTURE_PAGE_SIZE_PATH);
  return TRUE;
}

/* ---- the helper ---- */

static JmemNvmapClients *
helper_read_clients (const JmemNvmapSourceContext *ctx,
                     gint64                       *stats_total_bytes,
                     GError                      **error)
{
  JmemHelperCallOptions options = {
    .allow_interactive = ctx->allow_interactive,
    .timeout_ms = ctx->timeout_ms,
  };

  return jmem_helper_get_nvmap_clients (&options, stats_total_bytes, error);
}

static JmemNvmapAllocationsReader *
helper_open_allocations (const JmemNvmapSourceContext *ctx,
                         GError                      **error)
{
  JmemHelperCallOptions options = {
    .allow_interactive = ctx->allow_interactive,
    .timeout_ms = ctx->timeout_ms,
  };

  return jmem_helper_open_nvmap_allocations (&options, error);
}

static gboolean
helper_read_extras (const JmemNvmapSourceContext *ctx,
                    JmemNvmapExtras              *extras,
                    GError                      **error)
{
  JmemHelperCallOptions options = {
    .allow_interactive = ctx->allow_interactive,
    .timeout_ms = ctx->timeout_ms,
  };

  return jmem_helper_get_nvmap_extras (&options, extras, NULL, error);
}

static const JmemNvmapSource sources[] = {
  { "sysroot", files_read_clients, files_open_allocations, files_read_extras },
  { "debugfs", files_read_clients, files_open_allocations, files_read_extras },
  { "helper", helper_read_clients, helper_open_allocations, helper_read_extras },
};

/* The DMI field @name of @root (NULL: this system), stripped; NULL when
 * absent. */
static char *
read_dmi (JmemRoot *root, const char *name)
{
  g_autofree char *path = g_strconcat ("/sys/class/dmi/id/", name, NULL);
  char *value = NULL;

  if (root != NULL)
    value = jmem_root_read_text (root, path, NULL);
  else if (!g_file_get_contents (path, &value, NULL, NULL))
    value = NULL;
  return value != NULL ? g_strchomp (value) : NULL;
}

/* Why NvMap does not apply where @root (NULL: this system) is a
 * unified-memory system that is no Jetson, told as the snapshot tells it
 * when no GPU answered: no L4T release, and DMI naming a GB10 system. NULL
 * where NvMap does or may apply. */
static char *
nvmap_not_applying (JmemRoot *root)
{
  g_autofree char *vendor = read_dmi (root, "sys_vendor");
  g_autofree char *product = read_dmi (root, "product_name");
  g_autofree char *family = read_dmi (root, "product_family");
  g_autofree char *board = read_dmi (root, "board_name");
  JmemPlatformEvidence evidence = {
    .tegra_release = root != NULL ? jmem_root_exists (root, "/etc/nv_tegra_release")
                                  : g_file_test ("/etc/nv_tegra_release", G_FILE_TEST_EXISTS),
    .dmi_sys_vendor = vendor,
    .dmi_product_name = product,
    .dmi_product_family = family,
    .dmi_board_name = board,
    .gpu_stack = JMEM_GPU_STACK_NONE,
  };
  g_autoptr(JmemPlatform) platform = jmem_platform_recognise (&evidence);
  const char *why = jmem_platform_not_applying (platform, JMEM_JETSON_PART_NVMAP);

  if (why == NULL)
    return NULL;
  return g_strdup_printf ("NvMap does not apply on %s (%s): %s",
                          root != NULL ? "the captured system" : "this system",
                          platform->name != NULL ? platform->name : "a unified-memory system",
                          why);
}

const JmemNvmapSource *
jmem_nvmap_source_choose (const JmemNvmapSourceContext *ctx,
                          GError                      **error)
{
  if (ctx->root != NULL)
    {
      g_autoptr(JmemRoot) root = jmem_root_open (ctx->root, NULL);

      g_autofree char *not_applying = NULL;

      if (root != NULL && jmem_root_exists (root, JMEM_NVMAP_CLIENTS_PATH))
        return &sources[0];
      not_applying = root != NULL ? nvmap_not_applying (root) : NULL;
      if (not_applying != NULL)
        {
          g_set_error_literal (error, JMEM_ERROR, JMEM_ERROR_NOT_AVAILABLE, not_applying);
          return NULL;
        }
      g_set_error (error, JMEM_ERROR, JMEM_ERROR_NOT_AVAILABLE,
                   "the capture holds no NvMap data (no %s)%s", JMEM_NVMAP_CLIENTS_PATH,
                   root != NULL && jmem_capture_marker_lacks (root, JMEM_CAPTURE_STEP_NVMAP)
                     ? ": jmem capture was stopped before it wrote NvMap (the capture holds "
                       JMEM_CAPTURE_MARKER_NAME ")" : "");
      return NULL;
    }

  /* Every kernel with NvMap has its device node, readable without root. */
  if (!g_file_test ("/dev/nvmap", G_FILE_TEST_EXISTS))
    {
      g_autofree char *not_applying = nvmap_not_applying (NULL);

      if (not_applying != NULL)
        g_set_error_literal (error, JMEM_ERROR, JMEM_ERROR_NOT_AVAILABLE, not_applying);
      else
        g_set_error (error, JMEM_ERROR, JMEM_ERROR_NOT_AVAILABLE, "this system has no /dev/nvmap");
      return NULL;
    }
  if (geteuid () == 0)
    return &sources[1];
  return &sources[2];
}

const char *
jmem_nvmap_source_error_action (const GError *error)
{
  if (error == NULL || g_error_matches (error, JMEM_ERROR, JMEM_ERROR_NOT_AVAILABLE))
    return NULL;
  /* a snapshot's warning is read by people and agents alike: no "terminal" advice */
  return jmem_advice_for_error (error, JMEM_ADVICE_NONE).action;
}
