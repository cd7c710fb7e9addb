#include "jmem-boot-cache.h"

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
      int saved = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), "%s: %s", dir,
                   g_strerror (saved));
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
  g_autofree char *buf = NULL;
  struct stat st;
  gsize len = 0;
  int dirfd, fd;

  dirfd = open_dir (dir, error);
  if (dirfd < 0)
    return NULL;
  fd = openat (dirfd, JMEM_BOOT_CACHE_NAME, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  close (dirfd);
  if (fd < 0)
    {
      int saved = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), "%s/%s: %s", dir,
                   JMEM_BOOT_CACHE_NAME, g_strerror (saved));
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
  /* one byte more than allowed tells a file that grew since fstat */
  buf = g_malloc (JMEM_BOOT_CACHE_MAX_BYTES + 1);
  while (len <= JMEM_BOOT_CACHE_MAX_BYTES)
    {
      ssize_t n = read (fd, buf + len, JMEM_BOOT_CACHE_MAX_BYTES + 1 - len);

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          int saved = errno;

          close (fd);
          g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), "%s/%s: %s", dir,
                       JMEM_BOOT_CACHE_NAME, g_strerror (saved));
          return NULL;
        }
      if (n == 0)
        break;
      len += (gsize) n;
    }
  close (fd);
  if (len > JMEM_BOOT_CACHE_MAX_BYTES)
    {
      refuse (error, dir, JMEM_BOOT_CACHE_NAME " is too large");
      return NULL;
    }
  return g_bytes_new (buf, len);
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
    {
      int saved = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), "%s: %s", dir,
                   g_strerror (saved));
      return FALSE;
    }
  dirfd = open_dir (dir, error);
  if (dirfd < 0)
    return FALSE;
  ok = jmem_textfile_replace_at (dirfd, dir, JMEM_BOOT_CACHE_NAME, data, len, 0600, error);
  close (dirfd);
  return ok;
}
