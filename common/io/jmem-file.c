/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "jmem-file.h"

#include "jmem-error.h"

#include <errno.h>
#include <fcntl.h>
#include <gio/gio.h>
#include <sys/stat.h>
#include <unistd.h>

static gboolean
open_failed (const char *path,
             GError    **error)
{
  int saved = errno;

  g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
               "Cannot open %s: %s", path, g_strerror (saved));
  return FALSE;
}

/* Reads @fd to its end into @buf (replacing its contents), then closes it.
 * With @one_record a read shorter than asked is the end. */
static gboolean
read_fd_capped (int         fd,
                const char *path,
                gsize       max_bytes,
                gboolean    one_record,
                GByteArray *buf,
                GError    **error)
{
  const guint room = 16384;

  /* A GByteArray length is a guint: the cap keeps it far from overflow. */
  g_assert (max_bytes < G_MAXUINT / 2);
  g_byte_array_set_size (buf, 0);
  for (;;)
    {
      guint start = buf->len;
      ssize_t n;

      /* Read straight into the array: one copy less on the hot /proc path. */
      g_byte_array_set_size (buf, start + room);
      n = read (fd, buf->data + start, room);
      g_byte_array_set_size (buf, start + (guint) MAX (n, 0));

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
      if (n == 0 || (one_record && (guint) n < room && buf->len <= max_bytes))
        break;
      if (buf->len > max_bytes)
        {
          close (fd);
          g_set_error (error, JMEM_ERROR, JMEM_ERROR_TOO_LARGE,
                       "%s is larger than the %" G_GSIZE_FORMAT " bytes jmem accepts",
                       path, max_bytes);
          return FALSE;
        }
    }
  close (fd);

  /* Parsers get a C string as well as a length. */
  g_byte_array_append (buf, (const guint8 *) "", 1);
  g_byte_array_set_size (buf, buf->len - 1);
  return TRUE;
}

/* Reads the open @fd whole into a new NUL-terminated buffer, then closes it. */
static gboolean
read_fd_to_string (int fd, const char *path, gsize max_bytes,
                   char **contents, gsize *length, GError **error)
{
  g_autoptr(GByteArray) buf = g_byte_array_sized_new (4096);

  if (!read_fd_capped (fd, path, max_bytes, FALSE, buf, error))
    return FALSE;

  if (length != NULL)
    *length = buf->len;
  g_byte_array_append (buf, (const guint8 *) "", 1);
  *contents = (char *) g_byte_array_free (g_steal_pointer (&buf), FALSE);
  return TRUE;
}

gboolean
jmem_file_read_capped (const char *path,
                       gsize       max_bytes,
                       char      **contents,
                       gsize      *length,
                       GError    **error)
{
  int fd;

  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (contents != NULL, FALSE);

  fd = open (path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0)
    return open_failed (path, error);
  return read_fd_to_string (fd, path, max_bytes, contents, length, error);
}

static const char *
file_kind (mode_t mode)
{
  if (S_ISFIFO (mode))
    return "a FIFO or pipe";
  if (S_ISCHR (mode) || S_ISBLK (mode))
    return "a device";
  if (S_ISSOCK (mode))
    return "a socket";
  return "not a regular file";
}

int
jmem_file_open_regular (const char *path,
                        GError    **error)
{
  struct stat st;
  int fd, flags;

  g_return_val_if_fail (path != NULL, -1);

  /* O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer */
  fd = open (path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0)
    {
      open_failed (path, error);
      return -1;
    }
  if (fstat (fd, &st) != 0)
    {
      int saved = errno;

      close (fd);
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   "Cannot read %s: %s", path, g_strerror (saved));
      return -1;
    }
  if (S_ISDIR (st.st_mode))
    {
      close (fd);
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_IS_DIRECTORY,
                   "%s is a directory: give the file itself", path);
      return -1;
    }
  if (!S_ISREG (st.st_mode))
    {
      close (fd);
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_REGULAR_FILE,
                   "%s is %s, not a regular file: save the output to a file first "
                   "and give that file", path, file_kind (st.st_mode));
      return -1;
    }
  flags = fcntl (fd, F_GETFL);
  if (flags >= 0)
    fcntl (fd, F_SETFL, flags & ~O_NONBLOCK);
  return fd;
}

gboolean
jmem_file_read_regular_capped (const char *path,
                               gsize       max_bytes,
                               char      **contents,
                               gsize      *length,
                               GError    **error)
{
  int fd;

  g_return_val_if_fail (contents != NULL, FALSE);

  fd = jmem_file_open_regular (path, error);
  if (fd < 0)
    return FALSE;
  return read_fd_to_string (fd, path, max_bytes, contents, length, error);
}

gboolean
jmem_file_read_fd (int         fd,
                   const char *name,
                   gsize       max_bytes,
                   GByteArray *buffer,
                   GError    **error)
{
  g_return_val_if_fail (fd >= 0, FALSE);
  g_return_val_if_fail (buffer != NULL, FALSE);

  return read_fd_capped (fd, name, max_bytes, FALSE, buffer, error);
}

static gboolean
read_at (int         dirfd,
         const char *name,
         gsize       max_bytes,
         gboolean    one_record,
         GByteArray *buffer,
         GError    **error)
{
  int fd;

  g_return_val_if_fail (name != NULL && name[0] != '/', FALSE);
  g_return_val_if_fail (buffer != NULL, FALSE);

  fd = openat (dirfd, name, O_RDONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0)
    return open_failed (name, error);
  return read_fd_capped (fd, name, max_bytes, one_record, buffer, error);
}

gboolean
jmem_file_read_at (int         dirfd,
                   const char *name,
                   gsize       max_bytes,
                   GByteArray *buffer,
                   GError    **error)
{
  return read_at (dirfd, name, max_bytes, FALSE, buffer, error);
}

gboolean
jmem_file_read_record_at (int         dirfd,
                          const char *name,
                          gsize       max_bytes,
                          GByteArray *buffer,
                          GError    **error)
{
  return read_at (dirfd, name, max_bytes, TRUE, buffer, error);
}

gboolean
jmem_file_write_all (int         fd,
                     const void *data,
                     gsize       len)
{
  const char *p = data;

  while (len > 0)
    {
      ssize_t n = write (fd, p, len);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        {
          /* a write of nothing with no error: the file system took no more */
          if (n == 0)
            errno = ENOSPC;
          return FALSE;
        }
      p += n;
      len -= (gsize) n;
    }
  return TRUE;
}
