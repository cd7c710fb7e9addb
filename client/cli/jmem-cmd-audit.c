/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "jmem-cmd.h"
#include "jmem-cmd-view.h"

#include <string.h>

#include "jmem-collect.h"
#include "jmem-container.h"
#include "jmem-ops-audit.h"
#include "jmem-output-diff.h"
#include "jmem-output-table.h"
#include "jmem-text.h"

#define DEFAULT_INTERVAL_S 10
int
jmem_cmd_audit (int argc, char **argv)
{
  gboolean compact = FALSE, no_drop = FALSE, kernel_threads = FALSE;
  int level = 3, interval = DEFAULT_INTERVAL_S;
  JmemCmdNumber level_number = JMEM_CMD_LEVEL (&level);
  JmemCmdNumber interval_number = { "interval", JMEM_CMD_NUMBER_INT, &interval, 0, 86400,
                                    "0 to 86400 seconds" };
  GOptionEntry entries[] = {
    jmem_cmd_number_entry (&level_number, "What to drop: 1 page cache, 2 dentries and inodes, 3 both (default)", "N"),
    { "compact", 0, 0, G_OPTION_ARG_NONE, &compact, "Also compact memory", NULL },
    { "no-drop", 0, 0, G_OPTION_ARG_NONE, &no_drop, "Do not drop caches: wait --interval seconds instead", NULL },
    jmem_cmd_number_entry (&interval_number, "Seconds between the snapshots with --no-drop (default 10)", "SECONDS"),
    { "kernel-threads", 0, 0, G_OPTION_ARG_NONE, &kernel_threads, "Compare kernel threads too", NULL },
    { NULL },
  };
  const JmemViewHelp help = { .json = "Write JSON: {before, after, drop, diff}" };
  g_autoptr(GOptionContext) context = g_option_context_new ("- snapshot, drop caches, snapshot, compare");
  g_auto(JmemView) view = { 0 };
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *container = NULL;
  JmemOpsAuditOptions options = { 0 };

  g_option_context_add_main_entries (context, entries, NULL);
  jmem_view_init (&view, context, JMEM_VIEW_JSON | JMEM_VIEW_TOP | JMEM_VIEW_ALL | JMEM_VIEW_WIDTH |
                  JMEM_VIEW_NO_ASK,
                  JMEM_COLLECT_DEFAULT_TOP, &help);
  g_option_context_set_description (context,
    "The comparison covers every process but kernel threads (--kernel-threads adds them);\n"
    "--top and --all only choose what is shown.\n"
    "Exit status: 0 ok, 64 usage error, 69 no system bus, helper or polkit, 70 internal error,\n"
    "75 rate-limited, 77 not authorized to drop caches.");
  if (!jmem_cmd_parse (context, &argc, &argv, 0, NULL) || !jmem_view_check (&view))
    return view.status;
  if (interval_number.given && !no_drop)
    {
      g_printerr ("jmem audit: --interval needs --no-drop\n"
                  "Try \"jmem audit --help\".\n");
      return JMEM_EXIT_USAGE;
    }
  if (no_drop && compact)
    {
      g_printerr ("jmem audit: --compact needs caches to be dropped (drop --no-drop)\n");
      return JMEM_EXIT_USAGE;
    }
  container = jmem_container_detect (NULL);
  options.level = (guint) level;
  options.compact = compact;
  options.no_drop = no_drop;
  options.wait_seconds = (guint) interval;
  options.top = view.top;
  options.allow_interactive = view.allow_interactive;
  options.container = container;
  options.diff_flags = kernel_threads ? JMEM_DIFF_KERNEL_THREADS : JMEM_DIFF_NONE;

  root = jmem_ops_audit (&options, &error);
  if (root == NULL)
    /* without the helper an audit can still compare two snapshots */
    return jmem_cmd_report_error ("jmem audit", error, "compare without dropping caches: "
                                  "jmem audit --no-drop");

  if (view.json)
    {
      if (!jmem_cmd_write_json (root))
        return JMEM_EXIT_CANT_CREATE;
    }
  else
    {
      g_autoptr(GString) out = g_string_new (NULL);

      if (no_drop)
        g_string_append (out, "Compared two snapshots without dropping caches.\n");
      else
        g_string_append_printf (out, "Dropped caches (level %d)%s between the two snapshots.\n",
                                level, compact ? " and compacted memory" : "");
      if (container != NULL)
        {
          g_autofree char *evidence = jmem_text_for_terminal (container);
          g_autofree char *note = g_strdup_printf ("Note: %s (%s).", JMEM_CONTAINER_NOTE, evidence);

          jmem_table_append_wrapped (out, note, (guint) view.width, 0, 6);
          g_string_append_c (out, '\n');
        }
      jmem_output_diff_human (json_object_get_member (json_node_get_object (root), "diff"), view.top,
                              !no_drop, (guint) view.width, out);
      if (!jmem_cmd_write_stdout (out->str, out->len))
        return JMEM_EXIT_CANT_CREATE;
    }
  return JMEM_EXIT_OK;
}
