/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "jmem-users.h"

#include "jmem-file.h"
#include "jmem-glib-compat.h"
#include "jmem-names.h"
#include "jmem-text.h"

#include <pwd.h>

struct _JmemUsers {
  gboolean    live;
  GHashTable *names;  /* uid (gint64*) -> name or NULL (looked up, none) */
};

static void
load_passwd (JmemUsers *users, JmemRoot *root)
{
  g_autofree char *data = NULL;
  g_auto(GStrv) lines = NULL;

  if (!jmem_root_read (root, "/etc/passwd", JMEM_MAX_PROC_BYTES, &data, NULL, NULL))
    return;
  lines = g_strsplit (data, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_auto(GStrv) f = g_strsplit (lines[i], ":", 4);
      guint64 uid;

      if (g_strv_length (f) < 3 || f[0][0] == '\0' ||
          !g_ascii_string_to_unsigned (f[2], 10, 0, G_MAXUINT32, &uid, NULL))
        continue;
      {
        gint64 key = (gint64) uid;
        if (!g_hash_table_contains (users->names, &key))
          g_hash_table_insert (users->names, g_memdup2 (&key, sizeof key),
                               jmem_text_make_valid (f[0], -1));
      }
    }
}

JmemUsers *
jmem_users_new (JmemRoot *root)
{
  JmemUsers *users = g_new0 (JmemUsers, 1);

  users->live = jmem_root_is_live (root);
  users->names = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
  if (!users->live)
    load_passwd (users, root);
  return users;
}

void
jmem_users_free (JmemUsers *users)
{
  if (users == NULL)
    return;
  g_hash_table_unref (users->names);
  g_free (users);
}

char *
jmem_users_lookup (JmemUsers *users, gint64 uid)
{
  gpointer value = NULL;

  if (uid < 0)
    return NULL;
  if (!g_hash_table_lookup_extended (users->names, &uid, NULL, &value) && users->live)
    {
      struct passwd *pw = getpwuid ((uid_t) uid);

      value = pw ? jmem_text_make_valid (pw->pw_name, -1) : NULL;
      g_hash_table_insert (users->names, g_memdup2 (&uid, sizeof uid), value);
    }
  return g_strdup (value);
}
