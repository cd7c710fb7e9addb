/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Taking a snapshot, as every face asks for one. */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

#include "jmem-collect.h"  /* JMEM_COLLECT_DEFAULT_TOP, JmemCollectBoot */
#include "jmem-snapshot.h"

G_BEGIN_DECLS

typedef struct {
  const char      *sysroot;             /* a capture; NULL or "/" for the live system */
  int              top;                 /* processes kept, largest first; < 0 every one */
  guint            tegrastats_seconds;  /* 0: run no tegrastats */
  gboolean         recorded_tegrastats; /* with tegrastats_seconds 0, read a capture's
                                         * recorded line where it has one (costs nothing) */
  gboolean         allow_interactive;   /* polkit may ask for a password */
  JmemCollectBoot *boot;                /* per-boot facts kept between snapshots, or NULL */
  JmemSampler     *sampler;             /* processes kept between samples, or NULL */
} JmemOpsSnapshotOptions;

/* Never fails for a source that cannot be read (that is a warning in the
 * snapshot); fails with JMEM_ERROR_NOT_AVAILABLE when the capture
 * @options->sysroot holds none. */
JmemSnapshot *jmem_ops_snapshot (const JmemOpsSnapshotOptions *options,
                                 GError                      **error);

/* The jmem-snapshot document (docs/snapshot.schema.json) of @snapshot; with
 * @pid >= 0, only that process's process, NvMap and GPU rows. */
JsonNode *jmem_ops_snapshot_json (JmemSnapshot *snapshot,
                                  gint64        pid);

G_END_DECLS
