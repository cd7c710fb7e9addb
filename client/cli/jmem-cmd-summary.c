/* SPDX-License-Identifier: GPL-2.0-or-later */
/* jmem summary: the five numbers a person glances at, on one line. */
#include "jmem-cmd.h"
#include "jmem-cmd-view.h"

#include "jmem-cmd-faces.h"
#include "jmem-frame.h"
#include "jmem-history.h"
#include "jmem-triage-history.h"

#include <string.h>

/* The line, valid UTF-8 and escaped for a terminal: the one jmem top
 * prints where it cannot draw its screen. */
static char *
summary_line (JmemSnapshot *s)
{
  g_autoptr(JmemFrame) frame = jmem_frame_from_snapshot (s);

  return jmem_frame_summary_line (frame);
}

typedef struct {
  JmemOpsSnapshotOptions options;
  gboolean           timestamps;
} Summary;

static int
summary_sample (guint index, gpointer data)
{
  Summary *sum = data;
  g_autoptr(JmemSnapshot) s = NULL;
  g_autofree char *line = NULL;
  g_autofree char *out = NULL;
  int status = JMEM_EXIT_OK;

  s = jmem_cmd_collect ("jmem summary", &sum->options, &status);
  if (s == NULL)
    return status;
  if (index == 0)
    jmem_cmd_print_capture_warnings ("jmem summary", s);
  line = summary_line (s);
  if (sum->timestamps)
    {
      g_autoptr(GDateTime) now = g_date_time_new_now_local ();
      g_autofree char *hms = g_date_time_format (now, "%H:%M:%S");

      out = g_strdup_printf ("%s %s\n", hms, line);
    }
  else
    {
      out = g_strconcat (line, "\n", NULL);
    }
  /* one line in a pipe or a log; at a terminal it wraps under itself, the
   * time (with --watch) standing out */
  if (!jmem_cmd_write_stdout_wrapped (out, sum->timestamps ? 9 : 2))
    return JMEM_EXIT_CANT_CREATE;
  return JMEM_EXIT_OK;
}

typedef struct {
  JmemTriageHistory *trend;
  JsonNode          *last;
} SummaryHistory;

static gboolean
history_sample (JsonNode *snapshot, guint line_number, gpointer data)
{
  SummaryHistory *h = data;

  jmem_triage_history_add (h->trend, snapshot);
  g_clear_pointer (&h->last, json_node_unref);
  h->last = json_node_ref (snapshot);
  return TRUE;
}

/* The line of a history's last sample, and under it the projection the
 * rules over time give (jmem triage --history): the same computation. */
static int
summary_history (const char *path)
{
  g_autoptr(JmemTriageHistory) trend = jmem_triage_history_new ();
  SummaryHistory h = { trend, NULL };
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  g_autoptr(JmemFrame) frame = NULL;
  g_autofree char *line = NULL, *projection = NULL, *out = NULL;
  gboolean ok = jmem_history_read (path, history_sample, &h, warnings, &error);

  jmem_cmd_faces_print_warnings ("jmem summary", warnings);
  if (!ok)
    {
      g_clear_pointer (&h.last, json_node_unref);
      return jmem_cmd_faces_history_failed ("jmem summary", error);
    }
  frame = jmem_frame_from_json (h.last);
  g_clear_pointer (&h.last, json_node_unref);
  line = jmem_frame_summary_line (frame);
  projection = jmem_triage_history_projection_text (trend, FALSE);
  out = g_strdup_printf ("%s\n%s\n", line, projection);
  if (!jmem_cmd_write_stdout_wrapped (out, 2))
    return JMEM_EXIT_CANT_CREATE;
  return JMEM_EXIT_OK;
}

int
jmem_cmd_summary (int argc, char **argv)
{
  int watch = 0;
  JmemCmdNumber watch_number = { "watch", JMEM_CMD_NUMBER_INT, &watch, 1, 86400, "1 to 86400 seconds" };
  g_autofree char *history = NULL;
  GOptionEntry entries[] = {
    jmem_cmd_number_entry (&watch_number, "Print a line every S seconds until Ctrl-C", "S"),
    { "history", 0, 0, G_OPTION_ARG_FILENAME, &history, "The line of a history's last sample, and the projection of its trend", "FILE" },
    { NULL },
  };
  g_autoptr(GOptionContext) context = g_option_context_new ("- memory on one line");
  g_auto(JmemView) view = { 0 };
  g_autoptr(JmemCollectBoot) boot = jmem_collect_boot_new ();
  Summary sum = { 0 };

  g_option_context_add_main_entries (context, entries, NULL);
  jmem_view_init (&view, context, JMEM_VIEW_SYSROOT | JMEM_VIEW_NO_ASK, 0, NULL);
  g_option_context_set_description (context,
    "The line: MemTotal, MemAvailable, what a GPU allocation gets now (jmem\n"
    "headroom), NvMap in use (the NvMap total, else meminfo's NvMapMemUsed), GPU\n"
    "memory used by nvidia-smi's GPUs, the process with the largest footprint and\n"
    "the largest bucket of the accounting; n/a where a source is unreadable.\n"
    "--watch puts the local time first. --history FILE (written by jmem watch) gives\n"
    "the line of its last sample and, under it, when the memory allocatable after\n"
    "reclaim runs out at its trend (a projection, as jmem triage --history gives it),\n"
    "or what the history lacks for one.\n"
    "Exit status: 0 ok, 64 usage error, 65 no --history line is a jmem snapshot,\n"
    "66 --history unreadable, 69 no data (an empty or missing --sysroot, an empty\n"
    "history), 70 internal error.");
  if (!jmem_cmd_parse (context, &argc, &argv, 0, NULL) || !jmem_view_check (&view))
    return view.status;
  if (history != NULL)
    {
      if (view.sysroot != NULL || watch_number.given)
        {
          g_printerr ("jmem summary: --history reads a file and excludes --sysroot and --watch\n");
          return JMEM_EXIT_USAGE;
        }
      if (!jmem_cmd_check_name ("history", history, "a history written by jmem watch"))
        return JMEM_EXIT_USAGE;
      return summary_history (history);
    }
  sum.options.sysroot = view.sysroot;
  sum.options.top = 1;
  sum.options.allow_interactive = view.allow_interactive;
  sum.timestamps = watch_number.given;
  sum.options.boot = boot;
  if (!watch_number.given)
    return summary_sample (0, &sum);
  return jmem_cmd_repeat ((guint) watch, 0, summary_sample, &sum);
}
