/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The framework gates of what a snapshot collected, and their JSON: one
 * place for the headroom operation's faces (human, JSON, MCP). */
#pragma once

#include <json-glib/json-glib.h>

#include "jmem-framework-gates.h"
#include "jmem-snapshot.h"

G_BEGIN_DECLS

/* JmemGate of @s for @headroom (its need and verdict), every framework's
 * or only @only's (JMEM_GATE_N: all). */
GPtrArray *jmem_snapshot_gates_new (const JmemSnapshot *s,
                                    const JmemHeadroom *headroom,
                                    JmemGateId          only);

/* The "gates" array of docs/headroom.schema.json. */
JsonNode *jmem_gates_to_json (GPtrArray *gates);

G_END_DECLS
