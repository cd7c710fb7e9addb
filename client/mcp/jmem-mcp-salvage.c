/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "jmem-mcp-salvage.h"

#include "jmem-json-reader.h"

#include <string.h>

/* No id, method or tool name worth reading is longer. */
#define MAX_SCALAR_BYTES 4096

typedef struct {
  const char *p, *end;
} Cursor;

static void
skip_blanks (Cursor *c)
{
  while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\r' || *c->p == '\n'))
    c->p++;
}

/* At a '"': past the closing one. FALSE where the line ends first. */
static gboolean
skip_string (Cursor *c)
{
  for (c->p++; c->p < c->end; c->p++)
    {
      if (*c->p == '\\')
        c->p++;
      else if (*c->p == '"')
        {
          c->p++;
          return TRUE;
        }
    }
  return FALSE;
}

/* Past one value, nested ones counted rather than recursed into. FALSE
 * where it does not end within the line. */
static gboolean
skip_value (Cursor *c)
{
  guint depth = 0;

  do
    {
      skip_blanks (c);
      if (c->p >= c->end)
        return FALSE;
      if (*c->p == '"')
        {
          if (!skip_string (c))
            return FALSE;
        }
      else if (*c->p == '{' || *c->p == '[')
        {
          depth++;
          c->p++;
        }
      else if (*c->p == '}' || *c->p == ']')
        {
          if (depth == 0)
            return FALSE;
          depth--;
          c->p++;
        }
      else if (*c->p == ',' || *c->p == ':')
        {
          if (depth == 0)
            return FALSE;
          c->p++;
        }
      else
        {
          const char *start = c->p;

          while (c->p < c->end && strchr (",:{}[]\" \t\r\n", *c->p) == NULL && *c->p != '\0')
            c->p++;
          if (c->p == start)
            return FALSE;
        }
    }
  while (depth > 0);
  return TRUE;
}

/* The next member of the object the cursor is in (just past its '{' or a
 * member): its key as written, and the span of its value. */
static gboolean
next_member (Cursor *c, gboolean first, const char **key, gsize *key_len,
             const char **value, gsize *value_len)
{
  const char *start;

  skip_blanks (c);
  if (!first)
    {
      if (c->p >= c->end || *c->p != ',')
        return FALSE;
      c->p++;
      skip_blanks (c);
    }
  if (c->p >= c->end || *c->p != '"')
    return FALSE;
  start = c->p + 1;
  if (!skip_string (c))
    return FALSE;
  *key = start;
  *key_len = (gsize) (c->p - 1 - start);
  skip_blanks (c);
  if (c->p >= c->end || *c->p != ':')
    return FALSE;
  c->p++;
  skip_blanks (c);
  *value = c->p;
  if (!skip_value (c))
    return FALSE;
  *value_len = (gsize) (c->p - *value);
  return TRUE;
}

static gboolean
key_is (const char *key, gsize len, const char *name)
{
  return len == strlen (name) && memcmp (key, name, len) == 0;
}

/* The value at @text as the reader reads it: NULL where it is not valid. */
static JsonNode *
read_scalar (const char *text, gsize len)
{
  g_autoptr(JsonNode) node = NULL;

  if (len > MAX_SCALAR_BYTES)
    return NULL;
  node = jmem_json_read (text, len, MAX_SCALAR_BYTES, NULL);
  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node))
    return NULL;
  return g_steal_pointer (&node);
}

static void
read_params (const char *text, gsize len, JmemMcpSalvage *out)
{
  Cursor c = { text, text + len };
  const char *key, *value;
  gsize key_len, value_len;

  skip_blanks (&c);
  if (c.p >= c.end || *c.p != '{')
    return;
  c.p++;
  for (gboolean first = TRUE; next_member (&c, first, &key, &key_len, &value, &value_len); first = FALSE)
    {
      if (key_is (key, key_len, "name") && out->tool == NULL)
        {
          g_autoptr(JsonNode) name = read_scalar (value, value_len);

          if (name != NULL && json_node_get_value_type (name) == G_TYPE_STRING)
            out->tool = g_strdup (json_node_get_string (name));
        }
      else if (key_is (key, key_len, "arguments") && out->arguments == NULL)
        {
          out->arguments = value;
          out->arguments_len = value_len;
        }
    }
}

void
jmem_mcp_salvage (const char     *line,
                  gsize           len,
                  JmemMcpSalvage *out)
{
  Cursor c = { line, line + len };
  const char *key, *value, *params = NULL;
  gsize key_len, value_len, params_len = 0;

  memset (out, 0, sizeof *out);
  skip_blanks (&c);
  if (c.p >= c.end || *c.p != '{')
    return;
  c.p++;
  for (gboolean first = TRUE; next_member (&c, first, &key, &key_len, &value, &value_len); first = FALSE)
    {
      if (key_is (key, key_len, "id") && out->id == NULL)
        {
          g_autoptr(JsonNode) id = read_scalar (value, value_len);

          if (id != NULL && (json_node_get_value_type (id) == G_TYPE_STRING ||
                             json_node_get_value_type (id) == G_TYPE_INT64))
            out->id = g_steal_pointer (&id);
        }
      else if (key_is (key, key_len, "method"))
        {
          g_autoptr(JsonNode) method = read_scalar (value, value_len);

          out->tools_call = method != NULL && json_node_get_value_type (method) == G_TYPE_STRING &&
                            g_str_equal (json_node_get_string (method), "tools/call");
        }
      else if (key_is (key, key_len, "params"))
        {
          params = value;
          params_len = value_len;
        }
    }
  if (out->tools_call && params != NULL)
    read_params (params, params_len, out);
}

void
jmem_mcp_salvage_clear (JmemMcpSalvage *salvage)
{
  g_clear_pointer (&salvage->id, json_node_unref);
  g_clear_pointer (&salvage->tool, g_free);
  salvage->arguments = NULL;
  salvage->arguments_len = 0;
}
