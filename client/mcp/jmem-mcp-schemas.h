/* The published JSON schemas (docs/NAME.schema.json, compiled into jmem) as
 * MCP output schemas: one self-contained document per tool. */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* @name is a schema's short name ("snapshot", "audit", ...). The document
 * with every schema it refers to by $id copied under its "$defs" and the
 * references rewritten to point there, so a client's validator needs no
 * other document. Without "$schema", which the MCP revisions default to
 * draft 2020-12 and the SDK's validator refuses to look up, and without
 * "$id": it names no other document now, and validators that parse it as
 * a URI reject its namespace ("dev.jmem" is not a valid URN NID). */
JsonNode *jmem_mcp_schema_bundle (const char *name,
                                  GError    **error);

G_END_DECLS
