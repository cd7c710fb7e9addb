/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "jmem-json-writer.h"

#include "jmem-text.h"

#include <string.h>

/* Deeper than any document jmem writes; a mistake, not input. */
#define MAX_DEPTH 32

typedef struct {
  gboolean in_object;
  guint    n_items;
} Level;

/* What a sink is handed at once. */
#define SINK_PIECE (64 * 1024)

struct _JmemJsonWriter {
  GString *out;
  gboolean pretty;
  guint    depth;               /* levels open; 0 at the top */
  Level    levels[MAX_DEPTH];
  JmemJsonWriterSink sink;      /* NULL: the text stays in out */
  gpointer sink_data;
  gboolean sink_failed;
};

JmemJsonWriter *
jmem_json_writer_new (gboolean pretty)
{
  JmemJsonWriter *w = g_new0 (JmemJsonWriter, 1);

  w->out = g_string_sized_new (4096);
  w->pretty = pretty;
  return w;
}

JmemJsonWriter *
jmem_json_writer_new_to_sink (gboolean           pretty,
                              JmemJsonWriterSink sink,
                              gpointer           user_data)
{
  JmemJsonWriter *w = jmem_json_writer_new (pretty);

  g_return_val_if_fail (sink != NULL, w);
  w->sink = sink;
  w->sink_data = user_data;
  return w;
}

void
jmem_json_writer_free (JmemJsonWriter *w)
{
  if (w == NULL)
    return;
  g_string_free (w->out, TRUE);
  g_free (w);
}

char *
jmem_json_writer_free_to_string (JmemJsonWriter *w)
{
  char *text;

  g_return_val_if_fail (w != NULL && w->depth == 0, NULL);
  text = g_string_free (w->out, FALSE);
  g_free (w);
  return text;
}

JsonNode *
jmem_json_writer_free_to_node (JmemJsonWriter *w)
{
  g_autofree char *text = jmem_json_writer_free_to_string (w);
  g_autoptr(GError) error = NULL;
  JsonNode *root = json_from_string (text, &error);

  /* the writer writes nothing json-glib cannot read */
  g_assert_no_error (error);
  return root;
}

static void
flush (JmemJsonWriter *w)
{
  if (!w->sink_failed && w->out->len > 0 && !w->sink (w->out->str, w->out->len, w->sink_data))
    w->sink_failed = TRUE;
  g_string_truncate (w->out, 0);
}

/* Before each value: a piece goes out between two. */
static inline void
maybe_flush (JmemJsonWriter *w)
{
  if (G_UNLIKELY (w->sink != NULL && w->out->len >= SINK_PIECE))
    flush (w);
}

gboolean
jmem_json_writer_finish (JmemJsonWriter *w)
{
  g_return_val_if_fail (w != NULL && w->sink != NULL && w->depth == 0, FALSE);
  flush (w);
  return !w->sink_failed;
}

/* A line break and two spaces a level: one append, as this runs before
 * every member of a pretty document. */
static void
indent (JmemJsonWriter *w)
{
  static const char spaces[] = "\n"
    "                                                                ";

  G_STATIC_ASSERT (sizeof spaces - 2 >= 2 * MAX_DEPTH);
  g_string_append_len (w->out, spaces, 1 + 2 * w->depth);
}

/* @s quoted and escaped; FALSE, with nothing appended, when it is not
 * UTF-8. Checked here, in the one pass over the bytes, since nearly every
 * string is ASCII. */
static gboolean
append_escaped_utf8 (GString *out, const char *s)
{
  static const char hex[] = "0123456789abcdef";
  gsize start = out->len;
  const char *run = s;

  g_string_append_c (out, '"');
  for (; *s != '\0'; s++)
    {
      guchar c = (guchar) *s;
      const char *esc = NULL;

      /* printable ASCII as fast as before the check */
      if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\')
        continue;
      if (c >= 0x80)
        {
          gunichar u = g_utf8_get_char_validated (s, -1);

          if (u == (gunichar) -1 || u == (gunichar) -2)
            {
              g_string_truncate (out, start);
              return FALSE;
            }
          s += g_utf8_skip[c] - 1;
          continue;
        }
      g_string_append_len (out, run, s - run);
      run = s + 1;
      switch (c)
        {
        case '"': esc = "\\\""; break;
        case '\\': esc = "\\\\"; break;
        case '\b': esc = "\\b"; break;
        case '\f': esc = "\\f"; break;
        case '\n': esc = "\\n"; break;
        case '\r': esc = "\\r"; break;
        case '\t': esc = "\\t"; break;
        default:
          g_string_append (out, "\\u00");
          g_string_append_c (out, hex[c >> 4]);
          g_string_append_c (out, hex[c & 0xf]);
          continue;
        }
      g_string_append (out, esc);
    }
  g_string_append_len (out, run, s - run);
  g_string_append_c (out, '"');
  return TRUE;
}

/* The document is UTF-8 whatever a caller passes (a process name, a
 * message holding one): bytes that are not become U+FFFD. */
static void
append_escaped (GString *out, const char *s)
{
  g_autofree char *valid = NULL;

  if (append_escaped_utf8 (out, s))
    return;
  valid = jmem_text_make_valid (s, -1);
  append_escaped_utf8 (out, valid);
}

/* The comma and line break before an array element; a member's were
 * written with its name. */
static void
before_value (JmemJsonWriter *w)
{
  Level *level;

  maybe_flush (w);
  if (w->depth == 0)
    return;
  level = &w->levels[w->depth - 1];
  if (level->in_object)
    return;
  if (level->n_items++ > 0)
    g_string_append_c (w->out, ',');
  if (w->pretty)
    indent (w);
}

static void
open_level (JmemJsonWriter *w, gboolean in_object)
{
  before_value (w);
  g_return_if_fail (w->depth < MAX_DEPTH);
  g_string_append_c (w->out, in_object ? '{' : '[');
  w->levels[w->depth++] = (Level) { .in_object = in_object, .n_items = 0 };
}

static void
close_level (JmemJsonWriter *w, gboolean in_object)
{
  Level *level;

  g_return_if_fail (w->depth > 0);
  level = &w->levels[w->depth - 1];
  g_return_if_fail (level->in_object == in_object);
  w->depth--;
  if (level->n_items == 0)
    {
      /* JsonGenerator indents an empty object's closing brace in place. */
      if (in_object && w->pretty)
        for (guint i = 0; i < w->depth; i++)
          g_string_append (w->out, "  ");
      g_string_append_c (w->out, in_object ? '}' : ']');
    }
  else
    {
      if (w->pretty)
        indent (w);
      g_string_append_c (w->out, in_object ? '}' : ']');
    }
}

void
jmem_json_writer_begin_object (JmemJsonWriter *w)
{
  open_level (w, TRUE);
}

void
jmem_json_writer_end_object (JmemJsonWriter *w)
{
  close_level (w, TRUE);
}

void
jmem_json_writer_begin_array (JmemJsonWriter *w)
{
  open_level (w, FALSE);
}

void
jmem_json_writer_end_array (JmemJsonWriter *w)
{
  close_level (w, FALSE);
}

void
jmem_json_writer_set_member_name (JmemJsonWriter *w,
                                  const char     *name)
{
  Level *level;

  g_return_if_fail (w->depth > 0 && w->levels[w->depth - 1].in_object);
  level = &w->levels[w->depth - 1];
  if (level->n_items++ > 0)
    g_string_append_c (w->out, ',');
  if (w->pretty)
    indent (w);
  append_escaped (w->out, name);
  g_string_append (w->out, w->pretty ? " : " : ":");
}

void
jmem_json_writer_add_string_value (JmemJsonWriter *w,
                                   const char     *value)
{
  before_value (w);
  append_escaped (w->out, value);
}

void
jmem_json_writer_add_int_value (JmemJsonWriter *w,
                                gint64          value)
{
  /* Digits written backwards into a buffer: printf's parsing of its
   * format was a tenth of a large snapshot's instructions. */
  char buf[24];
  char *end = buf + sizeof buf, *c = end;
  guint64 magnitude = value < 0 ? -(guint64) value : (guint64) value;

  before_value (w);
  do
    *--c = (char) ('0' + magnitude % 10);
  while ((magnitude /= 10) != 0);
  if (value < 0)
    *--c = '-';
  g_string_append_len (w->out, c, end - c);
}

void
jmem_json_writer_add_double_value (JmemJsonWriter *w,
                                   double          value)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  before_value (w);
  g_ascii_dtostr (buf, sizeof buf, value);
  g_string_append (w->out, buf);
  /* A number that reads back as a double, as JsonGenerator writes it. */
  if (strpbrk (buf, ".eEn") == NULL)
    g_string_append (w->out, ".0");
}

void
jmem_json_writer_add_boolean_value (JmemJsonWriter *w,
                                    gboolean        value)
{
  before_value (w);
  g_string_append (w->out, value ? "true" : "false");
}

void
jmem_json_writer_add_null_value (JmemJsonWriter *w)
{
  before_value (w);
  g_string_append (w->out, "null");
}

void
jmem_json_writer_add_size_member (JmemJsonWriter *w,
                                  const char     *name,
                                  gint64          value)
{
  jmem_json_writer_set_member_name (w, name);
  if (value < 0)
    jmem_json_writer_add_null_value (w);
  else
    jmem_json_writer_add_int_value (w, value);
}

static void
add_object_node (JmemJsonWriter *w, JsonObject *object)
{
  g_autoptr(GList) names = json_object_get_members (object);

  jmem_json_writer_begin_object (w);
  for (GList *l = names; l != NULL; l = l->next)
    {
      jmem_json_writer_set_member_name (w, l->data);
      jmem_json_writer_add_node (w, json_object_get_member (object, l->data));
    }
  jmem_json_writer_end_object (w);
}

void
jmem_json_writer_add_node (JmemJsonWriter *w,
                           JsonNode       *node)
{
  switch (json_node_get_node_type (node))
    {
    case JSON_NODE_OBJECT:
      add_object_node (w, json_node_get_object (node));
      return;
    case JSON_NODE_ARRAY:
      {
        JsonArray *array = json_node_get_array (node);

        jmem_json_writer_begin_array (w);
        for (guint i = 0; i < json_array_get_length (array); i++)
          jmem_json_writer_add_node (w, json_array_get_element (array, i));
        jmem_json_writer_end_array (w);
        return;
      }
    case JSON_NODE_NULL:
      jmem_json_writer_add_null_value (w);
      return;
    case JSON_NODE_VALUE:
      break;
    }
  switch (json_node_get_value_type (node))
    {
    case G_TYPE_INT64:
      jmem_json_writer_add_int_value (w, json_node_get_int (node));
      break;
    case G_TYPE_DOUBLE:
      jmem_json_writer_add_double_value (w, json_node_get_double (node));
      break;
    case G_TYPE_BOOLEAN:
      jmem_json_writer_add_boolean_value (w, json_node_get_boolean (node));
      break;
    case G_TYPE_STRING:
      jmem_json_writer_add_string_value (w, json_node_get_string (node));
      break;
    default:
      g_return_if_reached ();
    }
}
