/* SPDX-License-Identifier: GPL-2.0-or-later */
/* History files: appending under a cap without ever leaving a torn line, and
 * reading them back one line at a time. */
#include "jmem-history.h"

#include "jmem-diff.h"
#include "jmem-error.h"
#include "jmem-file.h"
#include "jmem-history-tiers.h"
#include "jmem-json-member.h"
#include "jmem-text.h"
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

/* ---- reading ---- */

struct _JmemHistoryReader {
  char           *path;
  int             fd;
  GPtrArray      *warnings;       /* owned; handed over by _finish */
  GString        *line;
  char           *buf;
  gsize           buf_len;        /* bytes read into buf */
  gsize           buf_pos;        /* bytes of buf consumed */
  guint64         buf_offset;     /* the file offset of buf[0] */
  guint64         line_offset;    /* where the line being gathered starts */
  guint           number;
  gboolean        too_long;       /* inside a line past the limit: dropped as it comes */
  gboolean        eof;
  guint           n_docs;
  guint           n_damaged;
  char           *first_damage;   /* why the first damaged line was skipped */
};

#define READ_CHUNK 65536

static void
damaged (JmemHistoryReader *r, const char *why)
{
  if (r->first_damage == NULL)
    r->first_damage = g_strdup (why);
  if (r->n_damaged < JMEM_HISTORY_MAX_NAMED_DAMAGE)
    g_ptr_array_add (r->warnings, g_strdup_printf ("%s; the line was skipped", why));
  r->n_damaged++;
}

/* FALSE when @func asked to stop. */
static gboolean
handle_line (JmemHistoryReader *r, JmemHistoryFunc func, gpointer user_data)
{
  g_autofree char *what = NULL;
  g_autoptr(JsonNode) node = NULL;
  g_autoptr(GError) error = NULL;

  if (r->line->len == 0)
    return TRUE;
  what = g_strdup_printf ("%s:%u", r->path, r->number);
  node = jmem_diff_parse_snapshot (r->line->str, r->line->len, what, &error);
  if (node == NULL)
    {
      damaged (r, error->message);
      return TRUE;
    }
  r->n_docs++;
  return func (node, r->number, user_data);
}

JmemHistoryReader *
jmem_history_reader_open (const char *path,
                          GError    **error)
{
  g_autoptr(JmemHistoryReader) r = g_new0 (JmemHistoryReader, 1);

  r->fd = jmem_file_open_regular (path, error);
  if (r->fd < 0)
    return NULL;
  r->path = g_strdup (path);
  r->warnings = g_ptr_array_new_with_free_func (g_free);
  r->line = g_string_new (NULL);
  r->buf = g_malloc (READ_CHUNK);
  r->number = 1;
  return g_steal_pointer (&r);
}

gboolean
jmem_history_reader_step (JmemHistoryReader *r,
                          guint              max_snapshots,
                          JmemHistoryFunc    func,
                          gpointer           user_data,
                          gboolean          *done,
                          GError           **error)
{
  guint docs_before = r->n_docs;

  *done = r->eof;
  while (!r->eof && r->n_docs - docs_before < max_snapshots)
    {
      const char *p, *end, *nl;
      gsize chunk;

      if (r->buf_pos == r->buf_len)
        {
          ssize_t n = read (r->fd, r->buf, READ_CHUNK);

          if (n < 0 && errno == EINTR)
            continue;
          if (n < 0)
            return set_errno_error (error, errno, r->path, "read");
          r->buf_offset += r->buf_len;
          r->buf_len = (gsize) n;
          r->buf_pos = 0;
          if (n == 0)
            {
              r->eof = TRUE;
              break;
            }
        }
      p = r->buf + r->buf_pos;
      end = r->buf + r->buf_len;
      nl = memchr (p, '\n', (gsize) (end - p));
      chunk = nl ? (gsize) (nl - p) : (gsize) (end - p);
      if (!r->too_long && r->line->len + chunk > JMEM_DIFF_MAX_FILE_BYTES)
        {
          g_autofree char *why = g_strdup_printf ("%s:%u: larger than %u MiB, not a snapshot "
                                                  "jmem wrote", r->path, r->number,
                                                  JMEM_DIFF_MAX_FILE_BYTES / (1024 * 1024));

          damaged (r, why);
          r->too_long = TRUE;
          g_string_truncate (r->line, 0);
        }
      if (!r->too_long)
        g_string_append_len (r->line, p, (gssize) chunk);
      r->buf_pos += chunk;
      if (nl == NULL)
        continue;
      r->buf_pos++;
      if (!r->too_long && !handle_line (r, func, user_data))
        {
          /* asked to stop: the rest is not read, nor called a torn line */
          r->eof = TRUE;
          g_string_truncate (r->line, 0);
          r->too_long = FALSE;
          break;
        }
      r->too_long = FALSE;
      g_string_truncate (r->line, 0);
      r->number++;
      r->line_offset = r->buf_offset + r->buf_pos;
    }
  *done = r->eof;
  return TRUE;
}

guint64
jmem_history_reader_get_line_offset (const JmemHistoryReader *r)
{
  return r->line_offset;
}

guint64
jmem_history_reader_get_offset (const JmemHistoryReader *r)
{
  return r->buf_offset + r->buf_pos;
}

gboolean
jmem_history_reader_finish (JmemHistoryReader *r,
                            GPtrArray         *warnings,
                            GError           **error)
{
  if (r->line->len > 0 || r->too_long)
    g_ptr_array_add (r->warnings, g_strdup_printf ("%s: the unterminated last line (a watch "
                                                   "stopped mid-write) was skipped", r->path));
  g_string_truncate (r->line, 0);
  r->too_long = FALSE;
  if (r->n_damaged > JMEM_HISTORY_MAX_NAMED_DAMAGE)
    {
      guint more = r->n_damaged - JMEM_HISTORY_MAX_NAMED_DAMAGE;

      g_ptr_array_add (r->warnings, g_strdup_printf ("%s: %u more damaged %s skipped", r->path,
                                                     more, jmem_text_plural (more, "line", "lines")));
    }
  for (guint i = 0; warnings != NULL && i < r->warnings->len; i++)
    g_ptr_array_add (warnings, g_strdup (g_ptr_array_index (r->warnings, i)));
  g_ptr_array_set_size (r->warnings, 0);
  if (r->n_docs == 0 && r->first_damage != NULL)
    {
      g_set_error (error, JMEM_ERROR, JMEM_ERROR_INVALID_ARGUMENT,
                   "%s holds no jmem snapshot: %s", r->path, r->first_damage);
      return FALSE;
    }
  if (r->n_docs == 0)
    {
      g_set_error (error, JMEM_ERROR, JMEM_ERROR_NOT_AVAILABLE,
                   "%s holds no snapshot: write a history with `jmem watch --output %s`",
                   r->path, r->path);
      return FALSE;
    }
  return TRUE;
}

void
jmem_history_reader_free (JmemHistoryReader *r)
{
  if (r == NULL)
    return;
  if (r->fd >= 0)
    close (r->fd);
  g_clear_pointer (&r->warnings, g_ptr_array_unref);
  if (r->line != NULL)
    g_string_free (r->line, TRUE);
  g_free (r->buf);
  g_free (r->first_damage);
  g_free (r->path);
  g_free (r);
}

gboolean
jmem_history_read (const char     *path,
                   JmemHistoryFunc func,
                   gpointer        user_data,
                   GPtrArray      *warnings,
                   GError        **error)
{
  g_autoptr(JmemHistoryReader) r = jmem_history_reader_open (path, error);
  gboolean done = FALSE;

  if (r == NULL)
    return FALSE;
  while (!done)
    if (!jmem_history_reader_step (r, G_MAXUINT, func, user_data, &done, error))
      return FALSE;
  return jmem_history_reader_finish (r, warnings, error);
}

/* ---- thinned samples ---- */

static JsonObject *
sample_history (JsonNode *snapshot)
{
  if (snapshot == NULL || !JSON_NODE_HOLDS_OBJECT (snapshot))
    return NULL;
  return jmem_json_member_object (json_node_get_object (snapshot), "history");
}

guint
jmem_history_sample_count (JsonNode *snapshot)
{
  gint64 n = jmem_json_member_size (sample_history (snapshot), "samples");

  return n >= 1 && n <= G_MAXUINT ? (guint) n : 1;
}

void
jmem_history_figure_range (JsonObject *parent,
                           const char *name,
                           gint64      value,
                           gint64     *min,
                           gint64     *max)
{
  JsonArray *range = jmem_json_member_array (jmem_json_member_object (parent, JMEM_HISTORY_MIN_MAX),
                                             name);
  JsonNode *lo = range != NULL && json_array_get_length (range) == 2 ?
                 json_array_get_element (range, 0) : NULL;
  JsonNode *hi = lo != NULL ? json_array_get_element (range, 1) : NULL;

  *min = *max = value;
  if (lo != NULL && jmem_json_node_is_int (lo) && jmem_json_node_is_int (hi))
    {
      *min = MIN (value, json_node_get_int (lo));
      *max = MAX (value, json_node_get_int (hi));
    }
}
