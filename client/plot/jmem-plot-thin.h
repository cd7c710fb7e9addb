/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A history thinned to what a picture can show: at most so many slots
 * (about one per pixel column), each the minimum, maximum and mean of the
 * samples it holds. When the slots are full, neighbours merge pairwise and
 * each slot holds twice as many samples: memory stays bounded however long
 * the history, and a spike stays in its slot's maximum. Up to the limit a
 * slot is one sample, and the points are the samples themselves. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The slots' times, shared by every track of one picture. */
typedef struct {
  guint   max_slots;   /* even, at least 2 */
  guint64 per_slot;    /* samples per slot, a power of two */
  guint64 n_samples;
  GArray *spans;       /* JmemPlotSpan, one per slot */
} JmemPlotClock;

typedef struct {
  gint64 first;        /* the time of a slot's first and last sample */
  gint64 last;
} JmemPlotSpan;

typedef struct {
  double  min;
  double  max;
  double  sum;
  guint32 n;           /* samples present; 0: absent from the whole slot */
  gboolean max_first;  /* the maximum came before the minimum */
} JmemPlotSlot;

/* One series' slots, from the first slot it appears in. */
typedef struct {
  guint   first_slot;
  GArray *slots;       /* JmemPlotSlot; NULL before its first value */
} JmemPlotTrack;

void jmem_plot_clock_init (JmemPlotClock *clock, guint max_slots);
void jmem_plot_clock_clear (JmemPlotClock *clock);

/* Makes room for a sample taken at @t and returns its slot. When the slots
 * were full they are merged pairwise first, and *@merged is set: the
 * caller then halves every track with jmem_plot_track_halve(). */
guint jmem_plot_clock_add (JmemPlotClock *clock, gint64 t, gboolean *merged);

void jmem_plot_track_add (JmemPlotTrack *track, guint slot, double value);
void jmem_plot_track_halve (JmemPlotTrack *track);
void jmem_plot_track_clear (JmemPlotTrack *track);

/* The points to draw (JmemPlotPoint, jmem-plot-series.h, appended to
 * @points): one per slot while a slot is one sample (NAN where absent);
 * past that, for a line (@mean FALSE) the slot's minimum and maximum in the
 * order they came, at the slot's first and last time, and for a stack
 * (@mean TRUE) one point per slot, its mean, at the slot's middle, so that
 * stacked tracks stay aligned. */
void jmem_plot_track_points (const JmemPlotTrack *track, const JmemPlotClock *clock,
                             gboolean mean, GArray *points);

G_END_DECLS
