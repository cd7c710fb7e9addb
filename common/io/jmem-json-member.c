/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "jmem-json-member.h"

#include "jmem-text.h"

JsonObject *
jmem_json_member_object (JsonObject *o,
                         const char *name)
{
  JsonNode *n = o != NULL ? json_object_get_member (o, name) : NULL;

  return n != NULL && JSON_NODE_HOLDS_OBJECT (n) ? json_node_get_object (n) : NULL;
}

JsonArray *
jmem_json_member_array (JsonObject *o,
                        const char *name)
{
  JsonNode *n = o != NULL ? json_object_get_member (o, name) : NULL;

  return n != NULL && JSON_NODE_HOLDS_ARRAY (n) ? json_node_get_array (n) : NULL;
}

gboolean
jmem_json_node_is_int (JsonNode *n)
{
  return n != NULL && JSON_NODE_HOLDS_VALUE (n) && json_node_get_value_type (n) == G_TYPE_INT64;
}

gint64
jmem_json_member_size (JsonObject *o,
                       const char *name)
{
  JsonNode *n = o != NULL ? json_object_get_member (o, name) : NULL;

  if (!jmem_json_node_is_int (n))
    return -1;
  return MAX (json_node_get_int (n), -1);
}

char *
jmem_json_member_string (JsonObject *o,
                         const char *name)
{
  JsonNode *n = o != NULL ? json_object_get_member (o, name) : NULL;
  g_autofree char *valid = NULL;

  if (n == NULL || !JSON_NODE_HOLDS_VALUE (n) || json_node_get_value_type (n) != G_TYPE_STRING)
    return NULL;
  valid = jmem_text_make_valid (json_node_get_string (n), -1);
  return jmem_text_cap_field (valid);
}

gboolean
jmem_json_member_true (JsonObject *o,
                       const char *name)
{
  JsonNode *n = o != NULL ? json_object_get_member (o, name) : NULL;

  return n != NULL && JSON_NODE_HOLDS_VALUE (n) && json_node_get_value_type (n) == G_TYPE_BOOLEAN &&
         json_node_get_boolean (n);
}
