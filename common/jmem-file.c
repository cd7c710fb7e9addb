#include "jmem-file.h"

#include "jmem-error.h"

#include <errno.h>
#include <fcntl.h>
#include <gio/gio.h>
#include <unistd.h>

gboolean
jmem_file_read_capped (const char *path,
                       gsize       max_bytes,
                       char      **contents,
                       gsize      *length,
                       GError    **error)
{
  g_autoptr(GByteArray) buf = NULL;
  int fd;

  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (contents != NULL, FALSE);

  fd = open (path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0)
    {
      int saved = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   "Cannot open %s: %s", path, g_strerror (saved));
      return FALSE;
    }

  buf = g_byte_array_sized_new (4096);
  for (;;)
    {
      guint8 chunk[16384];
      ssize_t n = read (fd, chunk, sizeof chunk);

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          int saved = errno;
          close (fd);
          g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                       "Cannot read %s: %s", path, g_strerror (saved));
          return FALSE;
        }
      if (n == 0)
        break;
      if (buf->len + (gsize) n > max_bytes)
        {
          close (fd);
          g_set_error (error, JMEM_ERROR, JMEM_ERROR_TOO_LARGE,
                       "%s is larger than the %" G_GSIZE_FORMAT " bytes jmem accepts",
                       path, max_bytes);
          return FALSE;
        }
      g_byte_array_append (buf, chunk, (guint) n);
    }
  close (fd);

  if (length != NULL)
    *length = buf->len;
  g_byte_array_append (buf, (const guint8 *) "", 1);
  *contents = (char *) g_byte_array_free (g_steal_pointer (&buf), FALSE);
  return TRUE;
}

char *
jmem_sysroot_path (const char *root,
                   const char *path)
{
  g_return_val_if_fail (path != NULL && path[0] == '/', NULL);

  if (root == NULL || root[0] == '\0' || g_str_equal (root, "/"))
    return g_strdup (path);
  return g_build_filename (root, path, NULL);
}
