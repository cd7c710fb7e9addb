/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The accounts the tests make are gone when the test that made them ends,
 * however it ends: this program runs itself in a mode that makes the
 * account and then returns, fails an assertion (SIGABRT) or, with a program
 * left running as the account in a session of its own, waits to be killed
 * with its process group (SIGKILL, as meson kills a test that runs past its
 * timeout), and each time asks getent whether the account and its group
 * are still there. Two runs at once each get an account of their own. */
#include <glib.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "jmem-test.h"
#include "test-account.h"

/* The prefix of the accounts this test makes (named per run). */
#define ACCOUNT_PREFIX "jmem-test-accounts"
#define CANNOT_CREATE 77
/* How long the watcher may take to remove the account after the test died. */
#define GONE_WITHIN_S 15

static const char *self;

/* ---- The modes the test runs itself in ---- */

static void
new_session (gpointer data)
{
  (void) data;
  setsid ();
}

static int
run_mode (const char *mode)
{
  const char *name = NULL;
  uid_t uid;
  gid_t gid;
  struct rlimit no_core = { 0, 0 };

  g_autofree char *dir = NULL;

  if (!test_account_get (ACCOUNT_PREFIX, &name, &uid, &gid))
    return CANNOT_CREATE;
  /* a directory of the account's, as the tests give it one to work in */
  dir = jmem_test_make_tmp ("jmem-test-accounts-XXXXXX", NULL);
  if (dir == NULL || chown (dir, uid, gid) != 0)
    return 1;
  printf ("created %u %s %s\n", (guint) uid, name, dir);
  fflush (stdout);
  if (strcmp (mode, "return") == 0)
    {
      test_account_remove_created ();
      return 0;
    }
  if (strcmp (mode, "assert") == 0)
    {
      /* the abort leaves no core file behind either */
      setrlimit (RLIMIT_CORE, &no_core);
      /* outside g_test_init, as in a test body: a failed assertion aborts */
      g_assert_null (getpwnam (name));
      return 0;
    }
  if (strcmp (mode, "wait") == 0)
    {
      /* a program left running as the account in a session of its own,
       * as a hung stand-in outlives a test killed with its group */
      g_autofree char *reuid = g_strdup_printf ("--reuid=%u", (guint) uid);
      g_autofree char *regid = g_strdup_printf ("--regid=%u", (guint) gid);
      const char *argv[] = { "setpriv", reuid, regid, "--clear-groups", "sleep", "600", NULL };
      GPid left;

      /* not our child (GLib reaps the one in between): it outlives us */
      if (!g_spawn_async (NULL, (char **) argv, NULL,
                          G_SPAWN_SEARCH_PATH | G_SPAWN_STDOUT_TO_DEV_NULL,
                          new_session, NULL, &left, NULL))
        return 1;
      printf ("waiting, %d runs as it\n", (int) left);
      fflush (stdout);
      for (;;)
        pause ();
    }
  return 2;
}

/* ---- What the test checks ---- */

/* The exit status of `getent DATABASE NAME`: 2 when it has no such entry. */
static int
getent (const char *database, const char *name)
{
  const char *argv[] = { "getent", database, name, NULL };
  int status = -1;

  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL,
                               G_SPAWN_SEARCH_PATH | G_SPAWN_STDOUT_TO_DEV_NULL,
                               NULL, NULL, NULL, NULL, &status, NULL));
  g_assert_true (WIFEXITED (status));
  return WEXITSTATUS (status);
}

static gboolean
account_gone (const char *name)
{
  return getent ("passwd", name) == 2 && getent ("group", name) == 2;
}

/* The watcher works after the test has gone: give it a moment. */
static void
assert_gone_soon (const char *name)
{
  for (int i = 0; i < GONE_WITHIN_S * 10 && !account_gone (name); i++)
    g_usleep (G_USEC_PER_SEC / 10);
  g_assert_cmpint (getent ("passwd", name), ==, 2);
  g_assert_cmpint (getent ("group", name), ==, 2);
}

/* FALSE (test skipped) where the test cannot make an account. */
static gboolean
can_run (void)
{
  if (geteuid () != 0)
    {
      g_test_skip ("needs root to create accounts");
      return FALSE;
    }
  return TRUE;
}

/* "created UID NAME DIR" from a run of this program, split. */
typedef struct {
  char *name;
  char *dir;
} Made;

static void
made_clear (Made *made)
{
  g_clear_pointer (&made->name, g_free);
  g_clear_pointer (&made->dir, g_free);
}
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Made, made_clear)

static void
parse_made (const char *out, Made *made)
{
  g_auto(GStrv) words = g_strsplit_set (out, " \n", 5);

  g_assert_cmpuint (g_strv_length (words), >=, 4);
  g_assert_cmpstr (words[0], ==, "created");
  g_assert_true (g_str_has_prefix (words[2], ACCOUNT_PREFIX "-"));
  g_assert_cmpuint (strlen (words[2]), <=, 32);
  made->name = g_strdup (words[2]);
  made->dir = g_strdup (words[3]);
}

/* `self --create-and MODE` to its end; its raw wait status and its output. */
static int
run_self (const char *mode, char **out, char **err)
{
  const char *argv[] = { self, "--create-and", mode, NULL };
  g_autoptr(GError) error = NULL;
  int status = -1;

  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT,
                               NULL, NULL, out, err, &status, &error));
  g_assert_no_error (error);
  return status;
}

/* Skips when the account could not be made; else reads what was made. */
static gboolean
made (int status, const char *out, Made *made)
{
  if (WIFEXITED (status) && WEXITSTATUS (status) == CANNOT_CREATE)
    {
      g_test_skip ("cannot create an account");
      return FALSE;
    }
  parse_made (out, made);
  return TRUE;
}

/* The account's directory is gone too. */
static void
assert_dir_gone (const Made *made)
{
  g_assert_true (g_str_has_prefix (made->dir, g_get_tmp_dir ()));
  g_assert_false (g_file_test (made->dir, G_FILE_TEST_EXISTS));
}

static void
test_removed_on_return (void)
{
  g_autofree char *out = NULL, *err = NULL;
  g_auto(Made) account = { 0 };
  int status;

  if (!can_run ())
    return;
  status = run_self ("return", &out, &err);
  if (!made (status, out, &account))
    return;
  g_assert_true (WIFEXITED (status));
  g_assert_cmpint (WEXITSTATUS (status), ==, 0);
  /* test_account_remove_created() returns once it is gone */
  g_assert_cmpint (getent ("passwd", account.name), ==, 2);
  g_assert_cmpint (getent ("group", account.name), ==, 2);
  assert_dir_gone (&account);
}

static void
test_removed_after_failed_assertion (void)
{
  g_autofree char *out = NULL, *err = NULL;
  g_auto(Made) account = { 0 };
  int status;

  if (!can_run ())
    return;
  status = run_self ("assert", &out, &err);
  if (!made (status, out, &account))
    return;
  g_assert_nonnull (strstr (err, "'getpwnam (name)' should be NULL"));
  g_assert_true (WIFSIGNALED (status));
  g_assert_cmpint (WTERMSIG (status), ==, SIGABRT);
  assert_gone_soon (account.name);
  assert_dir_gone (&account);
}

/* Whether @pid runs (a zombie waiting for its parent counts as gone). */
static gboolean
runs (int pid)
{
  g_autofree char *path = g_strdup_printf ("/proc/%d/stat", pid);
  g_autofree char *stat = NULL;
  const char *state;

  if (!g_file_get_contents (path, &stat, NULL, NULL))
    return FALSE;
  state = strrchr (stat, ')');
  return state != NULL && !g_str_has_prefix (state, ") Z");
}

/* `self --create-and wait` in a session of its own, up to the point where
 * a program runs as its account. */
typedef struct {
  GPid  pid;
  char *created;  /* "created UID NAME DIR", NULL where it got no further */
  int   left;     /* the program left running as the account, or 0 */
} Waiting;

static void
start_waiting (Waiting *w)
{
  const char *argv[] = { self, "--create-and", "wait", NULL };
  g_autoptr(GError) error = NULL;
  g_autoptr(GIOChannel) channel = NULL;
  g_autofree char *waiting = NULL;
  int out_fd;

  g_assert_true (g_spawn_async_with_pipes (NULL, (char **) argv, NULL, G_SPAWN_DO_NOT_REAP_CHILD,
                                           new_session, NULL, &w->pid, NULL, &out_fd, NULL, &error));
  g_assert_no_error (error);
  channel = g_io_channel_unix_new (out_fd);
  g_io_channel_set_close_on_unref (channel, TRUE);
  /* "created UID NAME DIR" once the account is made, "waiting, PID runs as
   * it" once a program does; end of file where it could not get that far */
  g_io_channel_read_line (channel, &w->created, NULL, NULL, NULL);
  g_io_channel_read_line (channel, &waiting, NULL, NULL, NULL);
  if (waiting != NULL)
    g_assert_cmpint (sscanf (waiting, "waiting, %d runs as it", &w->left), ==, 1);
}

/* Kills the test body and all in its group, as meson kills a test past its
 * timeout; FALSE (skipped) where it could not make its account. */
static gboolean
kill_waiting (Waiting *w, Made *account)
{
  int status = -1;

  kill (-w->pid, SIGKILL);
  g_assert_cmpint (waitpid (w->pid, &status, 0), ==, w->pid);
  g_spawn_close_pid (w->pid);
  if (!made (status, w->created != NULL ? w->created : "", account))
    return FALSE;
  g_assert_cmpint (w->left, >, 0);
  g_assert_true (WIFSIGNALED (status));
  g_assert_cmpint (WTERMSIG (status), ==, SIGKILL);
  return TRUE;
}

static void
test_removed_after_sigkill_of_group (void)
{
  Waiting w = { 0 };
  g_auto(Made) account = { 0 };

  if (!can_run ())
    return;
  start_waiting (&w);
  if (!kill_waiting (&w, &account))
    {
      g_free (w.created);
      return;
    }
  g_free (w.created);
  assert_gone_soon (account.name);
  assert_dir_gone (&account);
  /* the program left running as it was killed first */
  g_assert_false (runs (w.left));
}

/* Two runs of one test at once: each makes an account of its own, and the
 * end of one (here, killed) leaves the other's account and program alone. */
static void
test_runs_at_once_do_not_share (void)
{
  Waiting first = { 0 }, second = { 0 };
  g_auto(Made) a = { 0 };
  g_auto(Made) b = { 0 };
  gboolean both;

  if (!can_run ())
    return;
  start_waiting (&first);
  start_waiting (&second);
  both = kill_waiting (&first, &a);
  if (both)
    {
      g_assert_nonnull (second.created);
      parse_made (second.created, &b);
      g_assert_cmpstr (a.name, !=, b.name);
      assert_gone_soon (a.name);
      /* the other run's account and its program are still there */
      g_assert_cmpint (getent ("passwd", b.name), ==, 0);
      g_assert_true (runs (second.left));
      g_assert_true (g_file_test (b.dir, G_FILE_TEST_IS_DIR));
      g_clear_pointer (&b.name, g_free);
      g_clear_pointer (&b.dir, g_free);
    }
  if (kill_waiting (&second, &b))
    {
      assert_gone_soon (b.name);
      assert_dir_gone (&b);
      g_assert_false (runs (second.left));
    }
  g_free (first.created);
  g_free (second.created);
}

int
main (int argc, char **argv)
{
  if (argc == 3 && strcmp (argv[1], "--create-and") == 0)
    return run_mode (argv[2]);

  self = argv[0];
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/accounts/removed-on-return", test_removed_on_return);
  g_test_add_func ("/accounts/removed-after-failed-assertion", test_removed_after_failed_assertion);
  g_test_add_func ("/accounts/removed-after-sigkill-of-group", test_removed_after_sigkill_of_group);
  g_test_add_func ("/accounts/runs-at-once-do-not-share", test_runs_at_once_do_not_share);
  return g_test_run ();
}
