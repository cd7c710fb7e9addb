/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The mark of a capture that did not finish. `jmem capture` writes
 * jmem/capture-incomplete before anything else, records in it each step as
 * the step begins, and removes it once every file is written and synced:
 * a capture stopped by a signal, a crash or a full disk keeps it, and every
 * reader of the tree says so and what is missing (docs/capture-format.md).
 * A capture made before the marker existed has none and reads as whole. */
#pragma once

#include <glib.h>

#include "jmem-root.h"

G_BEGIN_DECLS

/* Relative to the capture, as messages name it; and as a path in it. */
#define JMEM_CAPTURE_MARKER_NAME "jmem/capture-incomplete"
#define JMEM_CAPTURE_MARKER_PATH "/" JMEM_CAPTURE_MARKER_NAME

/* In the order jmem capture writes them. */
typedef enum {
  JMEM_CAPTURE_STEP_HOST,
  JMEM_CAPTURE_STEP_PROCESSES,
  JMEM_CAPTURE_STEP_ACCOUNTS,
  JMEM_CAPTURE_STEP_PROGRAMS,
  JMEM_CAPTURE_STEP_NVMAP,
  JMEM_CAPTURE_STEP_THERMAL,
  JMEM_CAPTURE_STEP_SYSTEM,
  JMEM_CAPTURE_STEP_TEGRASTATS,
  JMEM_CAPTURE_N_STEPS,
} JmemCaptureStep;

typedef struct _JmemCaptureMarker JmemCaptureMarker;

/* Writes the marker into the new capture @out, at the first step, with the
 * steps this capture will take (the tegrastats line only when asked). */
JmemCaptureMarker *jmem_capture_marker_begin (JmemRoot *out,
                                              gboolean  with_tegrastats,
                                              GError  **error);

/* Records that @step begins. The record overwrites the marker's bytes in
 * place, so it needs no room on a full disk. */
gboolean jmem_capture_marker_step (JmemCaptureMarker *marker,
                                   JmemCaptureStep    step,
                                   GError           **error);

/* Every file written so far synced, then the marker removed. */
gboolean jmem_capture_marker_finish (JmemCaptureMarker *marker,
                                     GError           **error);

void jmem_capture_marker_free (JmemCaptureMarker *marker);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (JmemCaptureMarker, jmem_capture_marker_free)

/* For a tree that holds the marker: one sentence naming the step the
 * capture stopped in and what is missing because of it; NULL for a tree
 * without one (a whole capture, or one made before the marker existed). */
char *jmem_capture_marker_describe (JmemRoot *tree);

/* Whether @tree holds the marker of a capture stopped before @step was
 * finished (or at a step it does not name): what @step writes may then be
 * missing or cut short. */
gboolean jmem_capture_marker_lacks (JmemRoot        *tree,
                                    JmemCaptureStep  step);

/* What to do about such a tree. */
#define JMEM_CAPTURE_MARKER_ACTION \
  "make a new capture with `jmem capture DIR` (free space first if the disk was full)"

G_END_DECLS
