/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The series jmem plot draws, taken from a history's frames: pure data,
 * tested without cairo. */
#pragma once

#include <glib.h>

#include "jmem-plot.h"
#include "jmem-plot-thin.h"

G_BEGIN_DECLS

typedef struct {
  gint64 t;     /* unix seconds */
  double kib;   /* NAN: absent from that sample */
} JmemPlotPoint;

typedef struct {
  char    *key;
  gint64   pid;
  char    *name;          /* the latest, raw */
  char    *container;     /* "runtime/id" or NULL */
  GArray  *points;        /* JmemPlotPoint: one per sample, or per slot of a thinned history */
  JmemPlotTrack track;    /* the samples, thinned, as they are read */
  double   max_kib;
  guint    color;         /* palette index, shared by a process across panels */
  char    *annotation;    /* "+12.0 MiB/h nvmap-growing", or NULL */
} JmemPlotSeries;

typedef enum {
  JMEM_PLOT_PANEL_PROCESSES,  /* lines, one per process */
  JMEM_PLOT_PANEL_BUCKETS,    /* the accounting stacked, headroom lines over it */
  JMEM_PLOT_PANEL_HEADROOM,   /* headroom lines alone */
} JmemPlotPanelKind;

typedef struct {
  JmemPlotPanelKind kind;
  char      *title;
  GPtrArray *series;    /* JmemPlotSeries: processes, or buckets (stacked, in order) */
  GPtrArray *lines;     /* JmemPlotSeries drawn dashed over a BUCKETS or HEADROOM panel */
  double     max_kib;   /* the largest value drawn (a stack's top) */
} JmemPlotPanel;

typedef struct {
  GPtrArray *panels;    /* JmemPlotPanel */
  gint64     from;      /* the first and last sample's time */
  gint64     to;
  guint64    n_samples;
  char      *board;
  char      *hostname;
  guint      n_colors;  /* processes given a colour */
  gboolean   any_headroom;  /* a panel draws the allocatable memory */
} JmemPlotData;

/* The series of a picture, built one sample at a time (jmem-plot.h). */
struct _JmemPlotSamples {
  JmemPlotClock  clock;
  gboolean       metric_set;
  JmemPlotMetric metric;
  GHashTable    *main_by_key;   /* the main metric's series, by process */
  GPtrArray     *main;
  GHashTable    *nvmap_by_key;  /* NvMap below footprint (no --metric) */
  GPtrArray     *nvmap;
  GHashTable    *bucket_by_name;
  GPtrArray     *buckets;       /* in the order they first appear */
  GPtrArray     *headroom;      /* after reclaim, now */
  double         stack_max;     /* the largest stack of buckets, sample by sample */
  gboolean       any_nvmap;
  gboolean       any_buckets;
  gboolean       any_headroom;
  gint64         from;
  gint64         to;
  char          *board;
  char          *hostname;
};

/* Takes the series out of @options->samples, which is left empty. */
JmemPlotData *jmem_plot_data_new (const JmemPlotOptions *options);
void jmem_plot_data_free (JmemPlotData *data);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (JmemPlotData, jmem_plot_data_free)

G_END_DECLS
