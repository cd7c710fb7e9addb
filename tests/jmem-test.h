/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the tests share: running a program (jmem, or jmem as another
 * account) and keeping what it did, checking a document against its
 * published schema, and finding the fixtures. */
#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

typedef struct {
  int    status;   /* exit status; -1 when a signal ended it */
  int    signal;   /* the signal that ended it, else 0 */
  gint64 pid;      /* its process ID; -1 when it ended before it was read */
  char  *out;      /* "" when stdout was not piped */
  char  *err;
  double seconds;  /* from the start given to jmem_test_run_finish() */
  JsonNode *json;  /* stdout, once jmem_test_run_parse_json() has read it */
} JmemTestRun;

void jmem_test_run_clear (JmemTestRun *run);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (JmemTestRun, jmem_test_run_clear)

/* Adds to @argv what runs @program here: a cross build's test binaries
 * behind the emulator meson test names in MESON_EXE_WRAPPER (no binfmt
 * handler may be registered), then @program. */
void jmem_test_add_program (GPtrArray  *argv,
                            const char *program);

/* Starts @program with @args (NULL-terminated) from @launcher, as @user
 * (NULL: as this process is) through setpriv (jmem_test_add_program()) with the user's groups, from
 * "/" with HOME=/nonexistent and LC_ALL=C.UTF-8. */
GSubprocess *jmem_test_spawn_as (GSubprocessLauncher *launcher,
                                 const char          *user,
                                 const char          *program,
                                 const char *const   *args);

/* Waits for @process, started at @start (g_get_monotonic_time()) with
 * stderr and perhaps stdout piped, and keeps its end in @run. */
void jmem_test_run_finish (GSubprocess *process,
                           gint64       start,
                           JmemTestRun *run);

/* Runs @argv (NULL-terminated; argv[0] looked up in PATH) from @launcher
 * (NULL: one with this process's environment), which pipes stderr and
 * stdout (else out is ""), and keeps its end in @run. The output is kept as the bytes it
 * is, whatever they are, up to a first NUL. */
void jmem_test_run_spawn (JmemTestRun         *run,
                          GSubprocessLauncher *launcher,
                          const char *const   *argv);

/* A launcher for jmem_test_run_spawn(): stdout and stderr piped, @env
 * (NAME=VALUE, NULL-terminated, nullable) set over this process's. */
GSubprocessLauncher *jmem_test_launcher (const char *const *env);

/* `$JMEM_EXE ARGS` (@args NULL-terminated), as jmem_test_run_spawn(). */
void jmem_test_run_jmem (JmemTestRun       *run,
                         const char *const *args);

/* @prefix (NULL-terminated; nullable: none), then `$JMEM_EXE ARGS`, from
 * @launcher (nullable), as jmem_test_run_spawn(). */
void jmem_test_run_jmem_full (JmemTestRun         *run,
                              GSubprocessLauncher *launcher,
                              const char *const   *prefix,
                              const char *const   *args);

/* `timeout @seconds $JMEM_EXE ARGS` with @env (nullable) set over ours;
 * asserts `timeout` did not have to end it (status 124): a command that
 * hangs fails its test, not the whole run. */
void jmem_test_run_jmem_within (JmemTestRun       *run,
                                guint              seconds,
                                const char *const *env,
                                const char *const *args);

/* Parses @run's stdout into run->json, asserting it is JSON. */
void jmem_test_run_parse_json (JmemTestRun *run);

/* Whether a line of the snapshot @root's gpu.evidence holds @needle. */
gboolean jmem_test_has_gpu_evidence (JsonNode   *root,
                                     const char *needle);

/* Runs tests/validate-json.py on @json_text against docs/@schema_name;
 * returns its exit status (0: valid, 1: not, 2: unreadable) and, in
 * @report (nullable), what it said. */
int  jmem_test_validate (const char  *json_text,
                         const char  *schema_name,
                         char       **report);

/* Asserts @json_text follows docs/@schema_name; prints why when not. */
void jmem_test_assert_valid (const char *json_text,
                             const char *schema_name);

/* For g_subprocess_launcher_set_child_setup(): the child is killed when
 * the test ends, even one that failed before it stopped the child. */
void jmem_test_die_with_test (gpointer unused);

/* A private bus daemon (`dbus-daemon --session`) listening on @dir/bus,
 * killed with the test (SIGTERM it to remove its socket); its address in
 * *@address. NULL where dbus-daemon is not installed: skip then. */
GSubprocess *jmem_test_bus_start (const char  *dir,
                                  char       **address);

/* SIGSTOP to @process, returning once the kernel shows it stopped: a
 * message sent after this is one it cannot have read. */
void jmem_test_stop_process (GSubprocess *process);

/* $JMEM_FIXTURES/@first/...: the path of a fixture (NULL-terminated
 * components, as g_build_filename()). */
char *jmem_test_fixture (const char *first,
                         ...) G_GNUC_NULL_TERMINATED G_GNUC_MALLOC;

/* The bytes of the distinct files the descriptors in @fds (int) refer to:
 * what they keep in memory, were they memfds. */
guint64 jmem_test_fds_distinct_bytes (GArray *fds);

/* g_dir_make_tmp (@tmpl): a new folder in the temporary directory, which
 * a watcher in a session of its own removes once this process has ended,
 * however it ended (meson's timeout ends with SIGKILL); the test may
 * remove it before. */
char *jmem_test_make_tmp (const char  *tmpl,
                          GError     **error);

G_END_DECLS
