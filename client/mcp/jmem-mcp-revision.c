/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "jmem-mcp-revision.h"

#include "jmem-config.h"

#define META_PROTOCOL_VERSION "io.modelcontextprotocol/protocolVersion"
#define META_CLIENT_CAPABILITIES "io.modelcontextprotocol/clientCapabilities"
#define META_SERVER_INFO "io.modelcontextprotocol/serverInfo"

/* How long a client may keep a tools/list: the tools are fixed for the
 * server's life; an hour lets a client that keeps it across restarts of the
 * server (which 2026-07-28 allows) see an upgrade's tools the same day. */
#define LIST_TTL_MS 3600000

#define TOOLS_FEATURES (JMEM_MCP_ANNOTATIONS | JMEM_MCP_TITLES | JMEM_MCP_STRUCTURED)

/* What each revision defines for a tools-only server (docs/mcp.md), newest
 * first. */
static const JmemMcpRevision revisions[] = {
  { JMEM_MCP_PROTOCOL_LATEST, TOOLS_FEATURES | JMEM_MCP_STATELESS, FALSE },
  { JMEM_MCP_PROTOCOL_LATEST_HANDSHAKE, TOOLS_FEATURES, FALSE },
  { "2025-06-18", TOOLS_FEATURES, FALSE },
  { "2025-03-26", JMEM_MCP_ANNOTATIONS, TRUE },
  { "2024-11-05", 0, FALSE },
};

static const JmemMcpRevision *
find (const char *name)
{
  for (gsize i = 0; i < G_N_ELEMENTS (revisions); i++)
    if (g_str_equal (name, revisions[i].name))
      return &revisions[i];
  return NULL;
}

const JmemMcpRevision *
jmem_mcp_revision_for_initialize (const char *asked)
{
  const JmemMcpRevision *revision = asked != NULL ? find (asked) : NULL;

  /* the client's revision where it has a handshake, else the newest that
   * has one: the client then decides whether it speaks that one */
  if (revision == NULL || JMEM_MCP_REVISION_STATELESS (revision))
    revision = find (JMEM_MCP_PROTOCOL_LATEST_HANDSHAKE);
  return revision;
}

void
jmem_mcp_revision_error_clear (JmemMcpRevisionError *error)
{
  g_clear_pointer (&error->message, g_free);
  g_clear_pointer (&error->data, json_node_unref);
}

JsonNode *
jmem_mcp_revision_names (void)
{
  g_autoptr(JsonArray) names = json_array_new ();

  for (gsize i = 0; i < G_N_ELEMENTS (revisions); i++)
    json_array_add_string_element (names, revisions[i].name);
  return json_node_init_array (json_node_alloc (), names);
}

static gboolean
holds_string (JsonNode *node)
{
  return node != NULL && JSON_NODE_HOLDS_VALUE (node) &&
         json_node_get_value_type (node) == G_TYPE_STRING;
}

gboolean
jmem_mcp_revision_of_request (JsonObject             *params,
                              const JmemMcpRevision **revision,
                              JmemMcpRevisionError   *error)
{
  JsonNode *meta = params != NULL ? json_object_get_member (params, "_meta") : NULL;
  JsonNode *version, *capabilities;
  const char *asked;

  *revision = NULL;
  if (meta == NULL || !JSON_NODE_HOLDS_OBJECT (meta))
    return TRUE;
  version = json_object_get_member (json_node_get_object (meta), META_PROTOCOL_VERSION);
  if (version == NULL)
    return TRUE;
  if (!holds_string (version))
    {
      error->code = JMEM_MCP_INVALID_PARAMS;
      error->message = g_strdup ("Invalid params: _meta \"" META_PROTOCOL_VERSION
                                 "\" must be a string");
      return FALSE;
    }
  asked = json_node_get_string (version);
  *revision = find (asked);
  if (*revision == NULL)
    {
      g_autoptr(JsonObject) data = json_object_new ();

      json_object_set_member (data, "supported", jmem_mcp_revision_names ());
      json_object_set_string_member (data, "requested", asked);
      error->code = JMEM_MCP_UNSUPPORTED_PROTOCOL_VERSION;
      error->message = g_strdup ("Unsupported protocol version");
      error->data = json_node_init_object (json_node_alloc (), data);
      return FALSE;
    }
  capabilities = json_object_get_member (json_node_get_object (meta), META_CLIENT_CAPABILITIES);
  if (JMEM_MCP_REVISION_STATELESS (*revision) &&
      (capabilities == NULL || !JSON_NODE_HOLDS_OBJECT (capabilities)))
    {
      error->code = JMEM_MCP_INVALID_PARAMS;
      error->message = g_strdup_printf ("Invalid params: a %s request needs the object _meta \""
                                        META_CLIENT_CAPABILITIES "\"", (*revision)->name);
      *revision = NULL;
      return FALSE;
    }
  return TRUE;
}

JsonNode *
jmem_mcp_revision_server_info (JmemMcpFeatures features)
{
  g_autoptr(JsonObject) info = json_object_new ();

  json_object_set_string_member (info, "name", "jmem");
  if (features & JMEM_MCP_TITLES)
    json_object_set_string_member (info, "title", "jmem: who holds memory on this Jetson");
  json_object_set_string_member (info, "version", JMEM_VERSION);
  return json_node_init_object (json_node_alloc (), info);
}

static JsonObject *
result_meta (JsonObject *result)
{
  if (!json_object_has_member (result, "_meta"))
    json_object_set_object_member (result, "_meta", json_object_new ());
  return json_object_get_object_member (result, "_meta");
}

void
jmem_mcp_revision_finish_result (JsonNode       *result,
                                 JmemMcpFeatures features)
{
  JsonObject *object = json_node_get_object (result);
  JsonObject *meta;

  if (!(features & JMEM_MCP_STATELESS))
    return;
  json_object_set_string_member (object, "resultType", "complete");
  meta = result_meta (object);
  /* name and version: who answered, in as few bytes as every result can
   * afford; the title is server/discover's, where a client shows it */
  if (!json_object_has_member (meta, META_SERVER_INFO))
    json_object_set_member (meta, META_SERVER_INFO,
                            jmem_mcp_revision_server_info (features & ~JMEM_MCP_TITLES));
}

void
jmem_mcp_revision_add_server_title (JsonObject     *result,
                                    JmemMcpFeatures features)
{
  json_object_set_member (result_meta (result), META_SERVER_INFO,
                          jmem_mcp_revision_server_info (features));
}

void
jmem_mcp_revision_add_cache_hints (JsonObject     *result,
                                   JmemMcpFeatures features)
{
  if (!(features & JMEM_MCP_STATELESS))
    return;
  json_object_set_int_member (result, "ttlMs", LIST_TTL_MS);
  json_object_set_string_member (result, "cacheScope", "public");
}
