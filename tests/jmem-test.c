/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "jmem-test.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <sys/stat.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

void
jmem_test_run_clear (JmemTestRun *run)
{
  g_clear_pointer (&run->out, g_free);
  g_clear_pointer (&run->err, g_free);
  g_clear_pointer (&run->json, json_node_unref);
}

/* Keeps @process's ID in @run: NULL once it has exited and been reaped,
 * which only a slow run can be sure it was not. */
static void
run_keep_pid (GSubprocess *process,
              JmemTestRun *run)
{
  const char *id = g_subprocess_get_identifier (process);

  run->pid = id != NULL ? g_ascii_strtoll (id, NULL, 10) : -1;
}

/* The first bytes of @text on one escaped line: what a program prints must
 * not read as TAP. */
static char *
run_said (const char *text)
{
  g_autofree char *start = g_strndup (text, 1000);

  return g_strescape (start, NULL);
}

/* Keeps @process's end in @run, whose output is already read, and says it
 * in the test's log as @program's (NULL: by its ID). */
static void
run_keep_end (GSubprocess *process,
              const char  *program,
              gint64       start,
              JmemTestRun *run)
{
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;

  run->seconds = (g_get_monotonic_time () - start) / 1e6;
  run->status = g_subprocess_get_if_exited (process) ? g_subprocess_get_exit_status (process) : -1;
  run->signal = g_subprocess_get_if_signaled (process) ? g_subprocess_get_term_sig (process) : 0;
  if (run->out == NULL)
    run->out = g_strdup ("");
  if (run->err == NULL)
    run->err = g_strdup ("");
  out = run_said (run->out);
  err = run_said (run->err);
  if (program != NULL)
    g_test_message ("%s: exit %d after %.1f s; stdout: %s; stderr: %s", program, run->status,
                    run->seconds, out, err);
  else
    g_test_message ("process %" G_GINT64_FORMAT ": exit %d after %.1f s; stdout: %s; stderr: %s",
                    (gint64) run->pid, run->status, run->seconds, out, err);
}

void
jmem_test_run_finish (GSubprocess *process,
                      gint64       start,
                      JmemTestRun *run)
{
  g_autoptr(GError) error = NULL;

  run_keep_pid (process, run);
  g_subprocess_communicate_utf8 (process, NULL, NULL, &run->out, &run->err, &error);
  g_assert_no_error (error);
  run_keep_end (process, NULL, start, run);
}

/* The bytes as a string (an empty output has no data at all). */
static char *
bytes_text (GBytes *bytes)
{
  gsize len = 0;
  const char *data = bytes != NULL ? g_bytes_get_data (bytes, &len) : NULL;

  return len > 0 ? g_strndup (data, len) : g_strdup ("");
}

void
jmem_test_run_spawn (JmemTestRun         *run,
                     GSubprocessLauncher *launcher,
                     const char *const   *argv)
{
  g_autoptr(GSubprocessLauncher) piped = NULL;
  g_autoptr(GSubprocess) process = NULL;
  g_autoptr(GBytes) out = NULL;
  g_autoptr(GBytes) err = NULL;
  g_autoptr(GError) error = NULL;
  gint64 start = g_get_monotonic_time ();

  if (launcher == NULL)
    launcher = piped = jmem_test_launcher (NULL);
  process = g_subprocess_launcher_spawnv (launcher, argv, &error);
  g_assert_no_error (error);
  run_keep_pid (process, run);
  g_subprocess_communicate (process, NULL, NULL, &out, &err, &error);
  g_assert_no_error (error);
  run->out = bytes_text (out);
  run->err = bytes_text (err);
  run_keep_end (process, argv[0], start, run);
}

GSubprocessLauncher *
jmem_test_launcher (const char *const *env)
{
  GSubprocessLauncher *launcher =
    g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE);

  for (guint i = 0; env != NULL && env[i] != NULL; i++)
    {
      g_auto(GStrv) kv = g_strsplit (env[i], "=", 2);

      g_subprocess_launcher_setenv (launcher, kv[0], kv[1] != NULL ? kv[1] : "", TRUE);
    }
  return launcher;
}

void
jmem_test_run_jmem_full (JmemTestRun         *run,
                         GSubprocessLauncher *launcher,
                         const char *const   *prefix,
                         const char *const   *args)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  const char *jmem_exe = g_getenv ("JMEM_EXE");

  g_assert_nonnull (jmem_exe);
  for (guint i = 0; prefix != NULL && prefix[i] != NULL; i++)
    g_ptr_array_add (argv, (char *) prefix[i]);
  g_ptr_array_add (argv, (char *) jmem_exe);
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (char *) args[i]);
  g_ptr_array_add (argv, NULL);
  jmem_test_run_spawn (run, launcher, (const char *const *) argv->pdata);
}

void
jmem_test_run_jmem (JmemTestRun       *run,
                    const char *const *args)
{
  jmem_test_run_jmem_full (run, NULL, NULL, args);
}

void
jmem_test_run_jmem_within (JmemTestRun       *run,
                           guint              seconds,
                           const char *const *env,
                           const char *const *args)
{
  g_autoptr(GSubprocessLauncher) launcher = jmem_test_launcher (env);
  g_autofree char *limit = g_strdup_printf ("%u", seconds);
  /* --foreground keeps timeout in the test's process group, so a test
   * killed as a group takes jmem with it */
  const char *timeout[] = { "timeout", "--foreground", "--kill-after=10", limit, NULL };

  jmem_test_run_jmem_full (run, launcher, timeout, args);
  g_assert_cmpint (run->status, !=, 124);
}

void
jmem_test_run_parse_json (JmemTestRun *run)
{
  g_autoptr(GError) error = NULL;

  g_clear_pointer (&run->json, json_node_unref);
  run->json = json_from_string (run->out, &error);
  g_assert_no_error (error);
  g_assert_nonnull (run->json);
}

gboolean
jmem_test_has_gpu_evidence (JsonNode   *root,
                            const char *needle)
{
  JsonObject *gpu = json_object_get_object_member (json_node_get_object (root), "gpu");
  JsonArray *ev = json_object_get_array_member (gpu, "evidence");

  for (guint i = 0; i < json_array_get_length (ev); i++)
    if (strstr (json_array_get_string_element (ev, i), needle) != NULL)
      return TRUE;
  return FALSE;
}

int
jmem_test_validate (const char  *json_text,
                    const char  *schema_name,
                    char       **report)
{
  g_autofree char *validator = g_build_filename (JMEM_TEST_SOURCE_DIR, "tests", "validate-json.py", NULL);
  g_autofree char *schema = g_build_filename (JMEM_TEST_SOURCE_DIR, "docs", schema_name, NULL);
  g_autoptr(GSubprocess) process = NULL;
  g_autoptr(GBytes) input = g_bytes_new (json_text, strlen (json_text));
  g_autoptr(GBytes) said = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;

  process = g_subprocess_new (G_SUBPROCESS_FLAGS_STDIN_PIPE | G_SUBPROCESS_FLAGS_STDOUT_PIPE |
                              G_SUBPROCESS_FLAGS_STDERR_MERGE,
                              &error, "python3", validator, schema, "-", NULL);
  g_assert_no_error (error);
  g_subprocess_communicate (process, input, NULL, &said, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (g_subprocess_get_if_exited (process));
  text = bytes_text (said);
  if (text[0] != '\0')
    {
      g_autofree char *escaped = g_strescape (text, NULL);

      g_test_message ("validate-json %s: %s", schema_name, escaped);
    }
  if (report != NULL)
    *report = g_steal_pointer (&text);
  return g_subprocess_get_exit_status (process);
}

void
jmem_test_assert_valid (const char *json_text,
                        const char *schema_name)
{
  g_autofree char *report = NULL;
  int status = jmem_test_validate (json_text, schema_name, &report);

  if (status != 0)
    g_printerr ("not valid against %s: %s", schema_name, report);
  g_assert_cmpint (status, ==, 0);
}

char *
jmem_test_fixture (const char *first,
                   ...)
{
  const char *dir = g_getenv ("JMEM_FIXTURES");
  g_autoptr(GPtrArray) parts = g_ptr_array_new ();
  const char *part;
  va_list ap;

  g_assert_nonnull (dir);
  g_ptr_array_add (parts, (char *) dir);
  va_start (ap, first);
  for (part = first; part != NULL; part = va_arg (ap, const char *))
    g_ptr_array_add (parts, (char *) part);
  va_end (ap);
  g_ptr_array_add (parts, NULL);
  return g_build_filenamev ((char **) parts->pdata);
}

void
jmem_test_add_program (GPtrArray  *argv,
                       const char *program)
{
  const char *wrapper = g_getenv ("MESON_EXE_WRAPPER");
  g_auto(GStrv) words = NULL;

  if (wrapper != NULL && wrapper[0] != '\0')
    {
      g_autoptr(GError) error = NULL;

      g_shell_parse_argv (wrapper, NULL, &words, &error);
      g_assert_no_error (error);
      for (guint i = 0; words[i] != NULL; i++)
        g_ptr_array_add (argv, g_strdup (words[i]));
    }
  g_ptr_array_add (argv, g_strdup (program));
}

GSubprocess *
jmem_test_spawn_as (GSubprocessLauncher *launcher,
                    const char          *user,
                    const char          *program,
                    const char *const   *args)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  GSubprocess *process;

  if (user != NULL)
    {
      struct passwd *pw = getpwnam (user);

      g_assert_nonnull (pw);
      g_ptr_array_add (argv, g_strdup ("setpriv"));
      g_ptr_array_add (argv, g_strdup_printf ("--reuid=%u", (unsigned) pw->pw_uid));
      g_ptr_array_add (argv, g_strdup_printf ("--regid=%u", (unsigned) pw->pw_gid));
      g_ptr_array_add (argv, g_strdup ("--init-groups"));
    }
  jmem_test_add_program (argv, program);
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, g_strdup (args[i]));
  g_ptr_array_add (argv, NULL);
  g_subprocess_launcher_setenv (launcher, "HOME", "/nonexistent", TRUE);
  g_subprocess_launcher_setenv (launcher, "LC_ALL", "C.UTF-8", TRUE);
  g_subprocess_launcher_set_cwd (launcher, "/");
  process = g_subprocess_launcher_spawnv (launcher, (const char *const *) argv->pdata, &error);
  g_assert_no_error (error);
  return process;
}

void
jmem_test_die_with_test (gpointer unused)
{
  prctl (PR_SET_PDEATHSIG, SIGKILL);
}

GSubprocess *
jmem_test_bus_start (const char  *dir,
                     char       **address)
{
  g_autofree char *dbus_daemon = g_find_program_in_path ("dbus-daemon");
  g_autofree char *listen = g_strdup_printf ("--address=unix:path=%s/bus", dir);
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GDataInputStream) in = NULL;
  g_autoptr(GError) error = NULL;
  GSubprocess *daemon;

  if (dbus_daemon == NULL)
    return NULL;
  /* stderr silenced: it complains of the fd limit it may not raise */
  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE |
                                        G_SUBPROCESS_FLAGS_STDERR_SILENCE);
  g_subprocess_launcher_set_child_setup (launcher, jmem_test_die_with_test, NULL, NULL);
  daemon = g_subprocess_launcher_spawn (launcher, &error, dbus_daemon, "--session", "--nofork",
                                        "--print-address=1", listen, NULL);
  g_assert_no_error (error);
  in = g_data_input_stream_new (g_subprocess_get_stdout_pipe (daemon));
  *address = g_data_input_stream_read_line (in, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (*address);
  return daemon;
}

void
jmem_test_stop_process (GSubprocess *process)
{
  const char *id = g_subprocess_get_identifier (process);
  g_autofree char *stat_path = g_strdup_printf ("/proc/%s/stat", id);

  g_assert_nonnull (id);
  g_subprocess_send_signal (process, SIGSTOP);
  /* stopped: state T after the ")" that ends the command's name */
  for (guint tries = 0; tries < 6000; tries++)
    {
      g_autofree char *stat = NULL;
      const char *end;

      if (g_file_get_contents (stat_path, &stat, NULL, NULL) &&
          (end = strrchr (stat, ')')) != NULL && end[1] == ' ' && end[2] == 'T')
        return;
      g_usleep (5000);
    }
  g_error ("%s did not stop within 30 s of SIGSTOP", stat_path);
}

guint64
jmem_test_fds_distinct_bytes (GArray *fds)
{
  g_autoptr(GHashTable) seen = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  guint64 bytes = 0;

  for (guint i = 0; i < fds->len; i++)
    {
      struct stat st;
      gint64 *ino = g_new (gint64, 1);

      g_assert_cmpint (fstat (g_array_index (fds, int, i), &st), ==, 0);
      *ino = (gint64) st.st_ino;
      if (g_hash_table_add (seen, ino))
        bytes += (guint64) st.st_size;
    }
  return bytes;
}

/* The watcher: reads folder names, one a line, until the pipe ends (this
 * process ended, however it ended), then removes them. */
static const char tmp_watcher_script[] =
  "while IFS= read -r dir; do set -- \"$@\" \"$dir\"; done\n"
  "[ $# -eq 0 ] || rm -rf -- \"$@\"\n";

/* A session of its own: meson's timeout kills this process's group. */
static void
tmp_watcher_setup (gpointer data)
{
  (void) data;
  setsid ();
}

char *
jmem_test_make_tmp (const char  *tmpl,
                    GError     **error)
{
  static int pipe_fd = -1;
  char *dir;
  g_autofree char *line = NULL;

  if (pipe_fd < 0)
    {
      const char *argv[] = { "sh", "-c", tmp_watcher_script, "sh", NULL };

      if (!g_spawn_async_with_pipes (NULL, (char **) argv, NULL,
                                     G_SPAWN_SEARCH_PATH | G_SPAWN_STDOUT_TO_DEV_NULL |
                                     G_SPAWN_STDERR_TO_DEV_NULL,
                                     tmp_watcher_setup, NULL, NULL, &pipe_fd, NULL, NULL, error))
        return NULL;
      /* no program the test starts may hold the pipe open */
      fcntl (pipe_fd, F_SETFD, FD_CLOEXEC);
    }
  dir = g_dir_make_tmp (tmpl, error);
  if (dir == NULL)
    return NULL;
  line = g_strconcat (dir, "\n", NULL);
  if (write (pipe_fd, line, strlen (line)) != (ssize_t) strlen (line))
    g_printerr ("# the watcher will not remove %s: %s\n", dir, g_strerror (errno));
  return dir;
}
