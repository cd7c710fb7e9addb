#include "test-account.h"

#include <pwd.h>

static GPtrArray *created;

static gboolean
run_quietly (const char *const *argv)
{
  int status = -1;

  return g_spawn_sync (NULL, (char **) argv, NULL,
                       G_SPAWN_SEARCH_PATH | G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_STDERR_TO_DEV_NULL,
                       NULL, NULL, NULL, NULL, &status, NULL) &&
         g_spawn_check_exit_status (status, NULL);
}

gboolean
test_account_get (const char *name, uid_t *uid, gid_t *gid)
{
  struct passwd *pw = getpwnam (name);

  if (pw == NULL)
    {
      const char *add[] = { "useradd", "--system", "--no-create-home", name, NULL };

      if (run_quietly (add) && getpwnam (name) != NULL)
        {
          if (created == NULL)
            created = g_ptr_array_new_with_free_func (g_free);
          g_ptr_array_add (created, g_strdup (name));
        }
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
      /* userdel also removes the group useradd made for it */
      const char *del[] = { "userdel", g_ptr_array_index (created, i), NULL };

      run_quietly (del);
    }
  g_clear_pointer (&created, g_ptr_array_unref);
}
