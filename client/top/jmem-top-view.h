/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What jmem top's table shows of a frame: the rows after the filter, the
 * grouping by container and the sort, each with its trend. Pure data: the
 * screen (jmem-top-screen.c) draws it, the tests check it. */
#pragma once

#include <glib.h>

#include "jmem-frame.h"
#include "jmem-top-layout.h"
#include "jmem-top-trend.h"

G_BEGIN_DECLS

/* The series of every process and container seen in the last
 * JMEM_TOP_TREND_SAMPLES frames. */
typedef struct _JmemTopTrends JmemTopTrends;

JmemTopTrends *jmem_top_trends_new (void);
void jmem_top_trends_free (JmemTopTrends *trends);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (JmemTopTrends, jmem_top_trends_free)
/* Forgets every series (a replay that seeks starts them again). */
void jmem_top_trends_clear (JmemTopTrends *trends);
/* Adds @frame's footprints: one point for every series, -1 for those the
 * frame lacks; a series absent from its whole window is forgotten. */
void jmem_top_trends_feed (JmemTopTrends   *trends,
                           const JmemFrame *frame);

typedef struct {
  char    *key;            /* names the row across frames */
  gint64   pid;            /* -1 for a container's group */
  char    *name;           /* raw (valid UTF-8), escaped when drawn */
  char    *user;
  char    *container;      /* "runtime/id" or NULL */
  gint64   values[JMEM_TOP_N_COLS];  /* the size columns; -1 unknown */
  gboolean pss_kept;       /* PSS and swap from an earlier sample */
  guint    n_members;      /* a group's processes */
  const JmemTopSeries *series;  /* NULL: no trend yet */
  gboolean has_growth;
  double   growth_kib_per_minute;
} JmemTopRow;

typedef struct {
  JmemTopColumn sort;
  gboolean      reverse;
  gboolean      group;     /* one row per container (and one for the host) */
  const char   *filter;    /* case-insensitive text in name, user or container; NULL: all */
} JmemTopViewOptions;

/* The rows of @frame (JmemTopRow), sorted: sizes and growth largest first,
 * texts in alphabetical order, unknown values last either way; @reverse
 * turns the order round (unknowns stay last). */
GPtrArray *jmem_top_view_rows (const JmemFrame          *frame,
                               const JmemTopTrends      *trends,
                               const JmemTopViewOptions *options);

/* Whether any process of @frame has a value for NVMAP, GPU. */
void jmem_top_view_known (const JmemFrame *frame,
                          gboolean        *has_nvmap,
                          gboolean        *has_gpu);

G_END_DECLS
