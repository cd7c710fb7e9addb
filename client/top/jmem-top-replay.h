/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A history for jmem top --replay, read a step at a time while the screen
 * answers keys: only where each snapshot's line starts is kept (8 bytes a
 * sample), and a frame is parsed again when it is shown, so a history of
 * any length plays in bounded memory. */
#pragma once

#include <glib.h>

#include "jmem-frame.h"

G_BEGIN_DECLS

typedef struct _JmemTopReplay JmemTopReplay;

/* Opens @path (a regular file) and reads until its first snapshot, or for
 * about @first_ms whichever is longer, so that a short history is whole
 * before the screen starts. Fails as jmem_history_read() does when the file
 * cannot be read or holds no snapshot at all; the warnings so far go to
 * @warnings. */
JmemTopReplay *jmem_top_replay_open (const char *path,
                                     guint       first_ms,
                                     GPtrArray  *warnings,
                                     GError    **error);

/* Reads on for about @budget_us; TRUE when the whole file has been read
 * (or a read failed: @error, the samples so far stay). Warnings (damaged
 * lines) go to @warnings. */
gboolean jmem_top_replay_load (JmemTopReplay *replay,
                               gint64         budget_us,
                               GPtrArray     *warnings,
                               GError       **error);

/* From now on each sample read is kept as it is read, for a caller that
 * shows every sample in turn (jmem_top_replay_get() then parses none again),
 * reading on with a budget of 0: a step of fewer than
 * JMEM_TOP_REPLAY_CACHED samples at a time. */
void jmem_top_replay_keep_frames (JmemTopReplay *replay);

gboolean jmem_top_replay_is_loaded (const JmemTopReplay *replay);

/* The part of the file read, 0 to 100. */
guint jmem_top_replay_get_percent (const JmemTopReplay *replay);

/* The samples found so far. */
guint jmem_top_replay_get_n (const JmemTopReplay *replay);

/* Once loaded: when the memory allocatable after reclaim runs out at the
 * history's trend ("out of memory in 15.1 d (14.2-16.0, projected)", as
 * jmem_triage_history_projection_text() gives it), or NULL when the history
 * gives no projection. */
const char *jmem_top_replay_get_projection (const JmemTopReplay *replay);

/* Sample @index (below get_n), owned by @replay and valid until a sample
 * JMEM_TOP_REPLAY_CACHED further away is asked for; NULL where the line
 * cannot be read again (the file changed under it). */
#define JMEM_TOP_REPLAY_CACHED 128
const JmemFrame *jmem_top_replay_get (JmemTopReplay *replay,
                                      guint          index);

void jmem_top_replay_free (JmemTopReplay *replay);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (JmemTopReplay, jmem_top_replay_free)

G_END_DECLS
