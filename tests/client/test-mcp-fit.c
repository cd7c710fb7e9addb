/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The MCP result fit (client/mcp/jmem-mcp-fit.c) on a document of long
 * command lines, long messages and long lists, at limits that make it cut
 * command lines only, then long strings, then every string: each string it
 * shortened says so with a trailing "…" and keeps the start of the original,
 * whole characters only. */
#include <json-glib/json-glib.h>
#include <string.h>

#include "jmem-mcp-fit.h"

#define ELLIPSIS "…"

static gsize
measure (JsonNode *doc, gpointer user_data)
{
  g_autofree char *text = json_to_string (doc, FALSE);

  return strlen (text);
}

/* @n bytes of text that is not all ASCII: a cut must fall between characters. */
static char *
long_text (const char *seed, gsize n)
{
  g_autoptr(GString) s = g_string_new (seed);

  while (s->len < n)
    g_string_append (s, " größe→");
  return g_string_free (g_steal_pointer (&s), FALSE);
}

static JsonNode *
document (void)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "summary");
  json_builder_add_string_value (b, "a short line stays whole");
  json_builder_set_member_name (b, "processes");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "shown");
  json_builder_add_int_value (b, 40);
  json_builder_set_member_name (b, "list");
  json_builder_begin_array (b);
  for (guint i = 0; i < 40; i++)
    {
      g_autofree char *cmdline = long_text ("/usr/bin/python3 -m serve", 300 + i * 40);
      g_autofree char *note = long_text ("note", 600 + i * 100);

      json_builder_begin_object (b);
      json_builder_set_member_name (b, "pid");
      json_builder_add_int_value (b, 1000 + i);
      json_builder_set_member_name (b, "cmdline");
      json_builder_add_string_value (b, cmdline);
      json_builder_set_member_name (b, "cmdline_truncated");
      json_builder_add_boolean_value (b, FALSE);
      json_builder_set_member_name (b, "note");
      json_builder_add_string_value (b, note);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_end_object (b);
  json_builder_set_member_name (b, "warnings");
  json_builder_begin_array (b);
  for (guint i = 0; i < 3; i++)
    {
      g_autofree char *message = long_text ("cannot read the processes", 5000 + i * 1000);

      json_builder_begin_object (b);
      json_builder_set_member_name (b, "message");
      json_builder_add_string_value (b, message);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_end_object (b);
  return json_builder_get_root (b);
}

/* Walks @fitted beside @original (a kept list keeps its first entries) and
 * checks every string that differs; returns how many were shortened. */
static guint
check_cut_strings (JsonNode *fitted, JsonNode *original, const char *where)
{
  guint n = 0;

  g_assert_nonnull (original);
  if (JSON_NODE_HOLDS_OBJECT (fitted))
    {
      JsonObject *f = json_node_get_object (fitted);
      JsonObject *o = json_node_get_object (original);
      g_autoptr(GList) members = json_object_get_members (f);

      for (GList *l = members; l != NULL; l = l->next)
        {
          g_autofree char *path = g_strconcat (where, ".", l->data, NULL);

          /* what the fit adds to say what it cut */
          if (g_str_equal (where, "$") && g_str_equal (l->data, "cut"))
            continue;
          n += check_cut_strings (json_object_get_member (f, l->data),
                                  json_object_get_member (o, l->data), path);
        }
    }
  else if (JSON_NODE_HOLDS_ARRAY (fitted))
    {
      JsonArray *f = json_node_get_array (fitted);
      JsonArray *o = json_node_get_array (original);

      g_assert_cmpuint (json_array_get_length (f), <=, json_array_get_length (o));
      for (guint i = 0; i < json_array_get_length (f); i++)
        {
          g_autofree char *path = g_strdup_printf ("%s[%u]", where, i);

          n += check_cut_strings (json_array_get_element (f, i), json_array_get_element (o, i), path);
        }
    }
  else if (json_node_get_value_type (fitted) == G_TYPE_STRING)
    {
      const char *cut = json_node_get_string (fitted);
      const char *whole = json_node_get_string (original);
      gsize kept = strlen (cut) - strlen (ELLIPSIS);

      if (g_str_equal (cut, whole))
        return 0;
      if (!g_str_has_suffix (cut, ELLIPSIS))
        g_error ("%s was shortened without a trailing \"" ELLIPSIS "\": %.60s…", where, cut);
      g_assert_true (g_utf8_validate (cut, -1, NULL));
      g_assert_cmpuint (kept, <, strlen (whole));
      g_assert_true (strncmp (cut, whole, kept) == 0);
      n++;
    }
  return n;
}

static void
test_cut_strings_marked (void)
{
  g_autoptr(JsonNode) original = document ();
  const char * const lists[] = { "processes.list", "warnings", NULL };
  gsize whole = measure (original, NULL);
  /* whole; command lines cut; long strings cut; lists kept short; every string cut */
  const gsize limits[] = { whole, whole - 4000, whole / 3, 16 * 1024, 4 * 1024 };
  guint shortened[G_N_ELEMENTS (limits)];

  for (gsize i = 0; i < G_N_ELEMENTS (limits); i++)
    {
      /* json_node_copy() would share the objects with the original */
      g_autoptr(JsonNode) doc = document ();
      gboolean fits = jmem_mcp_fit (doc, lists, limits[i], measure, NULL);

      g_assert_true (fits);
      g_assert_cmpuint (measure (doc, NULL), <=, limits[i]);
      shortened[i] = check_cut_strings (doc, original, "$");
      g_test_message ("limit %" G_GSIZE_FORMAT ": %u shortened", limits[i], shortened[i]);
    }
  g_assert_cmpuint (shortened[0], ==, 0);
  for (gsize i = 1; i < G_N_ELEMENTS (limits); i++)
    g_assert_cmpuint (shortened[i], >, 0);
}

/* Under a budget, the spare lists are emptied in their order and no more
 * than needed, each named in cut with kept 0, a "shown" beside one made 0;
 * the lists after them, and the rest of the document, stay whole. */
static void
test_spare_in_order (void)
{
  g_autoptr(JsonNode) doc = document ();
  const char * const spare[] = { "nothing.here", "warnings", "processes.list", "summary", NULL };
  JsonObject *root = json_node_get_object (doc);
  JsonObject *processes = json_object_get_object_member (root, "processes");
  JsonArray *lists;
  JsonObject *entry;
  gsize limit;

  /* room for everything but the warnings */
  json_object_set_array_member (root, "warnings", json_array_new ());
  limit = measure (doc, NULL) + 200;
  g_clear_pointer (&doc, json_node_unref);
  doc = document ();
  root = json_node_get_object (doc);
  processes = json_object_get_object_member (root, "processes");

  jmem_mcp_fit_spare (doc, spare, limit, measure, NULL);
  g_assert_cmpuint (measure (doc, NULL), <=, limit);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (root, "warnings")), ==, 0);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (processes, "list")), ==, 40);
  g_assert_cmpint (json_object_get_int_member (processes, "shown"), ==, 40);
  lists = json_object_get_array_member (json_object_get_object_member (root, "cut"), "lists");
  g_assert_cmpuint (json_array_get_length (lists), ==, 1);
  entry = json_array_get_object_element (lists, 0);
  g_assert_cmpstr (json_object_get_string_member (entry, "list"), ==, "warnings");
  g_assert_cmpint (json_object_get_int_member (entry, "kept"), ==, 0);
  g_assert_cmpint (json_object_get_int_member (entry, "total"), ==, 3);

  /* a smaller budget empties the next one too, and its count with it */
  jmem_mcp_fit_spare (doc, spare, 1024, measure, NULL);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (processes, "list")), ==, 0);
  g_assert_cmpint (json_object_get_int_member (processes, "shown"), ==, 0);
  g_assert_cmpuint (json_array_get_length (lists), ==, 2);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (lists, 1), "list"), ==,
                   "processes.list");
  g_assert_cmpint (json_object_get_int_member (json_array_get_object_element (lists, 1), "total"), ==, 40);
  /* a string is no list: it stays */
  g_assert_cmpstr (json_object_get_string_member (root, "summary"), ==, "a short line stays whole");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/mcp-fit/cut-strings-marked", test_cut_strings_marked);
  g_test_add_func ("/mcp-fit/spare-in-order", test_spare_in_order);
  return g_test_run ();
}
