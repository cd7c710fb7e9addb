/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "jmem-plot-thin.h"

#include "jmem-plot-series.h"

#include <math.h>

void
jmem_plot_clock_init (JmemPlotClock *c, guint max_slots)
{
  c->max_slots = MAX (2, max_slots & ~1u);
  c->per_slot = 1;
  c->n_samples = 0;
  c->spans = g_array_new (FALSE, FALSE, sizeof (JmemPlotSpan));
}

void
jmem_plot_clock_clear (JmemPlotClock *c)
{
  g_clear_pointer (&c->spans, g_array_unref);
}

guint
jmem_plot_clock_add (JmemPlotClock *c, gint64 t, gboolean *merged)
{
  guint slot;

  *merged = FALSE;
  if (c->n_samples % c->per_slot == 0 && c->spans->len == c->max_slots)
    {
      for (guint i = 0; i < c->spans->len / 2; i++)
        {
          JmemPlotSpan a = g_array_index (c->spans, JmemPlotSpan, 2 * i);
          JmemPlotSpan b = g_array_index (c->spans, JmemPlotSpan, 2 * i + 1);
          JmemPlotSpan both = { a.first, b.last };

          g_array_index (c->spans, JmemPlotSpan, i) = both;
        }
      g_array_set_size (c->spans, c->spans->len / 2);
      c->per_slot *= 2;
      *merged = TRUE;
    }
  slot = (guint) (c->n_samples / c->per_slot);
  if (slot == c->spans->len)
    {
      JmemPlotSpan span = { t, t };

      g_array_append_val (c->spans, span);
    }
  else
    g_array_index (c->spans, JmemPlotSpan, slot).last = t;
  c->n_samples++;
  return slot;
}

static JmemPlotSlot *
track_slot (JmemPlotTrack *tr, guint slot)
{
  if (tr->slots == NULL)
    {
      tr->slots = g_array_new (FALSE, TRUE, sizeof (JmemPlotSlot));
      tr->first_slot = slot;
    }
  if (slot - tr->first_slot >= tr->slots->len)
    g_array_set_size (tr->slots, slot - tr->first_slot + 1);
  return &g_array_index (tr->slots, JmemPlotSlot, slot - tr->first_slot);
}

void
jmem_plot_track_add (JmemPlotTrack *tr, guint slot, double v)
{
  JmemPlotSlot *s = track_slot (tr, slot);

  if (s->n == 0)
    {
      s->min = s->max = s->sum = v;
      s->n = 1;
      return;
    }
  if (v > s->max)
    {
      s->max = v;
      s->max_first = FALSE;
    }
  if (v < s->min)
    {
      s->min = v;
      s->max_first = TRUE;
    }
  s->sum += v;
  s->n++;
}

/* @a before @b; either may be empty. */
static JmemPlotSlot
merge (const JmemPlotSlot *a, const JmemPlotSlot *b)
{
  JmemPlotSlot m;
  gboolean max_from_a, min_from_a;

  if (a->n == 0)
    return *b;
  if (b->n == 0)
    return *a;
  max_from_a = a->max >= b->max;
  min_from_a = a->min <= b->min;
  m.max = max_from_a ? a->max : b->max;
  m.min = min_from_a ? a->min : b->min;
  m.sum = a->sum + b->sum;
  m.n = a->n + b->n;
  if (max_from_a == min_from_a)
    m.max_first = max_from_a ? a->max_first : b->max_first;
  else
    m.max_first = max_from_a;
  return m;
}

void
jmem_plot_track_halve (JmemPlotTrack *tr)
{
  JmemPlotSlot empty = { 0 };
  guint first, last;

  if (tr->slots == NULL)
    return;
  first = tr->first_slot / 2;
  last = (tr->first_slot + tr->slots->len - 1) / 2;
  for (guint g = first; g <= last; g++)
    {
      const JmemPlotSlot *a = &empty, *b = &empty;

      if (2 * g >= tr->first_slot)
        a = &g_array_index (tr->slots, JmemPlotSlot, 2 * g - tr->first_slot);
      if (2 * g + 1 - tr->first_slot < tr->slots->len)
        b = &g_array_index (tr->slots, JmemPlotSlot, 2 * g + 1 - tr->first_slot);
      /* written over slots already read: index g - first <= 2 g - first_slot */
      g_array_index (tr->slots, JmemPlotSlot, g - first) = merge (a, b);
    }
  g_array_set_size (tr->slots, last - first + 1);
  tr->first_slot = first;
}

void
jmem_plot_track_clear (JmemPlotTrack *tr)
{
  g_clear_pointer (&tr->slots, g_array_unref);
}

static void
append_point (GArray *points, gint64 t, double kib)
{
  JmemPlotPoint p = { t, kib };

  g_array_append_val (points, p);
}

void
jmem_plot_track_points (const JmemPlotTrack *tr, const JmemPlotClock *c,
                        gboolean mean, GArray *points)
{
  for (guint i = 0; i < c->spans->len; i++)
    {
      const JmemPlotSpan *span = &g_array_index (c->spans, JmemPlotSpan, i);
      const JmemPlotSlot *s = NULL;

      if (tr->slots != NULL && i >= tr->first_slot && i - tr->first_slot < tr->slots->len)
        s = &g_array_index (tr->slots, JmemPlotSlot, i - tr->first_slot);
      if (s == NULL || s->n == 0)
        append_point (points, c->per_slot == 1 ? span->first : span->first / 2 + span->last / 2, NAN);
      else if (c->per_slot == 1)
        append_point (points, span->first, s->sum);
      else if (mean || s->min == s->max || span->first == span->last)
        append_point (points, span->first / 2 + span->last / 2,
                      mean ? s->sum / s->n : s->max);
      else
        {
          append_point (points, span->first, s->max_first ? s->max : s->min);
          append_point (points, span->last, s->max_first ? s->min : s->max);
        }
    }
}
