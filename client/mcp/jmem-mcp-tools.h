/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The tools `jmem mcp` offers: their schemas, their arguments, and the
 * operations that answer them. */
#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

typedef struct _JmemMcpTools JmemMcpTools;

/* What the protocol revision a session speaks defines for tools
 * (docs/mcp.md, "Protocol revisions"). */
typedef enum {
  JMEM_MCP_ANNOTATIONS = 1 << 0,  /* a tool's annotations: 2025-03-26 on */
  JMEM_MCP_TITLES      = 1 << 1,  /* a tool's title: 2025-06-18 on */
  JMEM_MCP_STRUCTURED  = 1 << 2,  /* outputSchema and structuredContent: 2025-06-18 on */
  JMEM_MCP_STATELESS   = 1 << 3,  /* no handshake; resultType, _meta serverInfo: 2026-07-28 on */
} JmemMcpFeatures;

/* Every tool result stays within this many bytes unless told otherwise. */
#define JMEM_MCP_DEFAULT_MAX_RESULT_BYTES (64 * 1024)
/* The least a result limit can be: what a snapshot needs with every list cut. */
#define JMEM_MCP_MIN_MAX_RESULT_BYTES (32 * 1024)

/* @sysroot: a capture every tool reads instead of the live system (NULL for
 * the live system). @max_result_bytes: the most a tools/call result takes,
 * as sent. Loads the output schemas once per server. */
JmemMcpTools *jmem_mcp_tools_new (const char *sysroot,
                                  gsize       max_result_bytes,
                                  GError    **error);
/* The triage tool adds the findings of the rules over time on the history
 * at @path (jmem watch's, read at each call): growth and the projection of
 * when memory runs out. The operator names it, never the agent. */
void jmem_mcp_tools_set_history (JmemMcpTools *tools,
                                 const char   *path);
void jmem_mcp_tools_free (JmemMcpTools *tools);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (JmemMcpTools, jmem_mcp_tools_free)

/* The "tools" array of a tools/list result, in a fixed order, with what
 * @features allow. */
JsonNode *jmem_mcp_tools_list (JmemMcpTools   *tools,
                               JmemMcpFeatures features);

/* Whether a tool is called @name. */
gboolean jmem_mcp_tools_has (JmemMcpTools *tools,
                             const char   *name);

/* Runs tool @name (which must exist) with @arguments (NULL for none): a
 * CallToolResult, with structuredContent where @features allow. Arguments
 * that do not match the tool's inputSchema and a tool that failed give a
 * result with isError true and the reason. A long tool (audit) stops early
 * when @cancellable (may be NULL) is cancelled; its result is then not to
 * be sent. Called from one thread at a time. */
JsonNode *jmem_mcp_tools_call (JmemMcpTools   *tools,
                               const char     *name,
                               JsonObject     *arguments,
                               JmemMcpFeatures features,
                               GCancellable   *cancellable);

/* A result with isError true and @text: a call refused before its tool ran. */
JsonNode *jmem_mcp_tools_error_result (const char *text);

/* The tools' names, "snapshot, triage, ...", in the order tools/list gives
 * them, for messages and --help. */
const char *jmem_mcp_tools_names (void);

G_END_DECLS
