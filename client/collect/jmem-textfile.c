#include "jmem-textfile.h"

#include "jmem-file.h"

#include <errno.h>
#include <fcntl.h>
#include <gio/gio.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

/* Takes @what. */
static gboolean
fail (GError **error, int saved_errno, char *what)
{
  g_autofree char *owned = what;

  g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved_errno), "%s: %s",
               owned, g_strerror (saved_errno));
  return FALSE;
}

gboolean
jmem_textfile_replace_at (int         dirfd,
                          const char *dir,
                          const char *name,
                          const char *data,
                          gsize       len,
                          mode_t      mode,
                          GError    **error)
{
  g_autofree char *tmp = NULL;
  int fd = -1, saved;

  /* Not ending in ".prom", so the textfile collector never reads it. */
  for (guint attempt = 0; fd < 0 && attempt < 16; attempt++)
    {
      g_free (tmp);
      tmp = g_strdup_printf (".%s.%08x.tmp", name, g_random_int ());
      fd = openat (dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
      if (fd < 0 && errno != EEXIST)
        break;
    }
  if (fd < 0)
    return fail (error, errno, g_strdup_printf ("cannot create a temporary file in %s", dir));

  /* the mode asked for, whatever the umask */
  errno = 0;
  if (fchmod (fd, mode) < 0 || !jmem_file_write_all (fd, data, len) || fsync (fd) < 0)
    {
      saved = errno != 0 ? errno : EIO;
      close (fd);
      unlinkat (dirfd, tmp, 0);
      return fail (error, saved, g_strdup_printf ("cannot write %s in %s", tmp, dir));
    }
  if (close (fd) < 0)
    {
      saved = errno;
      unlinkat (dirfd, tmp, 0);
      return fail (error, saved, g_strdup_printf ("cannot write %s in %s", tmp, dir));
    }
  if (renameat (dirfd, tmp, dirfd, name) < 0)
    {
      saved = errno;
      unlinkat (dirfd, tmp, 0);
      return fail (error, saved, g_strdup_printf ("cannot replace %s in %s", name, dir));
    }
  /* the rename itself survives a power cut only once the directory is synced */
  fsync (dirfd);
  return TRUE;
}

gboolean
jmem_textfile_replace (const char *dir,
                       const char *name,
                       const char *data,
                       gsize       len,
                       GError    **error)
{
  gboolean ok;
  int dirfd, saved;

  /* O_NOFOLLOW: a link put in place of the directory is refused, not
   * followed to wherever it points. */
  dirfd = open (dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (dirfd < 0)
    {
      saved = errno;
      if (saved == ELOOP || saved == ENOTDIR)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_DIRECTORY,
                       "cannot write into %s: it is not a directory (a symbolic link is refused: "
                       "give the directory it points to)", dir);
          return FALSE;
        }
      return fail (error, saved, g_strdup_printf ("cannot open the directory %s", dir));
    }
  /* node_exporter runs as another user: readable by all */
  ok = jmem_textfile_replace_at (dirfd, dir, name, data, len, 0644, error);
  close (dirfd);
  return ok;
}
