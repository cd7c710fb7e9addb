/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Drawing the plot with cairo: panels stacked on one local-time axis, a
 * legend below them, encoded by cairo's own PNG and SVG surfaces. */
#include "jmem-plot.h"

#include "jmem-plot-axis.h"
#include "jmem-plot-series.h"
#include "jmem-text.h"

#include <cairo-svg.h>
#include <cairo.h>
#include <fontconfig/fontconfig.h>
#include <gio/gio.h>
#include <math.h>

#define MARGIN_LEFT 96.0
#define MARGIN_RIGHT 24.0
#define MARGIN_TOP 64.0
#define PANEL_TITLE 22.0
#define PANEL_GAP 16.0
#define AXIS_LABELS 26.0
#define LEGEND_ROW 18.0
#define LEGEND_COLUMN 320.0
#define FONT_SIZE 12.0

typedef struct {
  double r, g, b;
} Color;

/* Distinct on white and for the common colour blindnesses (Tableau 10). */
static const Color palette[] = {
  { 0.122, 0.467, 0.706 }, { 1.000, 0.498, 0.055 }, { 0.173, 0.627, 0.173 },
  { 0.839, 0.153, 0.157 }, { 0.580, 0.404, 0.741 }, { 0.549, 0.337, 0.294 },
  { 0.890, 0.467, 0.761 }, { 0.498, 0.498, 0.498 }, { 0.737, 0.741, 0.133 },
  { 0.090, 0.745, 0.812 },
};

/* The accounting's buckets by stable name, a family of hues each: page
 * cache blue, process memory orange, kernel green, GPU memory purple,
 * what no bucket explains red, free the lightest grey. */
static const struct {
  const char *name;
  Color       color;
} bucket_colors[] = {
  { "free", { 0.925, 0.925, 0.925 } },
  { "page_cache", { 0.682, 0.780, 0.910 } },
  { "page_cache_locked", { 0.502, 0.647, 0.851 } },
  { "shmem", { 0.620, 0.855, 0.898 } },
  { "anon", { 1.000, 0.733, 0.471 } },
  { "zram", { 0.949, 0.600, 0.345 } },
  { "zswap", { 0.851, 0.545, 0.302 } },
  { "slab_reclaimable", { 0.596, 0.875, 0.541 } },
  { "slab_unreclaimable", { 0.451, 0.749, 0.400 } },
  { "kernel_reclaimable", { 0.749, 0.922, 0.702 } },
  { "kernel_stack", { 0.349, 0.647, 0.349 } },
  { "page_tables", { 0.800, 0.851, 0.553 } },
  { "vmalloc", { 0.600, 0.702, 0.349 } },
  { "percpu", { 0.502, 0.800, 0.651 } },
  { "hugetlb", { 0.651, 0.549, 0.780 } },
  { "nvmap", { 0.773, 0.690, 0.835 } },
  { "nvmap_pool", { 0.878, 0.820, 0.929 } },
  { "unexplained", { 1.000, 0.596, 0.588 } },
};

/* A bucket this jmem does not know (a newer history). */
static const Color other_bucket = { 0.780, 0.780, 0.780 };
/* The projection: the one thing drawn that is not measured. */
static const Color projection_red = { 0.84, 0.15, 0.16 };

static const Color *
bucket_color (const char *name)
{
  for (guint i = 0; i < G_N_ELEMENTS (bucket_colors); i++)
    if (g_strcmp0 (name, bucket_colors[i].name) == 0)
      return &bucket_colors[i].color;
  return &other_bucket;
}

typedef struct {
  cairo_t *cr;
  double   x0, x1;      /* the time axis's pixels */
  gint64   from, to;
} Canvas;

static void
set_color (cairo_t *cr, const Color *c)
{
  cairo_set_source_rgb (cr, c->r, c->g, c->b);
}

static double
time_x (const Canvas *cv, gint64 t)
{
  return cv->x0 + (cv->x1 - cv->x0) * (double) (t - cv->from) / (double) (cv->to - cv->from);
}

/* Text as anyone may have named a process: escaped like every output. */
static char *
shown (const char *raw)
{
  return jmem_text_for_terminal (raw != NULL ? raw : "?");
}

static double
text_width (cairo_t *cr, const char *text)
{
  cairo_text_extents_t e;

  cairo_text_extents (cr, text, &e);
  return e.x_advance;
}

static void
text_at (cairo_t *cr, double x, double y, const char *text)
{
  cairo_move_to (cr, x, y);
  cairo_show_text (cr, text);
}

static char *
process_label (const JmemPlotSeries *s)
{
  g_autofree char *name = shown (s->name);
  g_autofree char *container = s->container != NULL ? jmem_frame_container_short (s->container) : NULL;
  g_autofree char *container_shown = container != NULL ? shown (container) : NULL;

  if (s->pid < 0)
    return g_strdup (name);
  return g_strdup_printf ("%s (PID %" G_GINT64_FORMAT ")%s%s", name, s->pid,
                          container_shown != NULL ? " container " : "",
                          container_shown != NULL ? container_shown : "");
}

static void
draw_grid (Canvas *cv, const JmemPlotTimeAxis *time, const JmemPlotSizeAxis *size,
           double y0, double y1)
{
  cairo_t *cr = cv->cr;

  cairo_set_line_width (cr, 1.0);
  cairo_set_source_rgb (cr, 0.88, 0.88, 0.88);
  for (guint i = 0; i <= size->n_steps; i++)
    {
      double y = y1 - (y1 - y0) * i / size->n_steps;

      cairo_move_to (cr, cv->x0, floor (y) + 0.5);
      cairo_line_to (cr, cv->x1, floor (y) + 0.5);
    }
  for (guint i = 0; i < time->n_ticks; i++)
    {
      double x = floor (time_x (cv, time->ticks[i])) + 0.5;

      cairo_move_to (cr, x, y0);
      cairo_line_to (cr, x, y1);
    }
  cairo_stroke (cr);

  cairo_set_source_rgb (cr, 0.2, 0.2, 0.2);
  cairo_set_font_size (cr, FONT_SIZE);
  for (guint i = 0; i <= size->n_steps; i++)
    {
      double y = y1 - (y1 - y0) * i / size->n_steps;
      g_autofree char *label = jmem_plot_size_label (size, size->step_kib * i);

      text_at (cr, cv->x0 - 8 - text_width (cr, label), y + 4, label);
    }
  cairo_rectangle (cr, cv->x0 + 0.5, y0 + 0.5, cv->x1 - cv->x0 - 1, y1 - y0 - 1);
  cairo_stroke (cr);
}

static double
value_y (const JmemPlotSizeAxis *size, double y0, double y1, double kib)
{
  return y1 - (y1 - y0) * MIN (kib, size->top_kib) / size->top_kib;
}

/* A line through the points present; a point alone is a dot. */
static void
draw_line (Canvas *cv, const JmemPlotSeries *s, const JmemPlotSizeAxis *size,
           double y0, double y1, double width)
{
  cairo_t *cr = cv->cr;
  gboolean drawing = FALSE;

  cairo_set_line_width (cr, width);
  cairo_set_line_join (cr, CAIRO_LINE_JOIN_ROUND);
  for (guint i = 0; i < s->points->len; i++)
    {
      const JmemPlotPoint *p = &g_array_index (s->points, JmemPlotPoint, i);
      gboolean alone;
      double x, y;

      if (isnan (p->kib))
        {
          drawing = FALSE;
          continue;
        }
      x = time_x (cv, p->t);
      y = value_y (size, y0, y1, p->kib);
      alone = !drawing && (i + 1 >= s->points->len ||
                           isnan (g_array_index (s->points, JmemPlotPoint, i + 1).kib));
      if (alone)
        {
          cairo_stroke (cr);
          cairo_arc (cr, x, y, width + 1.0, 0, 2 * G_PI);
          cairo_fill (cr);
          continue;
        }
      if (drawing)
        cairo_line_to (cr, x, y);
      else
        cairo_move_to (cr, x, y);
      drawing = TRUE;
    }
  cairo_stroke (cr);
}

/* At the series' last point: a ring, and the slope in a box above it. */
static void
draw_annotation (Canvas *cv, const JmemPlotSeries *s, const JmemPlotSizeAxis *size,
                 double y0, double y1)
{
  cairo_t *cr = cv->cr;
  const Color *c = &palette[s->color % G_N_ELEMENTS (palette)];
  const JmemPlotPoint *last = NULL;
  double x, y, w, bx, by;

  for (guint i = 0; i < s->points->len; i++)
    if (!isnan (g_array_index (s->points, JmemPlotPoint, i).kib))
      last = &g_array_index (s->points, JmemPlotPoint, i);
  if (last == NULL)
    return;
  x = time_x (cv, last->t);
  y = value_y (size, y0, y1, last->kib);
  set_color (cr, c);
  cairo_set_line_width (cr, 2.5);
  cairo_arc (cr, x, y, 7.0, 0, 2 * G_PI);
  cairo_stroke (cr);

  cairo_select_font_face (cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_BOLD);
  cairo_set_font_size (cr, FONT_SIZE + 1);
  w = text_width (cr, s->annotation) + 12;
  bx = CLAMP (x - w - 10, cv->x0 + 4, cv->x1 - w - 4);
  by = CLAMP (y - 30, y0 + 4, y1 - 24);
  cairo_set_source_rgba (cr, 1, 1, 1, 0.92);
  cairo_rectangle (cr, bx, by, w, 20);
  cairo_fill_preserve (cr);
  set_color (cr, c);
  cairo_set_line_width (cr, 1.5);
  cairo_stroke (cr);
  text_at (cr, bx + 6, by + 14, s->annotation);
  cairo_select_font_face (cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size (cr, FONT_SIZE);
}

/* The accounting stacked, bottom up in the order given. */
static void
draw_stack (Canvas *cv, const JmemPlotPanel *panel, const JmemPlotSizeAxis *size,
            double y0, double y1)
{
  cairo_t *cr = cv->cr;
  guint n = panel->series->len > 0
              ? ((JmemPlotSeries *) g_ptr_array_index (panel->series, 0))->points->len : 0;
  g_autofree double *below = g_new0 (double, MAX (n, 1));

  for (guint k = 0; k < panel->series->len; k++)
    {
      const JmemPlotSeries *s = g_ptr_array_index (panel->series, k);
      g_autofree double *above = g_new0 (double, MAX (n, 1));

      for (guint i = 0; i < n; i++)
        {
          double v = g_array_index (s->points, JmemPlotPoint, i).kib;

          above[i] = below[i] + (isnan (v) ? 0 : v);
        }
      for (guint i = 0; i < n; i++)
        {
          double x = time_x (cv, g_array_index (s->points, JmemPlotPoint, i).t);

          if (i == 0)
            cairo_move_to (cr, x, value_y (size, y0, y1, above[i]));
          else
            cairo_line_to (cr, x, value_y (size, y0, y1, above[i]));
        }
      for (guint i = n; i-- > 0;)
        cairo_line_to (cr, time_x (cv, g_array_index (s->points, JmemPlotPoint, i).t),
                       value_y (size, y0, y1, below[i]));
      cairo_close_path (cr);
      set_color (cr, bucket_color (s->key));
      cairo_fill (cr);
      memcpy (below, above, sizeof (double) * n);
    }
}

/* The fitted line of the allocatable memory, solid over its window, then
 * dashed past the last sample to where it reaches the target (or the
 * picture's end). */
static void
draw_projection (Canvas *cv, const JmemPlotProjection *p, const JmemPlotSizeAxis *size,
                 double y0, double y1)
{
  static const double dash[] = { 8.0, 5.0 };
  cairo_t *cr = cv->cr;
  double slope = p->t1 > p->t0 ? (p->level1 - p->level0) / (double) (p->t1 - p->t0) : 0;
  gint64 end = p->projected ? MIN (p->t_end, cv->to) : cv->to;

  set_color (cr, &projection_red);
  cairo_set_line_width (cr, 2.0);
  cairo_move_to (cr, time_x (cv, p->t0), value_y (size, y0, y1, MAX (p->level0, 0)));
  cairo_line_to (cr, time_x (cv, p->t1), value_y (size, y0, y1, MAX (p->level1, 0)));
  cairo_stroke (cr);
  if (end > p->t1)
    {
      cairo_set_dash (cr, dash, 2, 0);
      cairo_move_to (cr, time_x (cv, p->t1), value_y (size, y0, y1, MAX (p->level1, 0)));
      cairo_line_to (cr, time_x (cv, end),
                     value_y (size, y0, y1, MAX (p->level1 + slope * (double) (end - p->t1), 0)));
      cairo_stroke (cr);
      cairo_set_dash (cr, NULL, 0, 0);
    }
}

static void
draw_panel (Canvas *cv, const JmemPlotPanel *panel, const JmemPlotTimeAxis *time,
            double y0, double y1, const JmemPlotProjection *projection)
{
  cairo_t *cr = cv->cr;
  JmemPlotSizeAxis size;
  guint max_steps = (guint) MAX (2.0, (y1 - y0) / 36.0);

  jmem_plot_size_axis (&size, panel->max_kib, max_steps);
  cairo_set_source_rgb (cr, 0.1, 0.1, 0.1);
  cairo_select_font_face (cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_BOLD);
  cairo_set_font_size (cr, FONT_SIZE + 1);
  text_at (cr, cv->x0, y0 - 7, panel->title);
  cairo_select_font_face (cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);

  if (panel->kind == JMEM_PLOT_PANEL_BUCKETS)
    draw_stack (cv, panel, &size, y0, y1);
  draw_grid (cv, time, &size, y0, y1);
  if (panel->kind == JMEM_PLOT_PANEL_PROCESSES)
    {
      /* the largest last, on top */
      for (guint i = panel->series->len; i-- > 0;)
        {
          const JmemPlotSeries *s = g_ptr_array_index (panel->series, i);

          set_color (cr, &palette[s->color % G_N_ELEMENTS (palette)]);
          draw_line (cv, s, &size, y0, y1, s->annotation != NULL ? 3.0 : 1.8);
        }
      for (guint i = 0; i < panel->series->len; i++)
        {
          const JmemPlotSeries *s = g_ptr_array_index (panel->series, i);

          if (s->annotation != NULL)
            draw_annotation (cv, s, &size, y0, y1);
        }
    }
  cairo_set_source_rgb (cr, 0.1, 0.1, 0.1);
  for (guint i = 0; i < panel->lines->len; i++)
    {
      static const double dash[] = { 6.0, 4.0 };
      static const double dot[] = { 2.0, 3.0 };

      cairo_set_dash (cr, i == 0 ? dash : dot, 2, 0);
      draw_line (cv, g_ptr_array_index (panel->lines, i), &size, y0, y1, 1.8);
    }
  cairo_set_dash (cr, NULL, 0, 0);
  /* over the allocatable memory it was fitted on */
  if (projection != NULL && projection->fitted && panel->lines->len > 0)
    draw_projection (cv, projection, &size, y0, y1);
}

static void
draw_time_labels (Canvas *cv, const JmemPlotTimeAxis *time, double y)
{
  cairo_t *cr = cv->cr;

  cairo_set_source_rgb (cr, 0.2, 0.2, 0.2);
  cairo_set_font_size (cr, FONT_SIZE);
  for (guint i = 0; i < time->n_ticks; i++)
    {
      g_autoptr(GDateTime) dt = g_date_time_new_from_unix_local (time->ticks[i]);
      g_autofree char *label = dt != NULL ? g_date_time_format (dt, time->format) : NULL;
      double x;

      if (label == NULL)
        continue;
      x = time_x (cv, time->ticks[i]) - text_width (cr, label) / 2;
      text_at (cr, CLAMP (x, 2, cv->x1 + MARGIN_RIGHT - text_width (cr, label) - 2), y, label);
    }
}

typedef struct {
  char         *label;
  const Color  *color;
  int           style;   /* 0 a line, 1 an area, 2 dashed, 3 dotted */
} LegendEntry;

static void
legend_entry_free (LegendEntry *e)
{
  g_free (e->label);
  g_free (e);
}

static GPtrArray *
legend_entries (const JmemPlotData *d, const JmemPlotProjection *projection)
{
  GPtrArray *entries = g_ptr_array_new_with_free_func ((GDestroyNotify) legend_entry_free);
  g_autoptr(GHashTable) seen = g_hash_table_new (NULL, NULL);

  for (guint p = 0; p < d->panels->len; p++)
    {
      const JmemPlotPanel *panel = g_ptr_array_index (d->panels, p);

      for (guint i = 0; i < panel->series->len; i++)
        {
          const JmemPlotSeries *s = g_ptr_array_index (panel->series, i);
          LegendEntry *e;

          if (panel->kind == JMEM_PLOT_PANEL_PROCESSES &&
              g_hash_table_contains (seen, GUINT_TO_POINTER (s->color + 1)))
            continue;
          g_hash_table_add (seen, GUINT_TO_POINTER (s->color + 1));
          e = g_new0 (LegendEntry, 1);
          if (panel->kind == JMEM_PLOT_PANEL_PROCESSES)
            {
              e->label = process_label (s);
              e->color = &palette[s->color % G_N_ELEMENTS (palette)];
            }
          else
            {
              e->label = shown (s->name);
              e->color = bucket_color (s->key);
              e->style = 1;
            }
          g_ptr_array_add (entries, e);
        }
      for (guint i = 0; i < panel->lines->len; i++)
        {
          static const Color black = { 0.1, 0.1, 0.1 };
          LegendEntry *e = g_new0 (LegendEntry, 1);

          e->label = shown (((JmemPlotSeries *) g_ptr_array_index (panel->lines, i))->name);
          e->color = &black;
          e->style = i == 0 ? 2 : 3;
          g_ptr_array_add (entries, e);
        }
    }
  if (projection != NULL && projection->fitted && d->any_headroom)
    {
      LegendEntry *e = g_new0 (LegendEntry, 1);

      e->label = g_strdup (projection->projected ? "trend of allocatable after reclaim, projected"
                                                 : "trend of allocatable after reclaim");
      e->color = &projection_red;
      e->style = 2;
      g_ptr_array_add (entries, e);
    }
  return entries;
}

/* @text cut ("…") to at most @pixels wide. */
static char *
fit_pixels (cairo_t *cr, const char *text, double pixels)
{
  gsize cols = jmem_text_width (text);
  char *fitted = g_strdup (text);

  while (cols > 1 && text_width (cr, fitted) > pixels)
    {
      g_free (fitted);
      fitted = jmem_text_fit_width (text, --cols, FALSE);
    }
  return fitted;
}

static void
draw_legend (cairo_t *cr, GPtrArray *entries, double x0, double y0, guint columns)
{
  cairo_set_font_size (cr, FONT_SIZE);
  for (guint i = 0; i < entries->len; i++)
    {
      const LegendEntry *e = g_ptr_array_index (entries, i);
      double x = x0 + LEGEND_COLUMN * (i % columns), y = y0 + LEGEND_ROW * (i / columns);
      g_autofree char *label = fit_pixels (cr, e->label, LEGEND_COLUMN - 40);

      set_color (cr, e->color);
      if (e->style == 1)
        {
          cairo_rectangle (cr, x, y - 9, 22, 10);
          cairo_fill (cr);
        }
      else
        {
          static const double dash[] = { 6.0, 4.0 };
          static const double dot[] = { 2.0, 3.0 };

          if (e->style >= 2)
            cairo_set_dash (cr, e->style == 2 ? dash : dot, 2, 0);
          cairo_set_line_width (cr, 2.5);
          cairo_move_to (cr, x, y - 4);
          cairo_line_to (cr, x + 22, y - 4);
          cairo_stroke (cr);
          cairo_set_dash (cr, NULL, 0, 0);
        }
      cairo_set_source_rgb (cr, 0.1, 0.1, 0.1);
      text_at (cr, x + 28, y, label);
    }
}

/* The board as jmem snapshot's first line names it, and the host. */
static char *
title_text (const JmemPlotData *d)
{
  g_autofree char *board = shown (d->board != NULL ? d->board : "unknown model");
  g_autofree char *host = shown (d->hostname != NULL ? d->hostname : "?");

  return g_strdup_printf ("%s (%s)", board, host);
}

static void
draw_title (cairo_t *cr, const JmemPlotData *d, guint64 n_frames, double width)
{
  g_autoptr(GDateTime) from = g_date_time_new_from_unix_local (d->from);
  g_autoptr(GDateTime) to = g_date_time_new_from_unix_local (d->to);
  g_autofree char *from_text = from != NULL ? g_date_time_format (from, "%Y-%m-%d %H:%M:%S") : g_strdup ("?");
  g_autofree char *to_text = to != NULL ? g_date_time_format (to, "%Y-%m-%d %H:%M:%S") : g_strdup ("?");
  g_autofree char *zone = to != NULL ? g_date_time_format (to, "%:z") : g_strdup ("");
  g_autofree char *line1 = title_text (d);
  g_autofree char *line2 = g_strdup_printf ("%s to %s (local time, UTC%s), %" G_GUINT64_FORMAT " %s, jmem watch history",
                                            from_text, to_text, zone, n_frames,
                                            n_frames == 1 ? "sample" : "samples");

  cairo_set_source_rgb (cr, 0.05, 0.05, 0.05);
  cairo_select_font_face (cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_BOLD);
  cairo_set_font_size (cr, 18);
  text_at (cr, MARGIN_LEFT, 26, line1);
  cairo_select_font_face (cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size (cr, FONT_SIZE + 1);
  cairo_set_source_rgb (cr, 0.3, 0.3, 0.3);
  text_at (cr, MARGIN_LEFT, 46, line2);
  (void) width;
}

static void
draw (cairo_t *cr, const JmemPlotData *d, const JmemPlotOptions *o)
{
  Canvas cv = { cr, MARGIN_LEFT, o->width - MARGIN_RIGHT, d->from, d->to };
  g_autoptr(GPtrArray) legend = legend_entries (d, o->projection);
  guint columns = (guint) MAX (1.0, (o->width - MARGIN_LEFT - MARGIN_RIGHT) / LEGEND_COLUMN);
  double legend_h = LEGEND_ROW * ((legend->len + columns - 1) / columns) + 8;
  double plots = o->height - MARGIN_TOP - AXIS_LABELS - legend_h -
                 d->panels->len * (PANEL_TITLE + PANEL_GAP);
  double panel_h = MAX (plots / d->panels->len, 40.0), y = MARGIN_TOP;
  JmemPlotTimeAxis time = { 0 };

  if (cv.to <= cv.from)
    {
      /* one sample: a minute around it */
      cv.from -= 30;
      cv.to += 30;
    }
  /* room for the projection past the last sample: up to where it reaches
   * the target, at most as far again as the history is long */
  if (o->projection != NULL && o->projection->projected && o->projection->t_end > cv.to)
    cv.to = MIN (o->projection->t_end, cv.to + (cv.to - cv.from));
  jmem_plot_time_axis (&time, cv.from, cv.to, (guint) MAX (2.0, (cv.x1 - cv.x0) / 110.0));

  cairo_set_source_rgb (cr, 1, 1, 1);
  cairo_paint (cr);
  cairo_select_font_face (cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
  draw_title (cr, d, d->n_samples, o->width);
  for (guint p = 0; p < d->panels->len; p++)
    {
      y += PANEL_TITLE;
      draw_panel (&cv, g_ptr_array_index (d->panels, p), &time, y, y + panel_h, o->projection);
      y += panel_h + PANEL_GAP;
    }
  draw_time_labels (&cv, &time, y - PANEL_GAP + 16);
  draw_legend (cr, legend, MARGIN_LEFT, y + AXIS_LABELS - 4, columns);
  jmem_plot_time_axis_clear (&time);
}

static cairo_status_t
append_bytes (void *closure, const unsigned char *data, unsigned int length)
{
  g_byte_array_append (closure, data, length);
  return CAIRO_STATUS_SUCCESS;
}

static void
report_color (GString *report, const Color *c)
{
  g_string_append_printf (report, "colour #%02x%02x%02x", (guint) (c->r * 255 + 0.5),
                          (guint) (c->g * 255 + 0.5), (guint) (c->b * 255 + 0.5));
}

static void
report_series (GString *report, const JmemPlotData *d)
{
  for (guint p = 0; p < d->panels->len; p++)
    {
      const JmemPlotPanel *panel = g_ptr_array_index (d->panels, p);

      for (guint i = 0; i < panel->series->len; i++)
        {
          const JmemPlotSeries *s = g_ptr_array_index (panel->series, i);
          g_autofree char *max = jmem_text_size ((gint64) s->max_kib);
          g_autofree char *label = NULL;

          if (panel->kind == JMEM_PLOT_PANEL_PROCESSES)
            {
              label = process_label (s);
              g_string_append_printf (report, "%s: %s, at most %s, ", panel->title, label, max);
              report_color (report, &palette[s->color % G_N_ELEMENTS (palette)]);
              if (s->annotation != NULL)
                g_string_append_printf (report, ", annotated %s", s->annotation);
            }
          else
            {
              g_autofree char *key = shown (s->key);

              label = shown (s->name);
              g_string_append_printf (report, "%s: %s (%s), at most %s, ", panel->title, label,
                                      key, max);
              report_color (report, bucket_color (s->key));
            }
          g_string_append_c (report, '\n');
        }
      for (guint i = 0; i < panel->lines->len; i++)
        {
          const JmemPlotSeries *s = g_ptr_array_index (panel->lines, i);
          g_autofree char *name = shown (s->name);
          g_autofree char *max = jmem_text_size ((gint64) s->max_kib);

          g_string_append_printf (report, "%s: %s, at most %s, a %s line\n", panel->title, name,
                                  max, i == 0 ? "dashed" : "dotted");
        }
    }
}

GBytes *
jmem_plot_render (const JmemPlotOptions *o,
                  GString               *report,
                  GError               **error)
{
  g_autoptr(JmemPlotData) d = jmem_plot_data_new (o);
  g_autoptr(GByteArray) out = g_byte_array_new ();
  cairo_surface_t *surface;
  cairo_status_t status;
  cairo_t *cr;

  if (o->format == JMEM_PLOT_SVG)
    {
      surface = cairo_svg_surface_create_for_stream (append_bytes, out, o->width, o->height);
      cairo_svg_surface_set_document_unit (surface, CAIRO_SVG_UNIT_PX);
    }
  else
    surface = cairo_image_surface_create (CAIRO_FORMAT_RGB24, (int) o->width, (int) o->height);
  cr = cairo_create (surface);
  draw (cr, d, o);
  status = cairo_status (cr);
  cairo_destroy (cr);
  if (status == CAIRO_STATUS_SUCCESS && o->format == JMEM_PLOT_PNG)
    status = cairo_surface_write_to_png_stream (surface, append_bytes, out);
  cairo_surface_finish (surface);
  if (status == CAIRO_STATUS_SUCCESS)
    status = cairo_surface_status (surface);
  cairo_surface_destroy (surface);
  /* jmem draws one picture: cairo's font caches and fontconfig's
   * configuration go with it (memcheck and LeakSanitizer see them
   * otherwise), and neither is used again */
  cairo_debug_reset_static_data ();
  FcFini ();
  if (status != CAIRO_STATUS_SUCCESS)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "cairo could not draw the plot: %s",
                   cairo_status_to_string (status));
      return NULL;
    }
  if (report != NULL)
    {
      g_autofree char *title = title_text (d);

      g_string_append_printf (report, "Title: %s\n", title);
      report_series (report, d);
      if (o->projection != NULL && o->projection->text != NULL)
        g_string_append_printf (report, "%s%s\n", o->projection->text,
                                o->projection->fitted && d->any_headroom
                                  ? " The fitted line of the allocatable memory after reclaim is "
                                    "drawn red, dashed past the last sample." : "");
    }
  return g_byte_array_free_to_bytes (g_steal_pointer (&out));
}
