/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A system account per test run (test-account.h). */
#include "test-account.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* An account this process made, and the watcher that removes it. */
typedef struct {
  char *prefix;
  char *name;
  GPid  watcher;
  int   pipe_fd;   /* the write end: open while this process lives */
} Created;

static GArray *created;

/* The watcher waits for end of file on its stdin, which comes when this
 * process closes the pipe or dies however it dies, then removes the account
 * and the group useradd made for it. What still runs as
 * the account is this test's, left behind (a hung stand-in in a process
 * group of its own survives a kill of the test's group), and would make
 * userdel refuse: it is killed first. So are the directories the test
 * gave the account in /tmp (jmem-*: the account is the test's own). */
static const char watcher_script[] =
  "cat >/dev/null\n"
  "for i in $(seq 50); do\n"
  "  getent passwd \"$1\" >/dev/null || break\n"
  "  pkill -KILL -U \"$1\"; pkill -KILL -u \"$1\"\n"
  "  find /tmp -maxdepth 1 -user \"$1\" -name 'jmem-*' -exec rm -rf -- {} +\n"
  "  userdel \"$1\" && break\n"
  "  sleep 0.2\n"
  "done\n"
  "getent passwd \"$1\" >/dev/null && exit 1\n"
  /* userdel leaves the account's group where USERGROUPS_ENAB is no */
  "! getent group \"$1\" >/dev/null || groupdel \"$1\"\n";

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

/* PREFIX-XXXXXX that names no account or group here yet. */
static char *
free_name (const char *prefix)
{
  for (guint tries = 0; tries < 20; tries++)
    {
      char *name = g_strdup_printf ("%s-%06x", prefix, g_random_int () & 0xffffff);

      if (getpwnam (name) == NULL && getgrnam (name) == NULL)
        return name;
      g_free (name);
    }
  return NULL;
}

static Created *
find_created (const char *prefix)
{
  for (guint i = 0; created != NULL && i < created->len; i++)
    {
      Created *c = &g_array_index (created, Created, i);

      if (g_str_equal (c->prefix, prefix))
        return c;
    }
  return NULL;
}

/* Adds @name to the file JMEM_TEST_NAMES names, where scripts/test looks
 * for what the tests made when it checks the host was left as found. */
static void
record_name (const char *name)
{
  const char *path = g_getenv ("JMEM_TEST_NAMES");
  FILE *f;

  if (path == NULL || *path == '\0')
    return;
  f = fopen (path, "ae");
  if (f == NULL)
    {
      g_printerr ("# cannot record %s in %s: %s\n", name, path, g_strerror (errno));
      return;
    }
  fprintf (f, "%s\n", name);
  fclose (f);
}

/* Makes the account, with a group of its own, and starts its watcher
 * first, so that no way of ending leaves it behind. */
static Created *
create (const char *prefix)
{
  g_autofree char *name = free_name (prefix);
  Created c = { 0 };

  if (name == NULL || !watch (name, &c))
    return NULL;
  record_name (name);
  {
    const char *add[] = { "useradd", "--system", "--no-create-home", "-U", name, NULL };
    if (!run_quietly (add) || getpwnam (name) == NULL)
      {
        close (c.pipe_fd);
        while (waitpid (c.watcher, NULL, 0) < 0 && errno == EINTR)
          ;
        g_spawn_close_pid (c.watcher);
        return NULL;
      }
  }
  c.prefix = g_strdup (prefix);
  c.name = g_steal_pointer (&name);
  if (created == NULL)
    created = g_array_new (FALSE, FALSE, sizeof (Created));
  g_array_append_val (created, c);
  return &g_array_index (created, Created, created->len - 1);
}

gboolean
test_account_get (const char  *prefix,
                  const char **name,
                  uid_t       *uid,
                  gid_t       *gid)
{
  Created *c;
  struct passwd *pw;

  g_return_val_if_fail (strlen (prefix) <= TEST_ACCOUNT_MAX_PREFIX, FALSE);
  c = find_created (prefix);
  if (c == NULL)
    c = create (prefix);
  if (c == NULL || (pw = getpwnam (c->name)) == NULL)
    return FALSE;
  if (name != NULL)
    *name = c->name;
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
      g_free (c->prefix);
      g_free (c->name);
    }
  g_clear_pointer (&created, g_array_unref);
}
