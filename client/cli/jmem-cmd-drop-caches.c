#include "jmem-cmd.h"

#include <gio/gio.h>
#include <string.h>
#include <unistd.h>

#include "jmem-container.h"
#include "jmem-diff.h"
#include "jmem-error.h"
#include "jmem-file.h"
#include "jmem-helper-client.h"
#include "jmem-meminfo.h"
#include "jmem-names.h"
#include "jmem-nvmap-source.h"
#include "jmem-output-diff.h"
#include "jmem-text.h"

static int
refusal_exit (const GError *error)
{
  if (g_error_matches (error, JMEM_ERROR, JMEM_ERROR_RATE_LIMITED))
    return JMEM_EXIT_TEMP_FAIL;
  if (g_error_matches (error, JMEM_ERROR, JMEM_ERROR_POLKIT_UNAVAILABLE))
    return JMEM_EXIT_NO_DATA;
  if (error->domain == G_DBUS_ERROR)
    switch (error->code)
      {
      case G_DBUS_ERROR_ACCESS_DENIED:
        return g_str_has_prefix (error->message, JMEM_POLKIT_UNAVAILABLE) ?
                 JMEM_EXIT_NO_DATA : JMEM_EXIT_NOT_AUTHORIZED;
      case G_DBUS_ERROR_AUTH_FAILED:
        return JMEM_EXIT_NOT_AUTHORIZED;
      case G_DBUS_ERROR_SERVICE_UNKNOWN:
      case G_DBUS_ERROR_NAME_HAS_NO_OWNER:
      case G_DBUS_ERROR_SPAWN_FAILED:
        return JMEM_EXIT_NO_DATA;
      default:
        return JMEM_EXIT_INTERNAL;
      }
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_CONNECTED))
    return JMEM_EXIT_NO_DATA;
  return JMEM_EXIT_INTERNAL;
}

gboolean
jmem_cmd_call_drop_caches (guint       level,
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
   * message, so that no NvMap hint follows it */
  if (compact && g_error_matches (local, JMEM_ERROR, JMEM_ERROR_NOT_AVAILABLE))
    {
      g_clear_error (&local);
      g_set_error_literal (&local, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                           "this kernel cannot compact memory (no /proc/sys/vm/compact_memory): "
                           "run it again without --compact");
    }
  g_propagate_prefixed_error (error, g_steal_pointer (&local), JMEM_CMD_NOT_DROPPED);
  return FALSE;
}

int
jmem_cmd_report_drop_error (const char   *command,
                            const GError *error)
{
  const char *action = jmem_helper_error_action (error);

  jmem_cmd_printerr ("jmem %s: %s", command, error->message);
  /* an audit can still compare two snapshots without the helper */
  if (g_str_equal (command, "audit") && g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_CONNECTED))
    jmem_cmd_printerr ("jmem audit: %s, or compare without dropping caches: jmem audit --no-drop",
                       action);
  else if (action != NULL)
    jmem_cmd_printerr ("jmem %s: %s", command, action);
  return refusal_exit (error);
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
      const char *action = jmem_nvmap_source_error_action (source, error);
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
jmem_cmd_add_drop_json (JsonBuilder *b,
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
jmem_cmd_add_container_json (JsonBuilder *b,
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

static const char *
level_text (guint level)
{
  switch (level)
    {
    case 1: return "page cache";
    case 2: return "dentries and inodes";
    default: return "page cache, dentries and inodes";
    }
}

JsonNode *
jmem_cmd_drop_caches_json (int         level,
                           gboolean    compact,
                           gboolean    allow_interactive,
                           const char *container,
                           GError    **error)
{
  g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autoptr(JsonNode) before = NULL;
  g_autoptr(JsonNode) after = NULL;
  g_autoptr(GVariant) result = NULL;

  before = read_state (allow_interactive, notes);
  if (!jmem_cmd_call_drop_caches ((guint) level, compact, allow_interactive, &result, error))
    return NULL;
  after = read_state (allow_interactive, notes);

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "schema");
  json_builder_add_string_value (b, "jmem-drop-caches");
  json_builder_set_member_name (b, "schema_version");
  json_builder_add_int_value (b, 1);
  jmem_cmd_add_drop_json (b, level, compact, result);
  jmem_cmd_add_container_json (b, container);
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

int
jmem_cmd_drop_caches (int argc, char **argv)
{
  gboolean json = FALSE, compact = FALSE, no_ask = FALSE;
  int level = 3;
  GOptionEntry entries[] = {
    { "level", 0, 0, G_OPTION_ARG_INT, &level, "1 page cache, 2 dentries and inodes, 3 both (default)", "N" },
    { "compact", 0, 0, G_OPTION_ARG_NONE, &compact, "Also compact memory (larger free blocks for CMA and NvMap)", NULL },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, "Write JSON (sizes in KiB)", NULL },
    { "no-ask-password", 0, 0, G_OPTION_ARG_NONE, &no_ask, "Never let polkit ask for a password", NULL },
    { NULL },
  };
  g_autoptr(GOptionContext) context = g_option_context_new ("- drop the kernel's caches and show what that freed");
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *container = NULL;
  gboolean interactive;

  g_option_context_add_main_entries (context, entries, NULL);
  g_option_context_set_description (context,
    "Goes through jmem-helper (polkit action dev.jmem.drop-caches), at most once per 10 s.\n"
    "Exit status: 0 ok, 64 usage error, 69 no system bus, helper or polkit, 70 internal error,\n"
    "75 rate-limited (try again in the seconds named), 77 not authorized.");
  if (!jmem_cmd_parse (context, &argc, &argv, 0, NULL))
    return JMEM_EXIT_USAGE;
  if (level < 1 || level > 3)
    {
      g_printerr ("jmem drop-caches: --level takes 1, 2 or 3\n");
      return JMEM_EXIT_USAGE;
    }
  interactive = !no_ask && isatty (STDIN_FILENO);
  container = jmem_container_detect (NULL);

  root = jmem_cmd_drop_caches_json (level, compact, interactive, container, &error);
  if (root == NULL)
    return jmem_cmd_report_drop_error ("drop-caches", error);

  if (json)
    {
      g_autofree char *text = json_to_string (root, TRUE);

      if (!jmem_cmd_write_stdout (text, strlen (text)) || !jmem_cmd_write_stdout ("\n", 1))
        return JMEM_EXIT_CANT_CREATE;
    }
  else
    {
      g_autoptr(GString) out = g_string_new (NULL);
      JsonObject *doc = json_node_get_object (root);
      JsonArray *notes = json_object_get_array_member (doc, "notes");

      g_string_append_printf (out, "Dropped the %s (level %d)%s.\n", level_text ((guint) level), level,
                              compact ? " and compacted memory" : "");
      if (container != NULL)
        {
          g_autofree char *evidence = jmem_text_for_terminal (container);

          g_string_append_printf (out, "Note: %s (%s).\n", JMEM_CONTAINER_NOTE, evidence);
        }
      g_string_append_c (out, '\n');
      jmem_output_diff_system (json_object_get_array_member (doc, "system"), out);
      for (guint i = 0; i < json_array_get_length (notes); i++)
        {
          g_autofree char *note = jmem_text_for_terminal (json_array_get_string_element (notes, i));

          g_string_append_printf (out, "Note: %s\n", note);
        }
      if (!jmem_cmd_write_stdout (out->str, out->len))
        return JMEM_EXIT_CANT_CREATE;
    }
  return JMEM_EXIT_OK;
}
