/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "jmem-cmd.h"
#include "jmem-cmd-view.h"
#include "jmem-config.h"

#include <gio/gio.h>
#include <string.h>

#include "jmem-diff.h"
#include "jmem-error.h"
#include "jmem-history.h"
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

typedef struct {
  JsonNode *first;
  JsonNode *last;
} Ends;

static gboolean
keep_ends (JsonNode *snapshot, guint line_number, gpointer data)
{
  Ends *ends = data;

  if (ends->first == NULL)
    ends->first = json_node_copy (snapshot);
  g_clear_pointer (&ends->last, json_node_unref);
  ends->last = json_node_copy (snapshot);
  return TRUE;
}

/* The first and last snapshot of a history written by jmem watch. */
static int
load_history (const char *path, JsonNode **before, JsonNode **after)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  Ends ends = { NULL, NULL };
  gboolean ok = jmem_history_read (path, keep_ends, &ends, warnings, &error);

  for (guint i = 0; i < warnings->len; i++)
    jmem_cmd_printerr ("jmem diff: %s", (const char *) g_ptr_array_index (warnings, i));
  if (!ok)
    {
      g_clear_pointer (&ends.first, json_node_unref);
      g_clear_pointer (&ends.last, json_node_unref);
      jmem_cmd_printerr ("jmem diff: %s", error->message);
      return g_error_matches (error, JMEM_ERROR, JMEM_ERROR_NOT_AVAILABLE) ?
               JMEM_EXIT_NO_DATA : load_exit (error);
    }
  *before = ends.first;
  *after = ends.last;
  return JMEM_EXIT_OK;
}

int
jmem_cmd_diff (int argc, char **argv)
{
  gboolean kernel_threads = FALSE;
  g_autofree char *history = NULL;
  GOptionEntry entries[] = {
    { "kernel-threads", 0, 0, G_OPTION_ARG_NONE, &kernel_threads, "Compare kernel threads too (left out by default)", NULL },
    { "history", 0, 0, G_OPTION_ARG_FILENAME, &history, "Compare the first and last line of a history written by jmem watch", "FILE" },
    { NULL },
  };
  const JmemViewHelp help = {
    .json = "Write JSON (" JMEM_SCHEMADIR "/diff.schema.json)",
    .top = "Show the N largest changes of each kind (default 10)",
  };
  g_autoptr(GOptionContext) context =
    g_option_context_new ("BEFORE.json AFTER.json | --history FILE - compare two saved snapshots");
  g_auto(JmemView) view = { 0 };
  g_autoptr(JsonNode) before = NULL;
  g_autoptr(JsonNode) after = NULL;
  g_autoptr(JsonNode) diff = NULL;
  g_autoptr(GError) error = NULL;

  g_option_context_add_main_entries (context, entries, NULL);
  jmem_view_init (&view, context, JMEM_VIEW_JSON | JMEM_VIEW_TOP | JMEM_VIEW_ALL | JMEM_VIEW_WIDTH,
                  10, &help);
  g_option_context_set_description (context,
    "BEFORE and AFTER are files written by \"jmem snapshot --json\"; --all there makes the\n"
    "process comparison complete. --json always lists every process.\n"
    "A process is the same in both when its PID and start time are, even renamed; a reused\n"
    "PID is one exit and one appearance. Snapshots without start times (older jmem) match\n"
    "on PID and name. Kernel threads are left out unless --kernel-threads.\n"
    "A FIFO or a pipe (as <(...) gives) is refused: save the snapshot to a file first.\n"
    "Exit status: 0 ok, 64 usage error, 65 a file is not a jmem snapshot (malformed JSON,\n"
    "another schema or version; for --history, no line is one: a damaged line among good\n"
    "ones is skipped with a warning), 66 a file is missing, unreadable or not a regular\n"
    "file, 69 a --history with no line.");
  if (!jmem_cmd_parse (context, &argc, &argv, -1, NULL) ||
      !jmem_cmd_check_name ("history", history, "a history written by jmem watch"))
    return JMEM_EXIT_USAGE;
  if (argc - 1 != (history != NULL ? 0 : 2))
    {
      g_printerr ("jmem diff: give two snapshot files, BEFORE and AFTER, or --history FILE alone\n"
                  "Try \"jmem diff --help\".\n");
      return JMEM_EXIT_USAGE;
    }
  if (!jmem_view_check (&view))
    return view.status;

  if (history != NULL)
    {
      int status = load_history (history, &before, &after);

      if (status != JMEM_EXIT_OK)
        return status;
    }
  else if ((before = jmem_diff_load_snapshot (argv[1], &error)) == NULL)
    {
      jmem_cmd_printerr ("jmem diff: %s", error->message);
      return load_exit (error);
    }
  else if ((after = jmem_diff_load_snapshot (argv[2], &error)) == NULL)
    {
      jmem_cmd_printerr ("jmem diff: %s", error->message);
      return load_exit (error);
    }

  diff = jmem_diff_snapshots (before, after,
                              kernel_threads ? JMEM_DIFF_KERNEL_THREADS : JMEM_DIFF_NONE);
  if (view.json)
    {
      g_autofree char *text = json_to_string (diff, TRUE);

      if (!jmem_cmd_write_stdout (text, strlen (text)) || !jmem_cmd_write_stdout ("\n", 1))
        return JMEM_EXIT_CANT_CREATE;
    }
  else
    {
      g_autoptr(GString) out = g_string_new (NULL);

      jmem_output_diff_human (diff, view.top, FALSE, (guint) view.width, out);
      if (!jmem_cmd_write_stdout (out->str, out->len))
        return JMEM_EXIT_CANT_CREATE;
    }
  return JMEM_EXIT_OK;
}
