/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What drop-caches and audit share inside the operations. */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* jmem_helper_start(), failing as a drop does ("caches were not dropped:
 * why"): a drop needs the helper, and the readings around it should not
 * wait for one that cannot start. */
gboolean jmem_ops_start_helper (GError **error);

/* Calls the helper's DropCaches, or fails with its error ("caches were not
 * dropped: why"; JMEM_CLIENT_ERROR_NO_COMPACTION where @compact cannot be). */
gboolean jmem_ops_call_drop_caches (guint       level,
                                    gboolean    compact,
                                    gboolean    allow_interactive,
                                    GVariant  **result,
                                    GError    **error);

/* The "level", "compact" and "helper_result" members that drop-caches and
 * audit both write (docs/drop-caches.schema.json). */
void jmem_ops_add_drop_json (JsonBuilder *builder,
                             int          level,
                             gboolean     compact,
                             GVariant    *result);

/* The "container" member: {evidence, note}, or null when @evidence is NULL. */
void jmem_ops_add_container_json (JsonBuilder *builder,
                                  const char  *evidence);

G_END_DECLS
