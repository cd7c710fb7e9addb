/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The calls jmem top and jmem plot make into the rest of jmem, in one file
 * (jmem-cmd-faces.h). */
#include "jmem-cmd-faces.h"

#include "jmem-advice.h"
#include "jmem-cmd.h"
#include "jmem-container.h"
#include "jmem-error.h"
#include "jmem-frame.h"
#include "jmem-ops-allocations.h"
#include "jmem-ops-drop-caches.h"
#include "jmem-ops-snapshot.h"
#include "jmem-textfile.h"

#include <gio/gio.h>

struct _JmemCmdTopSource {
  char               *sysroot;
  JmemCollectBoot    *boot;
  JmemSampler        *sampler;
  JmemOpsSnapshotOptions options;
};

static JmemFrame *
source_sample (gpointer data, GError **error)
{
  JmemCmdTopSource *src = data;
  g_autoptr(JmemSnapshot) snapshot = jmem_ops_snapshot (&src->options, error);

  return snapshot != NULL ? jmem_frame_from_snapshot (snapshot) : NULL;
}

static JmemNvmapAllocations *
source_allocations (gpointer data, const char **via, char **action, GError **error)
{
  JmemCmdTopSource *src = data;
  /* no password prompt: the screen holds the terminal */
  JmemOpsAllocationsOptions options = { src->sysroot, FALSE };
  g_autoptr(JmemOpsAllocations) read = NULL;
  g_autoptr(GError) local = NULL;
  JmemNvmapAllocations *allocations;

  read = jmem_ops_allocations (&options, &local);
  /* the screen shows every row: all of them in memory */
  allocations = read != NULL ? jmem_ops_allocations_parse (read, &local) : NULL;
  if (allocations == NULL)
    {
      *action = g_strdup (jmem_advice_for_error (local, JMEM_ADVICE_NONE).action);
      g_propagate_error (error, g_steal_pointer (&local));
      return NULL;
    }
  *via = read->via;
  return allocations;
}

static char *
source_drop_caches (gpointer data, guint width, char **action, GError **error)
{
  g_autofree char *container = jmem_container_detect (NULL);
  JmemOpsDropCachesOptions options = { 3, FALSE, FALSE, container };
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GError) local = NULL;

  root = jmem_ops_drop_caches (&options, &local);
  if (root == NULL)
    {
      *action = g_strdup (jmem_advice_for_error (local, JMEM_ADVICE_NONE).action);
      g_propagate_error (error, g_steal_pointer (&local));
      return NULL;
    }
  return jmem_cmd_drop_caches_text (root, 3, FALSE, container, width);
}

JmemCmdTopSource *
jmem_cmd_top_source_new (const char     *sysroot,
                         JmemTopBackend *backend)
{
  JmemCmdTopSource *src = g_new0 (JmemCmdTopSource, 1);

  src->sysroot = g_strdup (sysroot);
  /* what an earlier jmem run probed in this boot */
  src->boot = jmem_collect_boot_new_persistent (sysroot);
  src->sampler = jmem_sampler_new (JMEM_SAMPLER_DEFAULT_REFRESH);
  src->options.sysroot = src->sysroot;
  src->options.top = -1;
  src->options.boot = src->boot;
  src->options.sampler = src->sampler;
  /* the screen holds the terminal: polkit cannot ask for a password */
  src->options.allow_interactive = FALSE;
  src->options.recorded_tegrastats = TRUE;

  backend->sample = source_sample;
  backend->allocations = source_allocations;
  backend->drop_caches = source_drop_caches;
  backend->user_data = src;
  return src;
}

void
jmem_cmd_top_source_free (JmemCmdTopSource *src)
{
  if (src == NULL)
    return;
  g_clear_pointer (&src->sampler, jmem_sampler_free);
  g_clear_pointer (&src->boot, jmem_collect_boot_free);
  g_free (src->sysroot);
  g_free (src);
}

int
jmem_cmd_faces_sample_exit (const GError *error)
{
  return g_error_matches (error, JMEM_ERROR, JMEM_ERROR_NOT_AVAILABLE) ? JMEM_EXIT_NO_DATA
                                                                       : JMEM_EXIT_INTERNAL;
}

void
jmem_cmd_faces_print_warnings (const char *command,
                               GPtrArray  *warnings)
{
  for (guint i = 0; warnings != NULL && i < warnings->len; i++)
    jmem_cmd_printerr ("%s: %s", command, (const char *) g_ptr_array_index (warnings, i));
}

int
jmem_cmd_faces_history_failed (const char   *command,
                               const GError *error)
{
  jmem_cmd_printerr ("%s: %s", command, error->message);
  if (error->domain == G_IO_ERROR)
    return JMEM_EXIT_NO_INPUT;
  if (g_error_matches (error, JMEM_ERROR, JMEM_ERROR_NOT_AVAILABLE))
    return JMEM_EXIT_NO_DATA;
  return JMEM_EXIT_DATA_ERR;
}

gboolean
jmem_cmd_faces_write_file (const char *path,
                           const char *data,
                           gsize       len,
                           GError    **error)
{
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *name = g_path_get_basename (path);

  return jmem_textfile_replace (dir, name, data, len, error);
}
