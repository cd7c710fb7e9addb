/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The TREND column of jmem top: a process's footprint over its last
 * samples as a sparkline, and its growth per minute. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Samples a sparkline shows at most: a minute at the default interval. */
#define JMEM_TOP_TREND_SAMPLES 60

typedef struct {
  gint64 t_ms;   /* the sample's time (ms since the epoch) */
  gint64 kib;    /* -1: the process was not in that sample */
} JmemTopPoint;

/* The last JMEM_TOP_TREND_SAMPLES points of one series, oldest first. */
typedef struct {
  JmemTopPoint points[JMEM_TOP_TREND_SAMPLES];
  guint        n;
} JmemTopSeries;

void jmem_top_series_push (JmemTopSeries *series,
                           gint64         t_ms,
                           gint64         kib);

/* The sparkline of the last @cells points, newest at the right, padded with
 * blanks on the left; each point one of eight levels between the window's
 * lowest and highest value (all at the lowest when they are equal), a blank
 * where the process was absent. Unicode blocks (U+2581 to U+2588) when
 * @unicode, else the ASCII "_.-=+*#@". */
char *jmem_top_sparkline (const JmemTopSeries *series,
                          guint                cells,
                          gboolean             unicode);

/* Growth per minute over the window: (newest − oldest present point) over
 * the time between them, in KiB; FALSE when fewer than two points or no
 * time between them. */
gboolean jmem_top_series_growth (const JmemTopSeries *series,
                                 double              *kib_per_minute);

/* A size in at most 6 columns, binary units with one letter: "512K",
 * "12.3M", "1.2G", "123G"; "-" when @kib < 0. */
char *jmem_top_size (gint64 kib);

/* Growth per minute in at most 8 columns: "+1.2M/m", "-512K/m", "0/m". */
char *jmem_top_growth_text (double kib_per_minute);

G_END_DECLS
