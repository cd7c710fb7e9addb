/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Faults while jmem writes, and what is read afterwards: a full disk (a
 * small tmpfs mounted in a private mount namespace, as root) and a signal
 * at each step (strace's syscall tampering delivers it as the step's system
 * call begins) for jmem capture, metrics --textfile and watch with its
 * trim. After each, nothing half-written is read as whole: the capture says
 * it is incomplete and what it lacks, the textfile and the history keep
 * their last whole content, and what a killed run left is removed by the
 * next. Tests print SKIP, with the reason, where root, a mount namespace
 * or strace is missing. */
#include <gio/gio.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "jmem-test.h"
#include "test-run.h"

static const char *jmem_exe;
static char *orin;
static char *thor;

/* `jmem ARGS...` under `timeout`. */
static void
run_jmem (JmemTestRun *r, ...)
{
  g_autoptr(GPtrArray) args = g_ptr_array_new ();
  va_list ap;
  const char *arg;

  va_start (ap, r);
  while ((arg = va_arg (ap, const char *)) != NULL)
    g_ptr_array_add (args, (char *) arg);
  va_end (ap);
  g_ptr_array_add (args, NULL);
  jmem_test_run_jmem_within (r, 120, NULL, (const char * const *) args->pdata);
}

/* The temporary files of @name in @dir (jmem's ".NAME.XXXXXXXX.tmp"). */
static guint
count_temps (const char *dir, const char *name)
{
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  g_autofree char *prefix = g_strdup_printf (".%s.", name);
  const char *entry;
  guint n = 0;

  g_assert_nonnull (d);
  while ((entry = g_dir_read_name (d)) != NULL)
    n += g_str_has_prefix (entry, prefix) && g_str_has_suffix (entry, ".tmp");
  return n;
}

/* The lines of a history, asserting it is whole: it ends with a newline
 * and each line is a JSON object. */
static guint
whole_lines (const char *data)
{
  g_auto(GStrv) lines = NULL;
  gsize len = strlen (data);
  guint n;

  if (len == 0)
    return 0;
  g_assert_cmpint (data[len - 1], ==, '\n');
  lines = g_strsplit (data, "\n", -1);
  n = g_strv_length (lines) - 1;
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(JsonParser) parser = json_parser_new ();
      g_autoptr(GError) error = NULL;

      g_assert_true (json_parser_load_from_data (parser, lines[i], -1, &error));
      g_assert_no_error (error);
      g_assert_true (JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)));
    }
  return n;
}

/* ---- what the tests need ------------------------------------------------- */

static gboolean
need_namespace (void)
{
  const char *argv[] = { "unshare", "-m", "--propagation", "private", "true", NULL };
  g_autofree char *unshare = g_find_program_in_path ("unshare");
  g_auto(JmemTestRun) r = { 0 };

  if (geteuid () != 0)
    {
      g_test_skip ("needs root to mount a small tmpfs in a private mount namespace");
      return FALSE;
    }
  if (unshare == NULL)
    {
      g_test_skip ("unshare is not installed");
      return FALSE;
    }
  jmem_test_run_spawn (&r, NULL, argv);
  if (r.status != 0)
    {
      g_test_skip ("cannot create a mount namespace here");
      return FALSE;
    }
  return TRUE;
}

static gboolean
need_strace (void)
{
  const char *argv[] = { "strace", "-f", "-qq", "-o", "/dev/null", "true", NULL };
  g_autofree char *strace = g_find_program_in_path ("strace");
  g_auto(JmemTestRun) r = { 0 };

  if (strace == NULL)
    {
      g_test_skip ("strace is not installed: it delivers the signals at each step");
      return FALSE;
    }
  jmem_test_run_spawn (&r, NULL, argv);
  if (r.status != 0)
    {
      g_test_skip ("strace cannot trace here (ptrace refused)");
      return FALSE;
    }
  return TRUE;
}

/* @script run by sh in a private mount namespace in which a tmpfs of
 * @size_kib is mounted on $M; $J is jmem, $O a directory outside it for
 * what the script keeps, $ORIN and $THOR the fixture trees. */
static void
in_small_disk (const char *base, guint size_kib, const char *script)
{
  g_autofree char *mnt = g_build_filename (base, "mnt", NULL);
  g_autofree char *out = g_build_filename (base, "out", NULL);
  g_autofree char *size = g_strdup_printf ("size=%uk", size_kib);
  g_autofree char *full = g_strconcat ("set -u; M=$1 O=$2 J=$3 ORIN=$4 THOR=$5; "
                                       "mount -t tmpfs -o \"$6,mode=0700\" jmem-test \"$M\" || exit 99; ",
                                       script, NULL);
  const char *argv[] = { "unshare", "-m", "--propagation", "private", "sh", "-c", full, "sh",
                         mnt, out, jmem_exe, orin, thor, size, NULL };
  g_auto(JmemTestRun) r = { 0 };

  g_assert_cmpint (g_mkdir (mnt, 0700), ==, 0);
  g_assert_cmpint (g_mkdir (out, 0700), ==, 0);
  jmem_test_run_spawn (&r, NULL, argv);
  if (r.status != 0)
    g_error ("the script in the small disk exited %d: %s", r.status, r.err);
}

static char *
kept (const char *base, const char *name)
{
  g_autofree char *path = g_build_filename (base, "out", name, NULL);

  return test_read_file (path);
}

static int
kept_status (const char *base, const char *name)
{
  g_autofree char *text = kept (base, name);

  g_assert_nonnull (text);
  return (int) g_ascii_strtoll (text, NULL, 10);
}

/* The environment of a traced jmem: LeakSanitizer cannot run under ptrace
 * and would fail a sanitized build's jmem at its exit. */
static GStrv
traced_env (void)
{
  const char *asan = g_getenv ("ASAN_OPTIONS");
  GStrv env = g_new0 (char *, 2);

  env[0] = g_strdup_printf ("ASAN_OPTIONS=%s%sdetect_leaks=0", asan != NULL ? asan : "",
                            asan != NULL && *asan != '\0' ? ":" : "");
  return env;
}

/* `strace -f` delivering @spec (signal=SIG, delay_exit=US) to jmem when it
 * first enters a system call of @calls (strace's syntax; @path, when given,
 * keeps only those on that file), then ARGS... */
static void
run_tampered (JmemTestRun *r, const char *calls, const char *path, const char *spec, ...)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new_with_free_func (g_free);
  g_auto(GStrv) env = NULL;
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  va_list ap;
  const char *arg;

  /* in the test's process group, so that a killed test takes it along */
  g_ptr_array_add (argv, g_strdup ("timeout"));
  g_ptr_array_add (argv, g_strdup ("--foreground"));
  g_ptr_array_add (argv, g_strdup ("--kill-after=10"));
  g_ptr_array_add (argv, g_strdup ("120"));
  g_ptr_array_add (argv, g_strdup ("strace"));
  g_ptr_array_add (argv, g_strdup ("-f"));
  g_ptr_array_add (argv, g_strdup ("-qq"));
  g_ptr_array_add (argv, g_strdup ("-o"));
  g_ptr_array_add (argv, g_strdup ("/dev/null"));
  if (path != NULL)
    {
      g_ptr_array_add (argv, g_strdup ("-P"));
      g_ptr_array_add (argv, g_strdup (path));
    }
  g_ptr_array_add (argv, g_strdup ("-e"));
  g_ptr_array_add (argv, g_strdup_printf ("trace=%s", calls));
  g_ptr_array_add (argv, g_strdup ("-e"));
  g_ptr_array_add (argv, g_strdup_printf ("inject=%s:%s", calls, spec));
  g_ptr_array_add (argv, g_strdup (jmem_exe));
  va_start (ap, spec);
  while ((arg = va_arg (ap, const char *)) != NULL)
    g_ptr_array_add (argv, g_strdup (arg));
  va_end (ap);
  g_ptr_array_add (argv, NULL);
  env = traced_env ();
  launcher = jmem_test_launcher ((const char * const *) env);
  jmem_test_run_spawn (r, launcher, (const char * const *) argv->pdata);
  g_assert_cmpint (r->status, !=, 124);  /* hung until `timeout` killed it */
}

/* ---- jmem capture ---------------------------------------------------------- */

/* The step names of jmem/capture-incomplete and how readers name them. */
static const char * const step_names[][2] = {
  { "host", "memory totals and board identity" },
  { "processes", "processes (proc/PID)" },
  { "accounts", "account names (etc/passwd)" },
  { "programs", "nvidia-smi and nvpmodel outputs" },
  { "nvmap", "NvMap" },
  { "thermal", "thermal zones" },
  { "system", "disk and service states" },
};

/* What a reader must say of the capture @dir: the step its marker names. */
static void
assert_read_as_incomplete (const char *dir)
{
  g_autofree char *marker_path = g_build_filename (dir, "jmem", "capture-incomplete", NULL);
  g_autofree char *marker = test_read_file (marker_path);
  g_autofree char *said = NULL;
  const char *step;
  g_auto(JmemTestRun) r = { 0 };

  g_assert_nonnull (marker);
  step = strstr (marker, "\nstep ");
  g_assert_nonnull (step);
  step += strlen ("\nstep ");
  for (gsize i = 0; i < G_N_ELEMENTS (step_names) && said == NULL; i++)
    if (g_str_has_prefix (step, step_names[i][0]) && step[strlen (step_names[i][0])] == ' ')
      said = g_strdup_printf ("while writing %s, which may be partial", step_names[i][1]);
  g_assert_nonnull (said);

  run_jmem (&r, "snapshot", "--json", "--no-ask-password", "--sysroot", dir, NULL);
  if (r.status == 69)
    {
      /* stopped before any process or meminfo: nothing to analyse, and why */
      g_assert_nonnull (strstr (r.err, "holds no capture"));
      g_assert_nonnull (strstr (r.err, said));
      return;
    }
  g_assert_cmpint (r.status, ==, 0);
  if (strstr (r.out, "\"source\":\"capture\"") == NULL &&
      strstr (r.out, "\"source\" : \"capture\"") == NULL)
    g_error ("no capture warning for %s:\n%s", dir, r.out);
  if (strstr (r.out, said) == NULL)
    g_error ("the warning for %s does not say \"%s\"", dir, said);
}

/* A full disk stops the capture: exit 73, the reason and the mark, and
 * every reader says the capture is incomplete and what it lacks. */
static void
test_capture_full_disk (void)
{
  g_autofree char *base = NULL;
  const guint sizes_kib[] = { 4, 256 };

  if (!need_namespace ())
    return;
  for (gsize i = 0; i < G_N_ELEMENTS (sizes_kib); i++)
    {
      g_autofree char *err = NULL;
      g_autofree char *snapshot_err = NULL;
      g_autofree char *marker = NULL;

      base = test_make_tmp ();
      in_small_disk (base, sizes_kib[i],
                     "\"$J\" capture --no-ask-password \"$M/cap\" >\"$O/out\" 2>\"$O/err\"; "
                     "echo $? >\"$O/rc\"; "
                     "cp \"$M/cap/jmem/capture-incomplete\" \"$O/marker\"; "
                     "\"$J\" snapshot --json --no-ask-password --sysroot \"$M/cap\" >\"$O/snapshot\" "
                     "2>\"$O/snapshot-err\"; echo $? >\"$O/snapshot-rc\"");
      err = kept (base, "err");
      g_assert_cmpint (kept_status (base, "rc"), ==, 73);
      g_assert_nonnull (strstr (err, "No space left on device"));
      g_assert_nonnull (strstr (err, "holds an incomplete capture, marked as such"));
      marker = kept (base, "marker");
      g_assert_nonnull (marker);
      snapshot_err = kept (base, "snapshot-err");
      if (kept_status (base, "snapshot-rc") == 69)
        g_assert_nonnull (strstr (snapshot_err, "is an incomplete capture"));
      else
        {
          g_autofree char *snapshot = kept (base, "snapshot");

          g_assert_cmpint (kept_status (base, "snapshot-rc"), ==, 0);
          g_assert_nonnull (strstr (snapshot, "is an incomplete capture"));
        }
      g_test_message ("a %u KiB disk: %s", sizes_kib[i], strstr (marker, "step "));
      test_remove_tree (base);
      g_clear_pointer (&base, g_free);
    }
}

/* Killed as each step begins (the marker's record of it), before the
 * files are synced, and before the marker is removed: the capture reads
 * as incomplete, naming the step. Past the last step it is whole. */
static void
test_capture_signals (void)
{
  g_autofree char *base = NULL;
  /* each on a path under the capture (strace follows it to the descriptors
   * open on it): other code may make the same calls */
  struct {
    const char *calls;
    const char *spec;
    const char *on;
  } faults[] = {
    { "pwrite64", "signal=SIGKILL:when=1", "jmem/capture-incomplete" },
    { "pwrite64", "signal=SIGKILL:when=2", "jmem/capture-incomplete" },
    { "pwrite64", "signal=SIGTERM:when=3", "jmem/capture-incomplete" },
    { "pwrite64", "signal=SIGKILL:when=4", "jmem/capture-incomplete" },
    { "pwrite64", "signal=SIGINT:when=5", "jmem/capture-incomplete" },
    { "pwrite64", "signal=SIGKILL:when=6", "jmem/capture-incomplete" },
    { "pwrite64", "signal=SIGKILL:when=7", "jmem/capture-incomplete" },
    { "syncfs", "signal=SIGKILL", "" },
    { "syncfs", "signal=SIGTERM", "" },
    /* SIGKILL: a signal jmem does not catch lets the system call run */
    { "unlinkat", "signal=SIGKILL", "jmem" },
  };

  if (!need_strace ())
    return;
  base = test_make_tmp ();
  for (gsize i = 0; i < G_N_ELEMENTS (faults); i++)
    {
      g_autofree char *dir = g_strdup_printf ("%s/cap%" G_GSIZE_FORMAT, base, i);
      g_autofree char *on = g_build_filename (dir, faults[i].on, NULL);
      g_auto(JmemTestRun) r = { 0 };

      run_tampered (&r, faults[i].calls, on, faults[i].spec,
                    "capture", "--no-ask-password", dir, NULL);
      if (r.status == 0)
        g_error ("jmem capture was not stopped at %s:%s", faults[i].calls, faults[i].spec);
      assert_read_as_incomplete (dir);
    }
  {
    /* seven steps: an eighth record never comes, and the capture is whole */
    g_autofree char *dir = g_build_filename (base, "whole", NULL);
    g_autofree char *marker = g_build_filename (dir, "jmem", "capture-incomplete", NULL);
    g_auto(JmemTestRun) r = { 0 };
    g_auto(JmemTestRun) s = { 0 };

    run_tampered (&r, "pwrite64", marker, "signal=SIGKILL:when=8", "capture", "--no-ask-password",
                  dir, NULL);
    g_assert_cmpint (r.status, ==, 0);
    g_assert_false (g_file_test (marker, G_FILE_TEST_EXISTS));
    run_jmem (&s, "snapshot", "--json", "--no-ask-password", "--sysroot", dir, NULL);
    g_assert_cmpint (s.status, ==, 0);
    g_assert_null (strstr (s.out, "incomplete capture"));
  }
  test_remove_tree (base);
}

/* ---- jmem metrics --textfile ---------------------------------------------- */

/* At a full disk the old textfile stays whole and no temporary file is
 * left. */
static void
test_textfile_full_disk (void)
{
  g_autofree char *base = NULL;
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  g_autofree char *err = NULL;
  g_autofree char *listing = NULL;

  if (!need_namespace ())
    return;
  base = test_make_tmp ();
  in_small_disk (base, 64,
                 "\"$J\" metrics --no-ask-password --sysroot \"$THOR\" --textfile \"$M\" || exit 1; "
                 "cp \"$M/jmem.prom\" \"$O/before\"; "
                 "dd if=/dev/zero of=\"$M/fill\" bs=4096 2>/dev/null; "
                 "\"$J\" metrics --no-ask-password --sysroot \"$ORIN\" --textfile \"$M\" 2>\"$O/err\"; "
                 "echo $? >\"$O/rc\"; cp \"$M/jmem.prom\" \"$O/after\"; ls -A \"$M\" >\"$O/ls\"");
  g_assert_cmpint (kept_status (base, "rc"), ==, 73);
  err = kept (base, "err");
  g_assert_nonnull (strstr (err, "No space left on device"));
  before = kept (base, "before");
  after = kept (base, "after");
  g_assert_cmpstr (after, ==, before);
  listing = kept (base, "ls");
  g_assert_cmpstr (listing, ==, "fill\njmem.prom\n");
  test_remove_tree (base);
}

/* Killed once the temporary file exists (as it is locked, before it is
 * synced, before it is renamed): the old textfile stays whole, the
 * temporary file stays behind, and the next run removes it. */
static void
test_textfile_signals (void)
{
  g_autofree char *base = NULL;
  g_autofree char *prom = NULL;
  g_autofree char *old = NULL;
  static const char * const calls[] = { "flock", "fsync", "/^rename", "fsync" };
  static const char * const specs[] = { "signal=SIGKILL", "signal=SIGKILL", "signal=SIGKILL",
                                        "signal=SIGTERM" };

  if (!need_strace ())
    return;
  base = test_make_tmp ();
  prom = g_build_filename (base, "jmem.prom", NULL);
  {
    g_auto(JmemTestRun) r = { 0 };

    run_jmem (&r, "metrics", "--no-ask-password", "--sysroot", thor, "--textfile", base, NULL);
    g_assert_cmpint (r.status, ==, 0);
  }
  old = test_read_file (prom);
  for (gsize i = 0; i < G_N_ELEMENTS (calls); i++)
    {
      g_autofree char *now = NULL;
      g_auto(JmemTestRun) r = { 0 };

      run_tampered (&r, calls[i], NULL, specs[i], "metrics", "--no-ask-password", "--sysroot",
                    orin, "--textfile", base, NULL);
      g_assert_cmpint (r.status, !=, 0);
      now = test_read_file (prom);
      g_assert_cmpstr (now, ==, old);
      /* this run's, the last one's having been removed as this one began */
      g_assert_cmpuint (count_temps (base, "jmem.prom"), ==, 1);
    }
  {
    g_autofree char *now = NULL;
    g_auto(JmemTestRun) r = { 0 };

    run_jmem (&r, "metrics", "--no-ask-password", "--sysroot", orin, "--textfile", base, NULL);
    g_assert_cmpint (r.status, ==, 0);
    g_assert_cmpuint (count_temps (base, "jmem.prom"), ==, 0);
    now = test_read_file (prom);
    g_assert_cmpstr (now, !=, old);
  }
  test_remove_tree (base);
}

/* ---- jmem watch ------------------------------------------------------------- */

static gsize
history_line_length (void)
{
  g_auto(JmemTestRun) r = { 0 };

  run_jmem (&r, "watch", "--sysroot", orin, "--count", "1", NULL);
  g_assert_cmpint (r.status, ==, 0);
  return strlen (r.out);
}

/* A disk with room for two and a half lines: the third is cut back off,
 * the file ends with its last whole line and reads without a complaint. */
static void
test_watch_full_disk (void)
{
  g_autofree char *base = NULL;
  g_autofree char *err = NULL;
  g_autofree char *history = NULL;
  g_autofree char *triage_err = NULL;
  gsize line;
  guint size_kib;

  if (!need_namespace ())
    return;
  line = history_line_length ();
  size_kib = (guint) ((line * 5 / 2 + 4095) / 4096 * 4);
  base = test_make_tmp ();
  in_small_disk (base, size_kib,
                 "\"$J\" watch --sysroot \"$ORIN\" --interval 1 --count 5 --output \"$M/h.jsonl\" "
                 "2>\"$O/err\"; echo $? >\"$O/rc\"; cp \"$M/h.jsonl\" \"$O/h.jsonl\"; "
                 "\"$J\" triage --history \"$M/h.jsonl\" >/dev/null 2>\"$O/triage-err\"");
  g_assert_cmpint (kept_status (base, "rc"), ==, 73);
  err = kept (base, "err");
  g_assert_nonnull (strstr (err, "No space left on device"));
  history = kept (base, "h.jsonl");
  g_assert_cmpuint (whole_lines (history), ==, 2);
  triage_err = kept (base, "triage-err");
  g_assert_null (strstr (triage_err, "unterminated"));
  test_remove_tree (base);
}

/* A history of two lines whose next line must be trimmed to fit: killed
 * within the trim, the history keeps its bytes; the next run removes the
 * temporary file and continues it. A SIGTERM there ends watch after the
 * sample, with the trim done and no temporary file. */
static void
test_watch_trim_signals (void)
{
  g_autofree char *base = NULL;
  g_autofree char *path = NULL;
  g_autofree char *cap = NULL;
  g_autofree char *two = NULL;
  static const char * const calls[] = { "flock", "fsync", "/^rename" };

  if (!need_strace ())
    return;
  base = test_make_tmp ();
  path = g_build_filename (base, "h.jsonl", NULL);
  {
    g_auto(JmemTestRun) r = { 0 };

    run_jmem (&r, "watch", "--sysroot", orin, "--interval", "1", "--count", "2", "--output", path, NULL);
    g_assert_cmpint (r.status, ==, 0);
  }
  two = test_read_file (path);
  g_assert_cmpuint (whole_lines (two), ==, 2);
  cap = g_strdup_printf ("%" G_GSIZE_FORMAT, strlen (two) * 5 / 4);
  for (gsize i = 0; i < G_N_ELEMENTS (calls); i++)
    {
      g_autofree char *now = NULL;
      g_autofree char *spec = NULL;
      g_auto(JmemTestRun) r = { 0 };

      /* The trim's flock is its temporary file's: after one for each
       * killed trim's file the next run removes, and the history's own
       * lock and unlock at the open and its lock for the sample. */
      if (g_str_equal (calls[i], "flock"))
        spec = g_strdup_printf ("signal=SIGKILL:when=%u", count_temps (base, "h.jsonl") + 4);
      else
        spec = g_strdup ("signal=SIGKILL");
      run_tampered (&r, calls[i], NULL, spec, "watch", "--sysroot", orin,
                    "--count", "1", "--max-bytes", cap, "--output", path, NULL);
      g_assert_cmpint (r.signal, ==, SIGKILL);
      now = test_read_file (path);
      g_assert_cmpstr (now, ==, two);
      g_assert_cmpuint (count_temps (base, "h.jsonl"), ==, 1);
    }
  /* within the sample's trim (a flock comes first in the cleaning, before
   * watch takes signals, where SIGTERM simply ends it) */
  for (gsize i = 1; i < G_N_ELEMENTS (calls); i++)
    {
      g_autofree char *now = NULL;
      g_auto(JmemTestRun) r = { 0 };

      /* until stopped: the signal ends it after the sample */
      run_tampered (&r, calls[i], NULL, "signal=SIGTERM", "watch", "--sysroot", orin,
                    "--interval", "1", "--max-bytes", cap, "--output", path, NULL);
      g_assert_cmpint (r.status, ==, 0);
      g_assert_cmpuint (count_temps (base, "h.jsonl"), ==, 0);
      now = test_read_file (path);
      g_assert_cmpuint (whole_lines (now), >=, 1);
      g_assert_cmpuint (strlen (now), <=, strlen (two) * 5 / 4);
    }
  test_remove_tree (base);
}

/* SIGTERM as the sample writes its line: watch ends after that sample. */
static void
test_watch_sigterm_on_write (void)
{
  g_autofree char *base = NULL;
  g_autofree char *path = NULL;
  g_autofree char *data = NULL;
  g_auto(JmemTestRun) r = { 0 };

  if (!need_strace ())
    return;
  base = test_make_tmp ();
  path = g_build_filename (base, "h.jsonl", NULL);
  run_tampered (&r, "write", path, "signal=SIGTERM", "watch", "--sysroot", orin, "--interval",
                "1", "--output", path, NULL);
  g_assert_cmpint (r.status, ==, 0);
  data = test_read_file (path);
  g_assert_cmpuint (whole_lines (data), ==, 1);
  test_remove_tree (base);
}

/* A sample that overruns its interval, and SIGTERM during it: when the
 * sample ends, the overdue timer and the signal are both ready; watch
 * stops at the signal and takes no other sample. The sample's line is
 * written, and then the write's return is held up for 2.5 s. */
static void
test_watch_sigterm_after_overrun (void)
{
  g_autofree char *base = NULL;
  g_autofree char *path = NULL;
  g_autofree char *pid_file = NULL;
  g_autofree char *data = NULL;
  g_autofree char *shell = NULL;
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GSubprocess) proc = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) env = NULL;
  gint64 pid = 0;

  if (!need_strace ())
    return;
  base = test_make_tmp ();
  path = g_build_filename (base, "h.jsonl", NULL);
  pid_file = g_build_filename (base, "pid", NULL);
  /* the shell's PID becomes jmem's: the signal goes to jmem, not strace */
  shell = g_strdup ("echo $$ >\"$0\"; exec \"$@\"");
  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_SILENCE);
  env = traced_env ();
  g_subprocess_launcher_setenv (launcher, "ASAN_OPTIONS", env[0] + strlen ("ASAN_OPTIONS="), TRUE);
  proc = g_subprocess_launcher_spawn (launcher, &error,
                                      "timeout", "--foreground", "--kill-after=10", "120",
                                      "strace", "-f", "-qq", "-o", "/dev/null",
                                      "-P", path, "-e", "trace=write",
                                      /* long enough that a loaded machine still
                                       * signals while the first write is held */
                                      "-e", "inject=write:delay_exit=8000000:when=1",
                                      "sh", "-c", shell, pid_file,
                                      jmem_exe, "watch", "--sysroot", orin, "--interval", "1",
                                      "--output", path, NULL);
  g_assert_no_error (error);
  for (guint tries = 0; tries < 600; tries++)
    {
      g_clear_pointer (&data, g_free);
      data = test_read_file (path);
      if (data != NULL && strchr (data, '\n') != NULL)
        break;
      g_usleep (50 * 1000);
    }
  g_assert_nonnull (data);
  g_assert_nonnull (strchr (data, '\n'));
  {
    g_autofree char *pid_text = test_read_file (pid_file);

    g_assert_nonnull (pid_text);
    pid = g_ascii_strtoll (pid_text, NULL, 10);
  }
  g_assert_cmpint (pid, >, 1);
  g_assert_cmpint (kill ((pid_t) pid, SIGTERM), ==, 0);
  g_assert_true (g_subprocess_wait (proc, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (g_subprocess_get_if_exited (proc));
  g_assert_cmpint (g_subprocess_get_exit_status (proc), ==, 0);
  g_clear_pointer (&data, g_free);
  data = test_read_file (path);
  g_assert_cmpuint (whole_lines (data), ==, 1);
  test_remove_tree (base);
}

int
main (int argc, char **argv)
{
  int rc;

  g_test_init (&argc, &argv, NULL);
  jmem_exe = g_getenv ("JMEM_EXE");
  g_assert_nonnull (jmem_exe);
  orin = jmem_test_fixture ("trees", "orin-agx-nvgpu", NULL);
  thor = jmem_test_fixture ("trees", "thor-unified", NULL);

  g_test_add_func ("/faults/capture/full-disk", test_capture_full_disk);
  g_test_add_func ("/faults/capture/signals", test_capture_signals);
  g_test_add_func ("/faults/textfile/full-disk", test_textfile_full_disk);
  g_test_add_func ("/faults/textfile/signals", test_textfile_signals);
  g_test_add_func ("/faults/watch/full-disk", test_watch_full_disk);
  g_test_add_func ("/faults/watch/trim-signals", test_watch_trim_signals);
  g_test_add_func ("/faults/watch/sigterm-on-write", test_watch_sigterm_on_write);
  g_test_add_func ("/faults/watch/sigterm-after-overrun", test_watch_sigterm_after_overrun);
  rc = g_test_run ();
  g_free (orin);
  g_free (thor);
  return rc;
}
