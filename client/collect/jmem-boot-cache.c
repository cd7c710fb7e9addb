/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "jmem-boot-cache.h"

#include "jmem-file.h"
#include "jmem-write.h"

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

/* The directory must be ours and writable by nobody else, or another user
 * could plant the facts. */
#define CACHE_DIR_FLAGS JMEM_WRITE_DIR_PRIVATE

GBytes *
jmem_boot_cache_load (const char *dir,
                      GError    **error)
{
  g_autoptr(GByteArray) buf = g_byte_array_new ();
  g_autofree char *path = g_build_filename (dir, JMEM_BOOT_CACHE_NAME, NULL);
  g_autoptr(JmemWriteDir) d = jmem_write_dir_open (dir, CACHE_DIR_FLAGS, error);
  struct stat st;
  int fd;

  if (d == NULL)
    return NULL;
  fd = openat (jmem_write_dir_get_fd (d), JMEM_BOOT_CACHE_NAME,
               O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0)
    {
      errno_error (error, errno, "cannot open", path);
      return NULL;
    }
  if (fstat (fd, &st) < 0 || !S_ISREG (st.st_mode) || st.st_uid != geteuid () ||
      (st.st_mode & 07777) != JMEM_BOOT_CACHE_MODE || st.st_size > (off_t) JMEM_BOOT_CACHE_MAX_BYTES)
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
  g_autoptr(JmemWriteDir) d = NULL;

  if (len > JMEM_BOOT_CACHE_MAX_BYTES)
    return refuse (error, dir, "the per-boot facts would be too large");
  if (create)
    {
      /* $XDG_RUNTIME_DIR, which sudo may keep from another user: jmem makes
       * its directory only in one of the caller's own */
      g_autofree char *parent = g_path_get_dirname (dir);
      g_autoptr(JmemWriteDir) p = jmem_write_dir_open (parent, CACHE_DIR_FLAGS, error);

      if (p == NULL)
        return FALSE;
    }
  d = jmem_write_dir_open (dir, CACHE_DIR_FLAGS | (create ? JMEM_WRITE_DIR_CREATE : 0), error);
  return d != NULL &&
         jmem_write_replace (d, JMEM_BOOT_CACHE_NAME, data, len, JMEM_BOOT_CACHE_MODE, error);
}
