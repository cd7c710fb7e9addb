/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "jmem-ops-drop-caches.h"
#include "jmem-ops-private.h"

#include <gio/gio.h>

#include "jmem-client-error.h"
#include "jmem-container.h"
#include "jmem-diff.h"
#include "jmem-error.h"
#include "jmem-file.h"
#include "jmem-helper-client.h"
#include "jmem-meminfo.h"
#include "jmem-names.h"
#include "jmem-nvmap-source.h"

/* For people: what failed is said by the error's code. */
#define NOT_DROPPED "caches were not dropped: "

gboolean
jmem_ops_call_drop_caches (guint       level,
                           gboolean    compact,
                           gboolean    allow_interactive,
                           GVariant  **result,
                           GError    **error)
{
  JmemHelperCallOptions options = { .allow_interactive = allow_interactive };
  g_autoptr(GError) local = NULL;

  if (jmem_helper_drop_caches (&options, level, compact, result, &local))
    return TRUE;
  /* NotAvailable here is compact_memory's absence, not NvMap's: its own
   * code and message, so that no NvMap hint follows it */
  if (compact && g_error_matches (local, JMEM_ERROR, JMEM_ERROR_NOT_AVAILABLE))
    {
      g_clear_error (&local);
      g_set_error_literal (&local, JMEM_CLIENT_ERROR, JMEM_CLIENT_ERROR_NO_COMPACTION,
                           "this kernel cannot compact memory (no /proc/sys/vm/compact_memory): "
                           "run it again without --compact");
    }
  g_propagate_prefixed_error (error, g_steal_pointer (&local), NOT_DROPPED);
  return FALSE;
}

gboolean
jmem_ops_start_helper (GError **error)
{
  if (jmem_helper_start (error))
    return TRUE;
  g_prefix_error (error, NOT_DROPPED);
  return FALSE;
}

/* The few numbers drop-caches compares, shaped as a snapshot's members so
 * jmem_diff_system reads them: memory.fields_kib and nvmap.total_kib. */
static JsonNode *
read_state (gboolean allow_interactive, GPtrArray *notes)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autoptr(JmemMeminfo) meminfo = NULL;
  g_autoptr(JmemNvmapClients) clients = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *data = NULL;
  JmemNvmapSourceContext ctx = { .allow_interactive = allow_interactive };
  const JmemNvmapSource *source;
  gint64 stats_total_bytes = -1;
  gsize len = 0;

  if (jmem_file_read_capped ("/proc/meminfo", JMEM_MAX_SMALL_BYTES, &data, &len, &error))
    meminfo = jmem_meminfo_parse (data, len, &error);
  if (meminfo == NULL)
    g_ptr_array_add (notes, g_strdup_printf ("/proc/meminfo: %s", error->message));
  g_clear_error (&error);

  source = jmem_nvmap_source_choose (&ctx, &error);
  if (source != NULL)
    clients = source->read_clients (&ctx, &stats_total_bytes, &error);
  if (clients == NULL && source != NULL)
    {
      const char *action = jmem_nvmap_source_error_action (error);
      g_ptr_array_add (notes, g_strdup_printf ("NvMap total unknown: %s%s%s%s", error->message,
                                               action != NULL ? " (" : "",
                                               action != NULL ? action : "",
                                               action != NULL ? ")" : ""));
    }

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "memory");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "fields_kib");
  json_builder_begin_object (b);
  for (guint i = 0; meminfo != NULL && i < meminfo->fields->len; i++)
    {
      const JmemMeminfoField *f = &g_array_index (meminfo->fields, JmemMeminfoField, i);
      if (!f->is_kib || f->value > (guint64) JMEM_DIFF_MAX_KIB)
        continue;
      json_builder_set_member_name (b, f->name);
      json_builder_add_int_value (b, (gint64) f->value);
    }
  json_builder_end_object (b);
  json_builder_end_object (b);
  json_builder_set_member_name (b, "nvmap");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "total_kib");
  if (clients != NULL && clients->has_total && clients->total_kib <= (guint64) JMEM_DIFF_MAX_KIB)
    json_builder_add_int_value (b, (gint64) clients->total_kib);
  else
    json_builder_add_null_value (b);
  json_builder_end_object (b);
  json_builder_end_object (b);
  return json_builder_get_root (b);
}

void
jmem_ops_add_drop_json (JsonBuilder *b,
                        int          level,
                        gboolean     compact,
                        GVariant    *result)
{
  json_builder_set_member_name (b, "level");
  json_builder_add_int_value (b, level);
  json_builder_set_member_name (b, "compact");
  json_builder_add_boolean_value (b, compact);
  json_builder_set_member_name (b, "helper_result");
  json_builder_add_value (b, json_gvariant_serialize (result));
}

void
jmem_ops_add_container_json (JsonBuilder *b,
                             const char  *evidence)
{
  json_builder_set_member_name (b, "container");
  if (evidence == NULL)
    {
      json_builder_add_null_value (b);
      return;
    }
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "evidence");
  json_builder_add_string_value (b, evidence);
  json_builder_set_member_name (b, "note");
  json_builder_add_string_value (b, JMEM_CONTAINER_NOTE);
  json_builder_end_object (b);
}

JsonNode *
jmem_ops_drop_caches (const JmemOpsDropCachesOptions *options,
                      GError                        **error)
{
  g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autoptr(JsonNode) before = NULL;
  g_autoptr(JsonNode) after = NULL;
  g_autoptr(GVariant) result = NULL;

  /* a helper that cannot start fails the drop before any reading waits for it */
  if (!jmem_ops_start_helper (error))
    return NULL;
  before = read_state (options->allow_interactive, notes);
  if (!jmem_ops_call_drop_caches (options->level, options->compact, options->allow_interactive,
                                  &result, error))
    return NULL;
  after = read_state (options->allow_interactive, notes);

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "schema");
  json_builder_add_string_value (b, "jmem-drop-caches");
  json_builder_set_member_name (b, "schema_version");
  json_builder_add_int_value (b, 1);
  jmem_ops_add_drop_json (b, (int) options->level, options->compact, result);
  jmem_ops_add_container_json (b, options->container);
  json_builder_set_member_name (b, "system");
  json_builder_add_value (b, jmem_diff_system (before, after, jmem_diff_drop_fields));
  json_builder_set_member_name (b, "notes");
  json_builder_begin_array (b);
  for (guint i = 0; i < notes->len; i++)
    json_builder_add_string_value (b, g_ptr_array_index (notes, i));
  json_builder_end_array (b);
  json_builder_end_object (b);
  return json_builder_get_root (b);
}

