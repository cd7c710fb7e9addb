/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The member filter: a small tree of names, one node per step of a path. */
#include "jmem-json-paths.h"

#include <string.h>

typedef enum {
  UNLESS_NONE,
  UNLESS_INT,      /* null or an integer in min..max */
  UNLESS_BOOLEAN,  /* null or a boolean */
} Unless;

struct _JmemJsonPaths {
  char          *name;      /* the member this node stands for ("*": any other);
                             * NULL for an element */
  gsize          name_len;
  gboolean       whole;     /* a listed path ends here */
  Unless         unless;    /* a checked path ends here: built unless the value is fine */
  gint64         min, max;
  GPtrArray     *members;   /* JmemJsonPaths, one per member name */
  JmemJsonPaths *elements;  /* "[]": every element of an array */
};

static JmemJsonPaths *
node_new (const char *name, gsize len)
{
  JmemJsonPaths *node = g_new0 (JmemJsonPaths, 1);

  node->name = name != NULL ? g_strndup (name, len) : NULL;
  node->name_len = len;
  node->members = g_ptr_array_new_with_free_func ((GDestroyNotify) jmem_json_paths_free);
  return node;
}

static JmemJsonPaths *
member_node (const JmemJsonPaths *node, const char *name, gsize len)
{
  for (guint i = 0; i < node->members->len; i++)
    {
      JmemJsonPaths *child = g_ptr_array_index (node->members, i);

      if (child->name_len == len && memcmp (child->name, name, len) == 0)
        return child;
    }
  return NULL;
}

/* The node of member @name, or of "*" when no other names it. */
static JmemJsonPaths *
member_match (const JmemJsonPaths *node, const char *name, gsize len)
{
  JmemJsonPaths *child = member_node (node, name, len);

  return child != NULL ? child : member_node (node, "*", 1);
}

/* The node @path ends at, made as needed. */
static JmemJsonPaths *
add_path (JmemJsonPaths *root, const char *path)
{
  JmemJsonPaths *node = root;
  const char *p = path;

  while (*p != '\0')
    {
      gsize len = strcspn (p, ".[");
      JmemJsonPaths *child = member_node (node, p, len);

      if (child == NULL)
        {
          child = node_new (p, len);
          g_ptr_array_add (node->members, child);
        }
      node = child;
      p += len;
      while (g_str_has_prefix (p, "[]"))
        {
          if (node->elements == NULL)
            node->elements = node_new (NULL, 0);
          node = node->elements;
          p += 2;
        }
      if (*p == '.')
        p++;
    }
  return node;
}

JmemJsonPaths *
jmem_json_paths_new (const char *const *paths)
{
  JmemJsonPaths *root = node_new (NULL, 0);

  jmem_json_paths_add (root, paths);
  return root;
}

void
jmem_json_paths_add (JmemJsonPaths *paths, const char *const *more)
{
  for (gsize i = 0; more != NULL && more[i] != NULL; i++)
    add_path (paths, more[i])->whole = TRUE;
}

void
jmem_json_paths_add_unless_int (JmemJsonPaths *paths,
                                const char    *path,
                                gint64         min,
                                gint64         max)
{
  JmemJsonPaths *node = add_path (paths, path);

  node->unless = UNLESS_INT;
  node->min = min;
  node->max = max;
}

void
jmem_json_paths_add_unless_boolean (JmemJsonPaths *paths,
                                    const char    *path)
{
  add_path (paths, path)->unless = UNLESS_BOOLEAN;
}

void
jmem_json_paths_free (JmemJsonPaths *paths)
{
  if (paths == NULL)
    return;
  g_ptr_array_unref (paths->members);
  jmem_json_paths_free (paths->elements);
  g_free (paths->name);
  g_free (paths);
}

const JmemJsonPaths *
jmem_json_paths_child (const JmemJsonPaths *paths,
                       const char          *name,
                       gsize                name_len,
                       gboolean            *keep)
{
  const JmemJsonPaths *child = name != NULL ? member_match (paths, name, name_len) : paths->elements;

  *keep = child != NULL;
  return child != NULL && !child->whole ? child : NULL;
}

gboolean
jmem_json_paths_drops (const JmemJsonPaths *paths, GType type, gint64 value)
{
  if (paths->whole || paths->unless == UNLESS_NONE)
    return FALSE;
  if (type == G_TYPE_NONE)
    return TRUE;
  if (paths->unless == UNLESS_BOOLEAN)
    return type == G_TYPE_BOOLEAN;
  return type == G_TYPE_INT64 && value >= paths->min && value <= paths->max;
}

gboolean
jmem_json_paths_filters (const JmemJsonPaths *paths, gboolean is_object)
{
  if (paths->whole || paths->unless != UNLESS_NONE)
    return FALSE;
  return is_object ? paths->members->len > 0 : paths->elements != NULL;
}
