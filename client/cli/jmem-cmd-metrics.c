/* jmem metrics: the snapshot and its findings as Prometheus metrics, on
 * stdout or as node_exporter's textfile (docs/metrics.md). */
#include "jmem-cmd.h"
#include "jmem-cmd-view.h"

#include "jmem-error.h"
#include "jmem-nvmap-source.h"
#include "jmem-ops-snapshot.h"
#include "jmem-output-metrics.h"
#include "jmem-textfile.h"

#include <string.h>

#define TEXTFILE_NAME "jmem.prom"

int
jmem_cmd_metrics (int argc, char **argv)
{
  int tegrastats = JMEM_CMD_TEGRASTATS_UNSET;
  g_autofree char *textfile = NULL;
  GOptionEntry entries[] = {
    { "textfile", 0, 0, G_OPTION_ARG_FILENAME, &textfile, "Replace DIR/" TEXTFILE_NAME " (node_exporter's "
      "textfile collector) instead of writing to stdout", "DIR" },
    { "tegrastats", 0, 0, G_OPTION_ARG_INT, &tegrastats, "Read one tegrastats line for the largest free block (takes that long)", "SECONDS" },
    { NULL },
  };
  const JmemViewHelp help = {
    .top = "Per-process series for the N largest processes (default 20); "
           "processes holding NvMap or GPU memory always have them",
  };
  g_autoptr(GOptionContext) context = g_option_context_new ("- memory as Prometheus metrics");
  g_auto(JmemView) view = { 0 };
  g_autoptr(JmemSnapshot) snapshot = NULL;
  g_autoptr(JmemCollectBoot) boot = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GString) out = g_string_new (NULL);
  JmemOpsSnapshotOptions options = { 0 };
  JmemNvmapSourceContext source_ctx = { 0 };
  JmemMetricsOptions metrics = { 0 };
  const JmemNvmapSource *source;

  g_option_context_add_main_entries (context, entries, NULL);
  jmem_view_init (&view, context, JMEM_VIEW_TOP | JMEM_VIEW_SYSROOT | JMEM_VIEW_NO_ASK,
                  JMEM_METRICS_DEFAULT_TOP, &help);
  g_option_context_set_description (context,
    "Writes the Prometheus text format (docs/metrics.md): meminfo, NvMap, GPU memory, the\n"
    "largest processes and every container, source states and triage findings.\n"
    "Exit status: 0 ok, 64 usage error, 69 no data (an empty or missing --sysroot),\n"
    "70 internal error, 73 the output could not be written.");
  if (!jmem_cmd_parse (context, &argc, &argv, 0, NULL) || !jmem_view_check (&view) ||
      !jmem_cmd_check_tegrastats (&tegrastats))
    return JMEM_EXIT_USAGE;
  if (textfile != NULL && *textfile == '\0')
    {
      g_printerr ("jmem metrics: --textfile takes a directory\n");
      return JMEM_EXIT_USAGE;
    }

  options.sysroot = view.sysroot;
  /* a run from the timer finds what the one before it probed in this boot */
  boot = jmem_collect_boot_new_persistent (view.sysroot);
  options.boot = boot;
  /* every process: container sums and the NvMap and GPU holders need them all */
  options.top = -1;
  options.tegrastats_seconds = (guint) tegrastats;
  options.recorded_tegrastats = TRUE;
  options.allow_interactive = view.allow_interactive && textfile == NULL;

  snapshot = jmem_ops_snapshot (&options, &error);
  if (snapshot == NULL)
    {
      jmem_cmd_printerr ("jmem metrics: %s", error->message);
      return g_error_matches (error, JMEM_ERROR, JMEM_ERROR_NOT_AVAILABLE) ?
               JMEM_EXIT_NO_DATA : JMEM_EXIT_INTERNAL;
    }

  /* which NvMap source this run used, so the helper gets a series only
   * where it is the way in */
  source_ctx.root = view.sysroot;
  source = jmem_nvmap_source_choose (&source_ctx, NULL);
  metrics.helper_via = source != NULL ? source->via : NULL;
  metrics.top = view.top;
  jmem_output_metrics (snapshot, &metrics, out);

  if (textfile == NULL)
    return jmem_cmd_write_stdout (out->str, out->len) ? JMEM_EXIT_OK : JMEM_EXIT_CANT_CREATE;
  if (!jmem_textfile_replace (textfile, TEXTFILE_NAME, out->str, out->len, &error))
    {
      jmem_cmd_printerr ("jmem metrics: %s", error->message);
      return JMEM_EXIT_CANT_CREATE;
    }
  return JMEM_EXIT_OK;
}
