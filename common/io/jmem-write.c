/* SPDX-License-Identifier: GPL-2.0-or-later */
/* One way to write a file: see jmem-write.h for what it guarantees. */
#include "jmem-write.h"

#include "jmem-file.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <gio/gio.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

struct _JmemWriteDir {
  char *path;
  int   fd;
};

struct _JmemWriteTemp {
  JmemWriteDir *dir;       /* not owned: it outlives the temporary file */
  char         *name;      /* the file it becomes */
  char         *temp;      /* its own name until then */
  int           fd;
  gboolean      committed;
};

/* ".NAME." + eight hex digits + ".tmp": not "*.prom", so node_exporter's
 * textfile collector never reads one. */
#define TEMP_HEX_DIGITS 8
#define TEMP_SUFFIX ".tmp"
#define TEMP_ATTEMPTS 16

static gboolean
errno_error (GError **error, int saved, const char *what, const char *path)
{
  g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), "%s %s: %s", what, path,
               g_strerror (saved));
  return FALSE;
}

/* "DIR/" names DIR; "/" stays "/". */
static char *
without_trailing_slashes (const char *path)
{
  char *copy = g_strdup (path);
  gsize len = strlen (copy);

  while (len > 1 && copy[len - 1] == '/')
    copy[--len] = '\0';
  return copy;
}

/* NAME in DIR as messages show it. */
static char *
display_name (const JmemWriteDir *dir, const char *name)
{
  if (g_str_equal (dir->path, "."))
    return g_strdup (name);
  return g_build_filename (dir->path, name, NULL);
}

/* Whether @name in @dirfd is still the file open as @fd. */
static gboolean
still_named (int dirfd, const char *name, int fd)
{
  struct stat named, opened;

  return fstatat (dirfd, name, &named, AT_SYMLINK_NOFOLLOW) == 0 && fstat (fd, &opened) == 0 &&
         named.st_dev == opened.st_dev && named.st_ino == opened.st_ino;
}

/* ---- the directory ------------------------------------------------------ */

/* @name in @dirfd as a directory, never through a symbolic link; @path
 * names it in messages. */
static int
open_dir_nofollow (int dirfd, const char *name, const char *path, JmemWriteDirFlags flags,
                   GError **error)
{
  int fd = openat (dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  int saved = errno;
  struct stat st;

  if (fd >= 0)
    return fd;
  if ((saved == ELOOP || saved == ENOTDIR) &&
      fstatat (dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK (st.st_mode))
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_TOO_MANY_LINKS,
                 "%s is a symbolic link: jmem writes only into a directory itself; %s", path,
                 (flags & JMEM_WRITE_DIR_EMPTY) ? "give a new directory, which jmem creates"
                                                : "give the directory it points to");
  else if (saved == ENOTDIR)
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_DIRECTORY,
                 "%s exists and is not a directory: %s", path,
                 (flags & JMEM_WRITE_DIR_EMPTY) ? "choose a new directory" : "give a directory");
  else
    errno_error (error, saved, "Cannot open", path);
  return -1;
}

/* @path made (0700) in its parent when missing, then opened. The parent is
 * the caller's choice, links and all; @path itself is made or checked here,
 * so a link put in its place is never followed. */
static int
open_dir_created (const char *path, JmemWriteDirFlags flags, GError **error)
{
  g_autofree char *parent = g_path_get_dirname (path);
  g_autofree char *base = g_path_get_basename (path);
  int pfd, fd;

  if (g_str_equal (base, "/") || g_str_equal (base, ".") || g_str_equal (base, ".."))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_FILENAME,
                   "Cannot create %s: give the name of a new directory", path);
      return -1;
    }
  pfd = open (parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (pfd < 0)
    {
      int saved = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   "Cannot create %s: its parent %s: %s%s", path, parent, g_strerror (saved),
                   saved == ENOENT ? " (create the parent first)" : "");
      return -1;
    }
  if (mkdirat (pfd, base, 0700) != 0 && errno != EEXIST)
    {
      errno_error (error, errno, "Cannot create", path);
      close (pfd);
      return -1;
    }
  fd = open_dir_nofollow (pfd, base, path, flags, error);
  close (pfd);
  return fd;
}

static gboolean
dir_is_empty (int fd, const char *path, gboolean *empty, GError **error)
{
  int list_fd = openat (fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  struct dirent *e;
  DIR *d;

  if (list_fd < 0 || (d = fdopendir (list_fd)) == NULL)
    {
      int saved = errno;

      if (list_fd >= 0)
        close (list_fd);
      return errno_error (error, saved, "Cannot list", path);
    }
  *empty = TRUE;
  while (*empty && (e = readdir (d)) != NULL)
    *empty = g_str_equal (e->d_name, ".") || g_str_equal (e->d_name, "..");
  closedir (d);
  return TRUE;
}

/* Refuses what another user could change under a writer that must not let
 * them: root always, anyone for a private directory. */
static gboolean
check_dir (int fd, const char *path, JmemWriteDirFlags flags, GError **error)
{
  gboolean private = (flags & JMEM_WRITE_DIR_PRIVATE) != 0;
  gboolean capture = (flags & JMEM_WRITE_DIR_EMPTY) != 0;
  uid_t me = geteuid ();
  gboolean empty;
  struct stat st;

  if (fstat (fd, &st) != 0)
    return errno_error (error, errno, "Cannot examine", path);
  if (private || me == 0)
    {
      if (st.st_uid != me)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED,
                       "%s exists and belongs to uid %u, not to you (uid %u): its owner could "
                       "replace what jmem writes there; %s", path, (guint) st.st_uid, (guint) me,
                       capture ? "choose a new directory, which jmem creates"
                               : "give a directory of your own");
          return FALSE;
        }
      /* In a sticky directory nobody else may rename or remove our files. */
      if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0 && (private || (st.st_mode & S_ISVTX) == 0))
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED,
                       "%s is writable by its group or by others (mode %04o; an ACL shows in "
                       "the group bits): they could replace what jmem writes there; %s, or run "
                       "chmod go-w on it", path, (guint) (st.st_mode & 07777),
                       capture ? "choose a new directory" : "give a directory only you can write");
          return FALSE;
        }
    }
  if (capture)
    {
      if (!dir_is_empty (fd, path, &empty, error))
        return FALSE;
      if (!empty)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_EXISTS,
                       "%s exists and is not empty: choose a new directory", path);
          return FALSE;
        }
    }
  return TRUE;
}

JmemWriteDir *
jmem_write_dir_open (const char        *path,
                     JmemWriteDirFlags  flags,
                     GError           **error)
{
  g_autofree char *trimmed = NULL;
  JmemWriteDir *dir;
  int fd;

  g_return_val_if_fail (path != NULL, NULL);

  if (path[0] == '\0')
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_FILENAME,
                           "The directory name is empty: give a directory");
      return NULL;
    }
  trimmed = without_trailing_slashes (path);
  if (flags & JMEM_WRITE_DIR_CREATE)
    fd = open_dir_created (trimmed, flags, error);
  else
    fd = open_dir_nofollow (AT_FDCWD, trimmed, trimmed, flags, error);
  if (fd < 0)
    return NULL;
  /* Whether made here or found: the same checks, on the descriptor; one
   * found is then closed to others like one made here. */
  if (!check_dir (fd, trimmed, flags, error) ||
      ((flags & JMEM_WRITE_DIR_CREATE) && fchmod (fd, 0700) != 0 &&
       !errno_error (error, errno, "Cannot restrict", trimmed)))
    {
      close (fd);
      return NULL;
    }
  dir = g_new0 (JmemWriteDir, 1);
  dir->path = g_steal_pointer (&trimmed);
  dir->fd = fd;
  return dir;
}

JmemWriteDir *
jmem_write_dir_open_parent (const char *path,
                            char      **name,
                            GError    **error)
{
  g_autofree char *base = NULL;
  g_autofree char *parent = NULL;
  JmemWriteDir *dir;

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (name != NULL, NULL);

  base = g_path_get_basename (path);
  if (path[0] == '\0' || g_str_has_suffix (path, "/") || g_str_equal (base, ".") ||
      g_str_equal (base, ".."))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_FILENAME,
                   "\"%s\" names no file: give a file name", path);
      return NULL;
    }
  parent = g_path_get_dirname (path);
  dir = jmem_write_dir_open (parent, JMEM_WRITE_DIR_DEFAULT, error);
  if (dir != NULL)
    *name = g_steal_pointer (&base);
  return dir;
}

void
jmem_write_dir_free (JmemWriteDir *dir)
{
  if (dir == NULL)
    return;
  close (dir->fd);
  g_free (dir->path);
  g_free (dir);
}

int
jmem_write_dir_get_fd (const JmemWriteDir *dir)
{
  return dir->fd;
}

const char *
jmem_write_dir_get_path (const JmemWriteDir *dir)
{
  return dir->path;
}

/* ---- temporary files ---------------------------------------------------- */

static gboolean
is_temp_name_of (const char *entry, const char *name)
{
  gsize name_len = strlen (name);
  const char *hex;

  if (strlen (entry) != 1 + name_len + 1 + TEMP_HEX_DIGITS + strlen (TEMP_SUFFIX) ||
      entry[0] != '.' || strncmp (entry + 1, name, name_len) != 0 || entry[1 + name_len] != '.')
    return FALSE;
  hex = entry + 2 + name_len;
  for (guint i = 0; i < TEMP_HEX_DIGITS; i++)
    if (!g_ascii_isdigit (hex[i]) && !(hex[i] >= 'a' && hex[i] <= 'f'))
      return FALSE;
  return g_str_equal (hex + TEMP_HEX_DIGITS, TEMP_SUFFIX);
}

JmemWriteTemp *
jmem_write_temp_new (JmemWriteDir *dir,
                     const char   *name,
                     mode_t        mode,
                     GError      **error)
{
  g_autoptr(JmemWriteTemp) temp = g_new0 (JmemWriteTemp, 1);

  temp->dir = dir;
  temp->name = g_strdup (name);
  temp->fd = -1;
  for (guint attempt = 0; attempt < TEMP_ATTEMPTS; attempt++)
    {
      g_free (temp->temp);
      temp->temp = g_strdup_printf (".%s.%0*x%s", name, TEMP_HEX_DIGITS, g_random_int (), TEMP_SUFFIX);
      temp->fd = openat (dir->fd, temp->temp,
                         O_RDWR | O_APPEND | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY,
                         mode);
      if (temp->fd < 0)
        {
          if (errno == EEXIST)
            continue;
          errno_error (error, errno, "Cannot create a temporary file in", dir->path);
          return NULL;
        }
      /* Locked at once, and still ours once locked: the lock is what tells a
       * running writer's file from one a killed run left. Where the file
       * system has no locks, the file is never taken for stale. */
      if ((flock (temp->fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK) ||
          !still_named (dir->fd, temp->temp, temp->fd))
        {
          close (temp->fd);
          temp->fd = -1;
          continue;
        }
      /* the mode the format needs, whatever the umask */
      if (fchmod (temp->fd, mode) != 0)
        {
          errno_error (error, errno, "Cannot set the mode of a temporary file in", dir->path);
          return NULL;
        }
      return g_steal_pointer (&temp);
    }
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_EXISTS,
               "Cannot create a temporary file in %s: %d names tried were taken", dir->path,
               TEMP_ATTEMPTS);
  return NULL;
}

int
jmem_write_temp_get_fd (const JmemWriteTemp *temp)
{
  return temp->fd;
}

int
jmem_write_temp_commit (JmemWriteTemp *temp,
                        GError       **error)
{
  g_autofree char *target = display_name (temp->dir, temp->name);
  int fd;

  g_return_val_if_fail (!temp->committed && temp->fd >= 0, -1);

  if (fsync (temp->fd) != 0)
    {
      errno_error (error, errno, "Cannot write", target);
      return -1;
    }
  if (renameat (temp->dir->fd, temp->temp, temp->dir->fd, temp->name) != 0)
    {
      errno_error (error, errno, "Cannot replace", target);
      return -1;
    }
  temp->committed = TRUE;
  /* the rename itself survives a power cut only once the directory is synced */
  fsync (temp->dir->fd);
  fd = temp->fd;
  temp->fd = -1;
  return fd;
}

void
jmem_write_temp_free (JmemWriteTemp *temp)
{
  if (temp == NULL)
    return;
  /* removed while still locked, so no cleaner mistakes it for its own */
  if (!temp->committed && temp->fd >= 0)
    unlinkat (temp->dir->fd, temp->temp, 0);
  if (temp->fd >= 0)
    close (temp->fd);
  g_free (temp->name);
  g_free (temp->temp);
  g_free (temp);
}

gboolean
jmem_write_replace (JmemWriteDir *dir,
                    const char   *name,
                    const char   *data,
                    gsize         len,
                    mode_t        mode,
                    GError      **error)
{
  g_autoptr(JmemWriteTemp) temp = NULL;
  int fd;

  jmem_write_remove_stale (dir, name);
  temp = jmem_write_temp_new (dir, name, mode, error);
  if (temp == NULL)
    return FALSE;
  if (!jmem_file_write_all (temp->fd, data, len))
    {
      g_autofree char *target = display_name (dir, name);

      return errno_error (error, errno, "Cannot write", target);
    }
  fd = jmem_write_temp_commit (temp, error);
  if (fd < 0)
    return FALSE;
  close (fd);
  return TRUE;
}

/* A killed run's temporary file: a regular file of ours, still under that
 * name, that nobody holds locked. */
static gboolean
remove_if_stale (int dirfd, const char *entry)
{
  struct stat st;
  gboolean stale;
  int fd;

  /* examined before opening: nothing but a regular file is ever opened */
  if (fstatat (dirfd, entry, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG (st.st_mode) ||
      st.st_uid != geteuid ())
    return FALSE;
  fd = openat (dirfd, entry, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0)
    return FALSE;
  stale = fstat (fd, &st) == 0 && S_ISREG (st.st_mode) && st.st_uid == geteuid () &&
          flock (fd, LOCK_EX | LOCK_NB) == 0 && still_named (dirfd, entry, fd) &&
          unlinkat (dirfd, entry, 0) == 0;
  close (fd);
  return stale;
}

guint
jmem_write_remove_stale (JmemWriteDir *dir,
                         const char   *name)
{
  g_autoptr(GPtrArray) found = g_ptr_array_new_with_free_func (g_free);
  int list_fd = openat (dir->fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  struct dirent *e;
  guint removed = 0;
  DIR *d;

  if (list_fd < 0)
    return 0;
  d = fdopendir (list_fd);
  if (d == NULL)
    {
      close (list_fd);
      return 0;
    }
  while ((e = readdir (d)) != NULL)
    if (is_temp_name_of (e->d_name, name))
      g_ptr_array_add (found, g_strdup (e->d_name));
  closedir (d);
  for (guint i = 0; i < found->len; i++)
    removed += remove_if_stale (dir->fd, g_ptr_array_index (found, i));
  return removed;
}

/* ---- an existing file, continued ---------------------------------------- */

static const char *
kind_of (mode_t mode)
{
  if (S_ISDIR (mode))
    return "a directory";
  if (S_ISFIFO (mode))
    return "a FIFO";
  if (S_ISSOCK (mode))
    return "a socket";
  if (S_ISCHR (mode) || S_ISBLK (mode))
    return "a device";
  return "not a plain file";
}

/* What may be continued: a regular file; as root, one only root can change
 * and that has no other name. */
static gboolean
check_existing (const struct stat *st, const char *path, GError **error)
{
  if (S_ISLNK (st->st_mode))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_TOO_MANY_LINKS,
                   "%s is a symbolic link: jmem does not write through one; give the file it "
                   "points to", path);
      return FALSE;
    }
  if (!S_ISREG (st->st_mode))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_REGULAR_FILE,
                   "%s is %s, not a regular file: jmem writes only regular files", path,
                   kind_of (st->st_mode));
      return FALSE;
    }
  if (geteuid () != 0)
    return TRUE;
  if (st->st_uid != 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED,
                   "%s belongs to uid %u: root continues only a file of its own (its owner "
                   "could make root write where they choose); move it aside, or run jmem as "
                   "uid %u", path, (guint) st->st_uid, (guint) st->st_uid);
      return FALSE;
    }
  if (st->st_nlink > 1)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED,
                   "%s has %u names (hard links): root continues only a file with one name; "
                   "move it aside", path, (guint) st->st_nlink);
      return FALSE;
    }
  if ((st->st_mode & (S_ISUID | S_ISGID | S_IWGRP | S_IWOTH)) != 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED,
                   "%s has mode %04o (set-id, or writable by its group or by others): root "
                   "continues only a file that only root can write; move it aside, or run "
                   "chmod 0600 on it",
                   path, (guint) (st->st_mode & 07777));
      return FALSE;
    }
  return TRUE;
}

int
jmem_write_open_append (JmemWriteDir *dir,
                        const char   *name,
                        mode_t        mode,
                        GError      **error)
{
  g_autofree char *path = display_name (dir, name);

  /* twice at most: a file made or removed between the look and the open */
  for (guint attempt = 0; attempt < 2; attempt++)
    {
      struct stat st;
      int fd;

      if (fstatat (dir->fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
        {
          if (errno != ENOENT)
            {
              errno_error (error, errno, "Cannot examine", path);
              return -1;
            }
          fd = openat (dir->fd, name,
                       O_RDWR | O_APPEND | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, mode);
          if (fd < 0 && errno == EEXIST)
            continue;
          if (fd < 0)
            {
              errno_error (error, errno, "Cannot create", path);
              return -1;
            }
          if (fchmod (fd, mode) != 0)
            {
              errno_error (error, errno, "Cannot set the mode of", path);
              close (fd);
              return -1;
            }
          return fd;
        }
      /* examined before opening: a FIFO or a device is never opened */
      if (!check_existing (&st, path, error))
        return -1;
      fd = openat (dir->fd, name, O_RDWR | O_APPEND | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
      if (fd < 0 && errno == ENOENT)
        continue;
      if (fd < 0)
        {
          errno_error (error, errno, "Cannot open", path);
          return -1;
        }
      /* and again on what was opened, had it been swapped meanwhile */
      if (fstat (fd, &st) != 0 || !check_existing (&st, path, error))
        {
          if (error != NULL && *error == NULL)
            errno_error (error, errno, "Cannot examine", path);
          close (fd);
          return -1;
        }
      return fd;
    }
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_BUSY,
               "Cannot open %s: it changed while being opened; try again", path);
  return -1;
}

/* ---- a file several writers share --------------------------------------- */

gboolean
jmem_write_lock_named (JmemWriteDir *dir,
                       const char   *name,
                       mode_t        mode,
                       int          *fd,
                       GError      **error)
{
  g_return_val_if_fail (fd != NULL && *fd >= 0, FALSE);

  for (;;)
    {
      int fresh;

      /* Waits for the writer that holds it. Where the file system has no
       * locks, writers go on uncoordinated, as they did before locks. */
      while (flock (*fd, LOCK_EX) != 0 && errno == EINTR)
        ;
      if (still_named (dir->fd, name, *fd))
        return TRUE;
      /* another writer renamed its rewrite over the name, or the file was
       * removed: what the name holds now is the file to write */
      fresh = jmem_write_open_append (dir, name, mode, error);
      if (fresh < 0)
        return FALSE;
      close (*fd);
      *fd = fresh;
    }
}

void
jmem_write_unlock (int fd)
{
  flock (fd, LOCK_UN);
}

/* ---- beneath a directory jmem made -------------------------------------- */

int
jmem_write_mkdir_at (int          dirfd,
                     const char  *name,
                     const char  *what,
                     GError     **error)
{
  gboolean made = mkdirat (dirfd, name, 0700) == 0;
  int fd;

  if (!made && errno != EEXIST)
    {
      errno_error (error, errno, "Cannot create", what);
      return -1;
    }
  fd = openat (dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0)
    {
      int saved = errno;

      /* Only jmem writes here: anything but its own directory is an attack
       * or a clash, and nothing is written through it. */
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   "Cannot open %s: %s (was it replaced while jmem wrote?)", what,
                   g_strerror (saved));
      return -1;
    }
  /* the mode asked for, whatever the umask */
  if (made && fchmod (fd, 0700) != 0)
    {
      errno_error (error, errno, "Cannot restrict", what);
      close (fd);
      return -1;
    }
  return fd;
}

int
jmem_write_new_at (int          dirfd,
                   const char  *name,
                   mode_t       mode,
                   const char  *what,
                   GError     **error)
{
  /* O_EXCL: never an existing file, nor one a hard link or a symbolic link
   * planted under this name points to. */
  int fd = openat (dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, mode);

  if (fd < 0)
    {
      errno_error (error, errno, "Cannot create", what);
      return -1;
    }
  if (fchmod (fd, mode) != 0)
    {
      errno_error (error, errno, "Cannot set the mode of", what);
      close (fd);
      unlinkat (dirfd, name, 0);
      return -1;
    }
  return fd;
}

gboolean
jmem_write_symlink_at (int          dirfd,
                       const char  *name,
                       const char  *target,
                       const char  *what,
                       GError     **error)
{
  if (symlinkat (target, dirfd, name) != 0)
    return errno_error (error, errno, "Cannot write", what);
  return TRUE;
}

gboolean
jmem_write_remove_at (int          dirfd,
                      const char  *name,
                      const char  *what,
                      GError     **error)
{
  if (unlinkat (dirfd, name, 0) != 0)
    return errno_error (error, errno, "Cannot remove", what);
  fsync (dirfd);
  return TRUE;
}
