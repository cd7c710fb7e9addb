/* SPDX-License-Identifier: GPL-2.0-or-later */
/* jmem top: the live view in the terminal, or a history played back. */
#include "jmem-cmd.h"

#include "jmem-cmd-faces.h"
#include "jmem-cmd-view.h"
#include "jmem-sampler.h"
#include "jmem-top.h"

#define DEFAULT_SPEED 10.0
#define MIN_INTERVAL_S 0.2
#define MAX_INTERVAL_S 86400.0
#define SPEED_RANGE "0.01 to 100000 (times real time)"
/* What a replay reads before its screen starts. */
#define REPLAY_FIRST_MS 300

int
jmem_cmd_top (int argc, char **argv)
{
  double interval = 1.0, speed = DEFAULT_SPEED;
  int count = 0;
  g_autofree char *replay = NULL;
  JmemCmdNumber interval_number = { "interval", JMEM_CMD_NUMBER_SECONDS, &interval, MIN_INTERVAL_S,
                                    MAX_INTERVAL_S, "0.2 to 86400 seconds" };
  JmemCmdNumber count_number = { "count", JMEM_CMD_NUMBER_INT, &count, 0, G_MAXINT,
                                 "a count of 1 or more (0: until asked)" };
  JmemCmdNumber speed_number = { "speed", JMEM_CMD_NUMBER_SECONDS, &speed, JMEM_TOP_MIN_SPEED,
                                 JMEM_TOP_MAX_SPEED, SPEED_RANGE };
  GOptionEntry entries[] = {
    jmem_cmd_number_entry (&interval_number, "Seconds between samples (default 1, at least 0.2)", "S"),
    jmem_cmd_number_entry (&count_number, "Quit after N samples (default: when asked)", "N"),
    { "replay", 0, 0, G_OPTION_ARG_FILENAME, &replay, "Play a history written by jmem watch", "FILE" },
    jmem_cmd_number_entry (&speed_number, "With --replay: times real time (default 10)", "X"),
    { NULL },
  };
  const JmemViewHelp help = { .sysroot = "Show a tree written by jmem capture" };
  g_autoptr(GOptionContext) context = g_option_context_new ("- memory per process, live");
  g_auto(JmemView) view = { 0 };
  g_autoptr(JmemCmdTopSource) source = NULL;
  g_autoptr(JmemTopReplay) history = NULL;
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  JmemTopOptions options = { 0 };
  JmemTopBackend backend = { 0 };
  gboolean ok;

  g_option_context_add_main_entries (context, entries, NULL);
  /* the one --sysroot and its check: an empty name is refused, not the live host */
  jmem_view_init (&view, context, JMEM_VIEW_SYSROOT, 0, &help);
  g_option_context_set_description (context,
    "Press ? on the screen for the keys (jmem(1) lists them). Where no screen can\n"
    "be drawn (TERM=dumb, not a terminal) it prints a `jmem summary` line per\n"
    "sample instead. A replayed history's projection (when memory runs out at its\n"
    "trend, as jmem triage --history gives it) ends the title once the history is\n"
    "read, or the lines.\n"
    "Exit status: 0 ok, 64 usage error, 65 a --replay line is not a snapshot,\n"
    "66 --replay unreadable, 69 no data (an empty or missing --sysroot, an empty\n"
    "history), 70 internal error, 73 the lines cannot be written.");
  if (!jmem_cmd_parse (context, &argc, &argv, 0, NULL) ||
      !jmem_cmd_check_name ("replay", replay, "a history written by jmem watch"))
    return JMEM_EXIT_USAGE;
  if (replay != NULL && (view.sysroot != NULL || interval_number.given || count_number.given))
    {
      g_printerr ("jmem top: --replay plays a file and excludes --sysroot, --interval and --count\n");
      return JMEM_EXIT_USAGE;
    }
  if (replay == NULL && speed_number.given)
    {
      g_printerr ("jmem top: --speed goes with --replay\n");
      return JMEM_EXIT_USAGE;
    }
  if (!jmem_view_check (&view))
    return view.status;

  options.interval_s = interval;
  options.count = (guint) count;
  options.speed = speed;
  options.pss_refresh = JMEM_SAMPLER_DEFAULT_REFRESH;
  if (replay != NULL)
    {
      /* a short history whole before the screen, a long one read on under it */
      history = jmem_top_replay_open (replay, REPLAY_FIRST_MS, warnings, &error);
      jmem_cmd_faces_print_warnings ("jmem top", warnings);
      g_ptr_array_set_size (warnings, 0);
      if (history == NULL)
        return jmem_cmd_faces_history_failed ("jmem top", error);
      options.replay = history;
      options.replay_name = replay;
      options.replay_warnings = warnings;
    }
  else
    {
      source = jmem_cmd_top_source_new (view.sysroot, &backend);
      options.captured = view.sysroot != NULL;
    }

  ok = jmem_top_run (&options, &backend, &error);
  /* what the reading found under the screen, once it is gone */
  jmem_cmd_faces_print_warnings ("jmem top", warnings);
  if (!ok)
    {
      jmem_cmd_printerr ("jmem top: %s", error->message);
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_BROKEN_PIPE))
        return JMEM_EXIT_CANT_CREATE;
      return jmem_cmd_faces_sample_exit (error);
    }
  return JMEM_EXIT_OK;
}
