/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The allocations tool's document: the largest NvMap handles under their
 * clients, and every handle summed up by what an agent acts on, the
 * process and the tag, within the result limit however many handles and
 * tags there are. */
#pragma once

#include <json-glib/json-glib.h>

#include "jmem-nvmap.h"
#include "jmem-ops-allocations.h"

G_BEGIN_DECLS

/* The processes and the tags totals.by_process and totals.by_tag name;
 * the rest is one line each (other_processes, other_tags). */
#define JMEM_MCP_ALLOCATIONS_PROCESSES 16
#define JMEM_MCP_ALLOCATIONS_TAGS 10

typedef struct _JmemMcpAllocations JmemMcpAllocations;

/* @pid: only this process's handles (< 0: all). @keep: the most handles
 * the document can list; handles are fed by jmem_mcp_allocations_add_all(). */
JmemMcpAllocations *jmem_mcp_allocations_new (gint64 pid,
                                              guint  keep);
void jmem_mcp_allocations_free (JmemMcpAllocations *a);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (JmemMcpAllocations, jmem_mcp_allocations_free)

/* Every row of @read, one at a time: only the handles the document can
 * list are kept. FALSE with the error where the rows cannot be read again. */
gboolean jmem_mcp_allocations_add_all (JmemMcpAllocations       *a,
                                       const JmemOpsAllocations *read,
                                       GError                  **error);

/* The document (docs/allocations.schema.json) listing the @shown largest
 * handles (at most the @keep given), the others counted in "omitted", and
 * "totals" over every handle; the file's own facts (via, layout, total)
 * from @read. */
JsonNode *jmem_mcp_allocations_json (JmemMcpAllocations       *a,
                                     guint                     shown,
                                     const JmemOpsAllocations *read);

/* How many handles it holds to show. */
guint jmem_mcp_allocations_n_kept (JmemMcpAllocations *a);

G_END_DECLS
