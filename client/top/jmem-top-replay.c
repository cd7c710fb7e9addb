/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "jmem-top-replay.h"

#include "jmem-diff.h"
#include "jmem-file.h"
#include "jmem-history.h"
#include "jmem-triage-history.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Snapshots read between two looks at the clock: fewer than are cached, so
 * that frames kept as they are read are still there when printed. */
#define STEP_SNAPSHOTS 16
G_STATIC_ASSERT (STEP_SNAPSHOTS < JMEM_TOP_REPLAY_CACHED);

struct _JmemTopReplay {
  char              *path;
  JmemHistoryReader *reader;   /* NULL once the whole file is read */
  int                fd;       /* the same file, for reading a sample again */
  guint64            size;     /* the file's size when opened, for the percentage */
  guint64            offset;   /* read so far */
  GArray            *starts;   /* guint64: where each snapshot's line starts */
  gboolean           keep;     /* frames kept as they are read (to be printed next) */
  JmemTriageHistory *trend;    /* the rules over time, for the projection */
  char              *projection;  /* its header text once loaded, or NULL */
  JmemFrame         *cache[JMEM_TOP_REPLAY_CACHED];
  guint              cached[JMEM_TOP_REPLAY_CACHED];  /* the index in each cache slot */
};

static void
cache_put (JmemTopReplay *r, guint index, JmemFrame *frame)
{
  guint slot = index % JMEM_TOP_REPLAY_CACHED;

  g_clear_pointer (&r->cache[slot], jmem_frame_free);
  r->cache[slot] = frame;
  r->cached[slot] = frame != NULL ? index : G_MAXUINT;
}

static gboolean
note_start (JsonNode *snapshot, guint line_number, gpointer user_data)
{
  JmemTopReplay *r = user_data;
  guint64 start = jmem_history_reader_get_line_offset (r->reader);

  if (r->keep)
    cache_put (r, r->starts->len, jmem_frame_from_json (snapshot));
  jmem_triage_history_add (r->trend, snapshot);
  g_array_append_val (r->starts, start);
  return TRUE;
}

/* Reads on for @budget_us; when the file ends, its warnings and verdict. */
static gboolean
load (JmemTopReplay *r, gint64 budget_us, GPtrArray *warnings, GError **error)
{
  gint64 deadline = g_get_monotonic_time () + budget_us;
  g_autoptr(GPtrArray) found = g_ptr_array_new_with_free_func (g_free);
  gboolean done = FALSE, ok = TRUE;

  if (r->reader == NULL)
    return TRUE;
  do
    {
      if (!jmem_history_reader_step (r->reader, STEP_SNAPSHOTS, note_start, r, &done, error))
        {
          done = TRUE;
          ok = FALSE;
          break;
        }
    }
  while (!done && g_get_monotonic_time () < deadline);
  r->offset = jmem_history_reader_get_offset (r->reader);
  if (!done)
    return FALSE;
  if (ok)
    ok = jmem_history_reader_finish (r->reader, found, error);
  for (guint i = 0; warnings != NULL && i < found->len; i++)
    g_ptr_array_add (warnings, g_strdup (g_ptr_array_index (found, i)));
  g_clear_pointer (&r->reader, jmem_history_reader_free);
  r->projection = jmem_triage_history_projection_text (r->trend, TRUE);
  return ok;
}

JmemTopReplay *
jmem_top_replay_open (const char *path,
                      guint       first_ms,
                      GPtrArray  *warnings,
                      GError    **error)
{
  g_autoptr(JmemTopReplay) r = g_new0 (JmemTopReplay, 1);
  gint64 until = g_get_monotonic_time () + (gint64) first_ms * 1000;
  struct stat st;

  r->fd = -1;
  r->path = g_strdup (path);
  r->starts = g_array_new (FALSE, FALSE, sizeof (guint64));
  r->trend = jmem_triage_history_new ();
  for (guint i = 0; i < JMEM_TOP_REPLAY_CACHED; i++)
    r->cached[i] = G_MAXUINT;
  r->reader = jmem_history_reader_open (path, error);
  if (r->reader == NULL)
    return NULL;
  r->fd = jmem_file_open_regular (path, error);
  if (r->fd < 0)
    return NULL;
  if (fstat (r->fd, &st) == 0)
    r->size = (guint64) st.st_size;
  while (r->reader != NULL && (r->starts->len == 0 || g_get_monotonic_time () < until))
    {
      g_autoptr(GError) local = NULL;

      if (load (r, MAX (until - g_get_monotonic_time (), 1000), warnings, &local) &&
          local == NULL)
        break;
      if (local != NULL)
        {
          g_propagate_error (error, g_steal_pointer (&local));
          return NULL;
        }
    }
  return g_steal_pointer (&r);
}

gboolean
jmem_top_replay_load (JmemTopReplay *r,
                      gint64         budget_us,
                      GPtrArray     *warnings,
                      GError       **error)
{
  g_autoptr(GError) local = NULL;

  if (load (r, budget_us, warnings, &local) || local != NULL)
    {
      /* the file ended: a failed read or nothing found is said once */
      if (local != NULL)
        g_propagate_error (error, g_steal_pointer (&local));
      return TRUE;
    }
  return FALSE;
}

void
jmem_top_replay_keep_frames (JmemTopReplay *r)
{
  r->keep = TRUE;
}

gboolean
jmem_top_replay_is_loaded (const JmemTopReplay *r)
{
  return r->reader == NULL;
}

guint
jmem_top_replay_get_percent (const JmemTopReplay *r)
{
  if (r->reader == NULL || r->size == 0)
    return 100;
  return (guint) MIN (r->offset * 100 / r->size, 99);
}

guint
jmem_top_replay_get_n (const JmemTopReplay *r)
{
  return r->starts->len;
}

/* The line at @start, whole, or NULL. */
static char *
read_line_at (int fd, guint64 start, gsize *len)
{
  g_autoptr(GString) line = g_string_new (NULL);
  char buf[8192];

  for (;;)
    {
      ssize_t n = pread (fd, buf, sizeof buf, (off_t) (start + line->len));
      const char *nl;

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return NULL;
      nl = memchr (buf, '\n', (gsize) n);
      g_string_append_len (line, buf, nl != NULL ? nl - buf : n);
      if (nl != NULL)
        break;
      if (line->len > JMEM_DIFF_MAX_FILE_BYTES)
        return NULL;
    }
  *len = line->len;
  return g_string_free (g_steal_pointer (&line), FALSE);
}

const char *
jmem_top_replay_get_projection (const JmemTopReplay *r)
{
  return r->projection;
}

const JmemFrame *
jmem_top_replay_get (JmemTopReplay *r,
                     guint          index)
{
  guint slot = index % JMEM_TOP_REPLAY_CACHED;
  g_autofree char *line = NULL;
  g_autoptr(JsonNode) node = NULL;
  gsize len = 0;

  g_return_val_if_fail (index < r->starts->len, NULL);
  if (r->cached[slot] == index)
    return r->cache[slot];
  line = read_line_at (r->fd, g_array_index (r->starts, guint64, index), &len);
  if (line != NULL)
    node = jmem_diff_parse_snapshot (line, len, r->path, NULL);
  cache_put (r, index, node != NULL ? jmem_frame_from_json (node) : NULL);
  return r->cache[slot];
}

void
jmem_top_replay_free (JmemTopReplay *r)
{
  if (r == NULL)
    return;
  g_clear_pointer (&r->reader, jmem_history_reader_free);
  if (r->fd >= 0)
    close (r->fd);
  for (guint i = 0; i < JMEM_TOP_REPLAY_CACHED; i++)
    g_clear_pointer (&r->cache[i], jmem_frame_free);
  g_clear_pointer (&r->starts, g_array_unref);
  g_clear_pointer (&r->trend, jmem_triage_history_free);
  g_free (r->projection);
  g_free (r->path);
  g_free (r);
}
