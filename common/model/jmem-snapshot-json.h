/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The snapshot as JSON: the shape is docs/snapshot.schema.json, the meaning
 * docs/field-guide.md. Memory is in KiB integers (*_kib), unknown is null. */
#pragma once

#include <json-glib/json-glib.h>

#include "jmem-snapshot.h"

G_BEGIN_DECLS

#define JMEM_SNAPSHOT_SCHEMA_NAME "jmem-snapshot"

/* A new JSON object node holding every field of @snapshot. */
JsonNode *jmem_snapshot_to_json (const JmemSnapshot *snapshot);

/* The "headroom" object of docs/snapshot.schema.json (null for NULL): what
 * `jmem headroom --json` and the MCP headroom tool carry too. */
JsonNode *jmem_headroom_to_json (const JmemHeadroom *headroom);

/* The same, serialised; @pretty indents with two spaces. */
char *jmem_snapshot_to_json_string (const JmemSnapshot *snapshot,
                                    gboolean            pretty);

G_END_DECLS
