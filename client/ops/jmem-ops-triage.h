/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Triage: the findings of the rules over one snapshot of every process. */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

#include "jmem-collect-boot.h"
#include "jmem-snapshot.h"

G_BEGIN_DECLS

typedef struct {
  const char      *sysroot;             /* a capture; NULL or "/" for the live system */
  guint            tegrastats_seconds;  /* 0: none, or a capture's recorded line */
  gboolean         allow_interactive;   /* polkit may ask for a password */
  JmemCollectBoot *boot;                /* per-boot facts kept between snapshots, or NULL */
} JmemOpsTriageOptions;

/* The snapshot triage looks at (every process, a capture's recorded
 * tegrastats line), with its findings; NULL with JMEM_ERROR_NOT_AVAILABLE
 * when the capture holds none. */
JmemSnapshot *jmem_ops_triage (const JmemOpsTriageOptions *options,
                               GError                    **error);

/* The jmem-triage document (docs/triage.schema.json) of @findings. */
JsonNode *jmem_ops_triage_json (GPtrArray *findings);

/* The history the rules over time read when given none: $JMEM_HISTORY
 * when set and not empty, else the flight recorder's
 * (jmem-recorder.service, JMEM_HISTORY_DEFAULT_PATH). */
const char *jmem_ops_default_history (void);

/* The findings of the rules over time on the history @path, projecting
 * when less than @need_kib stays allocatable (0: none), and in *@n_samples
 * how many samples it held; NULL with @error where the history cannot be
 * read (its damaged lines are added to @warnings, which may be NULL). */
GPtrArray *jmem_ops_triage_history (const char *path,
                                    gint64      need_kib,
                                    GPtrArray  *warnings,
                                    guint      *n_samples,
                                    GError    **error);

G_END_DECLS
