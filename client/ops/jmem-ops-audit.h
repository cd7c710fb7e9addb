/* Audit: snapshot, drop caches (or wait), snapshot again, and compare. */
#pragma once

#include <glib.h>
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
} JmemOpsAuditOptions;

/* The jmem-audit document (docs/audit.schema.json), or NULL with the error:
 * a refused drop (the helper's code) or a snapshot that could not be taken
 * (JMEM_CLIENT_ERROR_SNAPSHOT_FAILED). */
JsonNode *jmem_ops_audit (const JmemOpsAuditOptions *options,
                          GError                   **error);

G_END_DECLS
