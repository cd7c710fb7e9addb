/* SPDX-License-Identifier: GPL-2.0-or-later */
/* jmem plot: a history drawn as PNG or SVG. */
#include "jmem-cmd.h"

#include "jmem-config.h"

#include "jmem-cmd-faces.h"
#include "jmem-cmd-number.h"
#include "jmem-plot.h"
#include "jmem-text.h"

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

/* The frames taken from @from to @to. */
static GPtrArray *
window (GPtrArray *frames, gint64 from, gint64 to)
{
  GPtrArray *kept = g_ptr_array_new ();

  for (guint i = 0; i < frames->len; i++)
    {
      const JmemFrame *f = g_ptr_array_index (frames, i);

      if (f->timestamp_unix >= from && f->timestamp_unix <= to)
        g_ptr_array_add (kept, (gpointer) f);
    }
  return kept;
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
  g_autoptr(GOptionContext) context = g_option_context_new ("HISTORY -o FILE.png|FILE.svg - draw a history");
  g_autoptr(GPtrArray) frames = NULL;
  g_autoptr(GPtrArray) shown = NULL;
  g_autoptr(GPtrArray) findings = NULL;
  g_autoptr(GBytes) picture = NULL;
  g_autoptr(GString) report = g_string_new (NULL);
  g_autoptr(GError) error = NULL;
  JmemPlotOptions options = { 0 };
  const JmemFrame *last;
  gint64 from = G_MININT64, to = G_MAXINT64;
  int status = JMEM_EXIT_OK;

  g_option_context_add_main_entries (context, entries, NULL);
  g_option_context_set_description (context,
    "Draws a history written by jmem watch (" JMEM_DOCDIR "/watch.md): memory per process\n"
    "over time, the accounting and the headroom when the samples carry them, the\n"
    "findings of jmem triage --history HISTORY marked on their series. Times are\n"
    "local.\n"
    "Prints what it drew.\n"
    "Exit status: 0 ok, 64 usage error, 65 a line is not a snapshot, 66 HISTORY\n"
    "unreadable, 69 no sample (an empty history, or none in the window), 70\n"
    "internal error, 73 FILE cannot be written.");
  if (!jmem_cmd_parse (context, &argc, &argv, 1, "one history file") ||
      !jmem_cmd_check_name ("output", output, "FILE.png or FILE.svg"))
    return JMEM_EXIT_USAGE;
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

  frames = jmem_cmd_faces_read_history ("jmem plot", argv[1], &status);
  if (frames == NULL)
    return status;
  last = g_ptr_array_index (frames, frames->len - 1);
  if ((since != NULL && !jmem_plot_parse_time (since, last->timestamp_unix, &from, &error)) ||
      (until != NULL && !jmem_plot_parse_time (until, last->timestamp_unix, &to, &error)))
    {
      /* which of the two it was: the message quotes only the value */
      jmem_cmd_printerr ("jmem plot: --%s: %s", since != NULL && from == G_MININT64 ? "since" : "until",
                         error->message);
      return JMEM_EXIT_USAGE;
    }
  shown = window (frames, from, to);
  if (shown->len == 0)
    {
      jmem_cmd_printerr ("jmem plot: %s holds no sample between --since and --until (%u samples "
                         "in all): widen the window", argv[1], frames->len);
      return JMEM_EXIT_NO_DATA;
    }
  findings = jmem_cmd_faces_history_findings (argv[1], from, to);

  options.frames = shown;
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

    g_autofree char *wrote = g_strdup_printf ("Wrote %s (%s, %d x %d pixels, %u %s).\n", name,
                                              options.format == JMEM_PLOT_PNG ? "PNG" : "SVG",
                                              width, height, shown->len,
                                              shown->len == 1 ? "sample" : "samples");

    if (!jmem_cmd_write_stdout_wrapped (wrote, 2) || !jmem_cmd_write_stdout_wrapped (report->str, 4))
      return JMEM_EXIT_CANT_CREATE;
  }
  return JMEM_EXIT_OK;
}
