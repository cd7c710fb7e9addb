/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Tiers of a history: old samples thinned so that weeks fit the cap. Every
 * sample of the last hour is kept, one a minute for the day before, one per
 * quarter of an hour beyond it. A thinned sample is a snapshot line whose figures
 * are the mean of the samples it stands for, carrying their minimum and
 * maximum and every process seen among them (docs/watch.md). */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* Samples younger than this (seconds before the newest) are kept as they are. */
#define JMEM_HISTORY_TIER_RAW_SECONDS 3600
/* Up to this age, one sample a minute. */
#define JMEM_HISTORY_TIER_MINUTE_SECONDS 86400
#define JMEM_HISTORY_TIER_MINUTE_WIDTH 60
/* Older: one per quarter of an hour (30 days of 5 s thin samples then fit
 * 64 MiB with room to spare; ten minutes would fill it to the brim). */
#define JMEM_HISTORY_TIER_OLD_WIDTH 900

/* One sample standing for @n_samples (in time order, each a snapshot
 * object, raw or thinned already): each integer figure is their mean,
 * weighted by the samples each stands for; the minimum and maximum of the
 * figures drawn over time (PSS, footprint, NvMap, GPU, the accounting's
 * buckets...), where they differ, beside it in its object's
 * JMEM_HISTORY_MIN_MAX member (jmem_history_figure_range()); "history"
 * says how many samples it stands for and their first and last time. Rows
 * of arrays are matched
 * by PID and start time (else by name, else by position); a row absent
 * from the last sample is kept as it was last seen. */
JsonNode *jmem_history_merge (JsonNode *const *samples,
                              guint            n_samples);

/* The lines of a history (@data, @len: whole lines) with those older than
 * JMEM_HISTORY_TIER_RAW_SECONDS before @now thinned into the tiers. Lines
 * are taken in file order and merged when neighbours fall in one tier's
 * same slot; a line alone in its slot is copied as it is, a damaged line
 * among merged ones is dropped, and one without a time is dropped. */
GString *jmem_history_tiers_apply (const char *data,
                                   gsize       len,
                                   gint64      now);

/* The time (collected.timestamp_unix) of a history line; -1 when it has none. */
gint64 jmem_history_line_time (const char *line,
                               gsize       len);

G_END_DECLS
