#include "jmem-test.h"

#include <pwd.h>

void
jmem_test_run_clear (JmemTestRun *run)
{
  g_clear_pointer (&run->out, g_free);
  g_clear_pointer (&run->err, g_free);
}

void
jmem_test_run_finish (GSubprocess *process,
                      gint64       start,
                      JmemTestRun *run)
{
  g_autoptr(GError) error = NULL;

  g_subprocess_communicate_utf8 (process, NULL, NULL, &run->out, &run->err, &error);
  g_assert_no_error (error);
  run->seconds = (g_get_monotonic_time () - start) / 1e6;
  run->status = g_subprocess_get_if_exited (process) ? g_subprocess_get_exit_status (process) : -1;
  if (run->out == NULL)
    run->out = g_strdup ("");
  if (run->err == NULL)
    run->err = g_strdup ("");
  g_test_message ("exit %d after %.1f s\nstdout: %.1500s\nstderr: %.1500s", run->status,
                  run->seconds, run->out, run->err);
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
