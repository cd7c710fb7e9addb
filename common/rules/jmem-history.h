/* SPDX-License-Identifier: GPL-2.0-or-later */
/* History files: one compact `jmem snapshot --json` document per line (JSON
 * Lines), appended by `jmem watch` and read by `jmem triage --history` and
 * `jmem diff --history`. docs/watch.md describes the format. */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>
#include <sys/types.h>

G_BEGIN_DECLS

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

/* The same, each snapshot holding only @members (paths, as
 * jmem-json-paths.h writes them; NULL: all) besides what
 * jmem_diff_check_snapshot() reads: every line is still checked whole as
 * JSON and as a snapshot, and what no one reads is never built. A rule
 * over a month of samples reads its figures in a fraction of the time. */
gboolean jmem_history_read_members (const char        *path,
                                    const char *const *members,
                                    JmemHistoryFunc    func,
                                    gpointer           user_data,
                                    GPtrArray         *warnings,
                                    GError           **error);

/* The same, a step at a time, for a face that stays responsive while a
 * long history loads (jmem top --replay). */
typedef struct _JmemHistoryReader JmemHistoryReader;

/* Opens @path as jmem_history_read() does; nothing is read yet. */
JmemHistoryReader *jmem_history_reader_open (const char *path,
                                             GError    **error);

/* Builds only @members of each snapshot, as jmem_history_read_members(). */
void jmem_history_reader_set_members (JmemHistoryReader  *reader,
                                      const char *const *members);

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
