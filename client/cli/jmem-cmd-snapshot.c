/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "jmem-cmd.h"
#include "jmem-cmd-view.h"
#include "jmem-config.h"

#include "jmem-collect.h"
#include "jmem-output-human.h"
#include "jmem-snapshot-json.h"

#include <string.h>

int
jmem_cmd_snapshot (int argc, char **argv)
{
  int tegrastats = 0;
  JmemCmdNumber tegrastats_number = JMEM_CMD_TEGRASTATS (&tegrastats);
  GOptionEntry entries[] = {
    jmem_cmd_number_entry (&tegrastats_number, "Add one tegrastats line (takes that long; a Jetson's only)", "SECONDS"),
    { NULL },
  };
  const JmemViewHelp help = { .json = "Write JSON (" JMEM_SCHEMADIR "/snapshot.schema.json)" };
  g_autoptr(GOptionContext) context = g_option_context_new ("- what holds memory now");
  g_auto(JmemView) view = { 0 };
  g_autoptr(JmemSnapshot) snapshot = NULL;
  g_autofree char *text = NULL;
  JmemOpsSnapshotOptions options = { 0 };
  int status = JMEM_EXIT_OK;

  g_option_context_add_main_entries (context, entries, NULL);
  jmem_view_init (&view, context, JMEM_VIEW_JSON | JMEM_VIEW_TOP | JMEM_VIEW_ALL | JMEM_VIEW_WIDTH |
                  JMEM_VIEW_SYSROOT | JMEM_VIEW_NO_ASK, JMEM_COLLECT_DEFAULT_TOP, &help);
  g_option_context_set_description (context,
    "Exit status: 0 ok, 64 usage error, 69 no data (an empty or missing --sysroot), 70 internal error.");
  if (!jmem_cmd_parse (context, &argc, &argv, 0, NULL) || !jmem_view_check (&view))
    return view.status;

  options.sysroot = view.sysroot;
  options.top = view.top;
  options.tegrastats_seconds = (guint) tegrastats;
  options.allow_interactive = view.allow_interactive;

  snapshot = jmem_cmd_collect ("jmem snapshot", &options, &status);
  if (snapshot == NULL)
    return status;

  if (view.json)
    {
      text = jmem_snapshot_to_json_string (snapshot, TRUE);
      if (text == NULL)
        {
          g_printerr ("jmem snapshot: the snapshot could not be written as JSON\n");
          return JMEM_EXIT_INTERNAL;
        }
      if (!jmem_cmd_write_stdout (text, strlen (text)) || !jmem_cmd_write_stdout ("\n", 1))
        return JMEM_EXIT_CANT_CREATE;
    }
  else
    {
      g_autoptr(GString) out = g_string_new (NULL);

      jmem_output_human_snapshot_width (snapshot, out, jmem_cmd_use_color (), (guint) view.width);
      if (!jmem_cmd_write_stdout (out->str, out->len))
        return JMEM_EXIT_CANT_CREATE;
    }
  return JMEM_EXIT_OK;
}
