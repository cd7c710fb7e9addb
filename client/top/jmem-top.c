/* SPDX-License-Identifier: GPL-2.0-or-later */
/* jmem top's loop: samples (or replayed frames) on time, keys, and the
 * fallback to summary lines where no screen can be drawn. */
#include "jmem-top-private.h"

#include "jmem-error.h"
#include "jmem-text.h"
#include "jmem-top-term.h"

#include <curses.h>
#include <gio/gio.h>
#include <langinfo.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The longest a wait for a key lasts: a signal's flag is seen this soon
 * even where a terminal driver restarts the read. */
#define KEY_WAIT_MAX_MS 250
/* A replayed history's gaps (a watch stopped for hours) take at most this
 * long on the screen. */
#define REPLAY_MAX_STEP_S 5.0
/* How long a replay reads its history on between two looks at the keys. */
#define REPLAY_LOAD_US (40 * 1000)

static void
set_message (JmemTopState *s, gboolean is_error, const char *format, ...) G_GNUC_PRINTF (3, 4);

static void
set_message (JmemTopState *s, gboolean is_error, const char *format, ...)
{
  g_autofree char *text = NULL;
  va_list ap;

  va_start (ap, format);
  text = g_strdup_vprintf (format, ap);
  va_end (ap);
  g_free (s->message);
  s->message = jmem_text_for_terminal (text);
  s->message_is_error = is_error;
}

/* The rows of the frame shown, the selection kept on the same row. */
static void
rebuild (JmemTopState *s)
{
  const JmemFrame *f = jmem_top_state_frame (s);

  g_clear_pointer (&s->rows, g_ptr_array_unref);
  s->view.filter = s->filter;
  if (f == NULL)
    {
      s->rows = g_ptr_array_new ();
      return;
    }
  s->rows = jmem_top_view_rows (f, s->trends, &s->view);
  if (s->selected_key != NULL)
    for (guint i = 0; i < s->rows->len; i++)
      {
        const JmemTopRow *r = g_ptr_array_index (s->rows, i);

        if (g_str_equal (r->key, s->selected_key))
          {
            s->selected = i;
            return;
          }
      }
  s->selected = s->rows->len > 0 ? MIN (s->selected, s->rows->len - 1) : 0;
}

static void
select_row (JmemTopState *s, gint64 index)
{
  const JmemTopRow *r;

  if (s->rows->len == 0)
    return;
  s->selected = (guint) CLAMP (index, 0, (gint64) s->rows->len - 1);
  r = g_ptr_array_index (s->rows, s->selected);
  g_free (s->selected_key);
  s->selected_key = g_strdup (r->key);
}

/* Feeds the trends with a replayed frame; one whose line can no longer be
 * read (the file changed under the replay) is left out. */
static void
replay_feed (JmemTopState *s, guint index)
{
  const JmemFrame *f = jmem_top_replay_get (s->options->replay, index);

  if (f != NULL)
    jmem_top_trends_feed (s->trends, f);
}

/* The trends as they stood at the replayed frame: its window's frames fed
 * again from the start. */
static void
replay_seek (JmemTopState *s, gint64 index)
{
  guint n = jmem_top_replay_get_n (s->options->replay);
  guint from;

  s->replay_index = (guint) CLAMP (index, 0, (gint64) n - 1);
  jmem_top_trends_clear (s->trends);
  from = s->replay_index + 1 > JMEM_TOP_TREND_SAMPLES ? s->replay_index + 1 - JMEM_TOP_TREND_SAMPLES
                                                      : 0;
  for (guint i = from; i <= s->replay_index; i++)
    replay_feed (s, i);
  rebuild (s);
}

static gint64
replay_step_us (const JmemTopState *s)
{
  JmemTopReplay *replay = s->options->replay;
  const JmemFrame *a, *b;
  double seconds = 1.0;

  if (s->replay_index + 1 < jmem_top_replay_get_n (replay))
    {
      /* neighbours: never the same cache slot */
      a = jmem_top_replay_get (replay, s->replay_index);
      b = jmem_top_replay_get (replay, s->replay_index + 1);
      if (a != NULL && b != NULL && a->timestamp_unix >= 0 && b->timestamp_unix > a->timestamp_unix)
        seconds = (double) (b->timestamp_unix - a->timestamp_unix);
    }
  seconds = MIN (seconds / s->speed, REPLAY_MAX_STEP_S);
  return (gint64) (seconds * G_USEC_PER_SEC);
}

/* Reads the history on for @budget_us; TRUE once it is whole. A read
 * that failed ends the reading, said on the status line. */
static gboolean
replay_load (JmemTopState *s, gint64 budget_us)
{
  g_autoptr(GError) error = NULL;
  gboolean done = jmem_top_replay_load (s->options->replay, budget_us,
                                        s->options->replay_warnings, &error);

  if (error != NULL)
    set_message (s, TRUE, "The history could not be read to its end: %s", error->message);
  return done;
}

/* A live sample; FALSE with @error when it failed. */
static gboolean
take_sample (JmemTopState *s, GError **error)
{
  JmemFrame *f = s->backend->sample (s->backend->user_data, error);

  if (f == NULL)
    return FALSE;
  g_clear_pointer (&s->live, jmem_frame_free);
  s->live = f;
  s->n_samples++;
  jmem_top_trends_feed (s->trends, f);
  rebuild (s);
  return TRUE;
}

static void
open_popup (JmemTopState *s, const char *title, GPtrArray *lines)
{
  g_free (s->popup_title);
  s->popup_title = jmem_text_for_terminal (title);
  g_clear_pointer (&s->popup_lines, g_ptr_array_unref);
  s->popup_lines = lines;
  s->popup_scroll = 0;
  s->mode = JMEM_TOP_MODE_POPUP;
}

typedef struct {
  char   *tag;
  guint   handles;
  guint64 size_kib;
} TagSum;

static int
compare_tag_sums (gconstpointer a, gconstpointer b)
{
  const TagSum *x = *(TagSum * const *) a, *y = *(TagSum * const *) b;

  if (x->size_kib != y->size_kib)
    return x->size_kib > y->size_kib ? -1 : 1;
  return g_strcmp0 (x->tag, y->tag);
}

static void
tag_sum_free (TagSum *t)
{
  g_free (t->tag);
  g_free (t);
}

static gint64
kib64 (guint64 kib)
{
  return kib > (guint64) G_MAXINT64 ? G_MAXINT64 : (gint64) kib;
}

/* The selected process's handles: how many, how large, and by tag. */
static GPtrArray *
allocations_lines (const JmemNvmapAllocations *a, gint64 pid)
{
  GPtrArray *lines = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GHashTable) by_tag = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
                                                        (GDestroyNotify) tag_sum_free);
  g_autoptr(GPtrArray) tags = g_ptr_array_new ();
  guint n_handles = 0, n_clients = 0;
  guint64 total = 0;
  GHashTableIter iter;
  gpointer value;

  for (guint i = 0; i < a->clients->len; i++)
    {
      const JmemNvmapClientHandles *ch = g_ptr_array_index (a->clients, i);

      if (ch->client == NULL || (gint64) ch->client->pid != pid)
        continue;
      n_clients++;
      for (guint j = 0; j < ch->handles->len; j++)
        {
          const JmemNvmapHandle *h = g_ptr_array_index (ch->handles, j);
          const char *tag = h->tag != NULL && h->tag[0] != '\0' ? h->tag : "(no tag)";
          TagSum *t = g_hash_table_lookup (by_tag, tag);

          if (t == NULL)
            {
              t = g_new0 (TagSum, 1);
              t->tag = g_strdup (tag);
              g_hash_table_insert (by_tag, t->tag, t);
            }
          t->handles++;
          t->size_kib = t->size_kib > G_MAXUINT64 - h->size_kib ? G_MAXUINT64 : t->size_kib + h->size_kib;
          total = total > G_MAXUINT64 - h->size_kib ? G_MAXUINT64 : total + h->size_kib;
          n_handles++;
        }
    }
  if (n_clients == 0)
    {
      g_ptr_array_add (lines, g_strdup ("No NvMap client of this process: it holds no NvMap memory."));
      return lines;
    }
  {
    g_autofree char *size = jmem_text_size (kib64 (total));

    g_ptr_array_add (lines, g_strdup_printf ("%u %s in %u %s, %s in all", n_handles,
                                             n_handles == 1 ? "handle" : "handles", n_clients,
                                             n_clients == 1 ? "client" : "clients", size));
  }
  g_hash_table_iter_init (&iter, by_tag);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    g_ptr_array_add (tags, value);
  g_ptr_array_sort (tags, compare_tag_sums);
  g_ptr_array_add (lines, g_strdup (""));
  g_ptr_array_add (lines, g_strdup ("      SIZE  HANDLES  TAG"));
  for (guint i = 0; i < tags->len; i++)
    {
      const TagSum *t = g_ptr_array_index (tags, i);
      g_autofree char *size = jmem_text_size (kib64 (t->size_kib));
      g_autofree char *tag = jmem_text_for_terminal (t->tag);

      g_ptr_array_add (lines, g_strdup_printf ("%10s  %7u  %s", size, t->handles, tag));
    }
  return lines;
}

static void
show_allocations (JmemTopState *s)
{
  const JmemTopRow *r;
  g_autoptr(JmemNvmapAllocations) a = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *action = NULL;
  g_autofree char *title = NULL;
  const char *via = NULL;

  if (s->rows->len == 0)
    return;
  r = g_ptr_array_index (s->rows, s->selected);
  if (r->pid < 0)
    {
      set_message (s, TRUE, "Enter shows one process's NvMap allocations: press c to list processes");
      return;
    }
  if (s->options->replay != NULL)
    {
      set_message (s, TRUE, "A history holds no allocations: they are read from the helper "
                            "while jmem top runs live");
      return;
    }
  set_message (s, FALSE, "Reading the NvMap allocations...");
  jmem_top_screen_draw (s);
  a = s->backend->allocations (s->backend->user_data, &via, &action, &error);
  g_clear_pointer (&s->message, g_free);
  if (a == NULL)
    {
      GPtrArray *lines = g_ptr_array_new_with_free_func (g_free);

      g_ptr_array_add (lines, jmem_text_for_terminal (error->message));
      if (action != NULL)
        g_ptr_array_add (lines, g_strconcat ("To fix: ", action, NULL));
      open_popup (s, "NvMap allocations: not read", lines);
      return;
    }
  title = g_strdup_printf ("NvMap allocations of PID %" G_GINT64_FORMAT " (%s), via %s", r->pid,
                           r->name != NULL ? r->name : "?", via != NULL ? via : "?");
  open_popup (s, title, allocations_lines (a, r->pid));
}

static void
drop_caches (JmemTopState *s)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *action = NULL;
  g_autofree char *text = NULL;
  GPtrArray *lines;

  set_message (s, FALSE, "Dropping caches through jmem-helper...");
  jmem_top_screen_draw (s);
  /* the popup's inner width (jmem-top-screen.c: the screen less 6) */
  text = s->backend->drop_caches (s->backend->user_data, (guint) MAX (COLS - 6, 20), &action, &error);
  g_clear_pointer (&s->message, g_free);
  lines = g_ptr_array_new_with_free_func (g_free);
  if (text == NULL)
    {
      g_ptr_array_add (lines, jmem_text_for_terminal (error->message));
      if (action != NULL)
        g_ptr_array_add (lines, g_strconcat ("To fix: ", action, NULL));
      open_popup (s, "Caches not dropped", lines);
      return;
    }
  {
    g_auto(GStrv) split = g_strsplit (text, "\n", -1);

    for (guint i = 0; split[i] != NULL; i++)
      if (split[i][0] != '\0' || (split[i + 1] != NULL && split[i + 1][0] != '\0'))
        g_ptr_array_add (lines, jmem_text_for_terminal (split[i]));
  }
  open_popup (s, "Dropped the caches: what it freed", lines);
}

static void
set_sort (JmemTopState *s, JmemTopColumn column)
{
  if (s->view.sort == column)
    s->view.reverse = !s->view.reverse;
  else
    {
      s->view.sort = column;
      s->view.reverse = FALSE;
    }
  rebuild (s);
}

static JmemTopColumn
sort_key (int ch, gboolean *found)
{
  *found = TRUE;
  switch (ch)
    {
    case 'F': return JMEM_TOP_COL_FOOTPRINT;
    case 'S': return JMEM_TOP_COL_PSS;
    case 'M': return JMEM_TOP_COL_NVMAP;
    case 'G': return JMEM_TOP_COL_GPU;
    case 'W': return JMEM_TOP_COL_SWAP;
    case 'T': return JMEM_TOP_COL_TREND;
    case 'N': return JMEM_TOP_COL_NAME;
    case 'U': return JMEM_TOP_COL_USER;
    case 'C': return JMEM_TOP_COL_CONTAINER;
    case 'I': return JMEM_TOP_COL_PID;
    default:
      *found = FALSE;
      return JMEM_TOP_COL_FOOTPRINT;
    }
}

/* Keys while the filter is typed: printable text (UTF-8 as it comes),
 * Backspace, Enter to apply, Esc to leave it as it was. */
static void
filter_key (JmemTopState *s, int ch)
{
  if (ch == '\n' || ch == '\r' || ch == KEY_ENTER)
    {
      g_free (s->filter);
      s->filter = s->input->len > 0 ? jmem_text_make_valid (s->input->str, -1) : NULL;
      s->mode = JMEM_TOP_MODE_TABLE;
      s->selected = 0;
      g_clear_pointer (&s->selected_key, g_free);
      rebuild (s);
    }
  else if (ch == 27)
    s->mode = JMEM_TOP_MODE_TABLE;
  else if (ch == KEY_BACKSPACE || ch == 127 || ch == 8)
    {
      /* one character, not one byte */
      const char *end = s->input->str + s->input->len;
      const char *prev = s->input->len > 0 ? g_utf8_find_prev_char (s->input->str, end) : NULL;

      g_string_truncate (s->input, prev != NULL ? (gsize) (prev - s->input->str) : 0);
    }
  else if (ch >= 32 && ch < 256 && ch != 127 && s->input->len < 256)
    g_string_append_c (s->input, (char) ch);
}

/* FALSE when the key quits. */
static gboolean
table_key (JmemTopState *s, int ch)
{
  gboolean is_sort;
  JmemTopColumn column = sort_key (ch, &is_sort);
  gint64 page = MAX ((gint64) s->table_rows - 1, 1);
  gboolean replay = s->options->replay != NULL;

  g_clear_pointer (&s->message, g_free);
  if (is_sort)
    {
      set_sort (s, column);
      return TRUE;
    }
  switch (ch)
    {
    case 'q':
    case 'Q':
      return FALSE;
    case '?':
    case 'h':
      open_popup (s, "jmem top: keys", jmem_top_screen_help (s));
      break;
    case 'r':
      s->view.reverse = !s->view.reverse;
      rebuild (s);
      break;
    case 'c':
      s->view.group = !s->view.group;
      g_clear_pointer (&s->selected_key, g_free);
      s->selected = 0;
      rebuild (s);
      break;
    case 'p':
    case ' ':
      s->paused = !s->paused;
      break;
    case '/':
      g_string_assign (s->input, s->filter != NULL ? s->filter : "");
      s->mode = JMEM_TOP_MODE_FILTER;
      break;
    case KEY_UP:
    case 'k':
      select_row (s, (gint64) s->selected - 1);
      break;
    case KEY_DOWN:
    case 'j':
      select_row (s, (gint64) s->selected + 1);
      break;
    case KEY_PPAGE:
      select_row (s, (gint64) s->selected - page);
      break;
    case KEY_NPAGE:
      select_row (s, (gint64) s->selected + page);
      break;
    case KEY_HOME:
    case 'g':
      select_row (s, 0);
      break;
    case KEY_END:
      select_row (s, (gint64) s->rows->len - 1);
      break;
    case '\n':
    case '\r':
    case KEY_ENTER:
      show_allocations (s);
      break;
    case 'd':
      if (replay || s->options->captured)
        set_message (s, TRUE, "Caches can be dropped on the live system only, not in %s",
                     replay ? "a replayed history" : "a captured tree");
      else
        s->mode = JMEM_TOP_MODE_CONFIRM_DROP;
      break;
    case '[':
    case ']':
    case '{':
    case '}':
      if (!replay)
        set_message (s, TRUE, "[ and ] seek in a history: jmem top --replay FILE");
      else
        replay_seek (s, (gint64) s->replay_index +
                          (ch == '[' ? -1 : ch == ']' ? 1 : ch == '{' ? -10 : 10));
      break;
    case '+':
    case '-':
      if (replay)
        s->speed = CLAMP (s->speed * (ch == '+' ? 2.0 : 0.5), JMEM_TOP_MIN_SPEED, JMEM_TOP_MAX_SPEED);
      break;
    default:
      break;
    }
  return TRUE;
}

/* FALSE when the key quits. */
static gboolean
handle_key (JmemTopState *s, int ch)
{
  switch (s->mode)
    {
    case JMEM_TOP_MODE_FILTER:
      filter_key (s, ch);
      return TRUE;
    case JMEM_TOP_MODE_CONFIRM_DROP:
      s->mode = JMEM_TOP_MODE_TABLE;
      if (ch == 'y' || ch == 'Y')
        drop_caches (s);
      else
        set_message (s, FALSE, "Caches not dropped.");
      return TRUE;
    case JMEM_TOP_MODE_POPUP:
      if (ch == KEY_DOWN || ch == KEY_NPAGE)
        s->popup_scroll = MIN (s->popup_scroll + (ch == KEY_DOWN ? 1 : 10),
                               s->popup_lines->len > 0 ? s->popup_lines->len - 1 : 0);
      else if (ch == KEY_UP || ch == KEY_PPAGE)
        s->popup_scroll -= MIN (s->popup_scroll, ch == KEY_UP ? 1u : 10u);
      else if (ch == 'q' || ch == 'Q')
        return FALSE;
      else
        s->mode = JMEM_TOP_MODE_TABLE;
      return TRUE;
    case JMEM_TOP_MODE_TABLE:
      return table_key (s, ch);
    }
  return TRUE;
}

static void
state_clear (JmemTopState *s)
{
  g_clear_pointer (&s->live, jmem_frame_free);
  g_clear_pointer (&s->trends, jmem_top_trends_free);
  g_clear_pointer (&s->rows, g_ptr_array_unref);
  g_clear_pointer (&s->filter, g_free);
  g_clear_pointer (&s->selected_key, g_free);
  if (s->input != NULL)
    g_string_free (s->input, TRUE);
  s->input = NULL;
  g_clear_pointer (&s->message, g_free);
  g_clear_pointer (&s->popup_title, g_free);
  g_clear_pointer (&s->popup_lines, g_ptr_array_unref);
}

static gboolean
write_line (const JmemFrame *f)
{
  g_autofree char *when = NULL;
  g_autofree char *line = jmem_frame_summary_line (f);
  g_autoptr(GDateTime) dt = f->timestamp_unix >= 0 ? g_date_time_new_from_unix_local (f->timestamp_unix)
                                                   : g_date_time_new_now_local ();

  when = g_date_time_format (dt, "%H:%M:%S");
  return printf ("%s %s\n", when, line) >= 0 && fflush (stdout) == 0;
}

/* No screen: `jmem summary --watch`'s lines, each frame of a history at
 * once, or a live sample every interval until a quit signal. */
static gboolean
run_lines (JmemTopState *s, GError **error)
{
  const JmemTopOptions *o = s->options;

  jmem_top_term_catch_quit ();
  if (o->replay != NULL)
    {
      gboolean loaded = jmem_top_replay_is_loaded (o->replay);

      /* each sample as the history is read on, a step at a time, each
       * frame made once as it is read */
      jmem_top_replay_keep_frames (o->replay);
      for (guint i = 0; jmem_top_term_quit == 0; i++)
        {
          const JmemFrame *f;

          while (!loaded && i >= jmem_top_replay_get_n (o->replay) && jmem_top_term_quit == 0)
            loaded = replay_load (s, 0);
          if (i >= jmem_top_replay_get_n (o->replay) || jmem_top_term_quit != 0)
            break;
          f = jmem_top_replay_get (o->replay, i);
          if (f != NULL && !write_line (f))
            goto broken;
        }
      /* the whole history read: where its trend leads, when it leads anywhere */
      if (jmem_top_term_quit == 0 && jmem_top_replay_get_projection (o->replay) != NULL &&
          (printf ("%s\n", jmem_top_replay_get_projection (o->replay)) < 0 || fflush (stdout) != 0))
        goto broken;
      return TRUE;
    }
  while (jmem_top_term_quit == 0)
    {
      gint64 start = g_get_monotonic_time (), due;

      if (!take_sample (s, error))
        {
          if (s->n_samples == 0)
            return FALSE;
          g_clear_error (error);
        }
      else if (!write_line (s->live))
        goto broken;
      if (o->count > 0 && s->n_samples >= o->count)
        break;
      due = start + (gint64) (o->interval_s * G_USEC_PER_SEC);
      while (jmem_top_term_quit == 0 && g_get_monotonic_time () < due)
        g_usleep ((gulong) MIN (due - g_get_monotonic_time (), (gint64) KEY_WAIT_MAX_MS * 1000));
    }
  return TRUE;

broken:
  g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_BROKEN_PIPE, "cannot write to stdout");
  return FALSE;
}

static gboolean
screen_possible (void)
{
  const char *term = g_getenv ("TERM");

  return term != NULL && term[0] != '\0' && !g_str_equal (term, "dumb") &&
         isatty (STDOUT_FILENO) && isatty (STDIN_FILENO);
}

static gboolean
run_screen (JmemTopState *s, GError **error)
{
  const JmemTopOptions *o = s->options;
  gboolean replay = o->replay != NULL;
  gboolean loaded = replay && jmem_top_replay_is_loaded (o->replay);
  g_autoptr(GError) term_error = NULL;
  gint64 due;

  if (replay)
    replay_seek (s, 0);
  else
    {
      /* the first sample before the screen: an error is printed plainly */
      if (!take_sample (s, error))
        return FALSE;
    }
  if (!jmem_top_term_start (g_getenv ("NO_COLOR") == NULL, &term_error))
    {
      g_printerr ("jmem top: %s: printing summary lines instead\n", term_error->message);
      return run_lines (s, error);
    }
  due = g_get_monotonic_time () + (replay ? replay_step_us (s)
                                          : (gint64) (o->interval_s * G_USEC_PER_SEC));

  while (jmem_top_term_quit == 0)
    {
      gint64 now = g_get_monotonic_time ();
      gint64 wait_ms;
      int ch;

      /* a long history is read on between keys, its progress in the header */
      if (replay && !loaded)
        loaded = replay_load (s, REPLAY_LOAD_US);
      jmem_top_screen_draw (s);
      wait_ms = s->paused ? KEY_WAIT_MAX_MS : CLAMP ((due - now) / 1000, 0, KEY_WAIT_MAX_MS);
      if (replay && !loaded)
        wait_ms = 0;
      timeout ((int) wait_ms);
      ch = getch ();
      if (ch != ERR && ch != KEY_RESIZE && !handle_key (s, ch))
        break;
      if (jmem_top_term_quit != 0)
        break;

      now = g_get_monotonic_time ();
      if (s->paused || now < due)
        continue;
      if (replay)
        {
          if (s->replay_index + 1 < jmem_top_replay_get_n (o->replay))
            {
              s->replay_index++;
              replay_feed (s, s->replay_index);
              rebuild (s);
            }
          due = now + replay_step_us (s);
          continue;
        }
      {
        g_autoptr(GError) sample_error = NULL;

        /* measured from this sample's start, so collection time does not add up */
        due = now + (gint64) (o->interval_s * G_USEC_PER_SEC);
        if (!take_sample (s, &sample_error))
          set_message (s, TRUE, "The sample failed; showing the last one: %s",
                       sample_error->message);
        if (o->count > 0 && s->n_samples >= o->count)
          break;
      }
    }
  jmem_top_term_stop ();
  return TRUE;
}

gboolean
jmem_top_run (const JmemTopOptions *options,
              const JmemTopBackend *backend,
              GError              **error)
{
  JmemTopState s = { 0 };
  gboolean ok;
  const char *codeset = nl_langinfo (CODESET);

  s.options = options;
  s.backend = backend;
  s.unicode = codeset != NULL && (g_ascii_strcasecmp (codeset, "UTF-8") == 0 ||
                                  g_ascii_strcasecmp (codeset, "utf8") == 0);
  s.trends = jmem_top_trends_new ();
  s.view.sort = JMEM_TOP_COL_FOOTPRINT;
  s.input = g_string_new (NULL);
  s.speed = options->speed;
  jmem_top_term_quit = 0;

  if (options->replay != NULL && jmem_top_replay_get_n (options->replay) == 0)
    {
      g_set_error_literal (error, JMEM_ERROR, JMEM_ERROR_NOT_AVAILABLE, "the history holds no sample");
      state_clear (&s);
      return FALSE;
    }
  ok = screen_possible () ? run_screen (&s, error) : run_lines (&s, error);
  state_clear (&s);
  return ok;
}
