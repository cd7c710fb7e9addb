/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "jmem-run.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

void
jmem_run_result_clear (JmemRunResult *result)
{
  g_clear_pointer (&result->out, g_free);
  result->out_len = 0;
}

/* Root runs only what root's own directories hold: a PATH inherited through
 * sudo -E, env or a service file must not pick the program. */
static const char * const system_dirs[] = { "/usr/sbin", "/usr/bin", "/sbin", "/bin", NULL };

static gboolean
is_executable_file (const char *path)
{
  struct stat st;

  return stat (path, &st) == 0 && S_ISREG (st.st_mode) &&
         faccessat (AT_FDCWD, path, X_OK, AT_EACCESS) == 0;
}

static char *
find_in (const char * const *dirs, const char *name)
{
  for (gsize i = 0; dirs[i] != NULL; i++)
    {
      g_autofree char *path = NULL;

      /* An empty or relative entry means the current directory, or one
       * below it: whoever owns that directory would choose the program. */
      if (!g_path_is_absolute (dirs[i]))
        continue;
      path = g_build_filename (dirs[i], name, NULL);
      if (is_executable_file (path))
        return g_steal_pointer (&path);
    }
  return NULL;
}

char *
jmem_run_find_program (const char *name)
{
  const char *path = g_getenv ("PATH");
  g_auto(GStrv) dirs = NULL;

  g_return_val_if_fail (name != NULL, NULL);

  if (name[0] == '\0' || strchr (name, '/') != NULL)
    return NULL;
  /* With no PATH there is no list to honour: the system's, never "." */
  if (geteuid () == 0 || path == NULL)
    return find_in (system_dirs, name);
  dirs = g_strsplit (path, ":", -1);
  return find_in ((const char * const *) dirs, name);
}

static void
child_setup (gpointer user_data)
{
  /* Own process group, so a timeout also kills anything the tool forked. */
  setpgid (0, 0);
}

static void
kill_group (GPid pid)
{
  kill (-pid, SIGKILL);
  kill (pid, SIGKILL);
}

/* Reaps @pid, waiting until @deadline (monotonic µs); kills on expiry. */
static int
reap (GPid pid, gint64 deadline, gboolean *timed_out)
{
  int status = 0;

  for (;;)
    {
      pid_t r = waitpid (pid, &status, WNOHANG);

      if (r == pid)
        break;
      if (r < 0 && errno != EINTR)
        return -1;
      if (g_get_monotonic_time () >= deadline)
        {
          *timed_out = TRUE;
          kill_group (pid);
          while (waitpid (pid, &status, 0) < 0 && errno == EINTR)
            ;
          return -1;
        }
      g_usleep (5000);
    }
  /* Whatever the tool left behind in its group goes with it. */
  kill (-pid, SIGKILL);
  if (WIFEXITED (status))
    return WEXITSTATUS (status);
  return -1;
}

gboolean
jmem_run (const char * const *argv,
          guint               timeout_ms,
          gsize               max_bytes,
          JmemRunResult      *result,
          GError            **error)
{
  g_autofree char *program = NULL;
  g_autoptr(GPtrArray) spawn_argv = NULL;
  g_auto(GStrv) envp = NULL;
  g_autoptr(GByteArray) buf = NULL;
  gint64 deadline = g_get_monotonic_time () + (gint64) timeout_ms * 1000;
  GPid pid = 0;
  int out_fd = -1;

  memset (result, 0, sizeof *result);
  result->exit_status = -1;

  /* Off a Jetson most of these tools are absent: say so without a fork. */
  program = jmem_run_find_program (argv[0]);
  if (program == NULL)
    {
      g_set_error (error, G_SPAWN_ERROR, G_SPAWN_ERROR_NOENT,
                   geteuid () == 0 || g_getenv ("PATH") == NULL
                     ? "%s is not installed (not found in /usr/sbin, /usr/bin, /sbin or /bin)"
                     : "%s is not installed (not found in PATH's absolute directories)",
                   argv[0]);
      return FALSE;
    }
  /* Execute what was found, under the name it was asked for. */
  spawn_argv = g_ptr_array_new ();
  g_ptr_array_add (spawn_argv, program);
  for (gsize i = 0; argv[i] != NULL; i++)
    g_ptr_array_add (spawn_argv, (gpointer) argv[i]);
  g_ptr_array_add (spawn_argv, NULL);
  envp = g_environ_setenv (g_get_environ (), "LC_ALL", "C", TRUE);
  buf = g_byte_array_new ();

  /* No stdin pipe asked for: the child's stdin is /dev/null. */
  if (!g_spawn_async_with_pipes (NULL, (char **) spawn_argv->pdata, envp,
                                 G_SPAWN_FILE_AND_ARGV_ZERO | G_SPAWN_DO_NOT_REAP_CHILD |
                                 G_SPAWN_STDERR_TO_DEV_NULL | G_SPAWN_CLOEXEC_PIPES,
                                 child_setup, NULL, &pid, NULL, &out_fd, NULL, error))
    return FALSE;

  for (;;)
    {
      gint64 left_ms = (deadline - g_get_monotonic_time ()) / 1000;
      struct pollfd pfd = { .fd = out_fd, .events = POLLIN };
      guint8 chunk[4096];
      ssize_t n;
      int r;

      if (left_ms <= 0)
        {
          result->timed_out = TRUE;
          kill_group (pid);
          break;
        }
      r = poll (&pfd, 1, (int) MIN (left_ms, 1000));
      if (r < 0 && errno == EINTR)
        continue;
      if (r == 0)
        continue;
      n = read (out_fd, chunk, sizeof chunk);
      if (n < 0 && (errno == EINTR || errno == EAGAIN))
        continue;
      if (n <= 0)
        break;
      if (buf->len + (gsize) n > max_bytes)
        {
          g_byte_array_append (buf, chunk, (guint) (max_bytes - buf->len));
          result->truncated = TRUE;
          kill_group (pid);
          break;
        }
      g_byte_array_append (buf, chunk, (guint) n);
    }
  close (out_fd);

  if (result->timed_out || result->truncated)
    {
      int status;
      while (waitpid (pid, &status, 0) < 0 && errno == EINTR)
        ;
    }
  else
    result->exit_status = reap (pid, deadline, &result->timed_out);
  g_spawn_close_pid (pid);

  result->out_len = buf->len;
  g_byte_array_append (buf, (const guint8 *) "", 1);
  result->out = (char *) g_byte_array_free (g_steal_pointer (&buf), FALSE);
  return TRUE;
}
