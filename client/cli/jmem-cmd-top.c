/* SPDX-License-Identifier: GPL-2.0-or-later */
/* jmem top: the live view in the terminal, or a history played back. */
#include "jmem-cmd.h"

#include "jmem-cmd-faces.h"
#include "jmem-sampler.h"
#include "jmem-top.h"

#include <math.h>

#define DEFAULT_SPEED 10.0
#define MIN_INTERVAL_S 0.2
#define MAX_INTERVAL_S 86400.0
/* What a replay reads before its screen starts. */
#define REPLAY_FIRST_MS 300

int
jmem_cmd_top (int argc, char **argv)
{
  double interval = -1.0, speed = -1.0;
  int count = 0;
  g_autofree char *sysroot = NULL;
  g_autofree char *replay = NULL;
  GOptionEntry entries[] = {
    { "interval", 0, 0, G_OPTION_ARG_DOUBLE, &interval, "Seconds between samples (default 1, at least 0.2)", "S" },
    { "count", 0, 0, G_OPTION_ARG_INT, &count, "Quit after N samples (default: when asked)", "N" },
    { "replay", 0, 0, G_OPTION_ARG_FILENAME, &replay, "Play a history written by jmem watch", "FILE" },
    { "speed", 0, 0, G_OPTION_ARG_DOUBLE, &speed, "With --replay: times real time (default 10)", "X" },
    { "sysroot", 0, 0, G_OPTION_ARG_FILENAME, &sysroot, "Show a tree written by jmem capture", "DIR" },
    { NULL },
  };
  g_autoptr(GOptionContext) context = g_option_context_new ("- memory per process, live");
  g_autoptr(JmemCmdTopSource) source = NULL;
  g_autoptr(JmemTopReplay) history = NULL;
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  JmemTopOptions options = { 0 };
  JmemTopBackend backend = { 0 };
  gboolean ok;

  g_option_context_add_main_entries (context, entries, NULL);
  g_option_context_set_description (context,
    "Press ? on the screen for the keys (jmem(1) lists them). Where no screen can\n"
    "be drawn (TERM=dumb, not a terminal) it prints a `jmem summary` line per\n"
    "sample instead.\n"
    "Exit status: 0 ok, 64 usage error, 65 a --replay line is not a snapshot,\n"
    "66 --replay unreadable, 69 no data (an empty or missing --sysroot, an empty\n"
    "history), 70 internal error, 73 the lines cannot be written.");
  if (!jmem_cmd_parse (context, &argc, &argv, 0, NULL))
    return JMEM_EXIT_USAGE;
  if (replay != NULL && (sysroot != NULL || interval >= 0 || count != 0))
    {
      g_printerr ("jmem top: --replay plays a file and excludes --sysroot, --interval and --count\n");
      return JMEM_EXIT_USAGE;
    }
  if (replay == NULL && speed >= 0)
    {
      g_printerr ("jmem top: --speed goes with --replay\n");
      return JMEM_EXIT_USAGE;
    }
  if (interval < 0)
    interval = 1.0;
  if (!isfinite (interval) || interval < MIN_INTERVAL_S || interval > MAX_INTERVAL_S)
    {
      g_printerr ("jmem top: --interval takes %g to %g seconds\n", MIN_INTERVAL_S, MAX_INTERVAL_S);
      return JMEM_EXIT_USAGE;
    }
  if (speed < 0)
    speed = DEFAULT_SPEED;
  if (!isfinite (speed) || speed < JMEM_TOP_MIN_SPEED || speed > JMEM_TOP_MAX_SPEED)
    {
      g_printerr ("jmem top: --speed takes %g to %g\n", JMEM_TOP_MIN_SPEED, JMEM_TOP_MAX_SPEED);
      return JMEM_EXIT_USAGE;
    }
  if (count < 0)
    {
      g_printerr ("jmem top: --count takes a count of 1 or more (0: until asked)\n");
      return JMEM_EXIT_USAGE;
    }

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
      source = jmem_cmd_top_source_new (sysroot, &backend);
      options.captured = sysroot != NULL;
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
