/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Writing a capture beneath directories jmem itself created (see
 * jmem_root_create() in jmem-root.h), through jmem-write.h like every
 * other file jmem writes. */
#include "jmem-root-private.h"

#include "jmem-file.h"
#include "jmem-write.h"

#include <errno.h>
#include <fcntl.h>
#include <gio/gio.h>
#include <string.h>
#include <unistd.h>

JmemRoot *
jmem_root_create (const char *path,
                  GError    **error)
{
  g_autoptr(JmemWriteDir) dir = NULL;
  int fd;

  g_return_val_if_fail (path != NULL, NULL);

  /* made 0700, or an empty one of the caller's that nobody else can write */
  dir = jmem_write_dir_open (path, JMEM_WRITE_DIR_CREATE | JMEM_WRITE_DIR_PRIVATE |
                                   JMEM_WRITE_DIR_EMPTY, error);
  if (dir == NULL)
    return NULL;
  fd = fcntl (jmem_write_dir_get_fd (dir), F_DUPFD_CLOEXEC, 0);
  if (fd < 0)
    {
      jmem_root_set_errno_error (error, errno, "Cannot open", path);
      return NULL;
    }
  return jmem_root_new (ROOT_CAPTURE, path, fd);
}

/* The directory @dir (relative, "" for the root) of a capture, made 0700
 * where missing; the last one is kept, as files come in runs per directory. */
static int
capture_dir (JmemRoot *root, const char *dir, GError **error)
{
  g_auto(GStrv) parts = NULL;
  g_autofree char *what = NULL;
  int cur;

  if (root->dir_path != NULL && g_str_equal (root->dir_path, dir))
    return root->dir_fd;
  if (root->dir_fd >= 0)
    close (root->dir_fd);
  root->dir_fd = -1;
  g_clear_pointer (&root->dir_path, g_free);

  cur = fcntl (root->fd, F_DUPFD_CLOEXEC, 0);
  if (cur < 0)
    {
      jmem_root_set_errno_error (error, errno, "Cannot open", root->path);
      return -1;
    }
  what = g_strdup_printf ("%s/%s", root->path, dir);
  parts = g_strsplit (dir, "/", -1);
  for (guint i = 0; parts[i] != NULL; i++)
    {
      const char *comp = parts[i];
      int next;

      if (comp[0] == '\0' || g_str_equal (comp, "."))
        continue;
      if (g_str_equal (comp, ".."))
        {
          close (cur);
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_FILENAME,
                       "Cannot create %s: \"..\" in a capture path", what);
          return -1;
        }
      next = jmem_write_mkdir_at (cur, comp, what, error);
      close (cur);
      if (next < 0)
        return -1;
      cur = next;
    }
  root->dir_path = g_strdup (dir);
  root->dir_fd = cur;
  return cur;
}

/* The directory of @path, made where missing; its name in *@base and the
 * whole path, for messages, in *@what. */
static int
capture_parent (JmemRoot *root, const char *path, char **base, char **what, GError **error)
{
  g_autofree char *dir = g_path_get_dirname (jmem_root_relative (path));

  g_return_val_if_fail (root->kind == ROOT_CAPTURE, -1);
  *base = g_path_get_basename (path);
  *what = g_strconcat (root->path, path, NULL);
  return capture_dir (root, g_str_equal (dir, ".") ? "" : dir, error);
}

int
jmem_root_create_file (JmemRoot   *root,
                       const char *path,
                       GError    **error)
{
  g_autofree char *base = NULL;
  g_autofree char *what = NULL;
  int dfd = capture_parent (root, path, &base, &what, error);

  return dfd < 0 ? -1 : jmem_write_new_at (dfd, base, 0600, what, error);
}

gboolean
jmem_root_write (JmemRoot   *root,
                 const char *path,
                 const char *data,
                 gsize       len,
                 GError    **error)
{
  int fd = jmem_root_create_file (root, path, error);

  if (fd < 0)
    return FALSE;
  if (!jmem_file_write_all (fd, data, len) || close (fd) != 0)
    {
      int saved = errno;

      close (fd);
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   "Cannot write %s%s: %s", root->path, path, g_strerror (saved));
      return FALSE;
    }
  return TRUE;
}

gboolean
jmem_root_symlink (JmemRoot   *root,
                   const char *path,
                   const char *target,
                   GError    **error)
{
  g_autofree char *base = NULL;
  g_autofree char *what = NULL;
  int dfd = capture_parent (root, path, &base, &what, error);

  return dfd >= 0 && jmem_write_symlink_at (dfd, base, target, what, error);
}

gboolean
jmem_root_remove (JmemRoot   *root,
                  const char *path,
                  GError    **error)
{
  g_autofree char *base = NULL;
  g_autofree char *what = NULL;
  int dfd = capture_parent (root, path, &base, &what, error);

  return dfd >= 0 && jmem_write_remove_at (dfd, base, what, error);
}

gboolean
jmem_root_sync (JmemRoot *root,
                GError  **error)
{
  g_return_val_if_fail (root->kind == ROOT_CAPTURE, FALSE);

  /* One call for every file written: fsync of each would cost a disk
   * flush per file, hundreds on a busy board. */
  if (syncfs (root->fd) != 0)
    return jmem_root_set_errno_error (error, errno, "Cannot sync", root->path);
  return TRUE;
}
