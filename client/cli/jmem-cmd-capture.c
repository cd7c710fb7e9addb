/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "jmem-cmd.h"

#include "jmem-config.h"
#include "jmem-cmd-view.h"

#include "jmem-capture.h"
#include "jmem-text.h"

#include <gio/gio.h>
#include <string.h>

/* @dir as a shell word: as it is when nothing in it needs quoting. */
static char *
shell_word (const char *dir)
{
  static const char safe[] =
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._+,:@%-";

  if (dir[0] != '\0' && strspn (dir, safe) == strlen (dir))
    return g_strdup (dir);
  return g_shell_quote (dir);
}

/* The one line of a capture that worked: what, how much, and what next. */
static char *
written_line (const char *dir, const JmemCaptureWritten *w)
{
  g_autofree char *size = jmem_text_size ((gint64) ((w->n_bytes + 1023) / 1024));
  g_autofree char *quoted = shell_word (dir);
  g_autofree char *word = jmem_text_for_terminal (quoted);

  return g_strdup_printf ("Wrote %u %s (%s) to %s; analyse it with: jmem snapshot --sysroot %s\n",
                          w->n_files, jmem_text_plural (w->n_files, "file", "files"), size,
                          word, word);
}

int
jmem_cmd_capture (int argc, char **argv)
{
  int tegrastats = 0;
  JmemCmdNumber tegrastats_number = JMEM_CMD_TEGRASTATS (&tegrastats);
  GOptionEntry entries[] = {
    jmem_cmd_number_entry (&tegrastats_number, "Also record one tegrastats line", "SECONDS"),
    { NULL },
  };
  g_autoptr(GOptionContext) context = g_option_context_new ("DIR - record this system for `jmem snapshot --sysroot DIR`");
  g_auto(JmemView) view = { 0 };
  g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  g_autofree char *line = NULL;
  JmemCaptureOptions options = { 0 };
  JmemCaptureWritten written;

  g_option_context_add_main_entries (context, entries, NULL);
  jmem_view_init (&view, context, JMEM_VIEW_NO_ASK, 0, NULL);
  g_option_context_set_description (context,
    "jmem creates DIR (mode 0700) in an existing parent; an existing DIR must be an empty\n"
    "directory of yours that neither group nor others can write. Files are 0600, directories\n"
    "0700. Until it is whole the capture holds jmem/capture-incomplete, which every reader\n"
    "reports. The layout is described in " JMEM_DOCDIR "/capture-format.md.\n"
    "Exit status: 0 ok, 64 usage error, 73 DIR refused, or cannot create DIR or write into it.");
  if (!jmem_cmd_parse (context, &argc, &argv, 1, "exactly one directory") ||
      !jmem_view_check (&view))
    return view.status;
  if (argv[1][0] == '\0')
    {
      g_printerr ("jmem capture: give a directory, not an empty name\n"
                  "Try \"jmem capture --help\".\n");
      return JMEM_EXIT_USAGE;
    }
  options.allow_interactive = view.allow_interactive;
  options.tegrastats_seconds = (guint) tegrastats;

  if (!jmem_capture_write (argv[1], &options, notes, &written, &error))
    {
      jmem_cmd_printerr ("jmem capture: %s", error->message);
      return JMEM_EXIT_CANT_CREATE;
    }
  for (guint i = 0; i < notes->len; i++)
    jmem_cmd_printerr ("jmem capture: %s", (char *) g_ptr_array_index (notes, i));
  line = written_line (argv[1], &written);
  if (!jmem_cmd_write_stdout_wrapped (line, 2))
    return JMEM_EXIT_CANT_CREATE;
  return JMEM_EXIT_OK;
}
