/* SPDX-License-Identifier: GPL-2.0-or-later */
/* jmem plot: a history drawn as PNG or SVG. */
#include "jmem-cmd.h"

#include "jmem-config.h"

#include "jmem-cmd-faces.h"
#include "jmem-cmd-number.h"
#include "jmem-history.h"
#include "jmem-ops-triage.h"
#include "jmem-plot.h"
#include "jmem-text.h"
#include "jmem-triage-history.h"

#include <string.h>

#define PIXELS G_STRINGIFY (JMEM_PLOT_MIN_SIZE) " to " G_STRINGIFY (JMEM_PLOT_MAX_SIZE) " pixels"

static gboolean
format_from_name (const char *path, JmemPlotFormat *format)
{
  g_autofree char *lower = g_ascii_strdown (path, -1);

  if (g_str_has_suffix (lower, ".png"))
    *format = JMEM_PLOT_PNG;
  else if (g_str_has_suffix (lower, ".svg"))
    *format = JMEM_PLOT_SVG;
  else
    return FALSE;
  return TRUE;
}

/* One pass over the history: the samples from @from to @to drawn (thinned
 * as they come) and given to the rules over time, for the findings marked
 * on their series; nothing is kept per line. */
typedef struct {
  JmemPlotSamples   *samples;
  JmemTriageHistory *triage;
  gint64             from;
  gint64             to;
  guint64            n_all;
} Reading;

static gboolean
add_sample (JsonNode *snapshot, guint line_number, gpointer user_data)
{
  Reading *r = user_data;
  g_autoptr(JmemFrame) frame = jmem_frame_from_json (snapshot);

  r->n_all++;
  if (frame->timestamp_unix < r->from || frame->timestamp_unix > r->to)
    return TRUE;
  jmem_plot_samples_add (r->samples, frame);
  jmem_triage_history_add (r->triage, snapshot);
  return TRUE;
}

static gboolean
note_time (JsonNode *snapshot, guint line_number, gpointer user_data)
{
  g_autoptr(JmemFrame) frame = jmem_frame_from_json (snapshot);

  *(gint64 *) user_data = frame->timestamp_unix;
  return TRUE;
}

/* Reads @path through @func, printing the warnings if @warn; FALSE after
 * printing why, with *@status. */
static gboolean
read_history (const char *path, JmemHistoryFunc func, gpointer data, gboolean warn, int *status)
{
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  gboolean ok = jmem_history_read (path, func, data, warnings, &error);

  if (warn)
    jmem_cmd_faces_print_warnings ("jmem plot", warnings);
  if (!ok)
    *status = jmem_cmd_faces_history_failed ("jmem plot", error);
  return ok;
}

static void
projection_clear (JmemPlotProjection *p)
{
  g_clear_pointer (&p->text, g_free);
}
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (JmemPlotProjection, projection_clear)

/* The line triage --history fits to the allocatable memory, and its
 * projection: the same computation, drawn. */
static void
plot_projection (const JmemTriageHistory *triage, JmemPlotProjection *p)
{
  JmemTrend trend;
  JmemProjection projection;
  g_autofree char *missing = NULL;

  p->projected = jmem_triage_history_project (triage, &trend, &projection, &missing);
  p->fitted = trend.n_points > 0;
  p->t0 = (gint64) trend.t_first;
  p->t1 = (gint64) trend.t_last;
  p->level0 = trend.level_first;
  p->level1 = trend.level_last;
  p->t_end = p->projected ? (gint64) MIN (projection.at_unix, (double) G_MAXINT32 * 2) : 0;
  p->text = jmem_triage_history_projection_text (triage, FALSE);
}

int
jmem_cmd_plot (int argc, char **argv)
{
  int top = JMEM_PLOT_DEFAULT_TOP, width = JMEM_PLOT_DEFAULT_WIDTH, height = JMEM_PLOT_DEFAULT_HEIGHT;
  g_autofree char *output = NULL;
  g_autofree char *since = NULL;
  g_autofree char *until = NULL;
  g_autofree char *metric = NULL;
  g_autoptr(GArray) pids = NULL;
  JmemCmdNumber pid_number = JMEM_CMD_PID (JMEM_CMD_NUMBER_INT64_LIST, &pids);
  JmemCmdNumber top_number = { "top", JMEM_CMD_NUMBER_INT, &top, 1, 100, "1 to 100" };
  JmemCmdNumber width_number = { "width", JMEM_CMD_NUMBER_INT, &width, JMEM_PLOT_MIN_SIZE,
                                 JMEM_PLOT_MAX_SIZE, PIXELS };
  JmemCmdNumber height_number = { "height", JMEM_CMD_NUMBER_INT, &height, JMEM_PLOT_MIN_SIZE,
                                  JMEM_PLOT_MAX_SIZE, PIXELS };
  GOptionEntry entries[] = {
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, "Write the plot to FILE.png or FILE.svg", "FILE" },
    { "metric", 0, 0, G_OPTION_ARG_STRING, &metric, "footprint, nvmap, pss, gpu (default: footprint, NvMap)", "M" },
    jmem_cmd_number_entry (&top_number, "The N largest processes (default 8)", "N"),
    jmem_cmd_number_entry (&pid_number, "Only this process (repeat for more)", "PID"),
    { "since", 0, 0, G_OPTION_ARG_STRING, &since, "From T: 2025-12-06T05:50, @UNIXSECONDS, -2h", "T" },
    { "until", 0, 0, G_OPTION_ARG_STRING, &until, "Until this time, as --since", "T" },
    jmem_cmd_number_entry (&width_number, "Pixels (default 1280)", "W"),
    jmem_cmd_number_entry (&height_number, "Pixels (default 800)", "H"),
    { NULL },
  };
  g_autoptr(GOptionContext) context = g_option_context_new ("[HISTORY] -o FILE.png|FILE.svg - draw a history");
  g_autoptr(JmemPlotSamples) samples = NULL;
  g_autoptr(JmemTriageHistory) triage = jmem_triage_history_new ();
  g_autoptr(GPtrArray) findings = NULL;
  g_autoptr(GBytes) picture = NULL;
  g_autoptr(GString) report = g_string_new (NULL);
  g_autoptr(GError) error = NULL;
  JmemPlotOptions options = { 0 };
  g_auto(JmemPlotProjection) projection = { 0 };
  Reading reading = { 0 };
  gint64 from = G_MININT64, to = G_MAXINT64, last = 0;
  guint64 n_shown;
  int status = JMEM_EXIT_OK;
  const char *path;

  g_option_context_add_main_entries (context, entries, NULL);
  g_option_context_set_description (context,
    "Draws a history written by jmem watch (" JMEM_DOCDIR "/watch.md): memory per process\n"
    "over time, the accounting and the headroom when the samples carry them, the\n"
    "findings of jmem triage --history HISTORY marked on their series, and the line\n"
    "fitted to the memory allocatable after reclaim with its projection past the\n"
    "last sample (red, dashed), as triage --history gives it. Times are\n"
    "local. A history longer than the picture is wide is read once and thinned:\n"
    "each pixel column draws its samples' minimum and maximum (spikes stay), the\n"
    "stacked accounting their mean; memory does not grow with the history.\n"
    "Without HISTORY, draws the flight recorder's (" JMEM_HISTORY_DEFAULT_PATH ").\n"
    "Prints what it drew.\n"
    "Exit status: 0 ok, 64 usage error, 65 a line is not a snapshot, 66 HISTORY\n"
    "unreadable, 69 no sample (an empty history, or none in the window), 70\n"
    "internal error, 73 FILE cannot be written.");
  if (!jmem_cmd_parse (context, &argc, &argv, -1, NULL) ||
      !jmem_cmd_check_name ("output", output, "FILE.png or FILE.svg"))
    return JMEM_EXIT_USAGE;
  if (argc > 2)
    {
      g_printerr ("jmem plot: give one history file (none: the flight recorder's)\n");
      return JMEM_EXIT_USAGE;
    }
  /* none: the flight recorder's (jmem-recorder.service) */
  path = argc == 2 ? argv[1] : jmem_ops_default_history ();
  if (output == NULL || !format_from_name (output, &options.format))
    {
      g_printerr ("jmem plot: give the output with -o FILE.png or -o FILE.svg\n");
      return JMEM_EXIT_USAGE;
    }
  if (metric != NULL && !jmem_plot_metric_from_string (metric, &options.metric))
    {
      jmem_cmd_printerr ("jmem plot: --metric takes footprint, nvmap, pss or gpu, not \"%s\"", metric);
      return JMEM_EXIT_USAGE;
    }

  /* "-2h" counts back from the last sample: a first pass finds it */
  if (((since != NULL && since[0] == '-') || (until != NULL && until[0] == '-')) &&
      !read_history (path, note_time, &last, FALSE, &status))
    return status;
  if ((since != NULL && !jmem_plot_parse_time (since, last, &from, &error)) ||
      (until != NULL && !jmem_plot_parse_time (until, last, &to, &error)))
    {
      /* which of the two it was: the message quotes only the value */
      jmem_cmd_printerr ("jmem plot: --%s: %s", since != NULL && from == G_MININT64 ? "since" : "until",
                         error->message);
      return JMEM_EXIT_USAGE;
    }
  samples = jmem_plot_samples_new ((guint) width, metric != NULL, options.metric);
  reading.samples = samples;
  reading.triage = triage;
  reading.from = from;
  reading.to = to;
  if (!read_history (path, add_sample, &reading, TRUE, &status))
    return status;
  n_shown = jmem_plot_samples_get_n (samples);
  if (n_shown == 0)
    {
      jmem_cmd_printerr ("jmem plot: %s holds no sample between --since and --until (%" G_GUINT64_FORMAT
                         " samples in all): widen the window", path, reading.n_all);
      return JMEM_EXIT_NO_DATA;
    }
  findings = jmem_triage_history_run (triage);
  plot_projection (triage, &projection);

  options.samples = samples;
  options.projection = &projection;
  options.findings = findings;
  options.metric_set = metric != NULL;
  options.top = (guint) top;
  options.pids = pids;
  options.width = (guint) width;
  options.height = (guint) height;
  picture = jmem_plot_render (&options, report, &error);
  if (picture == NULL)
    {
      jmem_cmd_printerr ("jmem plot: %s", error->message);
      return JMEM_EXIT_INTERNAL;
    }
  if (!jmem_cmd_faces_write_file (output, g_bytes_get_data (picture, NULL), g_bytes_get_size (picture),
                                  &error))
    {
      jmem_cmd_printerr ("jmem plot: %s", error->message);
      return JMEM_EXIT_CANT_CREATE;
    }
  {
    g_autofree char *name = jmem_text_for_terminal (output);

    g_autofree char *wrote = g_strdup_printf ("Wrote %s (%s, %d x %d pixels, %" G_GUINT64_FORMAT " %s).\n",
                                              name, options.format == JMEM_PLOT_PNG ? "PNG" : "SVG",
                                              width, height, n_shown,
                                              n_shown == 1 ? "sample" : "samples");

    if (!jmem_cmd_write_stdout_wrapped (wrote, 2) || !jmem_cmd_write_stdout_wrapped (report->str, 4))
      return JMEM_EXIT_CANT_CREATE;
  }
  return JMEM_EXIT_OK;
}
