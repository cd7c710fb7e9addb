/* SPDX-License-Identifier: GPL-2.0-or-later */
/* jmem triage: only the findings, for a person or an agent that wants the
 * conclusions without the tables. */
#include "jmem-cmd.h"
#include "jmem-cmd-history.h"
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
  guint n_samples = 0;

  findings = jmem_ops_triage_history (path, need_kib, warnings, &n_samples, &error);
  for (guint i = 0; i < warnings->len; i++)
    jmem_cmd_printerr ("jmem triage: %s", (const char *) g_ptr_array_index (warnings, i));
  if (findings == NULL)
    {
      jmem_cmd_printerr ("jmem triage: %s", error->message);
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND) &&
          g_str_equal (path, JMEM_HISTORY_DEFAULT_PATH))
        jmem_cmd_printerr ("jmem triage: the flight recorder writes it: sudo systemctl enable --now "
                           "jmem-recorder.service, or give --history=FILE");
      if (error->domain == G_IO_ERROR)
        return JMEM_EXIT_NO_INPUT;
      return g_error_matches (error, JMEM_ERROR, JMEM_ERROR_NOT_AVAILABLE) ?
               JMEM_EXIT_NO_DATA : JMEM_EXIT_DATA_ERR;
    }
  if (n_samples < JMEM_TRIAGE_GROWING_MIN_SAMPLES)
    jmem_cmd_printerr ("jmem triage: the history holds %u samples; a trend needs %d at least "
                       "(nvmap-orphaned %d)", n_samples, JMEM_TRIAGE_GROWING_MIN_SAMPLES,
                       JMEM_TRIAGE_ORPHANED_MIN_SAMPLES);
  return print_findings (findings, json, width);
}

int
jmem_cmd_triage (int argc, char **argv)
{
  int tegrastats = 0;
  JmemCmdNumber tegrastats_number = JMEM_CMD_TEGRASTATS (&tegrastats);
  g_autofree char *need_text = NULL;
  guint64 need = 0;
  GOptionEntry entries[] = {
    JMEM_CMD_HISTORY_ENTRY ("Run the rules over time on a history written by jmem watch (default: the flight recorder's, " JMEM_HISTORY_DEFAULT_PATH ")"),
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
  g_autofree char *path = NULL;
  gboolean history_bare = FALSE;
  gboolean ok;

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
  ok = jmem_cmd_parse (context, &argc, &argv, -1, NULL);
  path = jmem_cmd_history_steal (&history_bare);
  /* --history alone takes the operand after it, as `jmem triage --history
   * FILE` always did, or else the flight recorder's */
  if (ok && argc == 2 && history_bare)
    {
      g_free (path);
      path = g_strdup (argv[1]);
    }
  else if (ok && argc > 1)
    {
      jmem_cmd_printerr ("%s: unexpected argument \"%s\"", g_get_prgname (),
                         argv[history_bare ? 2 : 1]);
      g_printerr ("Try \"%s --help\".\n", g_get_prgname ());
      ok = FALSE;
    }
  if (!ok || !jmem_cmd_check_name ("history", path, "a history written by jmem watch") ||
      !jmem_cmd_parse_size ("need", need_text, 1, &need))
    return JMEM_EXIT_USAGE;
  if (need_text != NULL && path == NULL)
    {
      g_printerr ("jmem triage: --need is for the projection of a --history\n");
      return JMEM_EXIT_USAGE;
    }
  if (!jmem_view_check (&view))
    return view.status;

  if (path != NULL)
    {
      if (view.sysroot != NULL || tegrastats != 0)
        {
          g_printerr ("jmem triage: --history reads a file and excludes --sysroot and --tegrastats\n");
          return JMEM_EXIT_USAGE;
        }
      /* read in KiB, rounded up: never smaller than asked */
      return triage_history (path, need_text != NULL ? (gint64) ((need + 1023) / 1024) : 0,
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
