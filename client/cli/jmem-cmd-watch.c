/* SPDX-License-Identifier: GPL-2.0-or-later */
/* jmem watch: a snapshot every few seconds, one JSON line each, for the
 * rules over time (jmem triage --history) and for anyone's own tools. */
#include "jmem-cmd.h"
#include "jmem-cmd-view.h"

#include "jmem-config.h"

#include "jmem-history.h"
#include "jmem-history-writer.h"
#include "jmem-history-thin.h"
#include "jmem-snapshot-json.h"

#include <string.h>
#include <unistd.h>

typedef struct {
  JmemOpsSnapshotOptions options;
  JmemHistoryWriter *writer;   /* NULL: stdout */
  const char        *output;
  gboolean           thin;     /* every process collected, the line thinned to top */
  guint              top;      /* with thin: the largest kept */
  gboolean           cmdlines; /* with thin: command lines kept */
} Watch;

static char *
thin_line (Watch *w, const JmemSnapshot *snapshot)
{
  g_autoptr(JsonNode) node = jmem_snapshot_to_json (snapshot);

  jmem_history_thin (node, w->top, w->cmdlines);
  return json_to_string (node, FALSE);
}

static int
watch_sample (guint index, gpointer data)
{
  Watch *w = data;
  g_autoptr(JmemSnapshot) snapshot = NULL;
  g_autofree char *line = NULL;
  g_autoptr(GError) error = NULL;
  int status = JMEM_EXIT_OK;

  snapshot = jmem_cmd_collect ("jmem watch", &w->options, &status);
  if (snapshot == NULL)
    return status;
  line = w->thin ? thin_line (w, snapshot) : jmem_snapshot_to_json_string (snapshot, FALSE);
  if (line == NULL || strchr (line, '\n') != NULL)
    {
      g_printerr ("jmem watch: the snapshot could not be written as one JSON line\n");
      return JMEM_EXIT_INTERNAL;
    }
  if (w->writer == NULL)
    {
      if (!jmem_cmd_write_stdout (line, strlen (line)) || !jmem_cmd_write_stdout ("\n", 1))
        return JMEM_EXIT_CANT_CREATE;
      return JMEM_EXIT_OK;
    }
  if (!jmem_history_writer_append (w->writer, line, &error))
    {
      jmem_cmd_printerr ("jmem watch: %s", error->message);
      return JMEM_EXIT_CANT_CREATE;
    }
  return JMEM_EXIT_OK;
}

int
jmem_cmd_watch (int argc, char **argv)
{
  int interval = 5, count = 0;
  guint64 max_bytes = JMEM_HISTORY_DEFAULT_MAX_BYTES;
  g_autofree char *max_text = NULL;
  g_autofree char *output = NULL;
  gboolean thin = FALSE, tiers = FALSE, cmdlines = FALSE, group_read = FALSE;
  JmemCmdNumber interval_number = { "interval", JMEM_CMD_NUMBER_INT, &interval, 1, 86400,
                                    "1 to 86400 seconds" };
  JmemCmdNumber count_number = { "count", JMEM_CMD_NUMBER_INT, &count, 0, G_MAXINT,
                                 "a count of 1 or more (0: until stopped)" };
  GOptionEntry entries[] = {
    jmem_cmd_number_entry (&interval_number, "Seconds between snapshots (default 5)", "S"),
    jmem_cmd_number_entry (&count_number, "Stop after N snapshots (default: until Ctrl-C)", "N"),
    { "output", 0, 0, G_OPTION_ARG_FILENAME, &output, "Append to FILE instead of stdout", "FILE" },
    { "max-bytes", 0, 0, G_OPTION_ARG_STRING, &max_text, "Cap FILE at SIZE (64M, 1G or bytes), dropping the oldest lines (default 64M)", "SIZE" },
    { "thin", 0, 0, G_OPTION_ARG_NONE, &thin, "Keep the board's figures and the processes that hold memory, not the whole snapshot", NULL },
    { "cmdlines", 0, 0, G_OPTION_ARG_NONE, &cmdlines, "With --thin, keep the processes' command lines", NULL },
    { "tiers", 0, 0, G_OPTION_ARG_NONE, &tiers, "At the cap, thin samples older than an hour (one a minute for a day, one per quarter hour beyond) before dropping any", NULL },
    { "group-readable", 0, 0, G_OPTION_ARG_NONE, &group_read, "Create FILE mode 0640, not 0600 (for a directory of the group's)", NULL },
    { NULL },
  };
  const JmemViewHelp help = {
    .top = "Keep the N largest processes in each line (default 10)",
    .all = "Keep every process in each line",
  };
  g_autoptr(GOptionContext) context = g_option_context_new ("- a snapshot every few seconds, as JSON Lines");
  g_auto(JmemView) view = { 0 };
  g_autoptr(GError) error = NULL;
  g_autoptr(JmemCollectBoot) boot = NULL;
  g_autoptr(JmemSampler) sampler = jmem_sampler_new (JMEM_SAMPLER_DEFAULT_REFRESH);
  Watch w = { 0 };
  int status;

  g_option_context_add_main_entries (context, entries, NULL);
  jmem_view_init (&view, context, JMEM_VIEW_TOP | JMEM_VIEW_ALL | JMEM_VIEW_SYSROOT | JMEM_VIEW_NO_ASK,
                  JMEM_COLLECT_DEFAULT_TOP, &help);
  g_option_context_set_description (context,
    "Each line is one compact \"jmem snapshot --json\" document (" JMEM_SCHEMADIR "/snapshot.schema.json);\n"
    JMEM_DOCDIR "/watch.md describes the history.\n"
    "Several watches may append to one FILE: they take turns under its lock, and no\n"
    "line is lost to another's trim of the file. Ctrl-C (SIGINT) or SIGTERM ends it\n"
    "after the snapshot in progress. NvMap rows are always complete; PSS over time\n"
    "(jmem triage --history FILE) sees only the processes each line keeps. With\n"
    "--output, a terminal on stderr is told once where it records and how to stop.\n"
    "--thin --tiers keeps weeks in the default cap: the flight recorder\n"
    "(jmem-recorder.service) records so into " JMEM_HISTORY_DEFAULT_PATH ".\n"
    "Exit status: 0 ok, 64 usage error, 69 no data (an empty or missing --sysroot),\n"
    "70 internal error, 73 the output cannot be written.");
  if (!jmem_cmd_parse (context, &argc, &argv, 0, NULL) ||
      !jmem_cmd_check_name ("output", output, "a file (- for stdout)"))
    return JMEM_EXIT_USAGE;
  if (!jmem_view_check (&view))
    return view.status;
  if (!jmem_cmd_parse_size ("max-bytes", max_text, JMEM_HISTORY_MIN_MAX_BYTES, &max_bytes))
    return JMEM_EXIT_USAGE;

  if (cmdlines && !thin)
    {
      g_printerr ("jmem watch: --cmdlines goes with --thin (a full line always has them)\n");
      return JMEM_EXIT_USAGE;
    }
  if ((tiers || group_read) && (output == NULL || g_str_equal (output, "-")))
    {
      g_printerr ("jmem watch: --tiers and --group-readable go with --output FILE\n");
      return JMEM_EXIT_USAGE;
    }

  w.options.sysroot = view.sysroot;
  w.options.top = view.top;
  /* a thin line keeps every holder of NvMap or GPU memory, listed or not */
  w.thin = thin;
  w.cmdlines = cmdlines;
  w.top = view.top < 0 ? G_MAXUINT : (guint) view.top;
  if (thin)
    w.options.top = -1;
  w.options.allow_interactive = view.allow_interactive;
  /* the first sample too finds what an earlier watch or metrics run probed */
  boot = jmem_collect_boot_new_persistent (view.sysroot);
  w.options.boot = boot;
  /* a sample after the first re-reads only the processes whose memory moved */
  w.options.sampler = sampler;
  w.output = output;
  if (output != NULL && !g_str_equal (output, "-"))
    {
      w.writer = jmem_history_writer_open_with_mode (output, max_bytes, group_read ? 0640 : 0600,
                                                     &error);
      if (w.writer == NULL)
        {
          jmem_cmd_printerr ("jmem watch: %s", error->message);
          return JMEM_EXIT_CANT_CREATE;
        }
      jmem_history_writer_set_tiers (w.writer, tiers);
    }
  /* a file takes every line: the person at the terminal learns where they
   * go, how often, and how to stop, once */
  if (w.writer != NULL && isatty (STDERR_FILENO))
    {
      g_autofree char *many = count > 0 ? g_strdup_printf (", %d in all", count) : NULL;

      jmem_cmd_printerr ("jmem watch: recording a snapshot every %d s to %s%s; Ctrl-C stops it",
                         interval, output, many != NULL ? many : "");
    }
  status = jmem_cmd_repeat ((guint) interval, (guint) count, watch_sample, &w);
  g_clear_pointer (&w.writer, jmem_history_writer_free);
  return status;
}
