#include "jmem-boot-cache.h"

#include "jmem-file.h"
#include "jmem-textfile.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <gio/gio.h>
#include <sys/stat.h>
#include <unistd.h>

char *
jmem_boot_cache_dir_from_env (gboolean *create)
{
  const char *runtime = g_getenv ("RUNTIME_DIRECTORY");
  const char *xdg = g_getenv ("XDG_RUNTIME_DIR");

  *create = FALSE;
  if (runtime != NULL && g_path_is_absolute (runtime))
    {
      /* several RuntimeDirectory= entries come colon-separated */
      const char *colon = strchr (runtime, ':');

      return colon != NULL ? g_strndup (runtime, (gsize) (colon - runtime)) : g_strdup (runtime);
    }
  if (xdg != NULL && g_path_is_absolute (xdg))
    {
      *create = TRUE;
      return g_build_filename (xdg, "jmem", NULL);
    }
  return NULL;
}

static gboolean
errno_error (GError **error, int saved, const char *what, const char *path)
{
  g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), "%s %s: %s", what, path,
               g_strerror (saved));
  return FALSE;
}

static gboolean
refuse (GError **error, const char *path, const char *why)
{
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED, "%s: %s", path, why);
  return FALSE;
}

/* @dir opened without following a link, or -1: it must be ours and
 * writable by nobody else, or another user could plant the facts. */
static int
open_dir (const char *dir, GError **error)
{
  struct stat st;
  int fd = open (dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

  if (fd < 0)
    {
      errno_error (error, errno, "cannot open", dir);
      return -1;
    }
  if (fstat (fd, &st) < 0 || st.st_uid != geteuid () || (st.st_mode & 022) != 0)
    {
      close (fd);
      refuse (error, dir, "not a directory of this user's alone");
      return -1;
    }
  return fd;
}

GBytes *
jmem_boot_cache_load (const char *dir,
                      GError    **error)
{
  g_autoptr(GByteArray) buf = g_byte_array_new ();
  g_autofree char *path = g_build_filename (dir, JMEM_BOOT_CACHE_NAME, NULL);
  struct stat st;
  int dirfd, fd;

  dirfd = open_dir (dir, error);
  if (dirfd < 0)
    return NULL;
  fd = openat (dirfd, JMEM_BOOT_CACHE_NAME, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  close (dirfd);
  if (fd < 0)
    {
      errno_error (error, errno, "cannot open", path);
      return NULL;
    }
  if (fstat (fd, &st) < 0 || !S_ISREG (st.st_mode) || st.st_uid != geteuid () ||
      (st.st_mode & 07777) != 0600 || st.st_size > (off_t) JMEM_BOOT_CACHE_MAX_BYTES)
    {
      close (fd);
      refuse (error, dir, JMEM_BOOT_CACHE_NAME " is not a regular file of this user's, "
              "mode 0600, of a few bytes");
      return NULL;
    }
  /* the cap also catches a file that grew since fstat */
  if (!jmem_file_read_fd (fd, path, JMEM_BOOT_CACHE_MAX_BYTES, buf, error))
    return NULL;
  return g_bytes_new (buf->data, buf->len);
}

gboolean
jmem_boot_cache_store (const char *dir,
                       gboolean    create,
                       const char *data,
                       gsize       len,
                       GError    **error)
{
  gboolean ok;
  int dirfd;

  if (len > JMEM_BOOT_CACHE_MAX_BYTES)
    return refuse (error, dir, "the per-boot facts would be too large");
  if (create && mkdir (dir, 0700) < 0 && errno != EEXIST)
    return errno_error (error, errno, "cannot make", dir);
  dirfd = open_dir (dir, error);
  if (dirfd < 0)
    return FALSE;
  ok = jmem_textfile_replace_at (dirfd, dir, JMEM_BOOT_CACHE_NAME, data, len, 0600, error);
  close (dirfd);
  return ok;
}
