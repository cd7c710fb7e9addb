/* The accounts the tests make are gone when the test that made them ends,
 * however it ends: this program runs itself in a mode that makes the
 * account and then returns, fails an assertion (SIGABRT) or, with a program
 * left running as the account in a session of its own, waits to be killed
 * with its process group (SIGKILL, as meson kills a test that runs past its
 * timeout), and each time asks getent whether the account and its group
 * are still there. */
#include <glib.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test-account.h"

/* Used by this test alone, so that it runs at once with the others. */
#define ACCOUNT "jmem-test-accounts"
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
  uid_t uid;
  gid_t gid;
  struct rlimit no_core = { 0, 0 };

  g_autofree char *dir = NULL;

  if (!test_account_get (ACCOUNT, &uid, &gid))
    return CANNOT_CREATE;
  /* a directory of the account's, as the tests give it one to work in */
  dir = g_dir_make_tmp ("jmem-test-accounts-XXXXXX", NULL);
  if (dir == NULL || chown (dir, uid, gid) != 0)
    return 1;
  printf ("created %u %s\n", (guint) uid, dir);
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
      g_assert_null (getpwnam (ACCOUNT));
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

/* The exit status of `getent DATABASE ACCOUNT`: 2 when it has no such entry. */
static int
getent (const char *database)
{
  const char *argv[] = { "getent", database, ACCOUNT, NULL };
  int status = -1;

  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL,
                               G_SPAWN_SEARCH_PATH | G_SPAWN_STDOUT_TO_DEV_NULL,
                               NULL, NULL, NULL, NULL, &status, NULL));
  g_assert_true (WIFEXITED (status));
  return WEXITSTATUS (status);
}

static gboolean
account_gone (void)
{
  return getent ("passwd") == 2 && getent ("group") == 2;
}

/* The watcher works after the test has gone: give it a moment. */
static void
assert_gone_soon (void)
{
  for (int i = 0; i < GONE_WITHIN_S * 10 && !account_gone (); i++)
    g_usleep (G_USEC_PER_SEC / 10);
  g_assert_cmpint (getent ("passwd"), ==, 2);
  g_assert_cmpint (getent ("group"), ==, 2);
}

/* FALSE (test skipped) where the test cannot make the account. */
static gboolean
can_run (void)
{
  if (geteuid () != 0)
    {
      g_test_skip ("needs root to create " ACCOUNT);
      return FALSE;
    }
  if (!account_gone ())
    {
      g_test_skip (ACCOUNT " is on this host already: the test needs to make it");
      return FALSE;
    }
  return TRUE;
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

/* Skips when the account could not be made; else checks it was made. */
static gboolean
made (int status, const char *out)
{
  if (WIFEXITED (status) && WEXITSTATUS (status) == CANNOT_CREATE)
    {
      g_test_skip ("cannot create " ACCOUNT);
      return FALSE;
    }
  g_assert_true (g_str_has_prefix (out, "created "));
  return TRUE;
}

/* The account's directory named in @out is gone too. */
static void
assert_dir_gone (const char *out)
{
  g_auto(GStrv) words = g_strsplit_set (out, " \n", 4);

  g_assert_cmpuint (g_strv_length (words), >=, 3);
  g_assert_true (g_str_has_prefix (words[2], g_get_tmp_dir ()));
  g_assert_false (g_file_test (words[2], G_FILE_TEST_EXISTS));
}

static void
test_removed_on_return (void)
{
  g_autofree char *out = NULL, *err = NULL;
  int status;

  if (!can_run ())
    return;
  status = run_self ("return", &out, &err);
  if (!made (status, out))
    return;
  g_assert_true (WIFEXITED (status));
  g_assert_cmpint (WEXITSTATUS (status), ==, 0);
  /* test_account_remove_created() returns once it is gone */
  g_assert_cmpint (getent ("passwd"), ==, 2);
  g_assert_cmpint (getent ("group"), ==, 2);
  assert_dir_gone (out);
}

static void
test_removed_after_failed_assertion (void)
{
  g_autofree char *out = NULL, *err = NULL;
  int status;

  if (!can_run ())
    return;
  status = run_self ("assert", &out, &err);
  if (!made (status, out))
    return;
  g_assert_nonnull (strstr (err, "'getpwnam (ACCOUNT)' should be NULL"));
  g_assert_true (WIFSIGNALED (status));
  g_assert_cmpint (WTERMSIG (status), ==, SIGABRT);
  assert_gone_soon ();
  assert_dir_gone (out);
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

static void
test_removed_after_sigkill_of_group (void)
{
  const char *argv[] = { self, "--create-and", "wait", NULL };
  g_autoptr(GError) error = NULL;
  g_autoptr(GIOChannel) channel = NULL;
  g_autofree char *created = NULL, *waiting = NULL;
  int left = 0;
  GPid pid;
  int out_fd, status = -1;

  if (!can_run ())
    return;
  g_assert_true (g_spawn_async_with_pipes (NULL, (char **) argv, NULL, G_SPAWN_DO_NOT_REAP_CHILD,
                                           new_session, NULL, &pid, NULL, &out_fd, NULL, &error));
  g_assert_no_error (error);
  channel = g_io_channel_unix_new (out_fd);
  g_io_channel_set_close_on_unref (channel, TRUE);
  /* "created UID DIR" once the account is made, "waiting, PID runs as it"
   * once a program does; end of file where it could not get that far */
  g_io_channel_read_line (channel, &created, NULL, NULL, NULL);
  g_io_channel_read_line (channel, &waiting, NULL, NULL, NULL);
  /* the test body and all in its group, as meson kills a test past its timeout */
  kill (-pid, SIGKILL);
  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
  g_spawn_close_pid (pid);
  if (!made (status, created != NULL ? created : ""))
    return;
  g_assert_nonnull (waiting);
  g_assert_cmpint (sscanf (waiting, "waiting, %d runs as it", &left), ==, 1);
  g_assert_true (WIFSIGNALED (status));
  g_assert_cmpint (WTERMSIG (status), ==, SIGKILL);
  assert_gone_soon ();
  assert_dir_gone (created);
  /* the program left running as it was killed first */
  g_assert_false (runs (left));
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
  return g_test_run ();
}
