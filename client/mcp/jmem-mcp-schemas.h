/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The MCP tools' output schemas (docs/mcp-outputs.schema.json, compiled
 * into jmem): what an agent reads of each tool's document, with shared
 * definitions written once. */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* The output schema of tool @name: $defs/@name of the outputs document,
 * with the $defs it refers to, directly or through each other, and no
 * others, so a client's validator needs no other document. Without
 * "$schema", which the MCP revisions default to draft 2020-12 (and the
 * keywords used mean the same in draft-07), and without "$id", which names
 * no other document and which validators that parse it as a URI reject
 * ("dev.jmem" is not a valid URN namespace). */
JsonNode *jmem_mcp_schema_for_tool (const char *name,
                                    GError    **error);

G_END_DECLS
