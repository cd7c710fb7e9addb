/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "jmem-mcp-fit.h"

#include "jmem-text.h"

#include <string.h>

typedef struct {
  const char *path;
  JsonObject *parent;
  const char *member;    /* its name in parent */
  JsonArray  *whole;     /* as the tool gave it, largest first */
  guint       total;
} List;

static void
list_clear (List *l)
{
  json_array_unref (l->whole);
}

/* The object holding the member at dotted @path beneath @root, and the
 * member's name in it; NULL where a step is not an object. */
static JsonObject *
parent_of (JsonObject *root, const char *path, const char **member)
{
  g_auto(GStrv) parts = g_strsplit (path, ".", -1);
  JsonObject *object = root;

  for (guint i = 0; object != NULL && parts[i + 1] != NULL; i++)
    {
      JsonNode *node = json_object_get_member (object, parts[i]);

      object = node != NULL && JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
    }
  *member = strrchr (path, '.') != NULL ? strrchr (path, '.') + 1 : path;
  return object;
}

/* The array at dotted @path beneath @root, with the object holding it. */
static gboolean
find_list (JsonObject *root, const char *path, List *list)
{
  JsonObject *object = parent_of (root, path, &list->member);
  JsonNode *node = object != NULL ? json_object_get_member (object, list->member) : NULL;

  if (node == NULL || !JSON_NODE_HOLDS_ARRAY (node))
    return FALSE;
  list->path = path;
  list->parent = object;
  list->whole = json_array_ref (json_node_get_array (node));
  list->total = json_array_get_length (list->whole);
  return TRUE;
}

/* Cuts every string beneath @node named @only (every string when NULL)
 * to @max bytes, "…" marking the cut; returns how many were cut. */
static guint
cap_strings (JsonNode *node, const char *only, gsize max)
{
  guint n = 0;

  if (JSON_NODE_HOLDS_ARRAY (node))
    {
      JsonArray *array = json_node_get_array (node);

      for (guint i = 0; i < json_array_get_length (array); i++)
        n += cap_strings (json_array_get_element (array, i), only, max);
    }
  else if (JSON_NODE_HOLDS_OBJECT (node))
    {
      JsonObject *object = json_node_get_object (node);
      g_autoptr(GList) members = json_object_get_members (object);

      for (GList *l = members; l != NULL; l = l->next)
        {
          JsonNode *child = json_object_get_member (object, l->data);
          gboolean cut = FALSE;
          g_autofree char *capped = NULL;
          g_autofree char *marked = NULL;

          if (!JSON_NODE_HOLDS_VALUE (child) || json_node_get_value_type (child) != G_TYPE_STRING)
            {
              n += cap_strings (child, only, max);
              continue;
            }
          if (only != NULL && !g_str_equal (l->data, only))
            continue;
          capped = jmem_text_cap_bytes (json_node_get_string (child), max, &cut);
          if (!cut)
            continue;
          /* the nodes change in place: setting a member anew would free the
           * names being walked */
          marked = g_strconcat (capped, "…", NULL);
          json_node_set_string (child, marked);
          /* a command line says so itself */
          if (g_str_equal (l->data, "cmdline") && json_object_has_member (object, "cmdline_truncated"))
            json_node_set_boolean (json_object_get_member (object, "cmdline_truncated"), TRUE);
          n++;
        }
    }
  return n;
}

/* Each list at its @n largest entries (all of a shorter one), and the
 * "cut" member saying so. */
static void
keep (JsonObject *root, JsonArray *prior, GArray *lists, guint n, gsize limit, guint strings)
{
  JsonObject *cut = json_object_new ();
  JsonArray *cut_lists = json_array_new ();

  /* what the tool itself cut before (the allocations' handles) stays said */
  for (guint i = 0; prior != NULL && i < json_array_get_length (prior); i++)
    json_array_add_element (cut_lists, json_node_copy (json_array_get_element (prior, i)));

  for (guint i = 0; i < lists->len; i++)
    {
      const List *l = &g_array_index (lists, List, i);
      JsonArray *kept;
      JsonObject *entry;

      if (l->total <= n)
        {
          json_object_set_array_member (l->parent, l->member, json_array_ref (l->whole));
          if (json_object_has_member (l->parent, "shown"))
            json_object_set_int_member (l->parent, "shown", l->total);
          continue;
        }
      kept = json_array_sized_new (n);
      for (guint k = 0; k < n; k++)
        json_array_add_element (kept, json_node_copy (json_array_get_element (l->whole, k)));
      json_object_set_array_member (l->parent, l->member, kept);
      /* the count of a list beside it (processes.shown) stays true */
      if (json_object_has_member (l->parent, "shown"))
        json_object_set_int_member (l->parent, "shown", n);
      entry = json_object_new ();
      json_object_set_string_member (entry, "list", l->path);
      json_object_set_int_member (entry, "kept", n);
      json_object_set_int_member (entry, "total", l->total);
      json_array_add_object_element (cut_lists, entry);
    }
  json_object_set_int_member (cut, "limit_bytes", (gint64) limit);
  json_object_set_array_member (cut, "lists", cut_lists);
  json_object_set_int_member (cut, "strings", strings);
  json_object_set_object_member (root, "cut", cut);
}

gboolean
jmem_mcp_fit (JsonNode           *doc,
              const char * const *lists,
              gsize               limit,
              JmemMcpMeasure      measure,
              gpointer            user_data)
{
  JsonObject *root = json_node_get_object (doc);
  g_autoptr(GArray) found = g_array_new (FALSE, FALSE, sizeof (List));
  g_autoptr(JsonArray) prior = NULL;
  guint strings = 0, longest = 0, lo, hi;

  if (measure (doc, user_data) <= limit)
    return TRUE;
  if (json_object_has_member (root, "cut"))
    {
      JsonObject *before = json_object_get_object_member (root, "cut");

      if (json_object_has_member (before, "lists"))
        prior = json_array_ref (json_object_get_array_member (before, "lists"));
    }
  g_array_set_clear_func (found, (GDestroyNotify) list_clear);
  for (gsize i = 0; lists != NULL && lists[i] != NULL; i++)
    {
      List l = { 0 };

      if (find_list (root, lists[i], &l))
        {
          g_array_append_val (found, l);
          longest = MAX (longest, l.total);
        }
    }

  strings += cap_strings (doc, "cmdline", JMEM_MCP_FIT_CMDLINE_BYTES);
  keep (root, prior, found, longest, limit, strings);
  /* a message naming thousands of processes costs more than the lists */
  if (measure (doc, user_data) > limit)
    {
      strings += cap_strings (doc, NULL, JMEM_MCP_FIT_LONG_STRING_BYTES);
      keep (root, prior, found, longest, limit, strings);
    }
  if (measure (doc, user_data) <= limit)
    return TRUE;

  /* the most entries every list can keep: the size grows with it */
  lo = 0;
  hi = longest;
  while (lo < hi)
    {
      guint mid = lo + (hi - lo + 1) / 2;

      keep (root, prior, found, mid, limit, strings);
      if (measure (doc, user_data) <= limit)
        lo = mid;
      else
        hi = mid - 1;
    }
  keep (root, prior, found, lo, limit, strings);
  if (measure (doc, user_data) <= limit)
    return TRUE;
  strings += cap_strings (doc, NULL, JMEM_MCP_FIT_STRING_BYTES);
  keep (root, prior, found, lo, limit, strings);
  return measure (doc, user_data) <= limit;
}

void
jmem_mcp_fit_spare (JsonNode           *doc,
                    const char * const *spare,
                    gsize               limit,
                    JmemMcpMeasure      measure,
                    gpointer            user_data)
{
  JsonObject *root = json_node_get_object (doc);

  for (gsize i = 0; spare != NULL && spare[i] != NULL && measure (doc, user_data) > limit; i++)
    {
      const char *member;
      JsonObject *parent = parent_of (root, spare[i], &member);
      JsonNode *node = parent != NULL ? json_object_get_member (parent, member) : NULL;
      JsonObject *cut, *entry;
      guint total;

      if (node == NULL || (!JSON_NODE_HOLDS_ARRAY (node) && !JSON_NODE_HOLDS_OBJECT (node)))
        continue;
      total = JSON_NODE_HOLDS_ARRAY (node) ? json_array_get_length (json_node_get_array (node)) :
                                             json_object_get_size (json_node_get_object (node));
      if (total == 0)
        continue;
      if (JSON_NODE_HOLDS_ARRAY (node))
        json_object_set_array_member (parent, member, json_array_new ());
      else
        json_object_set_object_member (parent, member, json_object_new ());
      /* the count of a list beside it (processes.shown) stays true */
      if (json_object_has_member (parent, "shown"))
        json_object_set_int_member (parent, "shown", 0);
      if (!json_object_has_member (root, "cut"))
        {
          cut = json_object_new ();
          json_object_set_int_member (cut, "limit_bytes", (gint64) limit);
          json_object_set_array_member (cut, "lists", json_array_new ());
          json_object_set_int_member (cut, "strings", 0);
          json_object_set_object_member (root, "cut", cut);
        }
      cut = json_object_get_object_member (root, "cut");
      entry = json_object_new ();
      json_object_set_string_member (entry, "list", spare[i]);
      json_object_set_int_member (entry, "kept", 0);
      json_object_set_int_member (entry, "total", total);
      json_array_add_object_element (json_object_get_array_member (cut, "lists"), entry);
    }
}
