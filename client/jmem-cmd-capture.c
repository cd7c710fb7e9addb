#include "jmem-cmd.h"

#include "jmem-capture.h"

#include <gio/gio.h>
#include <unistd.h>

int
jmem_cmd_capture (int argc, char **argv)
{
  gboolean no_ask = FALSE;
  int tegrastats = JMEM_CMD_TEGRASTATS_UNSET;
  GOptionEntry entries[] = {
    { "tegrastats", 0, 0, G_OPTION_ARG_INT, &tegrastats, "Also record one tegrastats line", "SECONDS" },
    { "no-ask-password", 0, 0, G_OPTION_ARG_NONE, &no_ask, "Never let polkit ask for a password", NULL },
    { NULL },
  };
  g_autoptr(GOptionContext) context = g_option_context_new ("DIR - record this system for `jmem snapshot --sysroot DIR`");
  g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  JmemCaptureOptions options = { 0 };

  g_option_context_add_main_entries (context, entries, NULL);
  g_option_context_set_description (context,
    "jmem creates DIR (mode 0700) in an existing parent; an existing DIR must be an empty\n"
    "directory of yours that neither group nor others can write. Files are 0600, directories\n"
    "0700. The layout is described in docs/capture-format.md.\n"
    "Exit status: 0 ok, 64 usage error, 73 DIR refused, or cannot create DIR or write into it.");
  if (!jmem_cmd_parse (context, &argc, &argv, 1, "exactly one directory"))
    return JMEM_EXIT_USAGE;
  if (!jmem_cmd_check_tegrastats (&tegrastats))
    return JMEM_EXIT_USAGE;
  options.allow_interactive = !no_ask && isatty (STDIN_FILENO);
  options.tegrastats_seconds = (guint) tegrastats;

  if (!jmem_capture_write (argv[1], &options, notes, &error))
    {
      jmem_cmd_printerr ("jmem capture: %s", error->message);
      return JMEM_EXIT_CANT_CREATE;
    }
  for (guint i = 0; i < notes->len; i++)
    jmem_cmd_printerr ("jmem capture: %s", (char *) g_ptr_array_index (notes, i));
  return JMEM_EXIT_OK;
}
