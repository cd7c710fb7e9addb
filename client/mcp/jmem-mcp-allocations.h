/* The allocations tool's document: the largest NvMap handles under their
 * clients, and every handle summed up by what an agent acts on, the
 * process and the tag, within the result limit however many handles and
 * tags there are. */
#pragma once

#include <json-glib/json-glib.h>

#include "jmem-nvmap.h"
#include "jmem-ops-allocations.h"

G_BEGIN_DECLS

/* The processes and the tags summary.by_process and summary.by_tag name;
 * the rest is one line each (other_processes, other_tags). */
#define JMEM_MCP_ALLOCATIONS_PROCESSES 16
#define JMEM_MCP_ALLOCATIONS_TAGS 10

typedef struct _JmemMcpAllocations JmemMcpAllocations;

/* @pid: only this process's handles (< 0: all). @keep: the most handles
 * the document can list; handles are fed one client at a time. */
JmemMcpAllocations *jmem_mcp_allocations_new (gint64 pid,
                                              guint  keep);
void jmem_mcp_allocations_free (JmemMcpAllocations *a);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (JmemMcpAllocations, jmem_mcp_allocations_free)

/* A client row, then its handles (copied: the caller keeps them). */
void jmem_mcp_allocations_add_client (JmemMcpAllocations    *a,
                                      const JmemNvmapClient *client);
void jmem_mcp_allocations_add_handle (JmemMcpAllocations    *a,
                                      const JmemNvmapHandle *handle);

/* The document (docs/allocations.schema.json) listing the @shown largest
 * handles (at most the @keep given), the others counted in "omitted", and
 * "summary" over every handle; the file's own facts (via, layout, total)
 * from @read. */
JsonNode *jmem_mcp_allocations_json (JmemMcpAllocations       *a,
                                     guint                     shown,
                                     const JmemOpsAllocations *read);

/* How many handles it holds to show. */
guint jmem_mcp_allocations_n_kept (JmemMcpAllocations *a);

G_END_DECLS
