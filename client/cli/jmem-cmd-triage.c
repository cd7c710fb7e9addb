/* SPDX-License-Identifier: GPL-2.0-or-later */
/* jmem triage: only the findings, for a person or an agent that wants the
 * conclusions without the tables. */
#include "jmem-cmd.h"
#include "jmem-cmd-view.h"
#include "jmem-config.h"

#include "jmem-error.h"
#include "jmem-ops-triage.h"
#include "jmem-output-human.h"
#include "jmem-snapshot.h"
#include "jmem-triage.h"
#include "jmem-text.h"
#include "jmem-triage-history.h"
#include "jmem-history.h"

#include <json-glib/json-glib.h>
#include <string.h>

static int
print_findings (GPtrArray *findings, gboolean json, guint width)
{
  if (json)
    {
      g_autoptr(JsonNode) root = jmem_ops_triage_json (findings);

      if (!jmem_cmd_write_json (root))
        return JMEM_EXIT_CANT_CREATE;
    }
  else
    {
      g_autoptr(GString) out = g_string_new (NULL);

      jmem_output_human_findings (findings, out, jmem_cmd_use_color (), width);
      /* the heading's leading blank line is for a section inside a report */
      if (!jmem_cmd_write_stdout (out->str + 1, out->len - 1))
        return JMEM_EXIT_CANT_CREATE;
    }
  return JMEM_EXIT_OK;
}

/* The rules over time on a history written by jmem watch. */
static int
triage_history (const char *path, gint64 need_kib, gboolean json, guint width)
{
  g_autoptr(GPtrArray) findings = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(JmemTriageHistory) history = jmem_triage_history_read (path, warnings, &error);

  for (guint i = 0; i < warnings->len; i++)
    jmem_cmd_printerr ("jmem triage: %s", (const char *) g_ptr_array_index (warnings, i));
  if (history == NULL)
    {
      jmem_cmd_printerr ("jmem triage: %s", error->message);
      if (error->domain == G_IO_ERROR)
        return JMEM_EXIT_NO_INPUT;
      return g_error_matches (error, JMEM_ERROR, JMEM_ERROR_NOT_AVAILABLE) ?
               JMEM_EXIT_NO_DATA : JMEM_EXIT_DATA_ERR;
    }
  if (jmem_triage_history_get_n_samples (history) < JMEM_TRIAGE_GROWING_MIN_SAMPLES)
    jmem_cmd_printerr ("jmem triage: the history holds %u samples; a trend needs %d at least "
                       "(nvmap-orphaned %d)", jmem_triage_history_get_n_samples (history),
                       JMEM_TRIAGE_GROWING_MIN_SAMPLES, JMEM_TRIAGE_ORPHANED_MIN_SAMPLES);
  jmem_triage_history_set_need (history, need_kib);
  findings = jmem_triage_history_run (history);
  return print_findings (findings, json, width);
}

int
jmem_cmd_triage (int argc, char **argv)
{
  int tegrastats = 0;
  JmemCmdNumber tegrastats_number = JMEM_CMD_TEGRASTATS (&tegrastats);
  g_autofree char *history = NULL;
  g_autofree char *need_text = NULL;
  guint64 need = 0;
  GOptionEntry entries[] = {
    { "history", 0, 0, G_OPTION_ARG_FILENAME, &history, "Run the rules over time on a history written by jmem watch", "FILE" },
    { "need", 0, 0, G_OPTION_ARG_STRING, &need_text, "With --history: project when less than SIZE stays allocatable, not zero (6G, 6144M)", "SIZE" },
    jmem_cmd_number_entry (&tegrastats_number, "Read one tegrastats line for the lfb and GR3D rules (takes that long)", "SECONDS"),
    { NULL },
  };
  const JmemViewHelp help = { .json = "Write JSON (" JMEM_SCHEMADIR "/triage.schema.json)" };
  g_autoptr(GOptionContext) context = g_option_context_new ("- what needs attention, and what to do");
  g_auto(JmemView) view = { 0 };
  g_autoptr(JmemSnapshot) snapshot = NULL;
  g_autoptr(GError) error = NULL;
  JmemOpsTriageOptions options = { 0 };

  g_option_context_add_main_entries (context, entries, NULL);
  jmem_view_init (&view, context, JMEM_VIEW_JSON | JMEM_VIEW_WIDTH | JMEM_VIEW_SYSROOT |
                  JMEM_VIEW_NO_ASK, 0, &help);
  g_option_context_set_description (context,
    "Prints only the findings of the triage rules (" JMEM_DOCDIR "/triage.md); with --history, only\n"
    "those of the rules over time (memory-exhaustion-projected, nvmap-growing, gpu-growing,\n"
    "pss-growing, nvmap-orphaned, unexplained-growing, slab-growing; " JMEM_DOCDIR "/watch.md).\n"
    "Exit status: 0 whether or not anything was found (read the findings, not the status),\n"
    "64 usage error, 65 no --history line is a jmem snapshot (a damaged line among good\n"
    "ones is skipped with a warning), 66 --history unreadable or not a regular file,\n"
    "69 no data (an empty or missing --sysroot, a history with no line), 70 internal error.");
  if (!jmem_cmd_parse (context, &argc, &argv, 0, NULL) ||
      !jmem_cmd_check_name ("history", history, "a history written by jmem watch") ||
      !jmem_cmd_parse_size ("need", need_text, 1, &need))
    return JMEM_EXIT_USAGE;
  if (need_text != NULL && history == NULL)
    {
      g_printerr ("jmem triage: --need is for the projection of a --history\n");
      return JMEM_EXIT_USAGE;
    }
  if (!jmem_view_check (&view))
    return view.status;

  if (history != NULL)
    {
      if (view.sysroot != NULL || tegrastats != 0)
        {
          g_printerr ("jmem triage: --history reads a file and excludes --sysroot and --tegrastats\n");
          return JMEM_EXIT_USAGE;
        }
      /* read in KiB, rounded up: never smaller than asked */
      return triage_history (history, need_text != NULL ? (gint64) ((need + 1023) / 1024) : 0,
                             view.json, (guint) view.width);
    }

  options.sysroot = view.sysroot;
  options.tegrastats_seconds = (guint) tegrastats;
  options.allow_interactive = view.allow_interactive;
  snapshot = jmem_ops_triage (&options, &error);
  if (snapshot == NULL)
    {
      jmem_cmd_printerr ("jmem triage: %s", error->message);
      return g_error_matches (error, JMEM_ERROR, JMEM_ERROR_NOT_AVAILABLE) ?
               JMEM_EXIT_NO_DATA : JMEM_EXIT_INTERNAL;
    }

  jmem_cmd_print_capture_warnings ("jmem triage", snapshot);
  if (snapshot->warnings->len > 0)
    jmem_cmd_printerr ("jmem triage: %u %s could not be read, so some rules could not look; "
                       "`jmem snapshot` lists %s under Warnings", snapshot->warnings->len,
                       jmem_text_plural (snapshot->warnings->len, "input", "inputs"),
                       jmem_text_plural (snapshot->warnings->len, "it", "them"));

  return print_findings (snapshot->findings, view.json, (guint) view.width);
}
