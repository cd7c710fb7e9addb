/* History files: appending under a cap without ever leaving a torn line, and
 * reading them back one line at a time. */
#include "jmem-history.h"

#include "jmem-diff.h"
#include "jmem-error.h"
#include "jmem-file.h"

#include <errno.h>
#include <fcntl.h>
#include <gio/gio.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct _JmemHistoryWriter {
  char    *path;
  int      fd;
  gboolean regular;
  guint64  size;
  guint64  max_bytes;
};

static gboolean
set_errno_error (GError **error, int errsv, const char *path, const char *doing)
{
  g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errsv),
               "%s: cannot %s: %s", path, doing, g_strerror (errsv));
  return FALSE;
}

static gboolean
read_all_at (int fd, char *data, gsize len)
{
  gsize done = 0;

  while (done < len)
    {
      ssize_t n = pread (fd, data + done, len - done, (off_t) done);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return FALSE;
      done += (gsize) n;
    }
  return TRUE;
}

/* Cuts an unterminated last line: what a writer killed mid-line left. */
static gboolean
drop_torn_tail (JmemHistoryWriter *w, GError **error)
{
  g_autofree char *data = NULL;
  gsize keep;

  if (w->size == 0)
    return TRUE;
  data = g_malloc (w->size);
  if (!read_all_at (w->fd, data, w->size))
    return set_errno_error (error, errno ? errno : EIO, w->path, "read");
  if (data[w->size - 1] == '\n')
    return TRUE;
  for (keep = w->size; keep > 0 && data[keep - 1] != '\n'; keep--)
    ;
  if (ftruncate (w->fd, (off_t) keep) != 0)
    return set_errno_error (error, errno, w->path, "cut its unterminated last line");
  w->size = keep;
  return TRUE;
}

JmemHistoryWriter *
jmem_history_writer_open (const char *path,
                          guint64     max_bytes,
                          GError    **error)
{
  g_autoptr(JmemHistoryWriter) w = g_new0 (JmemHistoryWriter, 1);
  struct stat st;

  w->path = g_strdup (path);
  w->max_bytes = MAX (max_bytes, JMEM_HISTORY_MIN_MAX_BYTES);
  w->fd = open (path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY, 0600);
  if (w->fd < 0)
    {
      set_errno_error (error, errno, path, errno == ELOOP ? "write through a symbolic link" : "open");
      return NULL;
    }
  if (fstat (w->fd, &st) != 0)
    {
      set_errno_error (error, errno, path, "stat");
      return NULL;
    }
  w->regular = S_ISREG (st.st_mode);
  w->size = w->regular ? (guint64) st.st_size : 0;
  if (w->regular)
    {
      /* the rewrite reads the file back through this descriptor */
      close (w->fd);
      w->fd = open (path, O_RDWR | O_APPEND | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY);
      if (w->fd < 0)
        {
          set_errno_error (error, errno, path, "open");
          return NULL;
        }
      if (!drop_torn_tail (w, error))
        return NULL;
    }
  return g_steal_pointer (&w);
}

/* The file's newest lines that fit @budget bytes with the new line, then
 * the new line, into a temporary file renamed over it. */
static gboolean
rewrite (JmemHistoryWriter *w, const char *line, gsize line_len, GError **error)
{
  guint64 budget = w->max_bytes / 100 * JMEM_HISTORY_REWRITE_PERCENT;
  g_autofree char *dir = g_path_get_dirname (w->path);
  g_autofree char *base = g_path_get_basename (w->path);
  g_autofree char *tmp = g_strdup_printf ("%s/.%s.XXXXXX", dir, base);
  g_autofree char *data = NULL;
  gsize keep_from = (gsize) w->size;
  struct stat st;
  int tfd, dfd, fd;

  if (fstat (w->fd, &st) != 0)
    return set_errno_error (error, errno, w->path, "stat");
  data = g_malloc (w->size + 1);
  if (!read_all_at (w->fd, data, w->size))
    return set_errno_error (error, errno ? errno : EIO, w->path, "read");
  if (line_len + 1 <= budget)
    {
      /* the oldest line start from which the rest fits */
      guint64 need = w->size + line_len + 1 - MIN (budget, w->size + line_len + 1);
      gsize i = (gsize) need;

      if (i > 0)
        {
          while (i < w->size && data[i - 1] != '\n')
            i++;
        }
      keep_from = i;
    }

  tfd = g_mkstemp_full (tmp, O_WRONLY | O_CLOEXEC, 0600);
  if (tfd < 0)
    return set_errno_error (error, errno, tmp, "create");
  if (fchmod (tfd, st.st_mode & 07777) != 0 ||
      !jmem_file_write_all (tfd, data + keep_from, (gsize) w->size - keep_from) ||
      !jmem_file_write_all (tfd, line, line_len) || !jmem_file_write_all (tfd, "\n", 1) ||
      fsync (tfd) != 0)
    {
      int errsv = errno ? errno : EIO;

      close (tfd);
      g_unlink (tmp);
      return set_errno_error (error, errsv, tmp, "write");
    }
  close (tfd);
  if (rename (tmp, w->path) != 0)
    {
      int errsv = errno;

      g_unlink (tmp);
      return set_errno_error (error, errsv, w->path, "replace");
    }
  /* the rename itself must survive a crash */
  dfd = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0)
    {
      fsync (dfd);
      close (dfd);
    }
  fd = open (w->path, O_RDWR | O_APPEND | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY);
  if (fd < 0)
    return set_errno_error (error, errno, w->path, "open");
  close (w->fd);
  w->fd = fd;
  w->size = w->size - keep_from + line_len + 1;
  return TRUE;
}

gboolean
jmem_history_writer_append (JmemHistoryWriter *w,
                            const char        *line,
                            GError           **error)
{
  gsize len = strlen (line);
  g_autofree char *with_newline = NULL;

  g_return_val_if_fail (strchr (line, '\n') == NULL, FALSE);

  if (w->regular && w->size + len + 1 > w->max_bytes)
    return rewrite (w, line, len, error);
  /* one write: a concurrent reader at most sees an unterminated last line */
  with_newline = g_strconcat (line, "\n", NULL);
  if (!jmem_file_write_all (w->fd, with_newline, len + 1))
    return set_errno_error (error, errno ? errno : ENOSPC, w->path, "write");
  w->size += len + 1;
  return TRUE;
}

void
jmem_history_writer_free (JmemHistoryWriter *w)
{
  if (w == NULL)
    return;
  if (w->fd >= 0)
    close (w->fd);
  g_free (w->path);
  g_free (w);
}

/* ---- reading ---- */

static gboolean
handle_line (GString *line, const char *path, guint number,
             JmemHistoryFunc func, gpointer user_data, guint *n_docs,
             gboolean *stop, GError **error)
{
  g_autofree char *what = NULL;
  g_autoptr(JsonNode) node = NULL;

  if (line->len == 0)
    return TRUE;
  what = g_strdup_printf ("%s:%u", path, number);
  node = jmem_diff_parse_snapshot (line->str, line->len, what, error);
  if (node == NULL)
    return FALSE;
  (*n_docs)++;
  if (!func (node, number, user_data))
    *stop = TRUE;
  return TRUE;
}

gboolean
jmem_history_read (const char     *path,
                   JmemHistoryFunc func,
                   gpointer        user_data,
                   guint          *n_torn,
                   GError        **error)
{
  g_autoptr(GString) line = g_string_new (NULL);
  char buf[65536];
  guint number = 1, n_docs = 0;
  gboolean stop = FALSE;
  int fd;

  if (n_torn != NULL)
    *n_torn = 0;
  fd = open (path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0)
    return set_errno_error (error, errno, path, "open");

  while (!stop)
    {
      ssize_t n = read (fd, buf, sizeof buf);

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          int errsv = errno;

          close (fd);
          return set_errno_error (error, errsv, path, "read");
        }
      if (n == 0)
        break;
      for (const char *p = buf, *end = buf + n; p < end && !stop;)
        {
          const char *nl = memchr (p, '\n', (gsize) (end - p));
          gsize chunk = nl ? (gsize) (nl - p) : (gsize) (end - p);

          if (line->len + chunk > JMEM_DIFF_MAX_FILE_BYTES)
            {
              close (fd);
              g_set_error (error, JMEM_ERROR, JMEM_ERROR_TOO_LARGE,
                           "%s:%u: a line larger than %u MiB is not a snapshot jmem wrote",
                           path, number, JMEM_DIFF_MAX_FILE_BYTES / (1024 * 1024));
              return FALSE;
            }
          g_string_append_len (line, p, (gssize) chunk);
          p += chunk;
          if (nl == NULL)
            break;
          p++;
          if (!handle_line (line, path, number, func, user_data, &n_docs, &stop, error))
            {
              close (fd);
              return FALSE;
            }
          g_string_truncate (line, 0);
          number++;
        }
    }
  close (fd);
  if (!stop && line->len > 0 && n_torn != NULL)
    (*n_torn)++;
  if (n_docs == 0)
    {
      g_set_error (error, JMEM_ERROR, JMEM_ERROR_NOT_AVAILABLE,
                   "%s holds no snapshot: write a history with `jmem watch --output %s`",
                   path, path);
      return FALSE;
    }
  return TRUE;
}
