/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "jmem-mcp-schemas.h"

#include "jmem-error.h"
#include "jmem-mcp-resources.h"

#include <gio/gio.h>
#include <string.h>

#define OUTPUTS_RESOURCE "/dev/jmem/schemas/mcp-outputs.schema.json"
#define DEFS_PREFIX "#/$defs/"

static JsonNode *
load_outputs (GError **error)
{
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  gsize len = 0;
  const char *data;
  JsonNode *root;

  bytes = g_resource_lookup_data (jmem_mcp_get_resource (), OUTPUTS_RESOURCE,
                                  G_RESOURCE_LOOKUP_FLAGS_NONE, NULL);
  if (bytes == NULL)
    {
      g_set_error (error, JMEM_ERROR, JMEM_ERROR_FAILED, "no output schemas in jmem");
      return NULL;
    }
  data = g_bytes_get_data (bytes, &len);
  if (!json_parser_load_from_data (parser, data, (gssize) len, error))
    return NULL;
  root = json_parser_get_root (parser);
  if (!JSON_NODE_HOLDS_OBJECT (root) ||
      !json_object_has_member (json_node_get_object (root), "$defs"))
    {
      g_set_error (error, JMEM_ERROR, JMEM_ERROR_FAILED, "the output schemas have no $defs");
      return NULL;
    }
  return json_parser_steal_root (parser);
}

/* Adds to @used the name of every "#/$defs/NAME" beneath @node, and the
 * definitions those refer to in turn. */
static gboolean
collect_refs (JsonObject *defs, JsonNode *node, GHashTable *used, GError **error)
{
  if (JSON_NODE_HOLDS_ARRAY (node))
    {
      JsonArray *array = json_node_get_array (node);

      for (guint i = 0; i < json_array_get_length (array); i++)
        if (!collect_refs (defs, json_array_get_element (array, i), used, error))
          return FALSE;
    }
  else if (JSON_NODE_HOLDS_OBJECT (node))
    {
      JsonObject *object = json_node_get_object (node);
      g_autoptr(GList) members = json_object_get_members (object);

      for (GList *l = members; l != NULL; l = l->next)
        {
          JsonNode *child = json_object_get_member (object, l->data);
          const char *ref, *name;

          if (!g_str_equal (l->data, "$ref") || !JSON_NODE_HOLDS_VALUE (child) ||
              json_node_get_value_type (child) != G_TYPE_STRING)
            {
              if (!collect_refs (defs, child, used, error))
                return FALSE;
              continue;
            }
          ref = json_node_get_string (child);
          name = ref + strlen (DEFS_PREFIX);
          if (!g_str_has_prefix (ref, DEFS_PREFIX) || strchr (name, '/') != NULL ||
              !json_object_has_member (defs, name))
            {
              g_set_error (error, JMEM_ERROR, JMEM_ERROR_FAILED,
                           "the output schemas refer to \"%s\", which is not one of their $defs",
                           ref);
              return FALSE;
            }
          if (g_hash_table_add (used, g_strdup (name)) &&
              !collect_refs (defs, json_object_get_member (defs, name), used, error))
            return FALSE;
        }
    }
  return TRUE;
}

JsonNode *
jmem_mcp_schema_for_tool (const char *name,
                          GError    **error)
{
  g_autoptr(JsonNode) outputs = load_outputs (error);
  g_autoptr(GHashTable) used = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GList) names = NULL;
  JsonObject *defs, *schema, *own_defs;
  JsonNode *root;

  if (outputs == NULL)
    return NULL;
  defs = json_object_get_object_member (json_node_get_object (outputs), "$defs");
  if (!json_object_has_member (defs, name) ||
      !JSON_NODE_HOLDS_OBJECT (json_object_get_member (defs, name)))
    {
      g_set_error (error, JMEM_ERROR, JMEM_ERROR_FAILED, "no output schema for the tool \"%s\"",
                   name);
      return NULL;
    }
  root = json_node_copy (json_object_get_member (defs, name));
  if (!collect_refs (defs, root, used, error))
    {
      json_node_unref (root);
      return NULL;
    }
  if (g_hash_table_size (used) == 0)
    return root;

  /* in the outputs document's order, so the schema reads the same each time */
  schema = json_node_get_object (root);
  own_defs = json_object_new ();
  names = json_object_get_members (defs);
  for (GList *l = names; l != NULL; l = l->next)
    if (g_hash_table_contains (used, l->data))
      json_object_set_member (own_defs, l->data, json_node_copy (json_object_get_member (defs, l->data)));
  json_object_set_object_member (schema, "$defs", own_defs);
  return root;
}
