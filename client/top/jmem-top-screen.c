/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Drawing jmem top: the header, the table, the status and help lines, and a
 * popup over them. Every string from a process, a tree or a history is
 * escaped (jmem-text.h) and cut to its cell by display width. */
#include "jmem-top-private.h"

#include "jmem-config.h"

#include "jmem-text.h"
#include "jmem-top-accounting.h"
#include "jmem-top-term.h"

#include <curses.h>
#include <string.h>

/* The table rows a short window keeps before the accounting's lines. */
#define MIN_TABLE_ROWS 5

/* The locale is not UTF-8: every character beyond ASCII is drawn as "?",
 * a cut marked ">" (ncurses would otherwise show the bytes as M-x). */
static gboolean ascii_only;

static char *
to_ascii (const char *utf8)
{
  GString *out = g_string_new (NULL);

  for (const char *p = utf8; *p != '\0'; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      g_string_append_c (out, c == 0x2026 ? '>' : c < 0x80 ? (char) c : '?');
    }
  return g_string_free (out, FALSE);
}

/* @text (escaped) at @y, @x, cut or padded to @cols columns. */
static void
put (int y, int x, const char *text, guint cols)
{
  g_autofree char *fitted = NULL;
  g_autofree char *ascii = NULL;

  if (x >= COLS || cols == 0)
    return;
  cols = MIN (cols, (guint) (COLS - x));
  if (ascii_only)
    text = ascii = to_ascii (text);
  fitted = jmem_text_fit_width (text, cols, TRUE);
  if (ascii_only)
    {
      g_autofree char *cut = g_steal_pointer (&fitted);

      fitted = to_ascii (cut);
    }
  mvaddstr (y, x, fitted);
}

/* Any bytes: made valid, escaped, then put(). */
static void
put_raw (int y, int x, const char *raw, guint cols)
{
  g_autofree char *shown = jmem_text_for_terminal (raw != NULL ? raw : "-");

  put (y, x, shown, cols);
}

/* @text right-aligned in @cols columns. */
static void
put_right (int y, int x, const char *text, guint cols)
{
  guint w = (guint) jmem_text_width (text);
  g_autofree char *padded = NULL;

  if (w >= cols)
    {
      put (y, x, text, cols);
      return;
    }
  padded = g_strdup_printf ("%*s%s", (int) (cols - w), "", text);
  put (y, x, padded, cols);
}

static void
put_line (int y, const char *text)
{
  put (y, 0, text, (guint) COLS);
}

static void
style_on (int pair, attr_t attrs)
{
  if (pair != 0 && jmem_top_term_has_color ())
    attron (COLOR_PAIR (pair));
  if (attrs != 0)
    attron (attrs);
}

static void
style_off (int pair, attr_t attrs)
{
  if (pair != 0 && jmem_top_term_has_color ())
    attroff (COLOR_PAIR (pair));
  if (attrs != 0)
    attroff (attrs);
}

static char *
size_or_na (gint64 kib)
{
  return kib < 0 ? g_strdup ("n/a") : jmem_top_size (kib);
}

/* "3d 04:12", "04:12:09" */
static char *
uptime_text (gint64 s)
{
  if (s < 0)
    return g_strdup ("n/a");
  if (s >= 86400)
    return g_strdup_printf ("%" G_GINT64_FORMAT "d %02d:%02d", s / 86400, (int) (s % 86400 / 3600),
                            (int) (s % 3600 / 60));
  return g_strdup_printf ("%02d:%02d:%02d", (int) (s / 3600), (int) (s % 3600 / 60), (int) (s % 60));
}

static char *
local_time (gint64 unix_s, const char *format)
{
  g_autoptr(GDateTime) dt = unix_s >= 0 ? g_date_time_new_from_unix_local (unix_s) : NULL;

  return dt != NULL ? g_date_time_format (dt, format) : g_strdup ("-");
}

static void
draw_title (const JmemTopState *s, const JmemFrame *f, int y)
{
  g_autoptr(GString) line = g_string_new ("jmem top");
  g_autofree char *board = jmem_text_for_terminal (f->board != NULL ? f->board : "unknown board");
  g_autofree char *l4t = jmem_text_for_terminal (f->l4t != NULL ? f->l4t : "n/a");
  g_autofree char *up = uptime_text (f->uptime_s);
  g_autofree char *when = NULL;

  /* what changes first: a narrow window cuts the end */
  if (s->options->replay != NULL)
    {
      when = local_time (f->timestamp_unix, "%Y-%m-%d %H:%M:%S");
      g_string_append_printf (line, "  replay %u/%u x%g  %s", s->replay_index + 1,
                              jmem_top_replay_get_n (s->options->replay), s->speed, when);
      if (!jmem_top_replay_is_loaded (s->options->replay))
        g_string_append_printf (line, "  loading %u%%",
                                jmem_top_replay_get_percent (s->options->replay));
      else if (jmem_top_replay_get_projection (s->options->replay) != NULL)
        g_string_append_printf (line, "  %s", jmem_top_replay_get_projection (s->options->replay));
    }
  else
    {
      when = local_time (f->timestamp_unix, "%H:%M:%S");
      g_string_append_printf (line, "  %s", when);
    }
  /* a GB10 has no L4T: nothing to say "n/a" of */
  if (f->l4t_applies)
    g_string_append_printf (line, "  %s  L4T %s  up %s", board, l4t, up);
  else
    g_string_append_printf (line, "  %s  up %s", board, up);
  if (f->sysroot != NULL)
    {
      g_autofree char *root = jmem_text_for_terminal (f->sysroot);

      g_string_append_printf (line, "  captured tree %s", root);
    }
  attron (A_BOLD);
  put_line (y, line->str);
  attroff (A_BOLD);
}

/* "[|||||     ]" of @width columns, @part of @whole filled. */
static void
draw_bar (int y, int x, guint width, gint64 part, gint64 whole, int pair)
{
  guint inner = width > 2 ? width - 2 : 0, filled = 0;
  g_autofree char *fill = NULL;

  if (whole > 0 && part > 0)
    filled = (guint) MIN ((double) inner, (double) part * inner / (double) whole + 0.5);
  mvaddch (y, x, '[');
  fill = g_strnfill (filled, '|');
  style_on (pair, 0);
  mvaddstr (y, x + 1, fill);
  style_off (pair, 0);
  g_free (fill);
  fill = g_strnfill (inner - filled, ' ');
  mvaddstr (y, x + 1 + (int) filled, fill);
  mvaddch (y, x + 1 + (int) inner, ']');
}

static void
draw_memory (const JmemFrame *f, int y)
{
  g_autofree char *used = size_or_na (f->mem_used_kib);
  g_autofree char *total = size_or_na (f->mem_total_kib);
  g_autofree char *avail = size_or_na (f->mem_available_kib);
  g_autofree char *text = g_strdup_printf (" %s used of %s, %s available", used, total, avail);
  guint text_w = (guint) jmem_text_width (text), bar_w;

  put_line (y, "Mem ");
  bar_w = (guint) COLS > 4 + text_w + 12 ? (guint) COLS - 4 - text_w : 12;
  bar_w = MIN (bar_w, 40);
  draw_bar (y, 4, bar_w, f->mem_used_kib, f->mem_total_kib, JMEM_TOP_PAIR_BAR);
  put (y, 4 + (int) bar_w, text, (guint) MAX (COLS - 4 - (int) bar_w, 0));
}

static void
draw_nvmap (const JmemFrame *f, int y)
{
  g_autoptr(GString) line = g_string_new (NULL);
  g_autofree char *gpu = jmem_text_for_terminal (f->gpu_source != NULL ? f->gpu_source : "none");
  g_autofree char *swap_used = size_or_na (f->swap_used_kib);
  g_autofree char *swap_total = size_or_na (f->swap_total_kib);

  if (f->nvmap_total_kib >= 0)
    {
      g_autofree char *size = jmem_top_size (f->nvmap_total_kib);
      g_autofree char *via = jmem_text_for_terminal (f->nvmap_source != NULL ? f->nvmap_source : "?");

      g_string_append_printf (line, "NvMap %s via %s", size, via);
    }
  else
    {
      g_autofree char *why = jmem_text_for_terminal (f->nvmap_error != NULL ? f->nvmap_error
                                                                            : "not read");

      g_string_append_printf (line, "NvMap n/a (%s)", why);
    }
  g_string_append_printf (line, "  GPU source %s", gpu);
  if (f->gpu_used_kib >= 0)
    {
      g_autofree char *used = jmem_top_size (f->gpu_used_kib);

      g_string_append_printf (line, " (%s used)", used);
    }
  g_string_append_printf (line, "  Swap %s of %s", swap_used, swap_total);
  put_line (y, line->str);
}

static void
draw_headroom (const JmemFrame *f, int y)
{
  g_autofree char *now = size_or_na (f->allocatable_now_kib);
  g_autofree char *after = size_or_na (f->allocatable_after_reclaim_kib);
  g_autofree char *block = size_or_na (f->largest_free_block_kib);
  g_autofree char *line = g_strdup_printf ("Headroom: allocatable now %s, after reclaim %s, "
                                           "largest free block %s", now, after, block);

  put_line (y, line);
}

static int
bucket_pair (char letter)
{
  switch (jmem_top_bucket_kind (letter))
    {
    case JMEM_TOP_BUCKET_CACHE: return JMEM_TOP_PAIR_CACHE;
    case JMEM_TOP_BUCKET_PROCESS: return JMEM_TOP_PAIR_PROCESS;
    case JMEM_TOP_BUCKET_KERNEL: return JMEM_TOP_PAIR_KERNEL;
    case JMEM_TOP_BUCKET_GPU: return JMEM_TOP_PAIR_NVMAP;
    case JMEM_TOP_BUCKET_UNEXPLAINED: return JMEM_TOP_PAIR_GROW;
    case JMEM_TOP_BUCKET_PLAIN: break;
    }
  return 0;
}

/* The accounting as one stacked bar, a letter per bucket coloured by its
 * kind, and the legend of its largest buckets. */
static void
draw_accounting (const JmemFrame *f, int y)
{
  guint cells = (guint) MAX (COLS - 6, 10);
  g_autofree char *bar = jmem_top_accounting_bar (f, cells);
  g_autofree char *legend = jmem_top_accounting_legend (f, bar, (guint) COLS);

  put_line (y, "RAM [");
  for (guint i = 0; i < cells && 5 + (int) i < COLS; i++)
    {
      int pair = bucket_pair (bar[i]);

      style_on (pair, 0);
      mvaddch (y, 5 + (int) i, (chtype) (guchar) bar[i]);
      style_off (pair, 0);
    }
  if (5 + (int) cells < COLS)
    mvaddch (y, 5 + (int) cells, ']');
  put_line (y + 1, legend);
}

static const char *
sort_title (const JmemTopState *s)
{
  return jmem_top_column_title (s->view.sort);
}

/* The table's title line: what is listed and how. */
static char *
status_text (const JmemTopState *s, const JmemFrame *f)
{
  GString *line = g_string_new (NULL);

  if (s->view.group)
    g_string_append_printf (line, "%u %s", s->rows->len,
                            s->rows->len == 1 ? "group" : "groups (containers, host)");
  else
    g_string_append_printf (line, "%u of %u processes", s->rows->len,
                            MAX (f->n_processes_total, f->processes->len));
  g_string_append_printf (line, "  sort %s%s", sort_title (s), s->view.reverse ? " reversed" : "");
  if (s->filter != NULL)
    {
      g_autofree char *shown = jmem_text_for_terminal (s->filter);

      g_string_append_printf (line, "  filter \"%s\"", shown);
    }
  if (s->paused)
    g_string_append (line, "  PAUSED");
  if (s->options->replay != NULL && jmem_top_replay_is_loaded (s->options->replay) &&
      s->replay_index + 1 == jmem_top_replay_get_n (s->options->replay))
    g_string_append (line, "  end of history");
  g_string_append (line, "  ~ kept PSS");
  /* a string, not the GString: GLib's inline appends test for NULL, and
   * GCC 14 then warns of every later line->str (-Wnull-dereference) */
  return g_string_free (line, FALSE);
}

static void
draw_status (const JmemTopState *s, const JmemFrame *f, int y)
{
  g_autofree char *text = NULL;

  if (s->mode == JMEM_TOP_MODE_FILTER)
    {
      g_autofree char *typed = jmem_text_for_terminal (s->input->str);

      text = g_strdup_printf ("Filter (name, user, container; Enter applies, Esc cancels): %s_",
                              typed);
      put_line (y, text);
      return;
    }
  if (s->mode == JMEM_TOP_MODE_CONFIRM_DROP)
    {
      attron (A_BOLD);
      put_line (y, "Drop the page cache, dentries and inodes through jmem-helper? [y/N]");
      attroff (A_BOLD);
      return;
    }
  if (s->message != NULL)
    {
      style_on (s->message_is_error ? JMEM_TOP_PAIR_WARN : 0, A_BOLD);
      put_line (y, s->message);
      style_off (s->message_is_error ? JMEM_TOP_PAIR_WARN : 0, A_BOLD);
      return;
    }
  text = status_text (s, f);
  put_line (y, text);
}

static void
draw_table_header (const JmemTopLayout *k, int y)
{
  style_on (JMEM_TOP_PAIR_TITLE, A_REVERSE);
  put_line (y, "");
  for (guint c = 0; c < JMEM_TOP_N_COLS; c++)
    {
      if (!k->shown[c])
        continue;
      if (c == JMEM_TOP_COL_PID || c == JMEM_TOP_COL_FOOTPRINT || c == JMEM_TOP_COL_PSS ||
          c == JMEM_TOP_COL_NVMAP || c == JMEM_TOP_COL_GPU || c == JMEM_TOP_COL_SWAP)
        put_right (y, (int) k->x[c], jmem_top_column_title (c), k->width[c] - (c == JMEM_TOP_COL_PID ? 0 : 1));
      else
        put (y, (int) k->x[c], jmem_top_column_title (c), k->width[c]);
    }
  style_off (JMEM_TOP_PAIR_TITLE, A_REVERSE);
}

/* A size right-aligned, then one column for the mark of a kept value. */
static void
draw_size (int y, int x, guint width, gint64 kib, gboolean kept)
{
  g_autofree char *size = jmem_top_size (kib);

  put_right (y, x, size, width - 1);
  put (y, x + (int) width - 1, kept && kib >= 0 ? "~" : " ", 1);
}

static void
draw_row (const JmemTopState *s, const JmemTopLayout *k, const JmemTopRow *r, int y,
          gboolean selected)
{
  if (selected)
    attron (A_REVERSE);
  put_line (y, "");
  for (guint c = 0; c < JMEM_TOP_N_COLS; c++)
    {
      int x = (int) k->x[c];

      if (!k->shown[c])
        continue;
      switch ((JmemTopColumn) c)
        {
        case JMEM_TOP_COL_PID:
          {
            g_autofree char *pid = r->pid >= 0 ? g_strdup_printf ("%" G_GINT64_FORMAT, r->pid)
                                               : g_strdup ("-");

            put_right (y, x, pid, k->width[c]);
          }
          break;
        case JMEM_TOP_COL_USER:
          put_raw (y, x, r->pid >= 0 ? r->user : "-", k->width[c]);
          break;
        case JMEM_TOP_COL_NAME:
          put_raw (y, x, r->name, k->width[c]);
          break;
        case JMEM_TOP_COL_CONTAINER:
          {
            g_autofree char *short_id = jmem_frame_container_short (r->container);

            put_raw (y, x, short_id != NULL ? short_id : (r->pid < 0 ? "(host)" : "-"), k->width[c]);
          }
          break;
        case JMEM_TOP_COL_PSS:
        case JMEM_TOP_COL_SWAP:
          draw_size (y, x, k->width[c], r->values[c], r->pss_kept);
          break;
        case JMEM_TOP_COL_FOOTPRINT:
        case JMEM_TOP_COL_NVMAP:
        case JMEM_TOP_COL_GPU:
          draw_size (y, x, k->width[c], r->values[c], FALSE);
          break;
        case JMEM_TOP_COL_TREND:
          {
            g_autofree char *spark = r->series != NULL
                                       ? jmem_top_sparkline (r->series, k->spark_cells, s->unicode)
                                       : g_strdup ("");
            g_autofree char *growth = r->has_growth ? jmem_top_growth_text (r->growth_kib_per_minute)
                                                    : g_strdup ("");
            gboolean grows = r->has_growth && r->growth_kib_per_minute >= 0.5;

            put (y, x, spark, k->spark_cells);
            style_on (grows && !selected ? JMEM_TOP_PAIR_GROW : 0, 0);
            put_right (y, x + (int) k->spark_cells + 1, growth, JMEM_TOP_GROWTH_COLS);
            style_off (grows && !selected ? JMEM_TOP_PAIR_GROW : 0, 0);
          }
          break;
        case JMEM_TOP_N_COLS:
          break;
        }
    }
  if (selected)
    attroff (A_REVERSE);
}

static const char *
help_line (const JmemTopState *s)
{
  if (s->options->replay != NULL)
    return "q:quit ?:help FSMGWTNUCI:sort r:rev /:filter c:group p:pause "
           "[ ]:seek + -:speed";
  return "q:quit ?:help FSMGWTNUCI:sort r:rev /:filter c:group p:pause "
         "Enter:NvMap d:drop-caches";
}

GPtrArray *
jmem_top_screen_help (const JmemTopState *s)
{
  GPtrArray *lines = g_ptr_array_new_with_free_func (g_free);
  static const char * const keys[] = {
    "q, Ctrl-C       quit (the terminal is given back as it was)",
    "?               this help; any key closes it",
    "F S M G W       sort by FOOTPRINT, PSS, NVMAP, GPU, SWAP (largest first)",
    "T               sort by TREND: growth per minute, fastest first",
    "N U C I         sort by NAME, USER, CONTAINER, PID",
    "r               reverse the order",
    "/               filter by text in name, user or container (empty: all)",
    "c               one row per container, and one for the host",
    "p               pause (the screen stays; keys still work)",
    "Up Down PgUp PgDn Home End   move the selection",
  };

  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    g_ptr_array_add (lines, g_strdup (keys[i]));
  if (s->options->replay != NULL)
    {
      g_ptr_array_add (lines, g_strdup ("[ ]             one sample back, forward"));
      g_ptr_array_add (lines, g_strdup ("{ }             ten samples back, forward"));
      g_ptr_array_add (lines, g_strdup ("+ -             play twice as fast, half as fast"));
    }
  else
    {
      g_ptr_array_add (lines, g_strdup ("Enter           the selected process's NvMap allocations (helper)"));
      g_ptr_array_add (lines, g_strdup ("d               drop caches through the helper; asks first"));
    }
  g_ptr_array_add (lines, g_strdup (""));
  g_ptr_array_add (lines, g_strdup ("FOOTPRINT: all a process holds, PSS, swap and GPU memory"));
  g_ptr_array_add (lines, g_strdup ("  (footprint_kib, " JMEM_DOCDIR "/field-guide.md)."));
  g_ptr_array_add (lines, g_strdup ("  Sizes in binary units: K KiB, M MiB, G GiB; - unknown."));
  g_ptr_array_add (lines, g_strdup ("~ PSS and swap kept from an earlier sample: the process's memory"));
  g_ptr_array_add (lines, g_strdup_printf ("  did not move. Each is read again within %u samples.",
                                           MAX (s->options->pss_refresh, 1)));
  g_ptr_array_add (lines, g_strdup_printf ("TREND: footprint over the last %u samples, growth per minute.",
                                           JMEM_TOP_TREND_SAMPLES));
  g_ptr_array_add (lines, g_strdup ("Narrow windows drop an empty NVMAP or GPU, then SWAP, USER,"));
  g_ptr_array_add (lines, g_strdup ("  GPU (beside NVMAP), CONTAINER, PSS, TREND, NVMAP, GPU."));
  return lines;
}

static void
draw_popup (const JmemTopState *s)
{
  guint n = s->popup_lines->len, width = 0, height, inner_h, x, y;

  for (guint i = 0; i < n; i++)
    width = MAX (width, (guint) jmem_text_width (g_ptr_array_index (s->popup_lines, i)));
  width = MAX (width, (guint) jmem_text_width (s->popup_title) + 2);
  width = MIN (width + 4, (guint) MAX (COLS - 2, 10));
  height = MIN (n + 4, (guint) MAX (LINES - 2, 5));
  inner_h = height - 4;
  x = ((guint) COLS - width) / 2;
  y = ((guint) LINES - height) / 2;

  for (guint r = 0; r < height; r++)
    put ((int) (y + r), (int) x, "", width);
  attron (A_BOLD);
  mvaddch ((int) y, (int) x, ACS_ULCORNER);
  mvhline ((int) y, (int) x + 1, ACS_HLINE, (int) width - 2);
  mvaddch ((int) y, (int) (x + width - 1), ACS_URCORNER);
  mvvline ((int) y + 1, (int) x, ACS_VLINE, (int) height - 2);
  mvvline ((int) y + 1, (int) (x + width - 1), ACS_VLINE, (int) height - 2);
  mvaddch ((int) (y + height - 1), (int) x, ACS_LLCORNER);
  mvhline ((int) (y + height - 1), (int) x + 1, ACS_HLINE, (int) width - 2);
  mvaddch ((int) (y + height - 1), (int) (x + width - 1), ACS_LRCORNER);
  put ((int) y + 1, (int) x + 2, s->popup_title, width - 4);
  attroff (A_BOLD);
  for (guint i = 0; i < inner_h && s->popup_scroll + i < n; i++)
    put ((int) (y + 3 + i), (int) x + 2, g_ptr_array_index (s->popup_lines, s->popup_scroll + i),
         width - 4);
}

void
jmem_top_screen_draw (JmemTopState *s)
{
  const JmemFrame *f = jmem_top_state_frame (s);
  JmemTopLayout k;
  gboolean has_nvmap, has_gpu;
  int y = 0, table_top, help_y = LINES - 1;

  ascii_only = !s->unicode;
  erase ();
  if (f == NULL)
    {
      put_line (0, "jmem top: taking the first sample...");
      refresh ();
      return;
    }
  draw_title (s, f, y++);
  if (y < help_y)
    draw_memory (f, y++);
  if (y < help_y)
    draw_nvmap (f, y++);
  if (f->has_headroom && y < help_y)
    draw_headroom (f, y++);
  /* the accounting's two lines only where the table keeps its rows */
  if (f->buckets != NULL && y + 2 + 2 + MIN_TABLE_ROWS <= help_y)
    {
      draw_accounting (f, y);
      y += 2;
    }
  if (y < help_y)
    draw_status (s, f, y++);

  jmem_top_view_known (f, &has_nvmap, &has_gpu);
  jmem_top_layout (&k, (guint) COLS, has_nvmap, has_gpu);
  if (y < help_y)
    draw_table_header (&k, y++);
  table_top = y;
  s->table_rows = help_y > table_top ? (guint) (help_y - table_top) : 0;
  if (s->selected < s->first_row)
    s->first_row = s->selected;
  if (s->table_rows > 0 && s->selected >= s->first_row + s->table_rows)
    s->first_row = s->selected - s->table_rows + 1;
  for (guint i = 0; i < s->table_rows && s->first_row + i < s->rows->len; i++)
    draw_row (s, &k, g_ptr_array_index (s->rows, s->first_row + i), table_top + (int) i,
              s->first_row + i == s->selected);
  if (help_y > 0)
    {
      attron (A_DIM);
      put_line (help_y, help_line (s));
      attroff (A_DIM);
    }
  if (s->mode == JMEM_TOP_MODE_POPUP)
    draw_popup (s);
  refresh ();
}
