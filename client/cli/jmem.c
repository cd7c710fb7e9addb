/* SPDX-License-Identifier: GPL-2.0-or-later */
/* jmem: who holds memory on this Jetson. */
#include "jmem-cmd.h"
#include "jmem-size.h"

#include "jmem-config.h"
#include "jmem-file.h"
#include "jmem-output-help.h"
#include "jmem-output-table.h"
#include "jmem-text.h"

#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

static const struct {
  const char *name;
  int (*run) (int argc, char **argv);
  const char *summary;
} commands[] = {
  { "snapshot", jmem_cmd_snapshot, "What holds memory now: processes, GPU, NvMap, host facts" },
  { "capture", jmem_cmd_capture, "Write the raw inputs of a snapshot into a directory" },
  { "allocations", jmem_cmd_allocations, "NvMap handles per client (needs the helper or root)" },
  { "triage", jmem_cmd_triage, "Only the findings: what needs attention and what to do" },
  { "drop-caches", jmem_cmd_drop_caches, "Drop the kernel's caches through the helper; show what it freed" },
  { "audit", jmem_cmd_audit, "Snapshot, drop caches (or wait), snapshot again, and compare" },
  { "headroom", jmem_cmd_headroom, "How much a GPU allocation can still get; whether --need SIZE fits" },
  { "diff", jmem_cmd_diff, "Compare two saved snapshots (jmem snapshot --json)" },
  { "mcp", jmem_cmd_mcp, "Serve the Model Context Protocol on stdin and stdout, for AI agents" },
  { "watch", jmem_cmd_watch, "A snapshot every few seconds, as JSON Lines (a history)" },
  { "summary", jmem_cmd_summary, "Total, available, NvMap, GPU and the top holder on one line" },
  { "metrics", jmem_cmd_metrics, "Prometheus metrics on stdout or for node_exporter's textfile collector" },
  { "top", jmem_cmd_top, "Memory per process, live in the terminal, or a history replayed" },
  { "plot", jmem_cmd_plot, "Draw a history as PNG or SVG: memory per process over time" },
};

/* The columns of the terminal on stderr (at least JMEM_TABLE_MIN_WIDTH);
 * 0 (whole lines, as a log wants them) when stderr is not a terminal. */
static guint
stderr_width (void)
{
  struct winsize ws = { 0 };

  if (!isatty (STDERR_FILENO))
    return 0;
  if (ioctl (STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
    return jmem_table_clamp_width (ws.ws_col);
  return JMEM_TABLE_DEFAULT_WIDTH;
}

void
jmem_cmd_printerr (const char *format,
                   ...)
{
  g_autofree char *line = NULL;
  g_autofree char *shown = NULL;
  g_autoptr(GString) out = g_string_new (NULL);
  va_list ap;

  va_start (ap, format);
  line = g_strdup_vprintf (format, ap);
  va_end (ap);
  shown = jmem_text_for_terminal (line);
  jmem_table_append_wrapped (out, shown, stderr_width (), 0, 2);
  g_printerr ("%s\n", out->str);
}

int
jmem_cmd_report_error (const char   *command,
                       const GError *error,
                       const char   *without_helper)
{
  JmemAdvice advice = jmem_advice_for_error (error, JMEM_ADVICE_CAN_ASK);

  jmem_cmd_printerr ("%s: %s", command, error->message);
  if (advice.action != NULL && advice.helper_unavailable && without_helper != NULL)
    jmem_cmd_printerr ("To fix: %s, or %s", advice.action, without_helper);
  else if (advice.action != NULL)
    jmem_cmd_printerr ("To fix: %s", advice.action);
  return advice.exit_status;
}

/* Whether the options before any "--" ask for help, as GLib reads them. */
static gboolean
wants_help (int argc, char **argv)
{
  for (int i = 1; i < argc && !g_str_equal (argv[i], "--"); i++)
    if (g_str_equal (argv[i], "--help") || g_str_equal (argv[i], "-h") ||
        g_str_equal (argv[i], "-?") || g_str_has_prefix (argv[i], "--help-"))
      return TRUE;
  return FALSE;
}

/* After a --help or --version on stdout: 0, or 73 and why on stderr when
 * it could not be written (a full disk, a closed stdout). */
static int
stdout_status (void)
{
  if (fflush (stdout) == 0 && !ferror (stdout))
    return JMEM_EXIT_OK;
  g_printerr ("%s: cannot write to standard output: %s\n", g_get_prgname (), g_strerror (errno));
  return JMEM_EXIT_CANT_CREATE;
}

/* GLib's help, fitted to the terminal; then exits 0 as GLib would (freed
 * first: exit() runs no cleanup of this frame), or 73 as stdout_status(). */
static void
print_help (GOptionContext *context)
{
  char *help = g_option_context_get_help (context, TRUE, NULL);
  char *fitted = jmem_help_fit (help, jmem_help_width ());
  int status;

  fputs (fitted, stdout);
  g_free (fitted);
  g_free (help);
  status = stdout_status ();
  exit (status);
}

gboolean
jmem_cmd_parse (GOptionContext *context,
                int            *argc,
                char         ***argv,
                int             n_operands,
                const char     *operands)
{
  g_autoptr(GError) error = NULL;

  if (wants_help (*argc, *argv))
    print_help (context);
  if (!g_option_context_parse (context, argc, argv, &error))
    {
      jmem_cmd_printerr ("%s: %s", g_get_prgname (), error->message);
      g_printerr ("Try \"%s --help\".\n", g_get_prgname ());
      return FALSE;
    }
  if (n_operands < 0 || *argc - 1 == n_operands)
    return TRUE;
  if (n_operands == 0)
    jmem_cmd_printerr ("%s: unexpected argument \"%s\"", g_get_prgname (), (*argv)[1]);
  else
    g_printerr ("%s: give %s\n", g_get_prgname (), operands);
  g_printerr ("Try \"%s --help\".\n", g_get_prgname ());
  return FALSE;
}

gboolean
jmem_cmd_check_name (const char *option,
                     const char *value,
                     const char *takes)
{
  if (value == NULL || value[0] != '\0')
    return TRUE;
  g_printerr ("%s: --%s takes %s, not an empty name\n", g_get_prgname (), option, takes);
  g_printerr ("Try \"%s --help\".\n", g_get_prgname ());
  return FALSE;
}

gboolean
jmem_cmd_parse_size (const char *option,
                     const char *text,
                     guint64     min,
                     guint64    *bytes)
{
  g_autoptr(GError) error = NULL;
  guint64 value;

  if (text == NULL)
    return TRUE;
  /* blanks around it are a quoting mistake on a command line */
  if (g_ascii_isspace (text[0]) || (text[0] != '\0' && g_ascii_isspace (text[strlen (text) - 1])))
    jmem_cmd_printerr ("%s: --%s takes a size without blanks around it, not \"%s\"",
                       g_get_prgname (), option, text);
  else if (!jmem_size_parse (text, &value, &error))
    jmem_cmd_printerr ("%s: --%s: %s", g_get_prgname (), option, error->message);
  else if (value < min && min == 1)
    jmem_cmd_printerr ("%s: --%s takes a size above zero, not \"%s\"", g_get_prgname (), option, text);
  else if (value < min)
    jmem_cmd_printerr ("%s: --%s takes a size of %" G_GUINT64_FORMAT " bytes or more, not \"%s\"",
                       g_get_prgname (), option, min, text);
  else
    {
      *bytes = value;
      return TRUE;
    }
  g_printerr ("Try \"%s --help\".\n", g_get_prgname ());
  return FALSE;
}

gboolean
jmem_cmd_use_color (void)
{
  const char *term = g_getenv ("TERM");

  return isatty (STDOUT_FILENO) && g_getenv ("NO_COLOR") == NULL &&
         term != NULL && !g_str_equal (term, "dumb");
}

gboolean
jmem_cmd_write_stdout (const char *text, gsize len)
{
  /* what stdio may hold (a --help) goes first */
  if (fflush (stdout) == 0 && jmem_file_write_all (STDOUT_FILENO, text, len))
    return TRUE;
  g_printerr ("%s: cannot write to standard output: %s\n", g_get_prgname (), g_strerror (errno));
  return FALSE;
}

gboolean
jmem_cmd_write_stdout_wrapped (const char *text,
                               guint       hang)
{
  guint width = jmem_table_clamp_width (jmem_table_terminal_width ());
  g_auto(GStrv) lines = g_strsplit (text, "\n", -1);
  g_autoptr(GString) out = g_string_new (NULL);

  for (guint i = 0; lines[i] != NULL; i++)
    {
      jmem_table_append_wrapped (out, lines[i], width, 0, hang);
      if (lines[i + 1] != NULL)
        g_string_append_c (out, '\n');
    }
  return jmem_cmd_write_stdout (out->str, out->len);
}

gboolean
jmem_cmd_write_json (JsonNode *root)
{
  g_autofree char *text = json_to_string (root, TRUE);

  return jmem_cmd_write_stdout (text, strlen (text)) && jmem_cmd_write_stdout ("\n", 1);
}

static void
usage (FILE *out)
{
  g_autoptr(GString) text = g_string_new ("Usage:\n  jmem COMMAND [OPTION…]\n\nCommands:\n");
  g_autofree char *fitted = NULL;

  for (gsize i = 0; i < G_N_ELEMENTS (commands); i++)
    g_string_append_printf (text, "  %-12s %s\n", commands[i].name, commands[i].summary);
  g_string_append (text, "\nOptions:\n  --help       Show this help\n  --version    Show the version\n"
                         "\n\"jmem COMMAND --help\" explains each command.\n");
  fitted = jmem_help_fit (text->str, jmem_help_width ());
  fputs (fitted, out);
}

/* How many letters to change, add, remove or swap with the next to make
 * @a into @b (the optimal string alignment distance). */
static gsize
edit_distance (const char *a, const char *b)
{
  gsize la = strlen (a), lb = strlen (b);
  g_autofree gsize *d = g_new (gsize, (la + 1) * (lb + 1));

#define D(i, j) d[(i) * (lb + 1) + (j)]
  for (gsize i = 0; i <= la; i++)
    D (i, 0) = i;
  for (gsize j = 0; j <= lb; j++)
    D (0, j) = j;
  for (gsize i = 1; i <= la; i++)
    for (gsize j = 1; j <= lb; j++)
      {
        gsize cost = a[i - 1] == b[j - 1] ? 0 : 1;

        D (i, j) = MIN (MIN (D (i - 1, j) + 1, D (i, j - 1) + 1), D (i - 1, j - 1) + cost);
        if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
          D (i, j) = MIN (D (i, j), D (i - 2, j - 2) + 1);
      }
  return D (la, lb);
#undef D
}

/* The command @name was probably meant to be: the nearest within two
 * edits, else the only one it begins; NULL when none is. */
static const char *
nearest_command (const char *name)
{
  const char *best = NULL, *prefixed = NULL;
  gsize best_distance = 3;
  guint n_prefixed = 0;

  for (gsize i = 0; i < G_N_ELEMENTS (commands); i++)
    {
      gsize distance = edit_distance (name, commands[i].name);

      if (distance < best_distance)
        {
          best = commands[i].name;
          best_distance = distance;
        }
      if (name[0] != '\0' && g_str_has_prefix (commands[i].name, name))
        {
          prefixed = commands[i].name;
          n_prefixed++;
        }
    }
  return best != NULL ? best : n_prefixed == 1 ? prefixed : NULL;
}

/* A closed stdin, stdout or stderr gets a placeholder on which every
 * write fails, so that no file jmem opens takes its number and receives
 * what was meant for it; a write to it fails as any other (73, and why). */
static void
hold_standard_fds (void)
{
  for (int fd = STDIN_FILENO; fd <= STDERR_FILENO; fd++)
    {
      int held;

      if (fcntl (fd, F_GETFD) >= 0 || errno != EBADF)
        continue;
      held = open ("/dev/null", fd == STDIN_FILENO ? O_WRONLY : O_RDONLY);
      if (held >= 0 && held != fd)
        {
          dup2 (held, fd);
          close (held);
        }
    }
}

int
main (int argc, char **argv)
{
  hold_standard_fds ();
  setlocale (LC_ALL, "");
  g_set_prgname ("jmem");

  if (argc < 2)
    {
      usage (stderr);
      return JMEM_EXIT_USAGE;
    }
  if (g_str_equal (argv[1], "--version"))
    {
      printf ("jmem %s\n", JMEM_VERSION);
      return stdout_status ();
    }
  if (g_str_equal (argv[1], "--help") || g_str_equal (argv[1], "-h") ||
      g_str_equal (argv[1], "help"))
    {
      usage (stdout);
      return stdout_status ();
    }
  for (gsize i = 0; i < G_N_ELEMENTS (commands); i++)
    if (g_str_equal (argv[1], commands[i].name))
      {
        /* "Usage: jmem snapshot [OPTION…]" in --help and errors. */
        g_autofree char *prgname = g_strconcat ("jmem ", commands[i].name, NULL);

        g_set_prgname (prgname);
        return commands[i].run (argc - 1, argv + 1);
      }

  /* one line, not the whole usage: the mistake is usually a letter */
  if (nearest_command (argv[1]) != NULL)
    jmem_cmd_printerr ("jmem: unknown command \"%s\"; did you mean %s? (jmem --help lists them)",
                       argv[1], nearest_command (argv[1]));
  else
    jmem_cmd_printerr ("jmem: unknown command \"%s\" (jmem --help lists the commands)", argv[1]);
  return JMEM_EXIT_USAGE;
}
