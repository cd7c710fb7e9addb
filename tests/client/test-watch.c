/* SPDX-License-Identifier: GPL-2.0-or-later */
/* jmem watch and jmem summary through the built jmem on fixture trees: the
 * lines written (each a schema-valid snapshot), the cap and its atomic
 * rewrite, several writers of one history, a clean end on SIGINT and
 * SIGTERM, a torn last line repaired, a system bus frozen mid-run (live),
 * and the summary's numbers and escaping. */
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "jmem-test.h"

#include "jmem-diff.h"
#include "jmem-history.h"
#include "jmem-history-writer.h"
#include "jmem-meminfo.h"

static const char *jmem_exe;
static char *tmpdir;
static char *orin;

static char *
temp_path (const char *name)
{
  char *path = g_build_filename (tmpdir, name, NULL);

  g_unlink (path);
  return path;
}

/* The file's lines; asserts it ends with a newline and every line is a
 * snapshot the diff code accepts. */
static GStrv
history_lines (const char *path)
{
  g_autofree char *data = NULL;
  gsize len = 0;
  GStrv lines;
  guint n;

  g_assert_true (g_file_get_contents (path, &data, &len, NULL));
  g_assert_cmpuint (len, >, 0);
  g_assert_cmpint (data[len - 1], ==, '\n');
  data[len - 1] = '\0';
  lines = g_strsplit (data, "\n", -1);
  n = g_strv_length (lines);
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(JsonNode) node = jmem_diff_parse_snapshot (lines[i], strlen (lines[i]), "line", &error);

      g_assert_no_error (error);
      g_assert_nonnull (node);
    }
  return lines;
}

static void
test_count_file (void)
{
  g_autofree char *path = temp_path ("count.jsonl");
  const char *args[] = { "watch", "--sysroot", orin, "--interval", "1", "--count", "3",
                         "--output", path, NULL };
  g_auto(JmemTestRun) r = { 0 };
  g_auto(GStrv) lines = NULL;
  struct stat st;

  jmem_test_run_jmem (&r, args);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpstr (r.out, ==, "");
  lines = history_lines (path);
  g_assert_cmpuint (g_strv_length (lines), ==, 3);
  {
    g_autofree char *python = g_find_program_in_path ("python3");

    if (python != NULL)
      jmem_test_assert_valid (lines[2], "snapshot.schema.json");
  }
  /* a history names every process's command line: private by default */
  g_assert_cmpint (g_stat (path, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 077, ==, 0);

  /* a second run appends */
  jmem_test_run_clear (&r);
  jmem_test_run_jmem (&r, args);
  g_assert_cmpint (r.status, ==, 0);
  g_strfreev (lines);
  lines = history_lines (path);
  g_assert_cmpuint (g_strv_length (lines), ==, 6);
}

/* Recording to a file, jmem watch says once where, how often and how to
 * stop, on a terminal (util-linux script gives it one); to a pipe, nothing
 * (a service's journal gets no line a minute). */
static void
test_count_file_says (void)
{
  g_autofree char *path = temp_path ("says.jsonl");
  g_autofree char *script = g_find_program_in_path ("script");
  g_autofree char *q_exe = g_shell_quote (jmem_exe);
  g_autofree char *q_orin = g_shell_quote (orin);
  g_autofree char *q_path = g_shell_quote (path);
  g_autofree char *command = g_strdup_printf ("%s watch --sysroot %s --interval 1 --count 2 "
                                              "--output %s", q_exe, q_orin, q_path);
  const char *args[] = { "watch", "--sysroot", orin, "--interval", "1", "--count", "2",
                         "--output", path, NULL };
  g_auto(JmemTestRun) piped = { 0 }, tty = { 0 };
  g_auto(GStrv) lines = NULL;
  g_autoptr(GString) said = NULL;

  jmem_test_run_jmem (&piped, args);
  g_assert_cmpint (piped.status, ==, 0);
  g_assert_cmpstr (piped.err, ==, "");
  g_assert_cmpstr (piped.out, ==, "");
  if (script == NULL)
    {
      g_test_skip ("util-linux script is not installed: no terminal to try");
      return;
    }
  {
    const char *argv[] = { script, "-qec", command, "/dev/null", NULL };
    g_autoptr(GSubprocessLauncher) launcher = jmem_test_launcher ((const char *const[]) {
      "COLUMNS=200", NULL });

    jmem_test_run_spawn (&tty, launcher, argv);
  }
  g_assert_cmpint (tty.status, ==, 0);
  /* as one line: the terminal's CRs and the wrapping's indent out */
  said = g_string_new (NULL);
  for (const char *p = tty.out; *p != '\0'; p++)
    if (g_str_has_prefix (p, "\r\n  ") || g_str_has_prefix (p, "\n  "))
      {
        g_string_append_c (said, ' ');
        p += *p == '\r' ? 3 : 2;
      }
    else if (*p != '\r')
      g_string_append_c (said, *p);
  g_test_message ("said: %s", said->str);
  g_assert_nonnull (strstr (said->str, "jmem watch: recording a snapshot every 1 s to "));
  g_assert_nonnull (strstr (said->str, path));
  g_assert_nonnull (strstr (said->str, "Ctrl-C stops it"));
  /* once, not once a snapshot */
  g_assert_null (strstr (strstr (said->str, "recording") + 1, "recording"));
  lines = history_lines (path);
  g_assert_cmpuint (g_strv_length (lines), ==, 4);
}

static void
test_count_stdout (void)
{
  const char *args[] = { "watch", "--sysroot", orin, "--interval", "1", "--count", "2", "--all", NULL };
  g_auto(JmemTestRun) r = { 0 };
  g_auto(GStrv) lines = NULL;
  g_autoptr(JsonNode) node = NULL;

  jmem_test_run_jmem (&r, args);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_str_has_suffix (r.out, "}\n"));
  r.out[strlen (r.out) - 1] = '\0';
  lines = g_strsplit (r.out, "\n", -1);
  g_assert_cmpuint (g_strv_length (lines), ==, 2);
  node = json_from_string (lines[1], NULL);
  g_assert_nonnull (node);
  /* --all keeps every process of the tree */
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (json_node_get_object (node), "processes"), "shown"),
                   ==,
                   json_object_get_int_member (json_object_get_object_member (json_node_get_object (node), "processes"), "total"));
}

static guint
count_lines (const char *path)
{
  g_autofree char *data = NULL;
  gsize len = 0;
  guint n = 0;

  if (g_file_get_contents (path, &data, &len, NULL))
    for (gsize i = 0; i < len; i++)
      n += data[i] == '\n';
  return n;
}

/* jmem watch until stopped by @signum: it ends with status 0 and a file of
 * whole lines. */
static void
stop_with (int signum)
{
  g_autofree char *path = temp_path ("signal.jsonl");
  const char *argv[] = { jmem_exe, "watch", "--sysroot", orin, "--interval", "1", "--output", path, NULL };
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) lines = NULL;
  GPid pid;
  int wait_status = 0;

  g_assert_true (g_spawn_async (NULL, (char **) argv, NULL, G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL,
                                &pid, &error));
  g_assert_no_error (error);
  for (guint tries = 0; tries < 300 && count_lines (path) < 2; tries++)
    g_usleep (100 * 1000);
  g_assert_cmpint (kill (pid, signum), ==, 0);
  g_assert_cmpint (waitpid (pid, &wait_status, 0), ==, pid);
  g_spawn_close_pid (pid);
  g_assert_true (WIFEXITED (wait_status));
  g_assert_cmpint (WEXITSTATUS (wait_status), ==, 0);
  lines = history_lines (path);
  g_assert_cmpuint (g_strv_length (lines), >=, 2);
}

static void
test_sigint (void)
{
  stop_with (SIGINT);
}

static void
test_sigterm (void)
{
  stop_with (SIGTERM);
}

static guint
count_entries (const char *dir)
{
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  guint n = 0;

  g_assert_nonnull (d);
  while (g_dir_read_name (d) != NULL)
    n++;
  return n;
}

/* The writer under a cap: the file never passes it, the newest line is
 * always last and whole, the oldest go first, no temporary file stays. */
static void
test_cap_writer (void)
{
  g_autofree char *dir = g_build_filename (tmpdir, "cap", NULL);
  g_autofree char *path = g_build_filename (dir, "h.jsonl", NULL);
  g_autoptr(JmemHistoryWriter) w = NULL;
  g_autoptr(GError) error = NULL;
  const guint64 cap = 8192;
  guint rewrites_seen = 0;
  gsize last_len = 0;

  g_assert_cmpint (g_mkdir (dir, 0700), ==, 0);
  w = jmem_history_writer_open (path, cap, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < 60; i++)
    {
      g_autofree char *line = g_strdup_printf ("{\"n\": %u, \"pad\": \"%0*d\"}", i, 400 + (int) (i % 7) * 50, 0);
      g_autofree char *data = NULL;
      g_auto(GStrv) lines = NULL;
      gsize len = 0;
      guint n;

      g_assert_true (jmem_history_writer_append (w, line, &error));
      g_assert_no_error (error);
      g_assert_true (g_file_get_contents (path, &data, &len, NULL));
      g_assert_cmpuint (len, <=, cap);
      g_assert_cmpint (data[len - 1], ==, '\n');
      if (len < last_len)
        rewrites_seen++;
      last_len = len;
      data[len - 1] = '\0';
      lines = g_strsplit (data, "\n", -1);
      n = g_strv_length (lines);
      g_assert_cmpstr (lines[n - 1], ==, line);
      /* consecutive, oldest first: nothing dropped from the middle */
      for (guint k = 0; k < n; k++)
        {
          g_autofree char *prefix = g_strdup_printf ("{\"n\": %u,", i - (n - 1 - k));

          g_assert_true (g_str_has_prefix (lines[k], prefix));
        }
      g_assert_cmpuint (count_entries (dir), ==, 1);
    }
  g_assert_cmpuint (rewrites_seen, >, 2);
}

#define FROZEN_SAMPLES 9

/* The system bus freezes mid-run (its daemon stopped): the sample that
 * finds it waits for the deadline (5 s for the service states), and the
 * samples after it, within 30 s, do not wait for it again. Waiting at each
 * of the 7 or more samples after the freeze takes 35 s at least. */
static void
test_frozen_bus (void)
{
  g_autofree char *base = g_build_filename (tmpdir, "frozen-bus", NULL);
  g_autofree char *path = temp_path ("frozen.jsonl");
  g_autofree char *count = g_strdup_printf ("%d", FROZEN_SAMPLES);
  g_autofree char *address = NULL;
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GSubprocess) bus = NULL;
  g_autoptr(GSubprocess) watch = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) last = NULL;
  g_auto(GStrv) lines = NULL;
  JsonArray *warnings;
  gboolean said = FALSE;
  gint64 frozen_at = 0;
  double seconds;
  guint before = 0;

  g_assert_cmpint (g_mkdir (base, 0700), ==, 0);
  bus = jmem_test_bus_start (base, &address);
  if (bus == NULL)
    {
      g_test_skip ("dbus-daemon is not installed");
      return;
    }
  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDERR_SILENCE);
  g_subprocess_launcher_set_child_setup (launcher, jmem_test_die_with_test, NULL, NULL);
  g_subprocess_launcher_setenv (launcher, "DBUS_SYSTEM_BUS_ADDRESS", address, TRUE);
  /* live: the bus is asked for the service states at every sample */
  watch = g_subprocess_launcher_spawn (launcher, &error, "timeout", "--foreground", "120",
                                       jmem_exe, "watch", "--interval", "1", "--count", count, "--top", "1",
                                       "--no-ask-password", "--output", path, NULL);
  g_assert_no_error (error);
  for (guint tries = 0; tries < 1200 && before == 0; tries++)
    {
      before = count_lines (path);
      if (before == 0)
        g_usleep (100 * 1000);
    }
  if (before > 0)
    {
      jmem_test_stop_process (bus);
      frozen_at = g_get_monotonic_time ();
    }
  g_subprocess_wait (watch, NULL, &error);
  seconds = (g_get_monotonic_time () - frozen_at) / 1e6;
  /* the bus as it was, then gone: SIGTERM removes its socket */
  g_subprocess_send_signal (bus, SIGCONT);
  g_subprocess_send_signal (bus, SIGTERM);
  g_subprocess_wait (bus, NULL, NULL);

  g_assert_no_error (error);
  g_assert_cmpuint (before, >=, 1);
  g_assert_true (g_subprocess_get_if_exited (watch));
  g_assert_cmpint (g_subprocess_get_exit_status (watch), ==, 0);
  g_test_message ("%u samples after the bus froze took %.1f s", FROZEN_SAMPLES - before, seconds);
  g_assert_cmpuint (before, <=, 2);
  g_assert_cmpfloat (seconds, <, 30);
  lines = history_lines (path);
  g_assert_cmpuint (g_strv_length (lines), ==, FROZEN_SAMPLES);
  /* the last sample says why the service states are missing */
  last = json_from_string (lines[FROZEN_SAMPLES - 1], &error);
  g_assert_no_error (error);
  warnings = json_object_get_array_member (json_node_get_object (last), "warnings");
  for (guint i = 0; i < json_array_get_length (warnings); i++)
    {
      JsonObject *w = json_array_get_object_element (warnings, i);

      said |= g_str_equal (json_object_get_string_member (w, "source"), "services") &&
              strstr (json_object_get_string_member (w, "message"),
                      "the system bus did not answer within 5 s") != NULL;
    }
  g_assert_true (said);
  g_rmdir (base);
}

#define N_WRITERS 4
#define LINES_EACH 60

/* One of the writers of test_concurrent_writers: this program started
 * again as `--history-writer PATH ID` (a process of its own, exec'd, as
 * two jmem watch are). Its lines; then, once it says so on stdout and
 * stdin answers (every writer is that far), its last one. */
static int
concurrent_writer (const char *path, const char *id_text)
{
  g_autoptr(JmemHistoryWriter) w = jmem_history_writer_open (path, 8192, NULL);
  guint id = (guint) g_ascii_strtoull (id_text, NULL, 10);
  char byte = 0;

  if (w == NULL)
    return 2;
  for (guint n = 0; n <= LINES_EACH; n++)
    {
      g_autofree char *line = g_strdup_printf ("{\"w\": %u, \"n\": %u, \"pad\": \"%0*d\"}", id, n,
                                               150 + (int) ((id * 7 + n) % 5) * 40, 0);

      if (n == LINES_EACH && (write (STDOUT_FILENO, "", 1) != 1 || read (STDIN_FILENO, &byte, 1) != 1))
        return 3;
      if (!jmem_history_writer_append (w, line, NULL))
        return 4;
    }
  return 0;
}

static const char *test_exe;

/* Four writers of one capped history, rewriting it in turn: no line any of
 * them wrote is lost but to the trim of the oldest. Each writer's lines
 * are there without a gap up to its last one, which all wrote at the end;
 * with writers that kept appending to a file another's rewrite had
 * replaced, the file held the lines of one writer only. */
static void
test_concurrent_writers (void)
{
  g_autofree char *dir = g_build_filename (tmpdir, "concurrent", NULL);
  g_autofree char *path = g_build_filename (dir, "h.jsonl", NULL);
  g_autofree char *data = NULL;
  g_auto(GStrv) lines = NULL;
  GPid pids[N_WRITERS];
  int to[N_WRITERS], from[N_WRITERS];
  gint next[N_WRITERS];
  gboolean failed = FALSE;
  gsize len = 0;
  char byte;

  g_assert_cmpint (g_mkdir (dir, 0700), ==, 0);
  for (guint i = 0; i < N_WRITERS; i++)
    {
      g_autoptr(GPtrArray) argv = g_ptr_array_new_with_free_func (g_free);
      g_autoptr(GError) error = NULL;

      jmem_test_add_program (argv, test_exe);
      g_ptr_array_add (argv, g_strdup ("--history-writer"));
      g_ptr_array_add (argv, g_strdup (path));
      g_ptr_array_add (argv, g_strdup_printf ("%u", i));
      g_ptr_array_add (argv, NULL);
      /* a test that fails meanwhile ends the writers with it */
      g_assert_true (g_spawn_async_with_pipes (NULL, (char **) argv->pdata, NULL,
                                               G_SPAWN_DO_NOT_REAP_CHILD, jmem_test_die_with_test,
                                               NULL, &pids[i], &to[i], &from[i], NULL, &error));
      g_assert_no_error (error);
    }
  for (guint i = 0; i < N_WRITERS; i++)
    failed |= read (from[i], &byte, 1) != 1;
  for (guint i = 0; i < N_WRITERS; i++)
    failed |= write (to[i], "", 1) != 1;
  for (guint i = 0; i < N_WRITERS; i++)
    {
      int status = 0;

      g_assert_cmpint (waitpid (pids[i], &status, 0), ==, pids[i]);
      g_spawn_close_pid (pids[i]);
      close (to[i]);
      close (from[i]);
      g_assert_true (WIFEXITED (status));
      g_assert_cmpint (WEXITSTATUS (status), ==, 0);
    }
  g_assert_false (failed);

  g_assert_true (g_file_get_contents (path, &data, &len, NULL));
  g_assert_cmpuint (len, <=, 8192);
  g_assert_cmpint (data[len - 1], ==, '\n');
  data[len - 1] = '\0';
  lines = g_strsplit (data, "\n", -1);
  for (guint i = 0; i < N_WRITERS; i++)
    next[i] = -1;
  for (guint k = 0; lines[k] != NULL; k++)
    {
      guint id, n;

      g_assert_cmpint (sscanf (lines[k], "{\"w\": %u, \"n\": %u,", &id, &n), ==, 2);
      g_assert_cmpuint (id, <, N_WRITERS);
      /* a writer's lines in its order, none missing after its first kept */
      if (next[id] >= 0)
        g_assert_cmpuint (n, ==, (guint) next[id]);
      next[id] = (gint) n + 1;
    }
  for (guint i = 0; i < N_WRITERS; i++)
    g_assert_cmpint (next[i], ==, LINES_EACH + 1);
  /* no writer's rewrite left behind */
  g_assert_cmpuint (count_entries (dir), ==, 1);
}

/* A line above the cap is kept alone rather than lost. */
static void
test_cap_huge_line (void)
{
  g_autofree char *path = temp_path ("huge.jsonl");
  g_autoptr(JmemHistoryWriter) w = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *big = g_strnfill (10000, 'x');
  g_autofree char *data = NULL;

  w = jmem_history_writer_open (path, 4096, &error);
  g_assert_no_error (error);
  g_assert_true (jmem_history_writer_append (w, "first", &error));
  g_assert_true (jmem_history_writer_append (w, big, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (path, &data, NULL, NULL));
  g_assert_cmpuint (strlen (data), ==, 10001);
  g_assert_true (jmem_history_writer_append (w, "after", &error));
  g_clear_pointer (&data, g_free);
  g_assert_true (g_file_get_contents (path, &data, NULL, NULL));
  g_assert_cmpstr (data, ==, "after\n");
}

/* The command under a cap of two and a half lines. */
static void
test_cap_command (void)
{
  g_autofree char *path = temp_path ("capped.jsonl");
  g_autofree char *probe = temp_path ("probe.jsonl");
  const char *once[] = { "watch", "--sysroot", orin, "--count", "1", "--output", probe, NULL };
  g_auto(JmemTestRun) r = { 0 };
  g_autofree char *data = NULL;
  g_autofree char *max = NULL;
  g_auto(GStrv) lines = NULL;
  gsize line_len = 0;

  jmem_test_run_jmem (&r, once);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_file_get_contents (probe, &data, &line_len, NULL));
  /* in the size reader's units, as people write it: KiB, rounded down */
  max = g_strdup_printf ("%" G_GSIZE_FORMAT "K", line_len * 5 / 2 / 1024);
  {
    const char *args[] = { "watch", "--sysroot", orin, "--interval", "1", "--count", "5",
                           "--max-bytes", max, "--output", path, NULL };
    struct stat st;

    jmem_test_run_clear (&r);
    jmem_test_run_jmem (&r, args);
    g_assert_cmpint (r.status, ==, 0);
    g_assert_cmpint (g_stat (path, &st), ==, 0);
    g_assert_cmpint (st.st_size, <=, (goffset) (line_len * 5 / 2 / 1024 * 1024));
    lines = history_lines (path);
    g_assert_cmpuint (g_strv_length (lines), >=, 1);
    g_assert_cmpuint (g_strv_length (lines), <=, 2);
  }
}

/* A writer killed mid-line left a torn tail: readers skip it, the next
 * writer cuts it before appending. */
static void
test_torn_tail (void)
{
  g_autofree char *path = temp_path ("torn.jsonl");
  g_autofree char *good = NULL;
  g_autofree char *contents = NULL;
  g_autoptr(GError) error = NULL;
  const char *args[] = { "triage", "--history", path, NULL };
  const char *watch[] = { "watch", "--sysroot", orin, "--count", "1", "--output", path, NULL };
  g_auto(JmemTestRun) r = { 0 };
  g_auto(GStrv) lines = NULL;

  {
    g_autofree char *probe = temp_path ("torn-probe.jsonl");
    const char *once[] = { "watch", "--sysroot", orin, "--count", "1", "--output", probe, NULL };

    jmem_test_run_jmem (&r, once);
    g_assert_cmpint (r.status, ==, 0);
    g_assert_true (g_file_get_contents (probe, &good, NULL, NULL));
    jmem_test_run_clear (&r);
  }
  contents = g_strdup_printf ("%s{\"schema\": \"jmem-snap", good);
  g_assert_true (g_file_set_contents (path, contents, -1, &error));

  jmem_test_run_jmem (&r, args);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.err, "unterminated last line"));
  jmem_test_run_clear (&r);

  jmem_test_run_jmem (&r, watch);
  g_assert_cmpint (r.status, ==, 0);
  lines = history_lines (path);
  g_assert_cmpuint (g_strv_length (lines), ==, 2);
}

static void
test_refusals (void)
{
  g_autofree char *target = temp_path ("target.jsonl");
  g_autofree char *link = temp_path ("link.jsonl");
  g_autofree char *nodir = g_build_filename (tmpdir, "no", "such", "dir.jsonl", NULL);
  const char *via_link[] = { "watch", "--sysroot", orin, "--count", "1", "--output", link, NULL };
  const char *in_nodir[] = { "watch", "--sysroot", orin, "--count", "1", "--output", nodir, NULL };
  const char *const usage[][8] = {
    { "watch", "--interval", "0", NULL },
    { "watch", "--count", "-1", NULL },
    { "watch", "--max-bytes", "100", NULL },
    { "watch", "--max-bytes", "6X", NULL },
    { "watch", "--max-bytes", "-1", NULL },
    { "watch", "--top", "3", "--all", NULL },
    { "watch", "extra", NULL },
    { "summary", "--watch", "-1", NULL },
  };

  g_assert_cmpint (symlink (target, link), ==, 0);
  {
    g_auto(JmemTestRun) r = { 0 };

    jmem_test_run_jmem (&r, via_link);
    g_assert_cmpint (r.status, ==, 73);
    g_assert_nonnull (strstr (r.err, "symbolic link"));
    g_assert_false (g_file_test (target, G_FILE_TEST_EXISTS));
  }
  {
    g_auto(JmemTestRun) r = { 0 };

    jmem_test_run_jmem (&r, in_nodir);
    g_assert_cmpint (r.status, ==, 73);
  }
  for (guint i = 0; i < G_N_ELEMENTS (usage); i++)
    {
      g_auto(JmemTestRun) r = { 0 };

      jmem_test_run_jmem (&r, usage[i]);
      g_assert_cmpint (r.status, ==, 64);
      g_assert_cmpstr (r.out, ==, "");
    }
}

/* A FIFO as --output is refused at once, with what to do instead: opening
 * it to write would wait for a reader forever. */
static void
test_fifo_refused (void)
{
  g_autofree char *fifo = temp_path ("fifo.jsonl");
  const char *args[] = { "watch", "--sysroot", orin, "--count", "1", "--output", fifo, NULL };
  g_auto(JmemTestRun) r = { 0 };
  gint64 start;

  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  start = g_get_monotonic_time ();
  alarm (20);  /* a regression blocks in open() */
  jmem_test_run_jmem (&r, args);
  alarm (0);
  g_assert_cmpint (r.status, ==, 73);
  g_assert_cmpint (g_get_monotonic_time () - start, <, 10 * G_USEC_PER_SEC);
  g_assert_nonnull (strstr (r.err, "is a FIFO, not a regular file"));
  g_assert_nonnull (strstr (r.err, "redirect standard output"));
  g_assert_cmpstr (r.out, ==, "");
}

/* The trim writes a new file of the history's own mode (0600): the old
 * file's mode (here 0640, or a set-id bit) is never carried over. */
static void
test_trim_mode (void)
{
  g_autofree char *dir = g_build_filename (tmpdir, "trim-mode", NULL);
  g_autofree char *path = g_build_filename (dir, "h.jsonl", NULL);
  g_autoptr(JmemHistoryWriter) w = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *big = g_strnfill (3000, 'x');
  struct stat st;

  g_assert_cmpint (g_mkdir (dir, 0700), ==, 0);
  g_assert_true (g_file_set_contents (path, "{\"old\": 1}\n", -1, NULL));
  g_assert_cmpint (chmod (path, 0640), ==, 0);
  w = jmem_history_writer_open (path, 4096, &error);
  g_assert_no_error (error);
  g_assert_true (jmem_history_writer_append (w, big, &error));
  g_assert_true (jmem_history_writer_append (w, big, &error));
  g_assert_no_error (error);
  g_assert_cmpint (g_stat (path, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 07777, ==, 0600);
  /* the trim happened: one line left, and no temporary file */
  g_assert_cmpint (st.st_size, ==, 3001);
  g_assert_cmpuint (count_entries (dir), ==, 1);
}

static char *
size_text (gint64 kib)
{
  g_autofree char *text = g_format_size_full ((guint64) kib * 1024, G_FORMAT_SIZE_IEC_UNITS);
  g_auto(GStrv) parts = g_strsplit (text, "\u00a0", -1);

  return g_strjoinv (" ", parts);
}

static void
test_summary (void)
{
  g_autofree char *meminfo_path = g_build_filename (orin, "proc", "meminfo", NULL);
  g_autofree char *data = NULL;
  g_autoptr(JmemMeminfo) m = NULL;
  g_autofree char *total = NULL;
  g_autofree char *avail = NULL;
  g_autofree char *expect = NULL;
  g_autofree char *reserve_path = g_build_filename (orin, "proc", "sys", "vm", "min_free_kbytes", NULL);
  g_autofree char *pool_path = g_build_filename (orin, "sys", "kernel", "debug", "nvmap", "pagepool",
                                                 "page_pool_available_pages", NULL);
  g_autofree char *reserve = NULL, *pool = NULL, *now = NULL;
  const char *args[] = { "summary", "--sysroot", orin, NULL };
  g_auto(JmemTestRun) r = { 0 };
  gsize len;

  g_assert_true (g_file_get_contents (meminfo_path, &data, &len, NULL));
  g_assert_true (g_file_get_contents (reserve_path, &reserve, NULL, NULL));
  g_assert_true (g_file_get_contents (pool_path, &pool, NULL, NULL));
  m = jmem_meminfo_parse (data, len, NULL);
  total = size_text (jmem_meminfo_get_kib (m, "MemTotal"));
  avail = size_text (jmem_meminfo_get_kib (m, "MemAvailable"));
  /* the headroom's allocatable now: MemFree - CmaFree - min_free_kbytes + the
   * NvMap pool's pages (4 KiB, the tree's jmem/page-size) */
  now = size_text (jmem_meminfo_get_kib (m, "MemFree") - jmem_meminfo_get_kib (m, "CmaFree") -
                   g_ascii_strtoll (reserve, NULL, 10) + 4 * g_ascii_strtoll (pool, NULL, 10));
  expect = g_strdup_printf ("total %s, available %s, allocatable now %s, NvMap ", total, avail, now);
  jmem_test_run_jmem (&r, args);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_str_has_prefix (r.out, expect));
  g_assert_true (g_str_has_suffix (r.out, "\n"));
  g_assert_true (strchr (r.out, '\n') == r.out + strlen (r.out) - 1);
  /* no nvidia-smi in an nvgpu capture; the top holder is named */
  g_assert_nonnull (strstr (r.out, ", GPU n/a, top PID "));
  /* and the accounting's largest use of RAM, beside free, by its stable
   * name: NvMap's 14760000 KiB */
  g_assert_true (g_str_has_suffix (r.out, ", largest bucket: nvmap 14.1 GiB\n"));
}

/* A process name with an escape sequence shows escaped, not executed. */
static void
test_summary_hostile (void)
{
  g_autofree char *hostile = jmem_test_fixture ("trees", "hostile", NULL);
  const char *args[] = { "summary", "--sysroot", hostile, NULL };
  g_autofree char *tree = g_build_filename (tmpdir, "evil-tree", NULL);
  g_autofree char *status_path = NULL;
  g_auto(JmemTestRun) r = { 0 };

  jmem_test_run_jmem (&r, args);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_utf8_validate (r.out, -1, NULL));

  /* the top holder of a copied tree renamed with ESC [ 2 J and a newline */
  {
    g_autoptr(GSubprocess) cp = g_subprocess_new (G_SUBPROCESS_FLAGS_NONE, NULL, "cp", "-R", "--", orin, tree, NULL);
    g_autofree char *status = NULL;
    g_autofree char *renamed = NULL;
    g_autoptr(GRegex) re = g_regex_new ("^Name:.*$", G_REGEX_MULTILINE, 0, NULL);
    const char *first[] = { "summary", "--sysroot", orin, NULL };
    g_auto(JmemTestRun) r0 = { 0 };
    char pid[32] = { 0 };
    const char *at;

    g_assert_true (g_subprocess_wait_check (cp, NULL, NULL));
    jmem_test_run_jmem (&r0, first);
    at = strstr (r0.out, "top PID ");
    g_assert_nonnull (at);
    sscanf (at, "top PID %31[0-9]", pid);
    status_path = g_build_filename (tree, "proc", pid, "status", NULL);
    g_assert_true (g_file_get_contents (status_path, &status, NULL, NULL));
    renamed = g_regex_replace_literal (re, status, -1, 0, "Name:\tev\033[2Jil", 0, NULL);
    g_assert_true (g_file_set_contents (status_path, renamed, -1, NULL));
    {
      const char *evil[] = { "summary", "--sysroot", tree, NULL };

      jmem_test_run_clear (&r);
      jmem_test_run_jmem (&r, evil);
    }
    g_assert_cmpint (r.status, ==, 0);
    g_assert_null (strchr (r.out, '\033'));
    g_assert_nonnull (strstr (r.out, "(ev"));
    g_assert_nonnull (strstr (r.out, "[2Jil)"));
  }
}

/* A capture whose processes are unreadable (hidepid, or a capture taken
 * as another user): NvMap still names the holder, and the summary says so. */
static void
test_summary_unreadable_processes (void)
{
  g_autofree char *tree = g_build_filename (tmpdir, "no-processes", NULL);
  g_autofree char *proc = g_build_filename (tree, "proc", NULL);
  g_autoptr(GSubprocess) cp = g_subprocess_new (G_SUBPROCESS_FLAGS_NONE, NULL, "cp", "-R", "--",
                                                orin, tree, NULL);
  g_autoptr(GDir) dir = NULL;
  const char *name;
  const char *args[] = { "summary", "--sysroot", tree, NULL };
  g_auto(JmemTestRun) r = { 0 };

  g_assert_true (g_subprocess_wait_check (cp, NULL, NULL));
  dir = g_dir_open (proc, 0, NULL);
  g_assert_nonnull (dir);
  while ((name = g_dir_read_name (dir)) != NULL)
    if (g_ascii_isdigit (name[0]))
      {
        g_autofree char *entry = g_build_filename (proc, name, NULL);
        g_autoptr(GSubprocess) rm = g_subprocess_new (G_SUBPROCESS_FLAGS_NONE, NULL, "rm", "-r",
                                                      "--", entry, NULL);

        g_assert_true (g_subprocess_wait_check (rm, NULL, NULL));
      }
  jmem_test_run_jmem (&r, args);
  g_assert_cmpint (r.status, ==, 0);
  /* the tree's largest NvMap client row: 14.0 GiB of PID 1792595 */
  g_assert_nonnull (strstr (r.out, ", top PID 1792595 (VLLM::EngineCor) NvMap 14.0 GiB, "));
}

static void
test_summary_watch (void)
{
  g_autofree char *out_path = temp_path ("summary.txt");
  g_autofree char *cmd = g_strdup_printf ("exec '%s' summary --watch 1 --sysroot '%s' > '%s'",
                                          jmem_exe, orin, out_path);
  const char *argv[] = { "/bin/sh", "-c", cmd, NULL };
  g_autoptr(GError) error = NULL;
  g_autofree char *data = NULL;
  g_auto(GStrv) lines = NULL;
  g_autoptr(GRegex) re = g_regex_new ("^[0-9]{2}:[0-9]{2}:[0-9]{2} total ", 0, 0, NULL);
  GPid pid;
  int wait_status = 0;

  g_assert_true (g_spawn_async (NULL, (char **) argv, NULL, G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL,
                                &pid, &error));
  for (guint tries = 0; tries < 300; tries++)
    {
      g_clear_pointer (&data, g_free);
      if (g_file_get_contents (out_path, &data, NULL, NULL) && strchr (data, '\n') != NULL &&
          strchr (data, '\n') != strrchr (data, '\n'))
        break;
      g_usleep (100 * 1000);
    }
  g_assert_cmpint (kill (pid, SIGINT), ==, 0);
  g_assert_cmpint (waitpid (pid, &wait_status, 0), ==, pid);
  g_spawn_close_pid (pid);
  g_assert_true (WIFEXITED (wait_status));
  g_assert_cmpint (WEXITSTATUS (wait_status), ==, 0);
  g_clear_pointer (&data, g_free);
  g_assert_true (g_file_get_contents (out_path, &data, NULL, NULL));
  g_assert_true (g_str_has_suffix (data, "\n"));
  data[strlen (data) - 1] = '\0';
  lines = g_strsplit (data, "\n", -1);
  g_assert_cmpuint (g_strv_length (lines), >=, 2);
  for (guint i = 0; lines[i] != NULL; i++)
    g_assert_true (g_regex_match (re, lines[i], 0, NULL));
}

int
main (int argc, char **argv)
{
  g_autoptr(GError) error = NULL;
  int rc;

  if (argc == 4 && g_str_equal (argv[1], "--history-writer"))
    return concurrent_writer (argv[2], argv[3]);
  test_exe = argv[0];
  g_test_init (&argc, &argv, NULL);
  jmem_exe = g_getenv ("JMEM_EXE");
  g_assert_nonnull (jmem_exe);
  orin = jmem_test_fixture ("trees", "orin-agx-nvgpu", NULL);
  tmpdir = jmem_test_make_tmp ("jmem-test-watch-XXXXXX", &error);
  g_assert_no_error (error);

  g_test_add_func ("/watch/count-file", test_count_file);
  g_test_add_func ("/watch/count-file-says", test_count_file_says);
  g_test_add_func ("/watch/count-stdout", test_count_stdout);
  g_test_add_func ("/watch/sigint", test_sigint);
  g_test_add_func ("/watch/sigterm", test_sigterm);
  g_test_add_func ("/watch/cap-writer", test_cap_writer);
  g_test_add_func ("/watch/cap-huge-line", test_cap_huge_line);
  g_test_add_func ("/watch/concurrent-writers", test_concurrent_writers);
  g_test_add_func ("/watch/frozen-bus", test_frozen_bus);
  g_test_add_func ("/watch/cap-command", test_cap_command);
  g_test_add_func ("/watch/torn-tail", test_torn_tail);
  g_test_add_func ("/watch/refusals", test_refusals);
  g_test_add_func ("/watch/fifo-refused", test_fifo_refused);
  g_test_add_func ("/watch/trim-mode", test_trim_mode);
  g_test_add_func ("/summary/line", test_summary);
  g_test_add_func ("/summary/hostile", test_summary_hostile);
  g_test_add_func ("/summary/unreadable-processes", test_summary_unreadable_processes);
  g_test_add_func ("/summary/watch", test_summary_watch);
  rc = g_test_run ();

  {
    const char *argv_rm[] = { "rm", "-rf", tmpdir, NULL };
    g_spawn_sync (NULL, (char **) argv_rm, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL, NULL, NULL);
  }
  g_free (tmpdir);
  g_free (orin);
  return rc;
}
