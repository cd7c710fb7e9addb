/* SPDX-License-Identifier: GPL-2.0-or-later */
/* History files read back one line at a time, and the figures of a thinned
 * sample. */
#include "jmem-history.h"

#include "jmem-diff.h"
#include "jmem-error.h"
#include "jmem-file.h"
#include "jmem-json-member.h"
#include "jmem-text.h"

#include <errno.h>
#include <gio/gio.h>
#include <string.h>
#include <unistd.h>

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
  JmemJsonPaths  *paths;          /* what of each line is built; NULL: all */
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
  node = jmem_diff_parse_snapshot_paths (r->line->str, r->line->len, what, r->paths, &error);
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
            {
              int errsv = errno;

              g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errsv), "%s: cannot read: %s",
                           r->path, g_strerror (errsv));
              return FALSE;
            }
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

void
jmem_history_reader_set_members (JmemHistoryReader  *r,
                                 const char *const *members)
{
  g_clear_pointer (&r->paths, jmem_json_paths_free);
  if (members == NULL)
    return;
  r->paths = jmem_json_paths_new (members);
  jmem_diff_add_checked_paths (r->paths);
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
  jmem_json_paths_free (r->paths);
  g_free (r);
}

gboolean
jmem_history_read (const char     *path,
                   JmemHistoryFunc func,
                   gpointer        user_data,
                   GPtrArray      *warnings,
                   GError        **error)
{
  return jmem_history_read_members (path, NULL, func, user_data, warnings, error);
}

gboolean
jmem_history_read_members (const char        *path,
                           const char *const *members,
                           JmemHistoryFunc    func,
                           gpointer           user_data,
                           GPtrArray         *warnings,
                           GError           **error)
{
  g_autoptr(JmemHistoryReader) r = jmem_history_reader_open (path, error);
  gboolean done = FALSE;

  if (r == NULL)
    return FALSE;
  jmem_history_reader_set_members (r, members);
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
