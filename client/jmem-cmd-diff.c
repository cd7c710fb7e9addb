#include "jmem-cmd.h"

#include <gio/gio.h>
#include <string.h>

#include "jmem-diff.h"
#include "jmem-error.h"
#include "jmem-output-diff.h"

/* Exit status for a snapshot file that could not be used. */
static int
load_exit (const GError *error)
{
  if (error->domain == G_IO_ERROR &&
      (error->code == G_IO_ERROR_NOT_FOUND || error->code == G_IO_ERROR_PERMISSION_DENIED ||
       error->code == G_IO_ERROR_IS_DIRECTORY || error->code == G_IO_ERROR_NOT_REGULAR_FILE))
    return JMEM_EXIT_NO_INPUT;
  if (error->domain == G_IO_ERROR)
    return JMEM_EXIT_NO_INPUT;
  return JMEM_EXIT_DATA_ERR;
}

int
jmem_cmd_diff (int argc, char **argv)
{
  gboolean json = FALSE, all = FALSE;
  int top = -2;
  GOptionEntry entries[] = {
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, "Write JSON (docs/diff.schema.json)", NULL },
    { "top", 0, 0, G_OPTION_ARG_INT, &top, "Show the N largest changes of each kind (default 10)", "N" },
    { "all", 0, 0, G_OPTION_ARG_NONE, &all, "Show every process", NULL },
    { NULL },
  };
  g_autoptr(GOptionContext) context =
    g_option_context_new ("BEFORE.json AFTER.json - compare two saved snapshots");
  g_autoptr(JsonNode) before = NULL;
  g_autoptr(JsonNode) after = NULL;
  g_autoptr(JsonNode) diff = NULL;
  g_autoptr(GError) error = NULL;

  g_option_context_add_main_entries (context, entries, NULL);
  g_option_context_set_description (context,
    "BEFORE and AFTER are files written by \"jmem snapshot --json\"; --all there makes the\n"
    "process comparison complete. --json always lists every process.\n"
    "Exit status: 0 ok, 64 usage error, 65 a file is not a jmem snapshot (malformed JSON,\n"
    "another schema or version), 66 a file is missing or unreadable.");
  if (!jmem_cmd_parse (context, &argc, &argv, 2, "two snapshot files, BEFORE and AFTER"))
    return JMEM_EXIT_USAGE;
  if (top != -2 && (top < 0 || all))
    {
      g_printerr ("jmem diff: --top takes a count of 0 or more and excludes --all\n");
      return JMEM_EXIT_USAGE;
    }

  before = jmem_diff_load_snapshot (argv[1], &error);
  if (before == NULL)
    {
      jmem_cmd_printerr ("jmem diff: %s", error->message);
      return load_exit (error);
    }
  after = jmem_diff_load_snapshot (argv[2], &error);
  if (after == NULL)
    {
      jmem_cmd_printerr ("jmem diff: %s", error->message);
      return load_exit (error);
    }

  diff = jmem_diff_snapshots (before, after);
  if (json)
    {
      g_autofree char *text = json_to_string (diff, TRUE);

      if (!jmem_cmd_write_stdout (text, strlen (text)) || !jmem_cmd_write_stdout ("\n", 1))
        return JMEM_EXIT_CANT_CREATE;
    }
  else
    {
      g_autoptr(GString) out = g_string_new (NULL);

      jmem_output_diff_human (diff, all ? -1 : top >= 0 ? top : 10, out);
      if (!jmem_cmd_write_stdout (out->str, out->len))
        return JMEM_EXIT_CANT_CREATE;
    }
  return JMEM_EXIT_OK;
}
