/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "jmem-cmd-view.h"

#include "jmem-cmd.h"
#include "jmem-output-table.h"

#include <unistd.h>

/* What an option holds when it was not given: no value a person can type. */
#define UNSET G_MININT

static const char *
or_usual (const char *text, const char *usual)
{
  return text != NULL ? text : usual;
}

void
jmem_view_init (JmemView           *view,
                GOptionContext     *context,
                JmemViewFlags       flags,
                int                 default_top,
                const JmemViewHelp *help)
{
  static const JmemViewHelp none = { NULL };
  GOptionEntry entries[7] = { { NULL } };
  guint n = 0;

  help = help != NULL ? help : &none;
  *view = (JmemView) {
    .flags = flags, .default_top = default_top, .top = UNSET, .width = UNSET,
    .status = JMEM_EXIT_USAGE,
    .top_number = { "top", JMEM_CMD_NUMBER_INT, &view->top, 0, G_MAXINT, "a count of 0 or more" },
    .width_number = { "width", JMEM_CMD_NUMBER_INT, &view->width, JMEM_TABLE_MIN_WIDTH,
                      JMEM_TABLE_MAX_WIDTH, G_STRINGIFY (JMEM_TABLE_MIN_WIDTH) " to "
                      G_STRINGIFY (JMEM_TABLE_MAX_WIDTH) " columns" },
  };
  if (flags & JMEM_VIEW_JSON)
    entries[n++] = (GOptionEntry) { "json", 0, 0, G_OPTION_ARG_NONE, &view->json,
                                    or_usual (help->json, "Write JSON"), NULL };
  if (flags & JMEM_VIEW_TOP)
    entries[n++] = jmem_cmd_number_entry (&view->top_number,
                                          or_usual (help->top, "Show the N largest processes (default 10)"),
                                          "N");
  if (flags & JMEM_VIEW_ALL)
    entries[n++] = (GOptionEntry) { "all", 0, 0, G_OPTION_ARG_NONE, &view->all,
                                    or_usual (help->all, "Show every process"), NULL };
  if (flags & JMEM_VIEW_WIDTH)
    entries[n++] = jmem_cmd_number_entry (&view->width_number,
                                          or_usual (help->width, "Fit the report to N columns, at least 60 "
                                                    "(default: the terminal's; a pipe gets whole lines)"),
                                          "N");
  if (flags & JMEM_VIEW_SYSROOT)
    entries[n++] = (GOptionEntry) { "sysroot", 0, 0, G_OPTION_ARG_FILENAME, &view->sysroot,
                                    or_usual (help->sysroot, "Read a tree written by jmem capture"),
                                    "DIR" };
  if (flags & JMEM_VIEW_NO_ASK)
    entries[n++] = (GOptionEntry) { "no-ask-password", 0, 0, G_OPTION_ARG_NONE, &view->no_ask,
                                    "Never let polkit ask for a password", NULL };
  g_option_context_add_main_entries (context, entries, NULL);
}

static gboolean
usage_error (const char *what)
{
  g_printerr ("%s: %s\n", g_get_prgname (), what);
  g_printerr ("Try \"%s --help\".\n", g_get_prgname ());
  return FALSE;
}

gboolean
jmem_view_check (JmemView *view)
{
  if (view->top != UNSET && view->all)
    return usage_error ("--top excludes --all");
  view->top_given = view->top != UNSET;
  view->top = view->all ? -1 : view->top != UNSET ? view->top : view->default_top;

  if (!(view->flags & JMEM_VIEW_WIDTH))
    view->width = 0;
  else if (view->width == UNSET)
    view->width = (int) jmem_table_terminal_width ();

  /* an unset variable in a script must not analyse the live system instead */
  if (!jmem_cmd_check_name ("sysroot", view->sysroot, "a directory written by jmem capture"))
    return FALSE;
  if (view->sysroot != NULL && !g_file_test (view->sysroot, G_FILE_TEST_IS_DIR))
    {
      /* as an empty directory says it (jmem_collect_snapshot()) */
      jmem_cmd_printerr ("%s: --sysroot %s holds no capture: %s (write one with `jmem capture DIR`)",
                         g_get_prgname (), view->sysroot,
                         g_file_test (view->sysroot, G_FILE_TEST_EXISTS) ? "it is not a directory"
                                                                         : "there is no such directory");
      view->status = JMEM_EXIT_NO_DATA;
      return FALSE;
    }

  view->allow_interactive = !view->no_ask && isatty (STDIN_FILENO);
  return TRUE;
}

void
jmem_view_clear (JmemView *view)
{
  g_clear_pointer (&view->sysroot, g_free);
}
