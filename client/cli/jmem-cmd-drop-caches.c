/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "jmem-cmd.h"
#include "jmem-cmd-view.h"

#include <string.h>

#include "jmem-container.h"
#include "jmem-ops-drop-caches.h"
#include "jmem-output-diff.h"
#include "jmem-output-table.h"
#include "jmem-text.h"

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

char *
jmem_cmd_drop_caches_text (JsonNode   *root,
                           int         level,
                           gboolean    compact,
                           const char *container,
                           guint       width)
{
  GString *out = g_string_new (NULL);
  JsonObject *doc = json_node_get_object (root);
  JsonArray *notes = json_object_get_array_member (doc, "notes");

  g_string_append_printf (out, "Dropped the %s (level %d)%s.\n", level_text ((guint) level), level,
                          compact ? " and compacted memory" : "");
  if (container != NULL)
    {
      g_autofree char *evidence = jmem_text_for_terminal (container);
      g_autofree char *note = g_strdup_printf ("Note: %s (%s).", JMEM_CONTAINER_NOTE, evidence);

      jmem_table_append_wrapped (out, note, width, 0, 6);
      g_string_append_c (out, '\n');
    }
  g_string_append_c (out, '\n');
  jmem_output_diff_system (json_object_get_array_member (doc, "system"), out);
  for (guint i = 0; i < json_array_get_length (notes); i++)
    {
      g_autofree char *note = jmem_text_for_terminal (json_array_get_string_element (notes, i));
      g_autofree char *line = g_strconcat ("Note: ", note, NULL);

      jmem_table_append_wrapped (out, line, width, 0, 6);
      g_string_append_c (out, '\n');
    }
  return g_string_free (out, FALSE);
}

int
jmem_cmd_drop_caches (int argc, char **argv)
{
  gboolean compact = FALSE;
  int level = 3;
  JmemCmdNumber level_number = JMEM_CMD_LEVEL (&level);
  GOptionEntry entries[] = {
    jmem_cmd_number_entry (&level_number, "1 page cache, 2 dentries and inodes, 3 both (default)", "N"),
    { "compact", 0, 0, G_OPTION_ARG_NONE, &compact, "Also compact memory (larger free blocks for CMA and NvMap)", NULL },
    { NULL },
  };
  const JmemViewHelp help = { .json = "Write JSON (sizes in KiB)" };
  g_autoptr(GOptionContext) context = g_option_context_new ("- drop the kernel's caches and show what that freed");
  g_auto(JmemView) view = { 0 };
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *container = NULL;
  JmemOpsDropCachesOptions options = { 0 };

  g_option_context_add_main_entries (context, entries, NULL);
  jmem_view_init (&view, context, JMEM_VIEW_JSON | JMEM_VIEW_WIDTH | JMEM_VIEW_NO_ASK, 0, &help);
  g_option_context_set_description (context,
    "Goes through jmem-helper (polkit action dev.jmem.drop-caches), at most once per 10 s.\n"
    "Exit status: 0 ok, 64 usage error, 69 no system bus, helper or polkit, 70 internal error,\n"
    "75 rate-limited (try again in the seconds named), 77 not authorized.");
  if (!jmem_cmd_parse (context, &argc, &argv, 0, NULL) || !jmem_view_check (&view))
    return view.status;
  container = jmem_container_detect (NULL);
  options.level = (guint) level;
  options.compact = compact;
  options.allow_interactive = view.allow_interactive;
  options.container = container;

  root = jmem_ops_drop_caches (&options, &error);
  if (root == NULL)
    return jmem_cmd_report_error ("jmem drop-caches", error, NULL);

  if (view.json)
    {
      if (!jmem_cmd_write_json (root))
        return JMEM_EXIT_CANT_CREATE;
    }
  else
    {
      g_autofree char *text = jmem_cmd_drop_caches_text (root, level, compact, container,
                                                          (guint) view.width);

      if (!jmem_cmd_write_stdout (text, strlen (text)))
        return JMEM_EXIT_CANT_CREATE;
    }
  return JMEM_EXIT_OK;
}
