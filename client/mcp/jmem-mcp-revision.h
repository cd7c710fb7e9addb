/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The MCP revisions `jmem mcp` speaks, and how a request chooses one: the
 * session's `initialize` up to 2025-11-25, the request's own `_meta` from
 * 2026-07-28 on (docs/mcp.md, "Protocol revisions"). */
#pragma once

#include "jmem-mcp-tools.h"

G_BEGIN_DECLS

/* JSON-RPC and MCP error codes. */
#define JMEM_MCP_PARSE_ERROR -32700
#define JMEM_MCP_INVALID_REQUEST -32600
#define JMEM_MCP_METHOD_NOT_FOUND -32601
#define JMEM_MCP_INVALID_PARAMS -32602
#define JMEM_MCP_UNSUPPORTED_PROTOCOL_VERSION -32022  /* 2026-07-28 */

/* The newest revision spoken. */
#define JMEM_MCP_PROTOCOL_LATEST "2026-07-28"
/* The newest with an `initialize` handshake: the answer to an initialize
 * asking for one not spoken, and what a request that names none gets
 * before any initialize. */
#define JMEM_MCP_PROTOCOL_LATEST_HANDSHAKE "2025-11-25"

typedef struct {
  const char     *name;
  JmemMcpFeatures features;
  gboolean        batches;    /* JSON-RPC batches must be received */
} JmemMcpRevision;

/* Whether @revision is stateless (2026-07-28 on): no handshake, its version
 * and capabilities in every request's _meta, server/discover. */
#define JMEM_MCP_REVISION_STATELESS(revision) (((revision)->features & JMEM_MCP_STATELESS) != 0)

/* The revision an `initialize` asking for @asked (may be NULL) gets: that
 * one where it has a handshake, else JMEM_MCP_PROTOCOL_LATEST_HANDSHAKE. */
const JmemMcpRevision *jmem_mcp_revision_for_initialize (const char *asked);

/* Why a request's _meta was refused: an error to send as is. */
typedef struct {
  int       code;
  char     *message;
  JsonNode *data;     /* NULL: none */
} JmemMcpRevisionError;

void jmem_mcp_revision_error_clear (JmemMcpRevisionError *error);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (JmemMcpRevisionError, jmem_mcp_revision_error_clear)

/* The revision a request with @params (may be NULL) names in
 * `_meta["io.modelcontextprotocol/protocolVersion"]`: sets *@revision to it,
 * or to NULL where it names none (the session's then). FALSE, with
 * @error set, where it names one not spoken (-32022, with the versions
 * spoken) or is malformed: a version that is not a string, a stateless
 * request without `io.modelcontextprotocol/clientCapabilities` (-32602). */
gboolean jmem_mcp_revision_of_request (JsonObject             *params,
                                       const JmemMcpRevision **revision,
                                       JmemMcpRevisionError   *error);

/* The revisions spoken, newest first, as a JSON array of strings. */
JsonNode *jmem_mcp_revision_names (void);

/* The server's Implementation object (name, version, title where
 * @features have titles). */
JsonNode *jmem_mcp_revision_server_info (JmemMcpFeatures features);

/* What a revision with JMEM_MCP_STATELESS adds to every result object
 * @result: `resultType` and the server's name and version in `_meta` (where
 * it holds none yet). Nothing for the others. */
void jmem_mcp_revision_finish_result (JsonNode       *result,
                                      JmemMcpFeatures features);

/* The server's whole identity, its title too where @features have titles,
 * in the `_meta` of @result: server/discover's, where a client shows it. */
void jmem_mcp_revision_add_server_title (JsonObject     *result,
                                         JmemMcpFeatures features);

/* The caching hints (`ttlMs`, `cacheScope`) of a list result under a
 * revision with JMEM_MCP_STATELESS: the tools never change while a server
 * runs and are the same for every caller. Nothing for the others. */
void jmem_mcp_revision_add_cache_hints (JsonObject     *result,
                                        JmemMcpFeatures features);

G_END_DECLS
