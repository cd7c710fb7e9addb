/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Writing a history file (JSON Lines, jmem-history.h): `jmem watch
 * --output` and the flight recorder append one line per sample under a cap,
 * thinning old samples into tiers (jmem-history-tiers.h) when asked. */
#pragma once

#include <glib.h>
#include <sys/types.h>

G_BEGIN_DECLS

/* --max-bytes by default: a day of 5 s samples of a small board, bounded. */
#define JMEM_HISTORY_DEFAULT_MAX_BYTES (G_GUINT64_CONSTANT (64) * 1024 * 1024)

/* Below this a cap would hold no useful history and rewrite on every sample. */
#define JMEM_HISTORY_MIN_MAX_BYTES 4096

/* A capped file is rewritten down to this percentage of the cap, so the
 * rewrite (a copy of the file) happens once per quarter of it, not per sample. */
#define JMEM_HISTORY_REWRITE_PERCENT 75

typedef struct _JmemHistoryWriter JmemHistoryWriter;

/* Opens @path for appending through jmem_write_open_append(), creating it
 * (mode 0600) when missing; what a trim killed mid-way left beside it is
 * removed. A file whose last line is unterminated (a writer killed
 * mid-line) is cut back to its last complete line. Only a regular file is
 * taken: a symbolic link, a FIFO or a device is refused at once, as root
 * also a file another user owns or could write (jmem-write.h). */
JmemHistoryWriter *jmem_history_writer_open (const char *path,
                                             guint64     max_bytes,
                                             GError    **error);

/* The same, a file it creates (and every rewrite) being mode @mode: 0640
 * for a history a group reads (the flight recorder's, whose directory is
 * set-group-ID to that group). */
JmemHistoryWriter *jmem_history_writer_open_with_mode (const char *path,
                                                       guint64     max_bytes,
                                                       mode_t      mode,
                                                       GError    **error);

/* Appends @line (one JSON document without a newline) and a newline; when
 * the disk takes only part of it, that part is cut off again, so the file
 * always ends with a complete line. When the line would pass the cap, the
 * file is rewritten without its oldest lines (down to
 * JMEM_HISTORY_REWRITE_PERCENT of the cap, the new line included) into a
 * temporary file in the same directory (mode 0600, never the old file's),
 * synced and renamed over it: a reader sees the old file or the new one,
 * never a torn line. A line larger than the cap alone is kept alone.
 * Several writers of one history (two `jmem watch --output` of one file)
 * take turns: each holds the file's lock (flock) across its append or
 * rewrite, and a writer whose file another's rewrite replaced, or that was
 * removed, writes to the file the path names now, so no line a writer
 * appended is lost but to the cap's trim of the oldest. */
gboolean jmem_history_writer_append (JmemHistoryWriter *writer,
                                     const char        *line,
                                     GError           **error);

/* With @tiers, a rewrite at the cap first thins the samples older than an
 * hour into the tiers of jmem-history-tiers.h (one a minute for a day, one
 * per quarter of an hour beyond) and drops the oldest only when that is not
 * enough: weeks fit where raw samples hold hours. */
void jmem_history_writer_set_tiers (JmemHistoryWriter *writer,
                                    gboolean           tiers);

void jmem_history_writer_free (JmemHistoryWriter *writer);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (JmemHistoryWriter, jmem_history_writer_free)

G_END_DECLS
