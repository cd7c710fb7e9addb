#include "jmem-mcp-schemas.h"

#include "jmem-error.h"
#include "jmem-mcp-resources.h"

#include <gio/gio.h>
#include <string.h>

#define URN_PREFIX "urn:dev.jmem:schema:"
#define RESOURCE_DIR "/dev/jmem/schemas/"

static JsonNode *
load (const char *name, GError **error)
{
  g_autofree char *path = g_strconcat (RESOURCE_DIR, name, ".schema.json", NULL);
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  gsize len = 0;
  const char *data;

  bytes = g_resource_lookup_data (jmem_mcp_get_resource (), path, G_RESOURCE_LOOKUP_FLAGS_NONE,
                                  NULL);
  if (bytes == NULL)
    {
      g_set_error (error, JMEM_ERROR, JMEM_ERROR_FAILED, "no schema \"%s\" in jmem", name);
      return NULL;
    }
  data = g_bytes_get_data (bytes, &len);
  if (!json_parser_load_from_data (parser, data, (gssize) len, error))
    return NULL;
  if (!JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)))
    {
      g_set_error (error, JMEM_ERROR, JMEM_ERROR_FAILED, "schema \"%s\" is not an object", name);
      return NULL;
    }
  return json_parser_steal_root (parser);
}

typedef struct {
  const char *root;      /* the bundle's own short name */
  JsonObject *defs;      /* the bundle's $defs */
  GHashTable *embedded;  /* short names copied in so far */
  GError     *error;
} Bundle;

static void rewrite (Bundle *bundle, JsonNode *node, const char *owner);

/* "urn:dev.jmem:schema:snapshot:1#/x" -> "#/$defs/jmem-snapshot/x", copying
 * the snapshot schema in on its first mention. */
static char *
rewrite_ref (Bundle *bundle, const char *ref, const char *owner)
{
  g_autofree char *name = NULL;
  const char *fragment, *colon;

  if (ref[0] == '#')
    return owner == NULL ? g_strdup (ref) :
           g_strconcat ("#/$defs/jmem-", owner, ref + 1, NULL);
  if (!g_str_has_prefix (ref, URN_PREFIX))
    return g_strdup (ref);
  colon = strchr (ref + strlen (URN_PREFIX), ':');
  if (colon == NULL)
    return g_strdup (ref);
  name = g_strndup (ref + strlen (URN_PREFIX), (gsize) (colon - ref) - strlen (URN_PREFIX));
  fragment = strchr (colon, '#');
  if (g_str_equal (name, bundle->root))
    return g_strdup (fragment != NULL ? fragment : "#");

  if (!g_hash_table_contains (bundle->embedded, name))
    {
      g_autoptr(JsonNode) doc = NULL;
      g_autofree char *key = g_strconcat ("jmem-", name, NULL);
      JsonObject *object;

      g_hash_table_add (bundle->embedded, g_strdup (name));
      doc = load (name, bundle->error == NULL ? &bundle->error : NULL);
      if (doc != NULL)
        {
          object = json_node_get_object (doc);
          json_object_remove_member (object, "$schema");
          json_object_remove_member (object, "$id");
          rewrite (bundle, doc, name);
          json_object_set_member (bundle->defs, key, g_steal_pointer (&doc));
        }
    }
  return g_strconcat ("#/$defs/jmem-", name, fragment != NULL ? fragment + 1 : "", NULL);
}

/* Rewrites every "$ref" beneath @node; @owner is the short name of the
 * embedded document @node belongs to, NULL for the bundle's own. */
static void
rewrite (Bundle *bundle, JsonNode *node, const char *owner)
{
  if (JSON_NODE_HOLDS_ARRAY (node))
    {
      JsonArray *array = json_node_get_array (node);

      for (guint i = 0; i < json_array_get_length (array); i++)
        rewrite (bundle, json_array_get_element (array, i), owner);
    }
  else if (JSON_NODE_HOLDS_OBJECT (node))
    {
      JsonObject *object = json_node_get_object (node);
      g_autoptr(GList) members = json_object_get_members (object);

      for (GList *l = members; l != NULL; l = l->next)
        {
          JsonNode *child = json_object_get_member (object, l->data);

          if (g_str_equal (l->data, "$ref") && JSON_NODE_HOLDS_VALUE (child) &&
              json_node_get_value_type (child) == G_TYPE_STRING)
            {
              g_autofree char *ref = rewrite_ref (bundle, json_node_get_string (child), owner);

              json_object_set_string_member (object, "$ref", ref);
            }
          else
            rewrite (bundle, child, owner);
        }
    }
}

JsonNode *
jmem_mcp_schema_bundle (const char *name,
                        GError    **error)
{
  g_autoptr(JsonNode) root = load (name, error);
  g_autoptr(GHashTable) embedded = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  Bundle bundle = { name, NULL, embedded, NULL };
  JsonObject *object;

  if (root == NULL)
    return NULL;
  object = json_node_get_object (root);
  json_object_remove_member (object, "$schema");
  json_object_remove_member (object, "$id");
  if (!json_object_has_member (object, "$defs"))
    json_object_set_object_member (object, "$defs", json_object_new ());
  bundle.defs = json_object_get_object_member (object, "$defs");
  g_hash_table_add (embedded, g_strdup (name));
  rewrite (&bundle, root, NULL);
  if (bundle.error != NULL)
    {
      g_propagate_error (error, bundle.error);
      return NULL;
    }
  return g_steal_pointer (&root);
}
