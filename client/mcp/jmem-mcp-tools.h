/* The tools `jmem mcp` offers: their schemas, their arguments, and the
 * commands' code that answers them. */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

typedef struct _JmemMcpTools JmemMcpTools;

/* @sysroot: a capture every tool reads instead of the live system (NULL for
 * the live system). Loads the output schemas once per server. */
JmemMcpTools *jmem_mcp_tools_new (const char *sysroot,
                                  GError    **error);
void jmem_mcp_tools_free (JmemMcpTools *tools);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (JmemMcpTools, jmem_mcp_tools_free)

/* The "tools" array of a tools/list result, in a fixed order. */
JsonNode *jmem_mcp_tools_list (JmemMcpTools *tools);

/* Whether a tool is called @name. */
gboolean jmem_mcp_tools_has (JmemMcpTools *tools,
                             const char   *name);

/* Runs tool @name (which must exist) with @arguments (NULL for none): a
 * CallToolResult. Arguments that do not match the tool's inputSchema and a
 * tool that failed give a result with isError true and the reason. */
JsonNode *jmem_mcp_tools_call (JmemMcpTools *tools,
                               const char   *name,
                               JsonObject   *arguments);

/* The tools' names, "snapshot, triage, ...", for messages. */
const char *jmem_mcp_tools_names (void);

G_END_DECLS
