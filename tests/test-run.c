#include "test-run.h"

#include <gio/gio.h>

void
test_run_clear (TestRun *r)
{
  g_clear_pointer (&r->out, g_free);
  g_clear_pointer (&r->err, g_free);
}

void
test_run_argv (const char * const *argv,
               const char * const *env,
               TestRun            *r)
{
  g_autoptr(GSubprocessLauncher) launcher =
    g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE);
  g_autoptr(GSubprocess) proc = NULL;
  g_autoptr(GError) error = NULL;

  for (guint i = 0; env != NULL && env[i] != NULL; i++)
    {
      g_auto(GStrv) kv = g_strsplit (env[i], "=", 2);

      g_subprocess_launcher_setenv (launcher, kv[0], kv[1] != NULL ? kv[1] : "", TRUE);
    }
  proc = g_subprocess_launcher_spawnv (launcher, argv, &error);
  g_assert_no_error (error);
  g_subprocess_communicate_utf8 (proc, NULL, NULL, &r->out, &r->err, &error);
  g_assert_no_error (error);
  r->status = g_subprocess_get_if_exited (proc) ? g_subprocess_get_exit_status (proc) : -1;
  r->signal = g_subprocess_get_if_signaled (proc) ? g_subprocess_get_term_sig (proc) : 0;
  g_assert_cmpint (r->status, !=, 124);  /* hung until `timeout` killed it */
}

char *
test_make_tmp (void)
{
  g_autoptr(GError) error = NULL;
  char *dir = g_dir_make_tmp ("jmem-test-write-XXXXXX", &error);

  g_assert_no_error (error);
  return dir;
}

void
test_remove_tree (const char *path)
{
  const char *argv[] = { "rm", "-rf", "--", path, NULL };
  g_auto(TestRun) r = { 0 };

  test_run_argv (argv, NULL, &r);
  g_assert_cmpint (r.status, ==, 0);
}

char *
test_read_file (const char *path)
{
  char *data = NULL;

  if (!g_file_get_contents (path, &data, NULL, NULL))
    return NULL;
  return data;
}
