#include "test-account.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <sys/wait.h>
#include <unistd.h>

/* An account this process made, and the watcher that removes it. */
typedef struct {
  GPid  watcher;
  int   pipe_fd;   /* the write end: open while this process lives */
} Created;

static GArray *created;

/* The watcher waits for end of file on its stdin, which comes when this
 * process closes the pipe or dies however it dies, then removes the account
 * (userdel also removes the group useradd made for it). What still runs as
 * the account is this test's, left behind (a hung stand-in in a process
 * group of its own survives a kill of the test's group), and would make
 * userdel refuse: it is killed first. So are the directories the test
 * gave the account in /tmp (jmem-*: the account is the test's own). */
static const char watcher_script[] =
  "cat >/dev/null\n"
  "for i in $(seq 50); do\n"
  "  getent passwd \"$1\" >/dev/null || exit 0\n"
  "  pkill -KILL -U \"$1\"; pkill -KILL -u \"$1\"\n"
  "  find /tmp -maxdepth 1 -user \"$1\" -name 'jmem-*' -exec rm -rf -- {} +\n"
  "  userdel \"$1\" && exit 0\n"
  "  sleep 0.2\n"
  "done\n"
  "exit 1\n";

/* A session of its own, so that killing this process's group (meson does
 * that on a timeout) does not kill the watcher with it. */
static void
watcher_setup (gpointer data)
{
  (void) data;
  setsid ();
}

static gboolean
run_quietly (const char *const *argv)
{
  int status = -1;

  return g_spawn_sync (NULL, (char **) argv, NULL,
                       G_SPAWN_SEARCH_PATH | G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_STDERR_TO_DEV_NULL,
                       NULL, NULL, NULL, NULL, &status, NULL) &&
         g_spawn_check_exit_status (status, NULL);
}

/* Starts the watcher for @name. FALSE when it cannot be started. */
static gboolean
watch (const char *name, Created *c)
{
  const char *argv[] = { "sh", "-c", watcher_script, "sh", name, NULL };
  g_autoptr(GError) error = NULL;

  if (!g_spawn_async_with_pipes (NULL, (char **) argv, NULL,
                                 G_SPAWN_SEARCH_PATH | G_SPAWN_DO_NOT_REAP_CHILD |
                                 G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_STDERR_TO_DEV_NULL,
                                 watcher_setup, NULL, &c->watcher, &c->pipe_fd, NULL, NULL,
                                 &error))
    {
      g_printerr ("# cannot start the watcher for %s: %s\n", name, error->message);
      return FALSE;
    }
  /* no program this process starts may hold the pipe open */
  fcntl (c->pipe_fd, F_SETFD, FD_CLOEXEC);
  return TRUE;
}

gboolean
test_account_get (const char *name, uid_t *uid, gid_t *gid)
{
  struct passwd *pw = getpwnam (name);

  if (pw == NULL)
    {
      const char *add[] = { "useradd", "--system", "--no-create-home", name, NULL };
      const char *del[] = { "userdel", name, NULL };
      Created c = { 0 };

      if (!run_quietly (add) || getpwnam (name) == NULL)
        return FALSE;
      if (!watch (name, &c))
        {
          run_quietly (del);
          return FALSE;
        }
      if (created == NULL)
        created = g_array_new (FALSE, FALSE, sizeof (Created));
      g_array_append_val (created, c);
      pw = getpwnam (name);
    }
  if (pw == NULL)
    return FALSE;
  *uid = pw->pw_uid;
  *gid = pw->pw_gid;
  return TRUE;
}

void
test_account_remove_created (void)
{
  for (guint i = 0; created != NULL && i < created->len; i++)
    {
      Created *c = &g_array_index (created, Created, i);

      close (c->pipe_fd);
      while (waitpid (c->watcher, NULL, 0) < 0 && errno == EINTR)
        ;
      g_spawn_close_pid (c->watcher);
    }
  g_clear_pointer (&created, g_array_unref);
}
