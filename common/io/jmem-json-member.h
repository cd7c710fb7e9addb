/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Reading members of a parsed JSON document that may lack them or hold the
 * wrong type: NULL or -1 instead of json-glib's criticals. For documents
 * already checked (jmem_diff_check_snapshot()) and for what later versions
 * may add. */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* The member @name of @o (nullable) when it is an object / an array; NULL
 * otherwise. */
JsonObject *jmem_json_member_object (JsonObject *o,
                                     const char *name);
JsonArray *jmem_json_member_array (JsonObject *o,
                                   const char *name);

/* Whether @node holds an integer. */
gboolean jmem_json_node_is_int (JsonNode *node);

/* An integer member that is a size or a count: -1 when absent, null,
 * negative or not an integer. */
gint64 jmem_json_member_size (JsonObject *o,
                              const char *name);

/* A string member made valid UTF-8 and capped (jmem_text_cap_field());
 * NULL when absent or not a string. */
char *jmem_json_member_string (JsonObject *o,
                               const char *name);

/* Whether a member is the boolean true. */
gboolean jmem_json_member_true (JsonObject *o,
                                const char *name);

G_END_DECLS
