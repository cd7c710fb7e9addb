/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "jmem-ops-snapshot.h"

#include "jmem-collect.h"
#include "jmem-snapshot-json.h"

JmemSnapshot *
jmem_ops_snapshot (const JmemOpsSnapshotOptions *options,
                   GError                      **error)
{
  JmemCollectOptions collect = { 0 };

  collect.sysroot = options->sysroot;
  collect.top = options->top;
  collect.tegrastats_seconds = options->tegrastats_seconds;
  if (options->recorded_tegrastats && options->sysroot != NULL && options->tegrastats_seconds == 0)
    {
      /* a capture's recorded line costs nothing to read */
      g_autofree char *line = g_build_filename (options->sysroot, "tegrastats", "line.txt", NULL);

      if (g_file_test (line, G_FILE_TEST_IS_REGULAR))
        collect.tegrastats_seconds = 1;
    }
  collect.allow_interactive = options->allow_interactive;
  collect.boot = options->boot;
  collect.sampler = options->sampler;
  return jmem_collect_snapshot (&collect, error);
}

/* Keeps the members of array @member of @object whose "pid" is @pid. */
static void
keep_pid (JsonObject *object, const char *member, gint64 pid)
{
  JsonArray *rows = json_object_get_array_member (object, member);
  g_autoptr(JsonArray) kept = json_array_new ();

  for (guint i = 0; i < json_array_get_length (rows); i++)
    {
      JsonObject *row = json_array_get_object_element (rows, i);

      if (json_object_get_int_member (row, "pid") == pid)
        json_array_add_element (kept, json_node_copy (json_array_get_element (rows, i)));
    }
  json_object_set_array_member (object, member, json_array_ref (kept));
}

JsonNode *
jmem_ops_snapshot_json (JmemSnapshot *snapshot,
                        gint64        pid)
{
  g_autoptr(JsonNode) root = jmem_snapshot_to_json (snapshot);
  JsonObject *doc;

  if (pid < 0)
    return g_steal_pointer (&root);

  doc = json_node_get_object (root);
  keep_pid (json_object_get_object_member (doc, "processes"), "list", pid);
  keep_pid (json_object_get_object_member (doc, "nvmap"), "clients", pid);
  keep_pid (json_object_get_object_member (doc, "nvmap"), "by_pid", pid);
  keep_pid (json_object_get_object_member (doc, "gpu"), "processes", pid);
  return g_steal_pointer (&root);
}
