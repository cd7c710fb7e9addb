/* SPDX-License-Identifier: GPL-2.0-or-later */
/* jmem metrics: the snapshot and its findings as Prometheus metrics, on
 * stdout or as node_exporter's textfile (docs/metrics.md). */
#include "jmem-cmd.h"

#include "jmem-config.h"
#include "jmem-cmd-history.h"
#include "jmem-cmd-view.h"

#include "jmem-error.h"
#include "jmem-nvmap-source.h"
#include "jmem-ops-snapshot.h"
#include "jmem-output-metrics.h"
#include "jmem-sampler.h"
#include "jmem-textfile.h"
#include "jmem-triage-history.h"

#include <string.h>

#define TEXTFILE_NAME "jmem.prom"

typedef struct {
  JmemOpsSnapshotOptions options;
  JmemMetricsOptions     metrics;
  const char            *sysroot;
  const char            *textfile;
  const char            *history;   /* --history */
  /* what it last gave (the history, or why not), and when */
  JmemTriageHistory     *history_read;
  char                  *history_error;
  gint64                 history_read_us;
} Metrics;

/* How long a --interval run keeps what the history gave: the projection of
 * weeks moves little in minutes, and a month costs about a second to read. */
#define HISTORY_REFRESH_US (5 * 60 * G_USEC_PER_SEC)

/* Reads --history again when it never was, or HISTORY_REFRESH_US ago. A
 * history that cannot be read costs its families, not the metrics. */
static void
refresh_history (Metrics *m, guint index)
{
  g_autoptr(GError) error = NULL;
  gint64 now = g_get_monotonic_time ();

  if (m->history_read_us != 0 && now - m->history_read_us < HISTORY_REFRESH_US)
    return;
  m->history_read_us = now;
  g_clear_pointer (&m->history_read, jmem_triage_history_free);
  g_clear_pointer (&m->history_error, g_free);
  m->history_read = jmem_triage_history_read (m->history, NULL, &error);
  if (m->history_read != NULL)
    return;
  m->history_error = g_strdup (error->message);
  if (index == 0)
    jmem_cmd_printerr ("jmem metrics: %s", error->message);
}

/* One snapshot written out; with --interval, one of many (jmem_cmd_repeat). */
static int
metrics_sample (guint index, gpointer data)
{
  Metrics *m = data;
  g_autoptr(JmemSnapshot) snapshot = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GString) out = g_string_new (NULL);
  JmemNvmapSourceContext source_ctx = { 0 };
  const JmemNvmapSource *source;
  JmemMetricsOptions metrics;

  snapshot = jmem_ops_snapshot (&m->options, &error);
  if (snapshot == NULL)
    {
      jmem_cmd_printerr ("jmem metrics: %s", error->message);
      return g_error_matches (error, JMEM_ERROR, JMEM_ERROR_NOT_AVAILABLE) ?
               JMEM_EXIT_NO_DATA : JMEM_EXIT_INTERNAL;
    }
  if (index == 0)
    jmem_cmd_print_capture_warnings ("jmem metrics", snapshot);

  /* which NvMap source this run used, so the helper gets a series only
   * where it is the way in */
  source_ctx.root = m->sysroot;
  source = jmem_nvmap_source_choose (&source_ctx, NULL);
  m->metrics.helper_via = source != NULL ? source->via : NULL;
  if (m->history != NULL)
    refresh_history (m, index);
  metrics = m->metrics;
  metrics.history = m->history_read;
  metrics.history_error = m->history_error;
  jmem_output_metrics (snapshot, &metrics, out);

  if (m->textfile == NULL)
    return jmem_cmd_write_stdout (out->str, out->len) ? JMEM_EXIT_OK : JMEM_EXIT_CANT_CREATE;
  if (!jmem_textfile_replace (m->textfile, TEXTFILE_NAME, out->str, out->len, &error))
    {
      jmem_cmd_printerr ("jmem metrics: %s", error->message);
      return JMEM_EXIT_CANT_CREATE;
    }
  return JMEM_EXIT_OK;
}

int
jmem_cmd_metrics (int argc, char **argv)
{
  int tegrastats = 0, interval = 0;
  JmemCmdNumber interval_number = { "interval", JMEM_CMD_NUMBER_INT, &interval, 1, 86400,
                                    "1 to 86400 seconds" };
  JmemCmdNumber tegrastats_number = JMEM_CMD_TEGRASTATS (&tegrastats);
  g_autofree char *textfile = NULL;
  g_autofree char *series = NULL;
  GOptionEntry entries[] = {
    { "series", 0, 0, G_OPTION_ARG_STRING, &series, "processes (default): the board and every process "
      "and container of note; board: only what describes the whole board", "processes|board" },
    { "textfile", 0, 0, G_OPTION_ARG_FILENAME, &textfile, "Replace DIR/" TEXTFILE_NAME " (node_exporter's "
      "textfile collector) instead of writing to stdout", "DIR" },
    jmem_cmd_number_entry (&tegrastats_number, "Read one tegrastats line for the largest free block (takes that long)", "SECONDS"),
    jmem_cmd_number_entry (&interval_number, "With --textfile: rewrite it every S seconds", "S"),
    JMEM_CMD_HISTORY_ENTRY ("Add the projection of jmem triage --history on FILE (default: the "
                            "flight recorder's, " JMEM_HISTORY_DEFAULT_PATH "; with --interval, read again every "
                            "5 minutes)"),
    { NULL },
  };
  const JmemViewHelp help = {
    .top = "Per-process series for the N largest processes (default 20); "
           "processes holding NvMap or GPU memory always have them",
  };
  g_autoptr(GOptionContext) context = g_option_context_new ("- memory as Prometheus metrics");
  g_auto(JmemView) view = { 0 };
  g_autoptr(JmemCollectBoot) boot = NULL;
  g_autoptr(JmemSampler) sampler = NULL;
  g_autofree char *history = NULL;
  gboolean parsed;
  int status;
  Metrics m = { 0 };

  g_option_context_add_main_entries (context, entries, NULL);
  jmem_view_init (&view, context, JMEM_VIEW_TOP | JMEM_VIEW_SYSROOT | JMEM_VIEW_NO_ASK,
                  JMEM_METRICS_DEFAULT_TOP, &help);
  g_option_context_set_description (context,
    "Writes the Prometheus text format (" JMEM_DOCDIR "/metrics.md): meminfo, NvMap, GPU memory, the\n"
    "largest processes and every container, source states and triage findings.\n"
    "--series=board leaves out the per-process and per-container series, which name who\n"
    "holds what: jmem-metrics.service writes only those unless configured (" JMEM_DOCDIR "/metrics.md).\n"
    "With --interval it runs until SIGINT or SIGTERM (" JMEM_DOCDIR "/metrics.md).\n"
    "--history adds the trend and projection of the memory allocatable after reclaim, as\n"
    "jmem triage --history gives them; an unreadable history is reported, not fatal.\n"
    "Exit status: 0 ok, 64 usage error, 69 no data (an empty or missing --sysroot),\n"
    "70 internal error, 73 the output could not be written.");
  parsed = jmem_cmd_parse (context, &argc, &argv, 0, NULL);
  history = jmem_cmd_history_steal (NULL);
  if (!parsed || !jmem_view_check (&view))
    return view.status;
  if (history != NULL && !jmem_cmd_check_name ("history", history, "a history written by jmem watch"))
    return JMEM_EXIT_USAGE;
  if (series != NULL && !g_str_equal (series, "processes") && !g_str_equal (series, "board"))
    {
      jmem_cmd_printerr ("jmem metrics: --series takes processes or board, not \"%s\"", series);
      return JMEM_EXIT_USAGE;
    }
  m.metrics.board_only = g_strcmp0 (series, "board") == 0;
  if (m.metrics.board_only && view.top_given)
    {
      g_printerr ("jmem metrics: --top chooses per-process series, which --series=board leaves out\n");
      return JMEM_EXIT_USAGE;
    }
  if (!jmem_cmd_check_name ("textfile", textfile, "a directory"))
    return JMEM_EXIT_USAGE;
  if (interval_number.given && textfile == NULL)
    {
      g_printerr ("jmem metrics: --interval goes with --textfile\n");
      return JMEM_EXIT_USAGE;
    }

  m.options.sysroot = view.sysroot;
  /* a run from the timer finds what the one before it probed in this boot */
  boot = jmem_collect_boot_new_persistent (view.sysroot);
  m.options.boot = boot;
  /* every process: container sums and the NvMap and GPU holders need them all */
  m.options.top = -1;
  m.options.tegrastats_seconds = (guint) tegrastats;
  m.options.recorded_tegrastats = TRUE;
  m.options.allow_interactive = view.allow_interactive && textfile == NULL;
  m.metrics.top = view.top;
  m.sysroot = view.sysroot;
  m.textfile = textfile;
  m.history = history;
  if (!interval_number.given)
    status = metrics_sample (0, &m);
  else
    {
      /* a sample after the first re-reads only the processes whose memory moved */
      sampler = jmem_sampler_new (JMEM_SAMPLER_DEFAULT_REFRESH);
      m.options.sampler = sampler;
      status = jmem_cmd_repeat ((guint) interval, 0, metrics_sample, &m);
    }
  g_clear_pointer (&m.history_read, jmem_triage_history_free);
  g_free (m.history_error);
  return status;
}
