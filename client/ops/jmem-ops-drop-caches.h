/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Dropping the kernel's caches through the helper, and what that freed. */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

typedef struct {
  guint       level;              /* 1 page cache, 2 dentries and inodes, 3 both */
  gboolean    compact;            /* also compact memory */
  gboolean    allow_interactive;  /* polkit may ask for a password */
  const char *container;          /* jmem_container_detect()'s evidence, or NULL */
} JmemOpsDropCachesOptions;

/* Drops caches between two readings of the system's memory: the
 * jmem-drop-caches document (docs/drop-caches.schema.json), or NULL with
 * the helper's error (its code; the message starts "caches were not
 * dropped: "), JMEM_CLIENT_ERROR_NO_COMPACTION where compaction cannot be. */
JsonNode *jmem_ops_drop_caches (const JmemOpsDropCachesOptions *options,
                                GError                        **error);

G_END_DECLS
