/* Writing a capture beneath directories jmem itself created (see
 * jmem_root_create() in jmem-root.h). */
#include "jmem-root-private.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <gio/gio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Refuses what another user could change under jmem. */
static gboolean
check_capture_dir (int fd, const char *path, GError **error)
{
  struct stat st;
  struct dirent *e;
  gboolean empty = TRUE;
  DIR *d;
  int list_fd;

  if (fstat (fd, &st) != 0)
    return jmem_root_set_errno_error (error, errno, "Cannot examine", path);
  if (!S_ISDIR (st.st_mode))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_DIRECTORY,
                   "%s exists and is not a directory: choose a new directory", path);
      return FALSE;
    }
  if (st.st_uid != geteuid ())
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED,
                   "%s exists and belongs to uid %u, not to you (uid %u): jmem writes a capture "
                   "only into a directory it creates or an empty one you own; choose a new "
                   "directory", path, (guint) st.st_uid, (guint) geteuid ());
      return FALSE;
    }
  if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED,
                   "%s is writable by its group or by others (mode %04o): they could replace "
                   "what jmem writes there; choose a new directory, or run chmod go-w on it",
                   path, (guint) (st.st_mode & 07777));
      return FALSE;
    }
  list_fd = openat (fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (list_fd < 0 || (d = fdopendir (list_fd)) == NULL)
    {
      int saved = errno;
      if (list_fd >= 0)
        close (list_fd);
      return jmem_root_set_errno_error (error, saved, "Cannot list", path);
    }
  while (empty && (e = readdir (d)) != NULL)
    empty = g_str_equal (e->d_name, ".") || g_str_equal (e->d_name, "..");
  closedir (d);
  if (!empty)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_EXISTS,
                   "%s exists and is not empty: choose a new directory", path);
      return FALSE;
    }
  return TRUE;
}

JmemRoot *
jmem_root_create (const char *path,
                  GError    **error)
{
  g_autofree char *parent = NULL;
  g_autofree char *base = NULL;
  g_autofree char *trimmed = g_strdup (path);
  int pfd, fd;

  g_return_val_if_fail (path != NULL && path[0] != '\0', NULL);

  /* "DIR/" names DIR. */
  while (strlen (trimmed) > 1 && g_str_has_suffix (trimmed, "/"))
    trimmed[strlen (trimmed) - 1] = '\0';
  parent = g_path_get_dirname (trimmed);
  base = g_path_get_basename (trimmed);

  /* The parent is the caller's choice, links and all; DIR itself is made
   * here, so a link put in its place is never followed. */
  pfd = open (parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (pfd < 0)
    {
      int saved = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   "Cannot create %s: its parent %s: %s%s", path, parent, g_strerror (saved),
                   saved == ENOENT ? " (create the parent first)" : "");
      return NULL;
    }
  if (mkdirat (pfd, base, 0700) != 0 && errno != EEXIST)
    {
      int saved = errno;
      close (pfd);
      jmem_root_set_errno_error (error, saved, "Cannot create", path);
      return NULL;
    }
  fd = openat (pfd, base, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0)
    {
      int saved = errno;
      struct stat st;

      if ((saved == ELOOP || saved == ENOTDIR) &&
          fstatat (pfd, base, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK (st.st_mode))
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_TOO_MANY_LINKS,
                     "%s is a symbolic link: give a new directory, which jmem creates", path);
      else if (saved == ENOTDIR)
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_DIRECTORY,
                     "%s exists and is not a directory: choose a new directory", path);
      else
        jmem_root_set_errno_error (error, saved, "Cannot open", path);
      close (pfd);
      return NULL;
    }
  close (pfd);
  /* Whether made here or found: the same checks, on the descriptor; a
   * directory found is then closed to others like one made here. */
  if (!check_capture_dir (fd, path, error) ||
      (fchmod (fd, 0700) != 0 && !jmem_root_set_errno_error (error, errno, "Cannot restrict", path)))
    {
      close (fd);
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
  int cur;

  if (root->dir_path != NULL && g_str_equal (root->dir_path, dir))
    return root->dir_fd;
  if (root->dir_fd >= 0)
    close (root->dir_fd);
  root->dir_fd = -1;
  g_clear_pointer (&root->dir_path, g_free);

  cur = dup (root->fd);
  if (cur < 0)
    {
      jmem_root_set_errno_error (error, errno, "Cannot open", root->path);
      return -1;
    }
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
                       "Cannot create %s/%s: \"..\" in a capture path", root->path, dir);
          return -1;
        }
      if (mkdirat (cur, comp, 0700) != 0 && errno != EEXIST)
        {
          int saved = errno;
          close (cur);
          g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                       "Cannot create %s/%s: %s", root->path, dir, g_strerror (saved));
          return -1;
        }
      next = openat (cur, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
      close (cur);
      if (next < 0)
        {
          int saved = errno;
          /* Only jmem writes here: anything but its own directory is an
           * attack or a clash, and nothing is written through it. */
          g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                       "Cannot open %s/%s: %s (was it replaced while capturing?)",
                       root->path, dir, g_strerror (saved));
          return -1;
        }
      cur = next;
    }
  root->dir_path = g_strdup (dir);
  root->dir_fd = cur;
  return cur;
}

static int
capture_parent (JmemRoot *root, const char *path, char **base, GError **error)
{
  g_autofree char *dir = g_path_get_dirname (jmem_root_relative (path));

  g_return_val_if_fail (root->kind == ROOT_CAPTURE, -1);
  *base = g_path_get_basename (path);
  return capture_dir (root, g_str_equal (dir, ".") ? "" : dir, error);
}

gboolean
jmem_root_write (JmemRoot   *root,
                 const char *path,
                 const char *data,
                 gsize       len,
                 GError    **error)
{
  g_autofree char *base = NULL;
  int dfd = capture_parent (root, path, &base, error);
  int fd;

  if (dfd < 0)
    return FALSE;
  fd = openat (dfd, base, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0600);
  if (fd < 0)
    {
      int saved = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   "Cannot create %s%s: %s", root->path, path, g_strerror (saved));
      return FALSE;
    }
  while (len > 0)
    {
      ssize_t n = write (fd, data, len);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        {
          int saved = n < 0 ? errno : EIO;
          close (fd);
          g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                       "Cannot write %s%s: %s", root->path, path, g_strerror (saved));
          return FALSE;
        }
      data += n;
      len -= (gsize) n;
    }
  if (close (fd) != 0)
    {
      int saved = errno;
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
  int dfd = capture_parent (root, path, &base, error);

  if (dfd < 0)
    return FALSE;
  if (symlinkat (target, dfd, base) != 0)
    {
      int saved = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   "Cannot write %s%s: %s", root->path, path, g_strerror (saved));
      return FALSE;
    }
  return TRUE;
}
