/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "jmem-root-private.h"

#include "jmem-error.h"
#include "jmem-file.h"
#include "jmem-names.h"
#include "jmem-text.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <gio/gio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__has_include)
#if __has_include(<linux/openat2.h>)
#include <linux/openat2.h>
#define HAVE_OPEN_HOW 1
#endif
#endif

/* glibc before 2.32 (Debian 11) names no SYS_openat2; the kernel's headers
 * may still have the number. */
#if !defined(SYS_openat2) && defined(__NR_openat2)
#define SYS_openat2 __NR_openat2
#endif

#ifndef HAVE_OPEN_HOW
struct open_how {
  guint64 flags;
  guint64 mode;
  guint64 resolve;
};
#define RESOLVE_NO_MAGICLINKS 0x02
#define RESOLVE_NO_SYMLINKS   0x04
#define RESOLVE_BENEATH       0x08
#endif

/* Enough to show what a tree holds without flooding the report. */
#define MAX_REFUSED 32

gboolean
jmem_root_set_errno_error (GError **error, int saved, const char *what, const char *path)
{
  g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
               "%s %s: %s", what, path, g_strerror (saved));
  return FALSE;
}

JmemRoot *
jmem_root_new (RootKind kind, const char *path, int fd)
{
  JmemRoot *root = g_new0 (JmemRoot, 1);

  root->kind = kind;
  root->path = g_strdup (path);
  root->fd = fd;
  root->dir_fd = -1;
  root->refused = g_ptr_array_new_with_free_func (g_free);
  root->refused_set = g_hash_table_new (g_str_hash, g_str_equal);
  return root;
}

void
jmem_root_free (JmemRoot *root)
{
  if (root == NULL)
    return;
  if (root->fd >= 0)
    close (root->fd);
  if (root->dir_fd >= 0)
    close (root->dir_fd);
  g_hash_table_unref (root->refused_set);
  g_ptr_array_unref (root->refused);
  g_free (root->dir_path);
  g_free (root->path);
  g_free (root);
}

gboolean
jmem_root_is_live (const JmemRoot *root)
{
  return root->kind == ROOT_LIVE;
}

const char *
jmem_root_get_path (const JmemRoot *root)
{
  return root->path;
}

const GPtrArray *
jmem_root_get_refused (const JmemRoot *root)
{
  return root->refused;
}

JmemRoot *
jmem_root_open (const char *path,
                GError    **error)
{
  struct stat st;
  int fd;

  if (path == NULL || path[0] == '\0' || g_str_equal (path, "/"))
    return jmem_root_new (ROOT_LIVE, "/", -1);

  /* The tree's own path is the caller's choice and may be a link; nothing
   * beneath it may. */
  fd = open (path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0 || fstat (fd, &st) != 0 || !S_ISDIR (st.st_mode))
    {
      if (fd >= 0)
        close (fd);
      g_set_error (error, JMEM_ERROR, JMEM_ERROR_NOT_AVAILABLE, "%s is not a directory", path);
      return NULL;
    }
  return jmem_root_new (ROOT_TREE, path, fd);
}

/* ---- opening beneath a directory -------------------------------------- */

/* "proc/1/status" relative to @dirfd, one component at a time, each opened
 * with O_NOFOLLOW: the portable form of RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS.
 * On failure *bad_len is how much of @rel names the component at fault. */
static int
walk_beneath (int dirfd, const char *rel, int flags, gsize *bad_len)
{
  g_auto(GStrv) parts = g_strsplit (rel, "/", -1);
  int cur = dirfd;
  gsize at = 0;
  guint n = g_strv_length (parts);

  *bad_len = strlen (rel);
  for (guint i = 0; i < n; i++)
    {
      const char *comp = parts[i];
      gboolean last = TRUE;
      int next;

      for (guint j = i + 1; j < n; j++)
        if (parts[j][0] != '\0' && !g_str_equal (parts[j], "."))
          last = FALSE;
      at += strlen (comp) + (i > 0);
      if (comp[0] == '\0' || g_str_equal (comp, "."))
        continue;
      if (g_str_equal (comp, ".."))
        {
          *bad_len = at;
          if (cur != dirfd)
            close (cur);
          errno = EXDEV;
          return -1;
        }
      next = openat (cur, comp,
                     last ? flags : O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
      if (next < 0)
        {
          int saved = errno;
          struct stat st;

          /* O_DIRECTORY meets a link as ENOTDIR: say what it really is. */
          if (saved == ENOTDIR && fstatat (cur, comp, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
              S_ISLNK (st.st_mode))
            saved = ELOOP;
          *bad_len = at;
          if (cur != dirfd)
            close (cur);
          errno = saved;
          return -1;
        }
      if (cur != dirfd)
        close (cur);
      cur = next;
      if (last)
        return cur;
    }
  /* "" or ".": the directory itself. */
  return cur == dirfd ? openat (dirfd, ".", flags) : cur;
}

static int
open_beneath (int dirfd, const char *rel, int flags, gsize *bad_len)
{
  flags |= O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK;
  *bad_len = strlen (rel);
#ifdef SYS_openat2
  static gboolean no_openat2;

  if (!g_atomic_int_get (&no_openat2))
    {
      struct open_how how = { 0 };
      int fd;

      how.flags = (guint64) flags;
      how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
      fd = (int) syscall (SYS_openat2, dirfd, rel[0] ? rel : ".", &how, sizeof how);
      if (fd >= 0 || errno == ENOENT || errno == EACCES)
        return fd;
      /* No openat2 (old kernel, seccomp): walk from now on. A link or an
       * escape: walk once to name the component at fault. */
      if (errno == ENOSYS || errno == EPERM)
        g_atomic_int_set (&no_openat2, TRUE);
    }
#endif
  return walk_beneath (dirfd, rel, flags, bad_len);
}

const char *
jmem_root_relative (const char *path)
{
  while (*path == '/')
    path++;
  return path;
}

static void
note_refused (JmemRoot *root, const char *rel, gsize len, const char *what)
{
  g_autofree char *valid = jmem_text_make_valid (rel, (gssize) len);
  g_autofree char *line = g_strdup_printf ("%s %s", valid, what);

  if (root->refused->len >= MAX_REFUSED || g_hash_table_contains (root->refused_set, line))
    return;
  g_hash_table_add (root->refused_set, line);
  g_ptr_array_add (root->refused, g_steal_pointer (&line));
}

/* Opens @rel beneath @dirfd in a tree; a link or an escape is remembered
 * and refused with G_IO_ERROR_TOO_MANY_LINKS. */
static int
tree_open (JmemRoot *root, int dirfd, const char *rel, int flags, const char *shown, GError **error)
{
  gsize bad_len;
  int fd = open_beneath (dirfd, rel, flags, &bad_len);

  if (fd >= 0)
    return fd;
  if (errno == ELOOP || errno == EXDEV)
    {
      /* Name the component at fault, relative to the tree. */
      gsize prefix = strlen (shown) - strlen (rel);

      note_refused (root, shown, prefix + bad_len,
                    errno == ELOOP ? "is a symbolic link: not followed"
                                   : "leads outside the tree: not followed");
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_TOO_MANY_LINKS,
                   "%s/%.*s is a symbolic link or leads outside the tree: not read",
                   root->path, (int) (prefix + bad_len), shown);
      return -1;
    }
  jmem_root_set_errno_error (error, errno, "Cannot open", shown);
  return -1;
}

/* A regular file, for reading, without blocking on a FIFO or a device:
 * @name beneath @dirfd (the root's @dir), or the absolute @name when
 * @dirfd is -1. */
static int
open_regular (JmemRoot *root, int dirfd, const char *dir, const char *name, GError **error)
{
  g_autofree char *shown = NULL;
  struct stat st;
  int fd;

  if (root->kind == ROOT_LIVE)
    {
      fd = openat (dirfd >= 0 ? dirfd : AT_FDCWD, name,
                   O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
      if (fd < 0)
        {
          jmem_root_set_errno_error (error, errno, "Cannot open", name);
          return -1;
        }
    }
  else
    {
      const char *rel = dirfd >= 0 ? name : jmem_root_relative (name);

      shown = dirfd >= 0 ? g_strconcat (jmem_root_relative (dir), "/", name, NULL) : g_strdup (rel);
      fd = tree_open (root, dirfd >= 0 ? dirfd : root->fd, rel, O_RDONLY, shown, error);
      if (fd < 0)
        return -1;
    }
  if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode))
    {
      close (fd);
      if (shown != NULL)
        note_refused (root, shown, strlen (shown), "is not a regular file: not read");
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_REGULAR_FILE,
                   "%s%s%s is not a regular file: not read",
                   shown ? root->path : "", shown ? "/" : "", shown ? shown : name);
      return -1;
    }
  return fd;
}

/* On the live system /proc/PID files need no more checks, and the
 * per-process path stays one open and its reads; in a tree a regular file
 * beneath it, read to its end. */
static gboolean
read_at (JmemRoot   *root,
         int         dirfd,
         const char *dir,
         const char *name,
         gsize       max_bytes,
         gboolean    one_record,
         GByteArray *buffer,
         GError    **error)
{
  int fd;

  g_return_val_if_fail (name != NULL && name[0] != '/', FALSE);

  if (root->kind == ROOT_LIVE)
    return one_record ? jmem_file_read_record_at (dirfd, name, max_bytes, buffer, error)
                      : jmem_file_read_at (dirfd, name, max_bytes, buffer, error);
  fd = open_regular (root, dirfd, dir, name, error);
  if (fd < 0)
    return FALSE;
  return jmem_file_read_fd (fd, name, max_bytes, buffer, error);
}

gboolean
jmem_root_read_at (JmemRoot   *root,
                   int         dirfd,
                   const char *dir,
                   const char *name,
                   gsize       max_bytes,
                   GByteArray *buffer,
                   GError    **error)
{
  return read_at (root, dirfd, dir, name, max_bytes, FALSE, buffer, error);
}

gboolean
jmem_root_read_record_at (JmemRoot   *root,
                          int         dirfd,
                          const char *dir,
                          const char *name,
                          gsize       max_bytes,
                          GByteArray *buffer,
                          GError    **error)
{
  return read_at (root, dirfd, dir, name, max_bytes, TRUE, buffer, error);
}

gboolean
jmem_root_read (JmemRoot   *root,
                const char *path,
                gsize       max_bytes,
                char      **contents,
                gsize      *length,
                GError    **error)
{
  g_autoptr(GByteArray) buf = NULL;
  int fd;

  g_return_val_if_fail (path != NULL && path[0] == '/', FALSE);
  g_return_val_if_fail (contents != NULL, FALSE);

  fd = open_regular (root, -1, NULL, path, error);
  if (fd < 0)
    return FALSE;
  buf = g_byte_array_sized_new (4096);
  if (!jmem_file_read_fd (fd, path, max_bytes, buf, error))
    return FALSE;
  if (length != NULL)
    *length = buf->len;
  g_byte_array_append (buf, (const guint8 *) "", 1);
  *contents = (char *) g_byte_array_free (g_steal_pointer (&buf), FALSE);
  return TRUE;
}

int
jmem_root_open_file (JmemRoot   *root,
                     const char *path,
                     GError    **error)
{
  g_return_val_if_fail (path != NULL && path[0] == '/', -1);

  return open_regular (root, -1, NULL, path, error);
}

char *
jmem_root_read_text (JmemRoot   *root,
                     const char *path,
                     GError    **error)
{
  g_autofree char *data = NULL;
  gsize len = 0;
  char *text;

  if (!jmem_root_read (root, path, JMEM_MAX_SMALL_BYTES, &data, &len, error))
    return NULL;
  /* device-tree strings end in NUL: keep what precedes it. */
  len = strnlen (data, len);
  text = jmem_text_make_valid (data, (gssize) len);
  return g_strchomp (text);
}

int
jmem_root_open_dir (JmemRoot   *root,
                    const char *path,
                    GError    **error)
{
  int fd;

  g_return_val_if_fail (path != NULL && path[0] == '/', -1);

  if (root->kind == ROOT_LIVE)
    {
      fd = open (path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      if (fd < 0)
        jmem_root_set_errno_error (error, errno, "Cannot open", path);
      return fd;
    }
  return tree_open (root, root->fd, jmem_root_relative (path), O_RDONLY | O_DIRECTORY, jmem_root_relative (path), error);
}

int
jmem_root_open_dir_at (JmemRoot   *root,
                       int         dirfd,
                       const char *dir,
                       const char *name,
                       GError    **error)
{
  g_autofree char *shown = NULL;
  int fd;

  g_return_val_if_fail (name != NULL && name[0] != '/', -1);

  if (root->kind == ROOT_LIVE)
    {
      fd = openat (dirfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      if (fd < 0)
        jmem_root_set_errno_error (error, errno, "Cannot open", name);
      return fd;
    }
  shown = g_strconcat (jmem_root_relative (dir), "/", name, NULL);
  return tree_open (root, dirfd, name, O_RDONLY | O_DIRECTORY, shown, error);
}

/* The directory holding @path's last component, and that component. */
static int
open_parent (JmemRoot *root, const char *path, char **base, GError **error)
{
  g_autofree char *dir = g_path_get_dirname (path);

  *base = g_path_get_basename (path);
  return jmem_root_open_dir (root, dir, error);
}

char *
jmem_root_read_link (JmemRoot   *root,
                     const char *path,
                     GError    **error)
{
  g_autofree char *base = NULL;
  char buf[4096];
  ssize_t n;
  int dfd;

  if (root->kind == ROOT_LIVE)
    return g_file_read_link (path, error);
  dfd = open_parent (root, path, &base, error);
  if (dfd < 0)
    return NULL;
  n = readlinkat (dfd, base, buf, sizeof buf - 1);
  if (n < 0)
    jmem_root_set_errno_error (error, errno, "Cannot read the link", path);
  close (dfd);
  if (n < 0)
    return NULL;
  buf[n] = '\0';
  return g_strdup (buf);
}

gboolean
jmem_root_exists (JmemRoot   *root,
                  const char *path)
{
  g_autofree char *base = NULL;
  struct stat st;
  gboolean found;
  int dfd;

  if (root->kind == ROOT_LIVE)
    return g_file_test (path, G_FILE_TEST_EXISTS);
  dfd = open_parent (root, path, &base, NULL);
  if (dfd < 0)
    return FALSE;
  found = fstatat (dfd, base, &st, AT_SYMLINK_NOFOLLOW) == 0;
  close (dfd);
  return found;
}

static int
compare_names (gconstpointer a, gconstpointer b)
{
  return strcmp (*(char * const *) a, *(char * const *) b);
}

GStrv
jmem_root_list_dir (JmemRoot   *root,
                    const char *path,
                    GError    **error)
{
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  int fd = jmem_root_open_dir (root, path, error);
  struct dirent *e;
  DIR *d;

  if (fd < 0)
    return NULL;
  d = fdopendir (fd);
  if (d == NULL)
    {
      jmem_root_set_errno_error (error, errno, "Cannot list", path);
      close (fd);
      return NULL;
    }
  while ((e = readdir (d)) != NULL)
    if (!g_str_equal (e->d_name, ".") && !g_str_equal (e->d_name, ".."))
      g_ptr_array_add (names, g_strdup (e->d_name));
  closedir (d);
  g_ptr_array_sort (names, compare_names);
  g_ptr_array_add (names, NULL);
  return (GStrv) g_ptr_array_free (g_steal_pointer (&names), FALSE);
}
