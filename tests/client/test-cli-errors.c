/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What jmem does with wrong input and an output it cannot write: a clear
 * error on stderr and the status jmem(1) documents, never a crash, a silent
 * default or a silent failure; and with a system bus that accepts and never
 * answers, an answer within the bus deadline. */
#include <errno.h>
#include <fcntl.h>
#include <gio/gio.h>
#include <gio/gunixsocketaddress.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>

#include "jmem-test.h"

static const char *jmem_exe;
static char *orin;

/* jmem ARGS with stdin from /dev/null (no terminal: polkit never asks);
 * with @bus, DBUS_SYSTEM_BUS_ADDRESS set to it; with @to_full, stdout goes
 * to /dev/full. */
static void
run_jmem (JmemTestRun *r, const char *bus, gboolean to_full, const char *const *args)
{
  g_autoptr(GSubprocessLauncher) launcher =
    g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDERR_PIPE |
                               (to_full ? 0 : G_SUBPROCESS_FLAGS_STDOUT_PIPE));

  if (bus != NULL)
    g_subprocess_launcher_setenv (launcher, "DBUS_SYSTEM_BUS_ADDRESS", bus, TRUE);
  if (to_full)
    {
      int fd = open ("/dev/full", O_WRONLY | O_CLOEXEC);

      g_assert_cmpint (fd, >=, 0);
      g_subprocess_launcher_take_stdout_fd (launcher, fd);
    }
  g_test_message ("jmem %s", args[0]);
  jmem_test_run_jmem_full (r, launcher, NULL, args);
}

typedef struct {
  const char *args[8];
  const char *says;   /* on stderr */
} BadInput;

/* Each was accepted (or crashed) before: now a usage error (64) that says
 * what the option takes, with nothing on stdout. */
static const BadInput bad_inputs[] = {
  { { "capture", "", NULL }, "give a directory, not an empty name" },
  { { "snapshot", "--sysroot", "", NULL }, "--sysroot takes a directory" },
  { { "allocations", "--sysroot", "", NULL }, "--sysroot takes a directory" },
  { { "triage", "--sysroot", "", NULL }, "--sysroot takes a directory" },
  { { "watch", "--count", "1", "--sysroot", "", NULL }, "--sysroot takes a directory" },
  { { "summary", "--sysroot", "", NULL }, "--sysroot takes a directory" },
  { { "metrics", "--sysroot", "", NULL }, "--sysroot takes a directory" },
  { { "mcp", "--sysroot", "", NULL }, "--sysroot takes a directory" },
  { { "snapshot", "--width", "-1", NULL }, "--width takes 60 to 10000 columns, not \"-1\"" },
  { { "allocations", "--width", "-1", NULL }, "--width takes 60 to 10000 columns, not \"-1\"" },
  { { "allocations", "--pid", "-1", NULL }, "--pid takes a process ID" },
  { { "audit", "--no-drop", "--interval", "-1", NULL }, "--interval takes 0 to 86400 seconds, not \"-1\"" },
  { { "summary", "--watch", "0", NULL }, "--watch takes 1 to 86400 seconds, not \"0\"" },
  { { "snapshot", "--top", "-1", NULL }, "--top takes a count of 0 or more" },
  { { "watch", "--top", "3", "--all", NULL }, "excludes --all" },
  { { "audit", "--top", "-1", "--no-drop", NULL }, "--top takes a count of 0 or more" },
  { { "diff", "--top", "-1", "a", "b", NULL }, "--top takes a count of 0 or more" },
  { { "metrics", "--top", "-1", NULL }, "--top takes a count of 0 or more" },
};

static void
test_bad_input (void)
{
  for (gsize i = 0; i < G_N_ELEMENTS (bad_inputs); i++)
    {
      const BadInput *b = &bad_inputs[i];
      g_auto(JmemTestRun) r = { 0 };

      run_jmem (&r, NULL, FALSE, b->args);
      if (r.status != 64 || strstr (r.err, b->says) == NULL)
        g_error ("jmem %s %s %s: exit %d, stderr \"%s\"; expected 64 and \"%s\"", b->args[0],
                 b->args[1], b->args[2] ? b->args[2] : "", r.status, r.err, b->says);
      g_assert_nonnull (strstr (r.err, "--help"));
      g_assert_cmpstr (r.out, ==, "");
    }
}

/* A full disk behind stdout: 73 and the reason, for every command that
 * prints a report. */
static void
test_full_stdout (void)
{
  const char *const commands[][6] = {
    { "snapshot", "--sysroot", orin, NULL },
    { "snapshot", "--json", "--sysroot", orin, NULL },
    { "allocations", "--sysroot", orin, NULL },
    { "allocations", "--json", "--sysroot", orin, NULL },
    { "triage", "--sysroot", orin, NULL },
    { "summary", "--sysroot", orin, NULL },
    { "metrics", "--sysroot", orin, NULL },
    { "watch", "--count", "1", "--sysroot", orin, NULL },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (commands); i++)
    {
      g_auto(JmemTestRun) r = { 0 };

      run_jmem (&r, NULL, TRUE, commands[i]);
      if (r.status != 73 || strstr (r.err, "cannot write to standard output: ") == NULL ||
          strstr (r.err, g_strerror (ENOSPC)) == NULL)
        g_error ("jmem %s %s > /dev/full: exit %d, stderr \"%s\"", commands[i][0], commands[i][1],
                 r.status, r.err);
    }
}

static void
close_stdout (gpointer data)
{
  close (STDOUT_FILENO);
}

/* jmem ARGS with stdout closed (@closed) or on /dev/full, stdin from
 * @input (nullable: /dev/null). */
static void
run_unwritable (JmemTestRun *r, gboolean closed, const char *input, const char *const *args)
{
  g_autoptr(GSubprocessLauncher) launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDERR_PIPE);
  int fd = open (closed ? "/dev/null" : "/dev/full", O_WRONLY | O_CLOEXEC);

  g_assert_cmpint (fd, >=, 0);
  g_subprocess_launcher_take_stdout_fd (launcher, fd);
  if (closed)
    g_subprocess_launcher_set_child_setup (launcher, close_stdout, NULL, NULL);
  if (input != NULL)
    g_subprocess_launcher_set_stdin_file_path (launcher, input);
  jmem_test_run_jmem_full (r, launcher, NULL, args);
}

/* --help, --version and an MCP answer that cannot be written (a full disk,
 * a closed stdout): 73 and why on stderr, never a silent 0, 73 or 70. */
static void
test_unwritable_help (void)
{
  g_autofree char *dir = g_dir_make_tmp ("jmem-cli-errors-XXXXXX", NULL);
  g_autofree char *input = g_build_filename (dir, "ping.jsonl", NULL);
  const char *const commands[][4] = {
    { "--help", NULL },
    { "--version", NULL },
    { "help", NULL },
    { "snapshot", "--help", NULL },
    { "top", "--help", NULL },
    { "mcp", NULL },
  };

  g_assert_true (g_file_set_contents (input, "{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \"ping\"}\n",
                                      -1, NULL));
  for (gsize i = 0; i < G_N_ELEMENTS (commands); i++)
    for (int closed = 0; closed <= 1; closed++)
      {
        g_auto(JmemTestRun) r = { 0 };
        const char *why = g_strerror (closed ? EBADF : ENOSPC);

        run_unwritable (&r, closed, input, commands[i]);
        if (r.status != 73 || strstr (r.err, "cannot write to standard output: ") == NULL ||
            strstr (r.err, why) == NULL)
          g_error ("jmem %s %s with stdout %s: exit %d, stderr \"%s\"; expected 73 and \"%s\"",
                   commands[i][0], commands[i][1] ? commands[i][1] : "", closed ? "closed" : "on /dev/full",
                   r.status, r.err, why);
      }
  g_unlink (input);
  g_rmdir (dir);
}

/* A mistyped command: one line naming the nearest command, not the whole
 * usage, and 64; a name near none gets the line without a guess. */
static void
test_unknown_command (void)
{
  const struct {
    const char *name;
    const char *says;
  } cases[] = {
    { "snapshto", "jmem: unknown command \"snapshto\"; did you mean snapshot?" },
    { "metric", "did you mean metrics?" },
    { "alocations", "did you mean allocations?" },
    { "plto", "did you mean plot?" },
    { "xyz", "jmem: unknown command \"xyz\" (jmem --help lists the commands)" },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      const char *const args[] = { cases[i].name, NULL };
      g_auto(JmemTestRun) r = { 0 };

      run_jmem (&r, NULL, FALSE, args);
      g_assert_cmpint (r.status, ==, 64);
      g_assert_nonnull (strstr (r.err, cases[i].says));
      /* one line */
      g_assert_cmpint (strchr (r.err, '\n') - r.err, ==, (gssize) strlen (r.err) - 1);
      if (strstr (cases[i].says, "did you mean") == NULL)
        g_assert_null (strstr (r.err, "did you mean"));
      g_assert_cmpstr (r.out, ==, "");
    }
}

/* A listening socket nobody answers on: the kernel completes each
 * connection, and jmem waits for an answer to its authentication that never
 * comes, as with a frozen bus daemon. */
static char *
frozen_bus (GSocket **listener, char **dir)
{
  g_autofree char *path = NULL;
  g_autoptr(GSocketAddress) where = NULL;

  *dir = jmem_test_make_tmp ("jmem-frozen-bus-XXXXXX", NULL);
  path = g_build_filename (*dir, "bus", NULL);
  where = g_unix_socket_address_new (path);
  *listener = g_socket_new (G_SOCKET_FAMILY_UNIX, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_DEFAULT, NULL);
  g_assert_nonnull (*listener);
  g_assert_true (g_socket_bind (*listener, where, FALSE, NULL));
  g_assert_true (g_socket_listen (*listener, NULL));
  return g_strdup_printf ("unix:path=%s", path);
}

/* drop-caches and audit need the helper: they say the bus did not answer,
 * within the 10 s deadline rather than never, and exit 69; audit names its
 * way without the helper. */
static void
test_frozen_bus (void)
{
  g_autoptr(GSocket) listener = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *address = frozen_bus (&listener, &dir);
  const char *const drop[] = { "drop-caches", "--no-ask-password", NULL };
  const char *const audit[] = { "audit", "--no-ask-password", NULL };
  g_auto(JmemTestRun) d = { 0 };
  g_auto(JmemTestRun) a = { 0 };
  g_autofree char *socket_path = g_build_filename (dir, "bus", NULL);

  run_jmem (&d, address, FALSE, drop);
  run_jmem (&a, address, FALSE, audit);
  g_unlink (socket_path);
  g_rmdir (dir);

  g_assert_cmpint (d.status, ==, 69);
  g_assert_nonnull (strstr (d.err, "caches were not dropped: the system bus did not answer within 10 s"));
  g_assert_nonnull (strstr (d.err, "To fix: check the system bus daemon"));
  g_assert_cmpfloat (d.seconds, <, 20);
  g_assert_cmpstr (d.out, ==, "");
  g_assert_cmpint (a.status, ==, 69);
  g_assert_nonnull (strstr (a.err, "the system bus did not answer"));
  g_assert_nonnull (strstr (a.err, "or compare without dropping caches: jmem audit --no-drop"));
  g_assert_cmpfloat (a.seconds, <, 20);
}

/* A report asks systemd for the service states over the same bus: it goes
 * on without them, saying why, within the deadline; watch and summary
 * --watch end at SIGTERM instead of hanging in their first sample. */
static void
test_frozen_bus_reports (void)
{
  g_autoptr(GSocket) listener = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *address = frozen_bus (&listener, &dir);
  g_autofree char *socket_path = g_build_filename (dir, "bus", NULL);
  const char *const snapshot[] = { "snapshot", NULL };
  const char *const watch[] = { "watch", "--interval", "1", NULL };
  const char *const summary[] = { "summary", "--watch", "1", NULL };
  const char *const *repeating[] = { watch, summary };
  g_auto(JmemTestRun) r = { 0 };

  run_jmem (&r, address, FALSE, snapshot);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpfloat (r.seconds, <, 20);
  g_assert_nonnull (strstr (r.out, "the system bus did not answer within 10 s"));

  for (gsize i = 0; i < G_N_ELEMENTS (repeating); i++)
    {
      g_autoptr(GSubprocessLauncher) launcher =
        g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE);
      const char *argv[] = { jmem_exe, repeating[i][0], repeating[i][1], repeating[i][2], NULL };
      g_autoptr(GSubprocess) process = NULL;
      g_autoptr(GError) error = NULL;
      g_auto(JmemTestRun) w = { 0 };
      gint64 start = g_get_monotonic_time ();

      g_subprocess_launcher_setenv (launcher, "DBUS_SYSTEM_BUS_ADDRESS", address, TRUE);
      process = g_subprocess_launcher_spawnv (launcher, argv, &error);
      g_assert_no_error (error);
      g_usleep (G_USEC_PER_SEC);
      g_subprocess_send_signal (process, SIGTERM);
      jmem_test_run_finish (process, start, &w);
      g_assert_cmpint (w.status, ==, 0);
      g_assert_cmpfloat (w.seconds, <, 20);
      /* the sample in progress ends whole */
      g_assert_true (g_str_has_suffix (w.out, "\n"));
    }
  g_unlink (socket_path);
  g_rmdir (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  jmem_exe = g_getenv ("JMEM_EXE");
  g_assert_nonnull (jmem_exe);
  orin = jmem_test_fixture ("trees", "orin-agx-nvgpu", NULL);

  g_test_add_func ("/cli-errors/bad-input", test_bad_input);
  g_test_add_func ("/cli-errors/full-stdout", test_full_stdout);
  g_test_add_func ("/cli-errors/unwritable-help", test_unwritable_help);
  g_test_add_func ("/cli-errors/unknown-command", test_unknown_command);
  g_test_add_func ("/cli-errors/frozen-bus", test_frozen_bus);
  g_test_add_func ("/cli-errors/frozen-bus-reports", test_frozen_bus_reports);
  return g_test_run ();
}
