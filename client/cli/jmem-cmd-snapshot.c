#include "jmem-cmd.h"
#include "jmem-config.h"

#include "jmem-collect.h"
#include "jmem-output-human.h"
#include "jmem-snapshot-json.h"

#include <unistd.h>

int
jmem_cmd_snapshot (int argc, char **argv)
{
  gboolean json = FALSE, all = FALSE, no_ask = FALSE;
  int top = -2, tegrastats = JMEM_CMD_TEGRASTATS_UNSET, width = JMEM_CMD_WIDTH_UNSET;
  g_autofree char *sysroot = NULL;
  GOptionEntry entries[] = {
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, "Write JSON (" JMEM_SCHEMADIR "/snapshot.schema.json)", NULL },
    { "top", 0, 0, G_OPTION_ARG_INT, &top, "Show the N largest processes (default 10)", "N" },
    { "all", 0, 0, G_OPTION_ARG_NONE, &all, "Show every process", NULL },
    { "sysroot", 0, 0, G_OPTION_ARG_FILENAME, &sysroot, "Read a tree written by jmem capture", "DIR" },
    { "tegrastats", 0, 0, G_OPTION_ARG_INT, &tegrastats, "Add one tegrastats line (takes that long)", "SECONDS" },
    { "width", 0, 0, G_OPTION_ARG_INT, &width, "Fit the report to N columns, at least 60 (default: the terminal's; a pipe gets whole lines)", "N" },
    { "no-ask-password", 0, 0, G_OPTION_ARG_NONE, &no_ask, "Never let polkit ask for a password", NULL },
    { NULL },
  };
  g_autoptr(GOptionContext) context = g_option_context_new ("- what holds memory now");
  g_autoptr(JmemSnapshot) snapshot = NULL;
  g_autofree char *text = NULL;
  JmemOpsSnapshotOptions options = { 0 };
  int status = JMEM_EXIT_OK;

  g_option_context_add_main_entries (context, entries, NULL);
  g_option_context_set_description (context,
    "Exit status: 0 ok, 64 usage error, 69 no data (an empty or missing --sysroot), 70 internal error.");
  if (!jmem_cmd_parse (context, &argc, &argv, 0, NULL))
    return JMEM_EXIT_USAGE;
  if ((top != -2 && (top < 0 || all)))
    {
      g_printerr ("jmem snapshot: --top takes a count of 0 or more and excludes --all\n");
      return JMEM_EXIT_USAGE;
    }
  if (!jmem_cmd_check_tegrastats (&tegrastats))
    return JMEM_EXIT_USAGE;

  if (!jmem_cmd_check_width (&width))
    return JMEM_EXIT_USAGE;

  options.sysroot = sysroot;
  options.top = all ? -1 : top >= 0 ? top : JMEM_COLLECT_DEFAULT_TOP;
  options.tegrastats_seconds = (guint) tegrastats;
  options.allow_interactive = !no_ask && isatty (STDIN_FILENO);

  snapshot = jmem_cmd_collect ("jmem snapshot", &options, &status);
  if (snapshot == NULL)
    return status;

  if (json)
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

      jmem_output_human_snapshot_width (snapshot, out, jmem_cmd_use_color (), (guint) width);
      if (!jmem_cmd_write_stdout (out->str, out->len))
        return JMEM_EXIT_CANT_CREATE;
    }
  return JMEM_EXIT_OK;
}
