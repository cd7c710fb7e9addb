/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Keeps a tool's result within the server's result limit, whatever the
 * input: a model pays for every byte of a result, and a board with
 * thousands of processes or NvMap clients must not flood its context. */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* The size in bytes of the result @doc would give, as sent. */
typedef gsize (*JmemMcpMeasure) (JsonNode *doc, gpointer user_data);

/* Command lines are cut to this many bytes first, then any string to the
 * second (a message naming thousands of processes). */
#define JMEM_MCP_FIT_CMDLINE_BYTES 256
#define JMEM_MCP_FIT_LONG_STRING_BYTES 2048
/* The last resort: every string cut to this many bytes. */
#define JMEM_MCP_FIT_STRING_BYTES 512

/* Shortens the object @doc until @measure says its result takes at most
 * @limit bytes: first each "cmdline" (with its "cmdline_truncated" set),
 * then every string longer than JMEM_MCP_FIT_LONG_STRING_BYTES, then the
 * arrays at the dotted paths of @lists (NULL-terminated, each sorted
 * largest first): each keeps its N first entries, N as large as fits (a
 * "shown" beside a list follows it), then every string. What was cut is
 * recorded in @doc's member "cut" ({limit_bytes, lists: [{list, kept,
 * total}], strings}). FALSE when even then it does not fit. */
gboolean jmem_mcp_fit (JsonNode           *doc,
                       const char * const *lists,
                       gsize               limit,
                       JmemMcpMeasure      measure,
                       gpointer            user_data);

/* Before jmem_mcp_fit(), for a result held to a budget smaller than the
 * limit: empties the arrays or objects at the dotted paths of @spare, in
 * their order (what a model needs least first), until @measure says the
 * result takes at most @limit bytes, each named in "cut" with kept 0. */
void jmem_mcp_fit_spare (JsonNode           *doc,
                         const char * const *spare,
                         gsize               limit,
                         JmemMcpMeasure      measure,
                         gpointer            user_data);

G_END_DECLS
