/* SPDX-License-Identifier: GPL-2.0-or-later */
/* History files: one compact `jmem snapshot --json` document per line (JSON
 * Lines), appended by `jmem watch` and read by `jmem triage --history` and
 * `jmem diff --history`. docs/watch.md describes the format. */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>
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

/* Called for each snapshot of a history, in file order, with its 1-based
 * line number; @snapshot passed jmem_diff_check_snapshot(). Return FALSE to
 * stop reading. */
typedef gboolean (*JmemHistoryFunc) (JsonNode *snapshot,
                                     guint     line_number,
                                     gpointer  user_data);

/* Damaged lines named one by one in the warnings; past this they are counted. */
#define JMEM_HISTORY_MAX_NAMED_DAMAGE 10

/* Reads @path line by line (the file is never held whole). It must be a
 * regular file: a FIFO is refused without waiting on it
 * (G_IO_ERROR_NOT_REGULAR_FILE). Empty lines are skipped. A damaged line (not
 * a snapshot, or larger than JMEM_DIFF_MAX_FILE_BYTES) is skipped, and so is
 * an unterminated last line (a writer was killed mid-line): each adds a
 * sentence naming the file and line to @warnings (g_free'd strings; may be
 * NULL), the rest of the history is read. Fails with G_IO_ERROR codes when
 * the file cannot be read, with JMEM_ERROR_NOT_AVAILABLE when it holds no
 * line at all, and with JMEM_ERROR_INVALID_ARGUMENT, naming the first
 * damaged line, when no line is a snapshot. */
gboolean jmem_history_read (const char     *path,
                            JmemHistoryFunc func,
                            gpointer        user_data,
                            GPtrArray      *warnings,
                            GError        **error);

/* The same, a step at a time, for a face that stays responsive while a
 * long history loads (jmem top --replay). */
typedef struct _JmemHistoryReader JmemHistoryReader;

/* Opens @path as jmem_history_read() does; nothing is read yet. */
JmemHistoryReader *jmem_history_reader_open (const char *path,
                                             GError    **error);

/* Reads on until @func was called @max_snapshots times, it returned FALSE
 * or the file ended (*@done then TRUE). FALSE with @error when a read
 * failed. */
gboolean jmem_history_reader_step (JmemHistoryReader *reader,
                                   guint              max_snapshots,
                                   JmemHistoryFunc    func,
                                   gpointer           user_data,
                                   gboolean          *done,
                                   GError           **error);

/* Inside @func: the file offset where the snapshot's line starts. */
guint64 jmem_history_reader_get_line_offset (const JmemHistoryReader *reader);

/* How far the file has been read, for a progress figure. */
guint64 jmem_history_reader_get_offset (const JmemHistoryReader *reader);

/* After the last step: the warnings and errors jmem_history_read() gives. */
gboolean jmem_history_reader_finish (JmemHistoryReader *reader,
                                     GPtrArray         *warnings,
                                     GError           **error);

void jmem_history_reader_free (JmemHistoryReader *reader);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (JmemHistoryReader, jmem_history_reader_free)

/* In a thinned sample (the tiers of jmem-history-tiers.h), an object whose
 * figures are means holds their ranges in this member: {"pss_kib": [MIN,
 * MAX], ...}. */
#define JMEM_HISTORY_MIN_MAX "min_max"

/* For a sample of a history: how many samples it stands for (1, or more
 * for a thinned one). */
guint jmem_history_sample_count (JsonNode *snapshot);

/* The range of the figure @name of @parent (an object of a sample: the
 * document, a process's row, an NvMap row, a bucket) among the samples it
 * stands for. A raw sample, or a figure that did not move, has @value (the
 * figure itself, the mean of a thinned sample) as both ends. */
void jmem_history_figure_range (JsonObject *parent,
                                const char *name,
                                gint64      value,
                                gint64     *min,
                                gint64     *max);

G_END_DECLS
