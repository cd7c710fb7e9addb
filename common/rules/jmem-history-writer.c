/* SPDX-License-Identifier: GPL-2.0-or-later */
/* History files: appending under a cap without ever leaving a torn line. */
#include "jmem-history-writer.h"

#include "jmem-file.h"
#include "jmem-history-tiers.h"
#include "jmem-write.h"

#include <errno.h>
#include <fcntl.h>
#include <gio/gio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct _JmemHistoryWriter {
  char         *path;
  JmemWriteDir *dir;     /* opened once: the trim works beneath it */
  char         *name;    /* the file's name in it */
  int           fd;
  guint64       size;
  guint64       max_bytes;
  mode_t        mode;    /* of a file it creates, whatever the umask */
  gboolean      tiers;   /* thin old samples before dropping any */
};

/* A history names every listed process's command line. */
#define HISTORY_MODE 0600

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
  char last;
  gsize keep;

  if (w->size == 0)
    return TRUE;
  /* the whole file is read only when its last byte says it is torn */
  if (pread (w->fd, &last, 1, (off_t) w->size - 1) == 1 && last == '\n')
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

/* The lock of the file the path names now, whichever writer last renamed a
 * rewrite over it, and that file's size: appends and rewrites by several
 * writers of one history then follow each other, none into a replaced
 * file. Released by jmem_write_unlock (w->fd). */
static gboolean
lock_current (JmemHistoryWriter *w, GError **error)
{
  struct stat st;

  if (!jmem_write_lock_named (w->dir, w->name, w->mode, &w->fd, error))
    return FALSE;
  if (fstat (w->fd, &st) != 0)
    return set_errno_error (error, errno, w->path, "stat");
  w->size = (guint64) st.st_size;
  return drop_torn_tail (w, error);
}

JmemHistoryWriter *
jmem_history_writer_open (const char *path,
                          guint64     max_bytes,
                          GError    **error)
{
  return jmem_history_writer_open_with_mode (path, max_bytes, HISTORY_MODE, error);
}

JmemHistoryWriter *
jmem_history_writer_open_with_mode (const char *path,
                                    guint64     max_bytes,
                                    mode_t      mode,
                                    GError    **error)
{
  g_autoptr(JmemHistoryWriter) w = g_new0 (JmemHistoryWriter, 1);
  g_autoptr(GError) local = NULL;
  gboolean ok;

  w->path = g_strdup (path);
  w->fd = -1;
  w->max_bytes = MAX (max_bytes, JMEM_HISTORY_MIN_MAX_BYTES);
  w->mode = mode;
  w->dir = jmem_write_dir_open_parent (path, &w->name, error);
  if (w->dir == NULL)
    return NULL;
  /* what a trim killed mid-way left beside the file */
  jmem_write_remove_stale (w->dir, w->name);
  w->fd = jmem_write_open_append (w->dir, w->name, w->mode, &local);
  if (w->fd < 0)
    {
      if (g_error_matches (local, G_IO_ERROR, G_IO_ERROR_NOT_REGULAR_FILE))
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_REGULAR_FILE, "%s; to feed a pipe, leave "
                     "out --output and redirect standard output", local->message);
      else
        g_propagate_error (error, g_steal_pointer (&local));
      return NULL;
    }
  ok = lock_current (w, error);
  jmem_write_unlock (w->fd);
  if (!ok)
    return NULL;
  return g_steal_pointer (&w);
}

/* The file's newest lines that fit @budget bytes with the new line, then
 * the new line, into a temporary file renamed over it. */
static gboolean
rewrite (JmemHistoryWriter *w, const char *line, gsize line_len, GError **error)
{
  guint64 budget = w->max_bytes / 100 * JMEM_HISTORY_REWRITE_PERCENT;
  g_autoptr(JmemWriteTemp) temp = NULL;
  g_autofree char *data = NULL;
  gsize size = (gsize) w->size, keep_from = size;
  int tfd, fd;

  data = g_malloc (size + 1);
  if (!read_all_at (w->fd, data, size))
    return set_errno_error (error, errno ? errno : EIO, w->path, "read");
  if (w->tiers)
    {
      /* old samples thinned first: only what still passes the cap is dropped */
      gint64 now = jmem_history_line_time (line, line_len);
      GString *thinned = jmem_history_tiers_apply (data, size,
                                                   now >= 0 ? now : g_get_real_time () / G_USEC_PER_SEC);

      g_free (data);
      size = thinned->len;
      keep_from = size;
      data = g_string_free (thinned, FALSE);
    }
  if (line_len + 1 <= budget)
    {
      /* the oldest line start from which the rest fits */
      guint64 need = size + line_len + 1 - MIN (budget, size + line_len + 1);
      gsize i = (gsize) need;

      if (i > 0)
        {
          while (i < size && data[i - 1] != '\n')
            i++;
        }
      keep_from = i;
    }

  /* a new file of the history's own mode, never the old file's */
  temp = jmem_write_temp_new (w->dir, w->name, w->mode, error);
  if (temp == NULL)
    return FALSE;
  tfd = jmem_write_temp_get_fd (temp);
  if (!jmem_file_write_all (tfd, data + keep_from, size - keep_from) ||
      !jmem_file_write_all (tfd, line, line_len) || !jmem_file_write_all (tfd, "\n", 1))
    return set_errno_error (error, errno, w->path, "write its trimmed copy");
  /* the renamed file, already open: nothing is opened again by name */
  fd = jmem_write_temp_commit (temp, error);
  if (fd < 0)
    return FALSE;
  close (w->fd);
  w->fd = fd;
  w->size = size - keep_from + line_len + 1;
  return TRUE;
}

static gboolean
append_locked (JmemHistoryWriter *w, const char *line, GError **error)
{
  gsize len = strlen (line);
  g_autofree char *with_newline = NULL;
  gssize written = 0;

  if (w->size + len + 1 > w->max_bytes)
    return rewrite (w, line, len, error);
  /* one write: a concurrent reader at most sees an unterminated last line */
  with_newline = g_strconcat (line, "\n", NULL);
  while ((gsize) written < len + 1)
    {
      ssize_t n = write (w->fd, with_newline + written, len + 1 - (gsize) written);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        {
          int errsv = n < 0 ? errno : ENOSPC;

          /* A full disk took part of the line: cut it back to the last
           * complete one, so the file stays whole and can be continued. */
          if (written > 0)
            {
              off_t end = lseek (w->fd, 0, SEEK_CUR);

              if (end < written || ftruncate (w->fd, end - written) != 0)
                return set_errno_error (error, errsv, w->path,
                                        "write (and its partial last line could not be cut)");
            }
          return set_errno_error (error, errsv, w->path, "write");
        }
      written += n;
    }
  w->size += len + 1;
  return TRUE;
}

gboolean
jmem_history_writer_append (JmemHistoryWriter *w,
                            const char        *line,
                            GError           **error)
{
  gboolean ok;

  g_return_val_if_fail (strchr (line, '\n') == NULL, FALSE);

  ok = lock_current (w, error) && append_locked (w, line, error);
  /* a rewrite's descriptor, renamed into place, holds the lock too */
  jmem_write_unlock (w->fd);
  return ok;
}

void
jmem_history_writer_set_tiers (JmemHistoryWriter *w,
                               gboolean           tiers)
{
  w->tiers = tiers;
}

void
jmem_history_writer_free (JmemHistoryWriter *w)
{
  if (w == NULL)
    return;
  if (w->fd >= 0)
    close (w->fd);
  g_clear_pointer (&w->dir, jmem_write_dir_free);
  g_free (w->name);
  g_free (w->path);
  g_free (w);
}
