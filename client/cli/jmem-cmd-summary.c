/* SPDX-License-Identifier: GPL-2.0-or-later */
/* jmem summary: the five numbers a person glances at, on one line. */
#include "jmem-cmd.h"
#include "jmem-cmd-view.h"

#include "jmem-frame.h"

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

int
jmem_cmd_summary (int argc, char **argv)
{
  int watch = 0;
  JmemCmdNumber watch_number = { "watch", JMEM_CMD_NUMBER_INT, &watch, 1, 86400, "1 to 86400 seconds" };
  GOptionEntry entries[] = {
    jmem_cmd_number_entry (&watch_number, "Print a line every S seconds until Ctrl-C", "S"),
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
    "--watch puts the local time first.\n"
    "Exit status: 0 ok, 64 usage error, 69 no data (an empty or missing --sysroot),\n"
    "70 internal error.");
  if (!jmem_cmd_parse (context, &argc, &argv, 0, NULL) || !jmem_view_check (&view))
    return view.status;
  sum.options.sysroot = view.sysroot;
  sum.options.top = 1;
  sum.options.allow_interactive = view.allow_interactive;
  sum.timestamps = watch_number.given;
  sum.options.boot = boot;
  if (!watch_number.given)
    return summary_sample (0, &sum);
  return jmem_cmd_repeat ((guint) watch, 0, summary_sample, &sum);
}
