/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Audit: snapshot, drop caches (or wait), snapshot again, and compare. */
#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "jmem-collect-boot.h"
#include "jmem-diff.h"

G_BEGIN_DECLS

typedef struct {
  guint            level;              /* what to drop: 1, 2 or 3 (jmem_ops_drop_caches()) */
  gboolean         compact;            /* also compact memory */
  gboolean         no_drop;            /* drop nothing: wait wait_seconds instead */
  guint            wait_seconds;
  int              top;                /* the largest processes each snapshot keeps in the
                                        * document (the diff sees them all); < 0 every one */
  gboolean         allow_interactive;  /* polkit may ask for a password */
  const char      *container;          /* jmem_container_detect()'s evidence, or NULL */
  JmemCollectBoot *boot;               /* per-boot facts kept between snapshots, or NULL */
  JmemDiffFlags    diff_flags;         /* for jmem_diff_snapshots() */
  GCancellable    *cancellable;        /* stops the audit between its steps and in its
                                        * wait (G_IO_ERROR_CANCELLED), or NULL */
} JmemOpsAuditOptions;

/* The jmem-audit document (docs/audit.schema.json), or NULL with the error:
 * a refused drop (the helper's code), a snapshot that could not be taken
 * (JMEM_CLIENT_ERROR_SNAPSHOT_FAILED) or G_IO_ERROR_CANCELLED. A drop the
 * helper has begun is waited for: caches dropped halfway stay dropped. */
JsonNode *jmem_ops_audit (const JmemOpsAuditOptions *options,
                          GError                   **error);

G_END_DECLS
