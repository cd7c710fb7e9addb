/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The JSON writer's destinations beside a string: a sink that takes a long
 * document in pieces (what `jmem allocations --json` streams to stdout)
 * and a json-glib tree (what the MCP tools embed). */
#include <string.h>

#include <glib.h>
#include <json-glib/json-glib.h>

#include "jmem-json-writer.h"

/* A document of 280 KiB (400 pretty), with a string no writer may pass through
 * as it is (not UTF-8). */
static void
write_document (JmemJsonWriter *w)
{
  jmem_json_writer_begin_object (w);
  jmem_json_writer_set_member_name (w, "schema");
  jmem_json_writer_add_string_value (w, "test");
  jmem_json_writer_set_member_name (w, "rows");
  jmem_json_writer_begin_array (w);
  for (int i = 0; i < 4000; i++)
    {
      jmem_json_writer_begin_object (w);
      jmem_json_writer_set_member_name (w, "n");
      jmem_json_writer_add_int_value (w, i);
      jmem_json_writer_set_member_name (w, "tag");
      jmem_json_writer_add_string_value (w, i == 7 ? "bad \xff byte\n" : "nvbuf-with-a-longer-name");
      jmem_json_writer_set_member_name (w, "shared");
      jmem_json_writer_add_boolean_value (w, i % 2);
      jmem_json_writer_set_member_name (w, "none");
      jmem_json_writer_add_null_value (w);
      jmem_json_writer_end_object (w);
    }
  jmem_json_writer_end_array (w);
  jmem_json_writer_set_member_name (w, "empty");
  jmem_json_writer_begin_object (w);
  jmem_json_writer_end_object (w);
  jmem_json_writer_end_object (w);
}

typedef struct {
  GString *text;
  guint    calls;
  gsize    largest;
  guint    refuse_at;  /* 0: never */
} Sink;

static gboolean
take (const char *text, gsize len, gpointer user_data)
{
  Sink *s = user_data;

  s->calls++;
  s->largest = MAX (s->largest, len);
  if (s->refuse_at != 0 && s->calls >= s->refuse_at)
    return FALSE;
  g_string_append_len (s->text, text, (gssize) len);
  return TRUE;
}

static char *
as_string (gboolean pretty)
{
  JmemJsonWriter *w = jmem_json_writer_new (pretty);

  write_document (w);
  return jmem_json_writer_free_to_string (w);
}

static void
test_sink_in_pieces (void)
{
  for (int pretty = 0; pretty < 2; pretty++)
    {
      g_autofree char *whole = as_string (pretty);
      Sink s = { g_string_new (NULL), 0, 0, 0 };
      g_autoptr(JmemJsonWriter) w = jmem_json_writer_new_to_sink (pretty, take, &s);

      write_document (w);
      g_assert_true (jmem_json_writer_finish (w));
      /* the same text, never held whole: pieces of about 64 KiB */
      g_assert_cmpstr (s.text->str, ==, whole);
      g_assert_cmpuint (strlen (whole), >, 200 * 1024);
      g_assert_cmpuint (s.calls, >=, strlen (whole) / (64 * 1024));
      g_assert_cmpuint (s.largest, <=, 64 * 1024 + 256);
      g_string_free (s.text, TRUE);
    }
}

/* A full or closed stdout: the writer stops handing text over and says so. */
static void
test_sink_refuses (void)
{
  Sink s = { g_string_new (NULL), 0, 0, 2 };
  g_autoptr(JmemJsonWriter) w = jmem_json_writer_new_to_sink (TRUE, take, &s);

  write_document (w);
  g_assert_false (jmem_json_writer_finish (w));
  g_assert_cmpuint (s.calls, ==, 2);
  g_assert_cmpuint (s.text->len, >, 0);
  g_string_free (s.text, TRUE);
}

static void
test_tree (void)
{
  g_autofree char *text = as_string (FALSE);
  g_autoptr(JsonNode) parsed = json_from_string (text, NULL);
  JmemJsonWriter *w = jmem_json_writer_new (TRUE);
  g_autoptr(JsonNode) tree = NULL;
  JsonObject *row;

  write_document (w);
  tree = jmem_json_writer_free_to_node (w);
  g_assert_nonnull (parsed);
  g_assert_true (json_node_equal (tree, parsed));
  row = json_array_get_object_element (json_object_get_array_member (json_node_get_object (tree),
                                                                     "rows"), 7);
  g_assert_cmpstr (json_object_get_string_member (row, "tag"), ==, "bad \xef\xbf\xbd byte\n");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/json-writer/sink/pieces", test_sink_in_pieces);
  g_test_add_func ("/json-writer/sink/refuses", test_sink_refuses);
  g_test_add_func ("/json-writer/tree", test_tree);
  return g_test_run ();
}
