/* SPDX-License-Identifier: GPL-2.0-or-later */
/* `jmem mcp` over pipes: the JSON-RPC error semantics, the handshake, the
 * line limit and the end of input, as a client that sends what the SDK
 * never would sees them. */
#include <gio/gio.h>
#include <json-glib/json-glib.h>
#include <glib/gstdio.h>
#include <string.h>

#include "jmem-test.h"

#include "jmem-container.h"

#define MIB (1024 * 1024)

typedef struct {
  GSubprocess      *process;
  GOutputStream    *in;
  GDataInputStream *out;
} Server;

static void
server_free (Server *s)
{
  g_clear_object (&s->out);
  g_clear_object (&s->process);
  g_free (s);
}
G_DEFINE_AUTOPTR_CLEANUP_FUNC (Server, server_free)

static Server *
server_start_root (const char *root)
{
  g_autoptr(GError) error = NULL;
  Server *s = g_new0 (Server, 1);

  s->process = g_subprocess_new (G_SUBPROCESS_FLAGS_STDIN_PIPE | G_SUBPROCESS_FLAGS_STDOUT_PIPE,
                                 &error, g_getenv ("JMEM_EXE"), "mcp", "--sysroot", root, NULL);
  g_assert_no_error (error);
  s->in = g_subprocess_get_stdin_pipe (s->process);
  s->out = g_data_input_stream_new (g_subprocess_get_stdout_pipe (s->process));
  g_data_input_stream_set_newline_type (s->out, G_DATA_STREAM_NEWLINE_TYPE_LF);
  return s;
}

/* A server on the live system whose system bus is at a socket that does not exist. */
static Server *
server_start_no_bus (void)
{
  g_autoptr(GSubprocessLauncher) launcher =
    g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDIN_PIPE | G_SUBPROCESS_FLAGS_STDOUT_PIPE);
  g_autoptr(GError) error = NULL;
  Server *s = g_new0 (Server, 1);

  g_subprocess_launcher_setenv (launcher, "DBUS_SYSTEM_BUS_ADDRESS",
                                "unix:path=/nonexistent/jmem-test-bus", TRUE);
  s->process = g_subprocess_launcher_spawn (launcher, &error, g_getenv ("JMEM_EXE"), "mcp", NULL);
  g_assert_no_error (error);
  s->in = g_subprocess_get_stdin_pipe (s->process);
  s->out = g_data_input_stream_new (g_subprocess_get_stdout_pipe (s->process));
  g_data_input_stream_set_newline_type (s->out, G_DATA_STREAM_NEWLINE_TYPE_LF);
  return s;
}

static Server *
server_start (const char *tree)
{
  g_autofree char *root = jmem_test_fixture ("trees", tree, NULL);

  return server_start_root (root);
}

static void
server_send (Server *s, const char *text, gsize len)
{
  g_autoptr(GError) error = NULL;

  g_output_stream_write_all (s->in, text, len, NULL, NULL, &error);
  g_assert_no_error (error);
}

static void
server_send_line (Server *s, const char *line)
{
  server_send (s, line, strlen (line));
  server_send (s, "\n", 1);
}

/* The next message on stdout; every line there must be one JSON-RPC object. */
static JsonObject *
server_read (Server *s)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autofree char *line = g_data_input_stream_read_line (s->out, NULL, NULL, &error);
  JsonObject *message;

  g_assert_no_error (error);
  g_assert_nonnull (line);
  /* every byte on stdout is UTF-8, whatever the request held */
  g_assert_true (g_utf8_validate (line, -1, NULL));
  json_parser_load_from_data (parser, line, -1, &error);
  g_assert_no_error (error);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)));
  message = json_object_ref (json_node_get_object (json_parser_get_root (parser)));
  g_assert_cmpstr (json_object_get_string_member (message, "jsonrpc"), ==, "2.0");
  return message;
}

/* End of input: the server exits 0 and has written nothing more. */
static void
server_finish (Server *s)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *rest = NULL;
  gsize len = 0;

  g_output_stream_close (s->in, NULL, &error);
  g_assert_no_error (error);
  rest = g_data_input_stream_read_upto (s->out, "", 0, &len, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (len, ==, 0);
  g_subprocess_wait (s->process, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (g_subprocess_get_if_exited (s->process));
  g_assert_cmpint (g_subprocess_get_exit_status (s->process), ==, 0);
}

static void
assert_error (JsonObject *message, gint64 id, int code)
{
  JsonObject *error = json_object_get_object_member (message, "error");

  g_assert_nonnull (error);
  g_assert_false (json_object_has_member (message, "result"));
  if (id < 0)
    g_assert_true (json_object_get_null_member (message, "id"));
  else
    g_assert_cmpint (json_object_get_int_member (message, "id"), ==, id);
  g_assert_cmpint (json_object_get_int_member (error, "code"), ==, code);
  g_assert_cmpstr (json_object_get_string_member (error, "message"), !=, "");
}

/* A ping with @id must be answered with an empty result. */
static void
assert_ping (Server *s, gint64 id)
{
  g_autofree char *line = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":%" G_GINT64_FORMAT
                                           ",\"method\":\"ping\"}", id);
  g_autoptr(JsonObject) reply = NULL;

  server_send_line (s, line);
  reply = server_read (s);
  g_assert_cmpint (json_object_get_int_member (reply, "id"), ==, id);
  g_assert_cmpuint (json_object_get_size (json_object_get_object_member (reply, "result")), ==, 0);
}

/* The isError text of a tools/call of @tool with @arguments (JSON). */
static char *
call_error (Server *s, const char *tool, const char *arguments)
{
  g_autofree char *line = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":\"c\",\"method\":\"tools/call\","
                                           "\"params\":{\"name\":\"%s\",\"arguments\":%s}}",
                                           tool, arguments);
  g_autoptr(JsonObject) reply = NULL;
  JsonObject *result;

  server_send_line (s, line);
  reply = server_read (s);
  g_assert_cmpstr (json_object_get_string_member (reply, "id"), ==, "c");
  result = json_object_get_object_member (reply, "result");
  g_assert_nonnull (result);
  g_assert_true (json_object_get_boolean_member (result, "isError"));
  g_assert_false (json_object_has_member (result, "structuredContent"));
  return g_strdup (json_object_get_string_member (
    json_array_get_object_element (json_object_get_array_member (result, "content"), 0), "text"));
}

static void
test_bad_json (void)
{
  g_autoptr(Server) s = server_start ("orin-agx-nvgpu");
  /* where the start of the line gives the id, the error goes to it */
  struct { const char *line; gint64 id; } bad[] = {
    { "{", -1 }, { "not json", -1 }, { "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"} x", 1 },
    { "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"\xff\xfe\"}", 2 },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr(JsonObject) reply = NULL;

      server_send_line (s, bad[i].line);
      reply = server_read (s);
      assert_error (reply, bad[i].id, -32700);
      assert_ping (s, (gint64) i);
    }
  server_finish (s);
}

/* The error message of @reply, which must be an error with @code and id
 * @id (< 0: null). */
static const char *
error_message (JsonObject *reply, gint64 id, int code)
{
  assert_error (reply, id, code);
  return json_object_get_string_member (json_object_get_object_member (reply, "error"), "message");
}

/* What json-glib alone would have mis-read, each refused on its own and
 * the server reading on: ids past 64 bits (wrapped: 2^64 came back as -1),
 * a NUL that cut a method, id or tool name short, lone surrogates (echoed
 * as bytes that are not UTF-8), comments, single quotes, hexadecimal
 * numbers, a second message on the line (dropped), and nesting that
 * overflowed the stack (SIGSEGV). */
static void
test_strict_json (void)
{
  g_autoptr(Server) s = server_start ("orin-agx-nvgpu");
  /* the id where the start of the line gives it whole (-1: null) */
  struct { const char *line; gint64 id; int code; const char *says; } cases[] = {
    { "{\"jsonrpc\":\"2.0\",\"id\":18446744073709551616,\"method\":\"ping\"}", -1, -32600, "18446744073709551616 is outside the 64-bit integer range" },
    { "{\"jsonrpc\":\"2.0\",\"id\":9223372036854775808,\"method\":\"ping\"}", -1, -32600, "outside the 64-bit integer range" },
    { "{\"jsonrpc\":\"2.0\",\"id\":-9223372036854775809,\"method\":\"ping\"}", -1, -32600, "outside the 64-bit integer range" },
    { "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\\u0000tools/call\"}", 1, -32700, "U+0000 (NUL)" },
    { "{\"jsonrpc\":\"2.0\",\"id\":\"a\\u0000b\",\"method\":\"ping\"}", -1, -32700, "U+0000 (NUL)" },
    { "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"triage\\u0000x\"}}", 1, -32700, "U+0000 (NUL)" },
    { "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\\ud800\"}", 1, -32700, "surrogate" },
    { "{\"jsonrpc\":\"2.0\",\"id\":\"\\udfff\",\"method\":\"ping\"}", -1, -32700, "surrogate" },
    { "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"\\ud83d\"}}", 1, -32700, "surrogate" },
    { "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"} // a comment", 1, -32700, "column 42: a comment" },
    { "{'jsonrpc':'2.0','id':1,'method':'ping'}", -1, -32700, "a single quote" },
    { "{\"jsonrpc\":\"2.0\",\"id\":0x10,\"method\":\"ping\"}", -1, -32700, "hexadecimal" },
    { "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}", 1, -32700, "one value is read, not two" },
    { "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"} {\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}", 1, -32700, "column 42: more after the end" },
  };
  gsize deep_len = 200 * 1024;
  g_autofree char *deep = g_malloc (deep_len);

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(JsonObject) reply = NULL;
      const char *message;

      server_send_line (s, cases[i].line);
      reply = server_read (s);
      message = error_message (reply, cases[i].id, cases[i].code);
      if (strstr (message, cases[i].says) == NULL)
        g_error ("%s: \"%s\" lacks \"%s\"", cases[i].line, message, cases[i].says);
      /* the next answer is the next request's: nothing of the refused line */
      assert_ping (s, (gint64) i + 100);
    }

  /* the ends of the range come back as sent */
  assert_ping (s, G_MAXINT64);
  assert_ping (s, G_MININT64);

  /* one line of 200 KB of nested brackets */
  memset (deep, '[', deep_len / 2);
  memset (deep + deep_len / 2, ']', deep_len / 2);
  server_send (s, deep, deep_len);
  server_send (s, "\n", 1);
  {
    g_autoptr(JsonObject) reply = server_read (s);

    g_assert_nonnull (strstr (error_message (reply, -1, -32600), "nested deeper than 64 levels"));
  }
  assert_ping (s, 1);
  server_finish (s);
}

static void
test_invalid_requests (void)
{
  g_autoptr(Server) s = server_start ("orin-agx-nvgpu");
  struct { const char *line; gint64 id; int code; } cases[] = {
    { "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]", -1, -32600 },
    { "42", -1, -32600 },
    { "{\"jsonrpc\":\"1.0\",\"id\":7,\"method\":\"ping\"}", 7, -32600 },
    { "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":3}", 8, -32600 },
    { "{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"ping\"}", -1, -32600 },
    { "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"resources/list\"}", 9, -32601 },
    { "{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"tools/call\"}", 10, -32602 },
    { "{\"jsonrpc\":\"2.0\",\"id\":11,\"method\":\"tools/call\",\"params\":{\"name\":\"rm\"}}", 11, -32602 },
    { "{\"jsonrpc\":\"2.0\",\"id\":12,\"method\":\"tools/call\",\"params\":{\"name\":5}}", 12, -32602 },
    { "{\"jsonrpc\":\"2.0\",\"id\":13,\"method\":\"tools/call\",\"params\":{\"name\":\"triage\",\"arguments\":[]}}", 13, -32602 },
    { "{\"jsonrpc\":\"2.0\",\"id\":14,\"method\":\"tools/list\",\"params\":[1]}", 14, -32602 },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(JsonObject) reply = NULL;

      server_send_line (s, cases[i].line);
      reply = server_read (s);
      assert_error (reply, cases[i].id, cases[i].code);
    }
  /* notifications and answers to requests the server never made get none */
  server_send_line (s, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
  server_send_line (s, "{\"jsonrpc\":\"2.0\",\"method\":\"no/such/notification\"}");
  server_send_line (s, "{\"jsonrpc\":\"2.0\",\"id\":99,\"result\":{}}");
  server_send_line (s, "");
  assert_ping (s, 100);
  server_finish (s);
}

static void
test_bad_arguments (void)
{
  g_autoptr(Server) s = server_start ("orin-agx-nvgpu");
  struct { const char *tool, *arguments, *expected; } cases[] = {
    { "drop_caches", "{\"level\":7}", "\"level\" takes an integer from 1 to 3, not 7" },
    { "drop_caches", "{\"level\":2.5}", "\"level\" takes an integer from 1 to 3, not a fraction" },
    { "drop_caches", "{\"level\":\"3\"}", "\"level\" takes an integer from 1 to 3, not a string" },
    { "drop_caches", "{\"compact\":\"yes\"}", "\"compact\" takes true or false, not a string" },
    { "audit", "{\"level\":0}", "\"level\" takes an integer from 1 to 3, not 0" },
    { "audit", "{\"wait_seconds\":-1}", "\"wait_seconds\" takes an integer from 0 to" },
    { "snapshot", "{\"top\":null}", "\"top\" takes an integer from 0 to" },
    { "snapshot", "{\"pid\":[1]}", "\"pid\" takes an integer from 1 to 4294967295, not an array" },
    { "snapshot", "{\"verbose\":true}", "snapshot takes no argument \"verbose\" (it takes \"top\", \"all\", \"pid\")" },
    { "triage", "{\"x\":1}", "triage takes no argument \"x\" (it takes \"history\")" },
    { "triage", "{\"history\":1}", "\"history\" takes true or false, not a number" },
    { "allocations", "{\"limit\":-5}", "\"limit\" takes an integer from 0 to 1000000, not -5" },
    /* a bad size is named, with what a size looks like */
    { "headroom", "{\"need\":\"6X\"}", "\"need\" takes a size: \"6X\" is not a size: unknown unit \"X\"" },
    { "headroom", "{\"need\":\"1e999\"}", "\"1e999\" is not a size: exponents are not sizes" },
    { "headroom", "{\"need\":\"\"}", "\"\" is not a size: it is empty" },
    { "headroom", "{\"need\":\"18446744073709551616\"}", "more than 4 PiB" },
    { "headroom", "{\"need\":-1}", "\"need\" takes a size (\"6G\", \"6GiB\", \"6144M\") or a number of bytes from 0 to 4 PiB, not -1" },
    { "headroom", "{\"need\":6.5}", "or a number of bytes from 0 to 4 PiB, not a fraction" },
    { "headroom", "{\"need\":[6]}", "not an array" },
    { "headroom", "{\"size\":\"6G\"}", "headroom takes no argument \"size\" (it takes \"need\", \"for\")" },
    /* a framework is one of the gates', by name */
    { "headroom", "{\"for\":\"tensorflow\"}", "\"for\" takes one of vllm, sglang, tensorrt, pytorch, ollama, llama.cpp, not \"tensorflow\"" },
    { "headroom", "{\"for\":1}", "\"for\" takes one of vllm, sglang, tensorrt, pytorch, ollama, llama.cpp, not a number" },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *text = call_error (s, cases[i].tool, cases[i].arguments);

      if (strstr (text, cases[i].expected) == NULL)
        g_error ("%s %s: \"%s\" lacks \"%s\"", cases[i].tool, cases[i].arguments, text,
                 cases[i].expected);
    }
  assert_ping (s, 1);
  server_finish (s);
}

static void
test_sysroot_refusals (void)
{
  g_autoptr(Server) s = server_start ("orin-agx-nvgpu");
  const char *tools[] = { "drop_caches", "audit" };

  for (gsize i = 0; i < G_N_ELEMENTS (tools); i++)
    {
      g_autofree char *text = call_error (s, tools[i], "{}");

      g_assert_nonnull (strstr (text, "acts on the live system"));
      g_assert_nonnull (strstr (text, "To fix: start `jmem mcp` without --sysroot"));
    }
  server_finish (s);
}

/* The document of the tools/call of @tool with @arguments (JSON) that
 * succeeded, its structuredContent as JSON. */
static char *
call_document (Server *s, const char *tool, const char *arguments)
{
  g_autofree char *line = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":\"c\",\"method\":\"tools/call\","
                                           "\"params\":{\"name\":\"%s\",\"arguments\":%s}}",
                                           tool, arguments);
  g_autoptr(JsonObject) reply = NULL;
  JsonObject *result;

  server_send_line (s, line);
  reply = server_read (s);
  result = json_object_get_object_member (reply, "result");
  g_assert_nonnull (result);
  g_assert_false (json_object_get_boolean_member (result, "isError"));
  return json_to_string (json_object_get_member (result, "structuredContent"), FALSE);
}

/* A need given as "4GB" is read as 4 GiB and the notes say so once; "4G"
 * and a number of bytes need no note. */
static void
test_need_unit_note (void)
{
  g_autoptr(Server) s = server_start ("r36-orin-nano");
  g_autofree char *gb = call_document (s, "headroom", "{\"need\":\"4GB\"}");
  g_autofree char *g = call_document (s, "headroom", "{\"need\":\"4G\"}");
  g_autofree char *bytes = call_document (s, "headroom", "{\"need\":4294967296}");
  const char *note = strstr (gb, "\"4 GB read as 4 GiB\"");

  g_assert_nonnull (note);
  g_assert_null (strstr (note + strlen ("\"4 GB"), "4 GB read as 4 GiB"));
  g_assert_null (strstr (g, "read as"));
  g_assert_null (strstr (bytes, "read as"));
  server_finish (s);
}

/* No system bus: the advice fits where the server runs, and the audit
 * names its way without the helper. */
static void
test_no_bus (void)
{
  g_autoptr(Server) s = server_start_no_bus ();
  g_autofree char *drop = call_error (s, "drop_caches", "{}");
  g_autofree char *audit = call_error (s, "audit", "{\"level\":1,\"top\":0}");
  gboolean systemd = g_file_test ("/run/systemd/system", G_FILE_TEST_IS_DIR);
  g_autofree char *container = jmem_container_detect (NULL);

  g_assert_nonnull (strstr (drop, "cannot reach the system bus"));
  g_assert_nonnull (strstr (drop, systemd ? "To fix: start the system bus (sudo systemctl"
                                  : container != NULL ? "To fix: run jmem on the host"
                                  : "dbus-daemon --system"));
  g_assert_null (strstr (drop, "leave out"));
  g_assert_nonnull (strstr (audit, "cannot reach the system bus"));
  g_assert_nonnull (strstr (audit, "or audit without dropping caches: leave out \"level\""));
  server_finish (s);
}

static void
test_initialize (void)
{
  g_autoptr(Server) s = server_start ("thor-unified");
  /* the client's revision where it is spoken, else the newest */
  struct { const char *asked, *answered; } cases[] = {
    { "\"2025-06-18\"", "2025-06-18" },
    { "\"2025-11-25\"", "2025-11-25" },
    { "\"2024-11-05\"", "2024-11-05" },
    { "\"2025-03-26\"", "2025-03-26" },
    { "\"2024-10-07\"", "2025-11-25" },
    { "\"2026-07-28\"", "2025-11-25" },
    { "42", "2025-11-25" },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *line = g_strdup_printf (
        "{\"jsonrpc\":\"2.0\",\"id\":%zu,\"method\":\"initialize\",\"params\":{\"protocolVersion\":%s,"
        "\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}", i, cases[i].asked);
      g_autoptr(JsonObject) reply = NULL;
      JsonObject *result;

      server_send_line (s, line);
      reply = server_read (s);
      result = json_object_get_object_member (reply, "result");
      g_assert_cmpstr (json_object_get_string_member (result, "protocolVersion"), ==,
                       cases[i].answered);
      g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (result, "serverInfo"), "name"),
                       ==, "jmem");
      g_assert_true (json_object_has_member (json_object_get_object_member (result, "capabilities"), "tools"));
    }
  server_finish (s);
}

static void
initialize (Server *s, const char *revision)
{
  g_autofree char *line = g_strdup_printf (
    "{\"jsonrpc\":\"2.0\",\"id\":\"init\",\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"%s\","
    "\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}", revision);
  g_autoptr(JsonObject) reply = NULL;
  JsonObject *result;

  server_send_line (s, line);
  reply = server_read (s);
  result = json_object_get_object_member (reply, "result");
  g_assert_cmpstr (json_object_get_string_member (result, "protocolVersion"), ==, revision);
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (result, "serverInfo"), "name"),
                   ==, "jmem");
  /* title is 2025-06-18's */
  g_assert_cmpint (json_object_has_member (json_object_get_object_member (result, "serverInfo"), "title"),
                   ==, g_strcmp0 (revision, "2025-06-18") >= 0);
  server_send_line (s, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
}

/* What each revision defines for tools, each gets, and nothing it does
 * not define: annotations from 2025-03-26, titles, outputSchema and
 * structuredContent from 2025-06-18. */
static void
test_revisions (void)
{
  struct { const char *revision; gboolean annotations, titles, structured; } cases[] = {
    { "2024-11-05", FALSE, FALSE, FALSE },
    { "2025-03-26", TRUE, FALSE, FALSE },
    { "2025-06-18", TRUE, TRUE, TRUE },
    { "2025-11-25", TRUE, TRUE, TRUE },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(Server) s = server_start ("orin-agx-nvgpu");
      g_autoptr(JsonObject) list = NULL;
      g_autoptr(JsonObject) call = NULL;
      JsonArray *tools;
      JsonObject *result;
      const char *text;

      initialize (s, cases[i].revision);
      server_send_line (s, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}");
      list = server_read (s);
      tools = json_object_get_array_member (json_object_get_object_member (list, "result"), "tools");
      g_assert_cmpuint (json_array_get_length (tools), >=, 5);
      for (guint t = 0; t < json_array_get_length (tools); t++)
        {
          JsonObject *tool = json_array_get_object_element (tools, t);

          g_assert_true (json_object_has_member (tool, "name"));
          g_assert_true (json_object_has_member (tool, "description"));
          g_assert_true (json_object_has_member (tool, "inputSchema"));
          g_assert_cmpint (json_object_has_member (tool, "annotations"), ==, cases[i].annotations);
          g_assert_cmpint (json_object_has_member (tool, "title"), ==, cases[i].titles);
          g_assert_cmpint (json_object_has_member (tool, "outputSchema"), ==, cases[i].structured);
        }

      server_send_line (s, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\","
                           "\"params\":{\"name\":\"triage\",\"arguments\":{}}}");
      call = server_read (s);
      result = json_object_get_object_member (call, "result");
      g_assert_false (json_object_get_boolean_member (result, "isError"));
      g_assert_cmpint (json_object_has_member (result, "structuredContent"), ==, cases[i].structured);
      text = json_object_get_string_member (
        json_array_get_object_element (json_object_get_array_member (result, "content"), 0), "text");
      /* the document once: the text where there is no structuredContent,
       * else its summary and figures */
      if (cases[i].structured)
        {
          const char *summary = json_object_get_string_member (
            json_object_get_object_member (result, "structuredContent"), "summary");

          g_assert_true (g_str_has_prefix (text, summary));
          g_assert_null (strstr (text, "\"schema\":\"jmem-triage\""));
        }
      else
        g_assert_nonnull (strstr (text, "\"schema\":\"jmem-triage\""));
      server_finish (s);
    }
}

static int
compare_strings (gconstpointer a, gconstpointer b)
{
  return strcmp (*(char * const *) a, *(char * const *) b);
}

/* The ids of the answers in the array @message, sorted, "!" marking an
 * error: "1 3! t". */
static char *
batch_ids (JsonNode *message)
{
  JsonArray *answers = json_node_get_array (message);
  g_autoptr(GPtrArray) ids = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 0; i < json_array_get_length (answers); i++)
    {
      JsonObject *answer = json_array_get_object_element (answers, i);
      JsonNode *id = json_object_get_member (answer, "id");
      const char *kind = json_object_has_member (answer, "error") ? "!" : "";

      if (JSON_NODE_HOLDS_NULL (id))
        g_ptr_array_add (ids, g_strdup_printf ("null%s", kind));
      else if (json_node_get_value_type (id) == G_TYPE_STRING)
        g_ptr_array_add (ids, g_strdup_printf ("%s%s", json_node_get_string (id), kind));
      else
        g_ptr_array_add (ids, g_strdup_printf ("%" G_GINT64_FORMAT "%s", json_node_get_int (id), kind));
    }
  g_ptr_array_sort (ids, compare_strings);
  g_ptr_array_add (ids, NULL);
  return g_strjoinv (" ", (char **) ids->pdata);
}

static JsonNode *
server_read_node (Server *s)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autofree char *line = g_data_input_stream_read_line (s->out, NULL, NULL, &error);

  g_assert_no_error (error);
  g_assert_nonnull (line);
  json_parser_load_from_data (parser, line, -1, &error);
  g_assert_no_error (error);
  return json_parser_steal_root (parser);
}

/* The triage tool with history: true runs the rules over time on the
 * flight recorder's history ($JMEM_HISTORY here), whatever --sysroot
 * reads; a missing one is an error that names it. */
static void
test_triage_history (void)
{
  g_autofree char *history = jmem_test_fixture ("history", "history.reference-growing.jsonl", NULL);
  g_autoptr(Server) s = NULL;
  g_autoptr(Server) missing = NULL;
  g_autofree char *text = NULL;
  g_autofree char *error_text = NULL;

  g_setenv ("JMEM_HISTORY", history, TRUE);
  s = server_start ("orin-agx-nvgpu");
  g_setenv ("JMEM_HISTORY", "/nonexistent/jmem-history.jsonl", TRUE);
  missing = server_start ("orin-agx-nvgpu");
  g_unsetenv ("JMEM_HISTORY");

  text = call_document (s, "triage", "{\"history\":true}");
  /* the fixture's rule over time: PID 5120's NvMap held three samples on */
  g_assert_nonnull (strstr (text, "\"nvmap-orphaned\""));
  server_finish (s);
  error_text = call_error (missing, "triage", "{\"history\":true}");
  g_assert_nonnull (strstr (error_text, "/nonexistent/jmem-history.jsonl"));
  server_finish (missing);
}

/* 2025-03-26 asks servers to take JSON-RPC batches; the other revisions
 * have none. A batch is answered with one array, its notifications with
 * nothing, and initialize never comes in one. */
static void
test_batches (void)
{
  g_autoptr(Server) s = server_start ("orin-agx-nvgpu");
  g_autoptr(Server) later = server_start ("orin-agx-nvgpu");
  g_autoptr(JsonObject) refused = NULL;

  initialize (s, "2025-03-26");
  server_send_line (s, "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"},"
                       "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"},"
                       "{\"jsonrpc\":\"2.0\",\"id\":\"t\",\"method\":\"tools/call\",\"params\":{\"name\":\"triage\"}},"
                       "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"no/such\"},"
                       "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"initialize\",\"params\":{}},"
                       "5]");
  {
    g_autoptr(JsonNode) answers = server_read_node (s);
    g_autofree char *ids = NULL;
    JsonArray *array;

    g_assert_true (JSON_NODE_HOLDS_ARRAY (answers));
    ids = batch_ids (answers);
    g_assert_cmpstr (ids, ==, "1 3! 4! null! t");
    array = json_node_get_array (answers);
    for (guint i = 0; i < json_array_get_length (array); i++)
      {
        JsonObject *answer = json_array_get_object_element (array, i);
        JsonNode *id = json_object_get_member (answer, "id");

        if (!JSON_NODE_HOLDS_NULL (id) && json_node_get_value_type (id) == G_TYPE_STRING)
          g_assert_false (json_object_get_boolean_member (json_object_get_object_member (answer, "result"),
                                                          "isError"));
      }
  }
  /* notifications only: nothing; an empty batch: one error */
  server_send_line (s, "[{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}]");
  server_send_line (s, "[]");
  refused = server_read (s);
  assert_error (refused, -1, -32600);
  assert_ping (s, 7);
  server_finish (s);

  /* a batch in a revision without them is one invalid request */
  initialize (later, "2025-11-25");
  server_send_line (later, "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]");
  {
    g_autoptr(JsonObject) reply = server_read (later);

    assert_error (reply, -1, -32600);
    g_assert_nonnull (strstr (json_object_get_string_member (json_object_get_object_member (reply, "error"), "message"),
                              "batches are part of MCP revision 2025-03-26 only"));
  }
  assert_ping (later, 8);
  server_finish (later);
}

#define LINE_AUDIT_WAIT(id, seconds)                                                     \
  "{\"jsonrpc\":\"2.0\",\"id\":" id ",\"method\":\"tools/call\",\"params\":{\"name\":\"audit\","     \
  "\"arguments\":{\"wait_seconds\":" seconds ",\"top\":0}}}"

/* Tools run off the reading thread: a ping is answered while an audit
 * waits, and the audit's answer comes after it. On the live system: an
 * audit without a drop needs neither a bus nor a helper. */
static void
test_ping_during_audit (void)
{
  g_autoptr(Server) s = server_start_no_bus ();
  g_autoptr(JsonObject) audit = NULL;
  gint64 start = g_get_monotonic_time ();

  server_send_line (s, LINE_AUDIT_WAIT ("\"a\"", "4"));
  /* both pings, sent at once, are answered before the audit: a server
   * that served one call at a time would answer the audit first, however
   * loaded the machine (a clock would race it) */
  server_send_line (s, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}");
  server_send_line (s, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}");
  for (gint64 id = 1; id <= 2; id++)
    {
      g_autoptr(JsonObject) pong = server_read (s);
      g_assert_cmpint (json_object_get_int_member (pong, "id"), ==, id);
    }
  audit = server_read (s);
  g_assert_cmpstr (json_object_get_string_member (audit, "id"), ==, "a");
  g_assert_false (json_object_get_boolean_member (json_object_get_object_member (audit, "result"), "isError"));
  g_assert_cmpint (g_get_monotonic_time () - start, >=, 4 * G_USEC_PER_SEC);
  server_finish (s);
}

/* notifications/cancelled: a running audit stops at once and a queued
 * call never runs; neither is answered, and the calls after them are. */
static void
test_cancel (void)
{
  g_autoptr(Server) s = server_start_no_bus ();
  g_autoptr(JsonObject) triage = NULL;
  gint64 start;

  server_send_line (s, LINE_AUDIT_WAIT ("\"long\"", "50"));
  server_send_line (s, "{\"jsonrpc\":\"2.0\",\"id\":\"queued\",\"method\":\"tools/call\","
                       "\"params\":{\"name\":\"triage\"}}");
  assert_ping (s, 1);
  start = g_get_monotonic_time ();
  server_send_line (s, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\","
                       "\"params\":{\"requestId\":\"queued\"}}");
  server_send_line (s, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\","
                       "\"params\":{\"requestId\":\"long\",\"reason\":\"the user gave up\"}}");
  /* ignored: unknown, or not an id */
  server_send_line (s, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\","
                       "\"params\":{\"requestId\":\"never-sent\"}}");
  server_send_line (s, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{}}");
  assert_ping (s, 2);
  server_send_line (s, "{\"jsonrpc\":\"2.0\",\"id\":\"after\",\"method\":\"tools/call\","
                       "\"params\":{\"name\":\"triage\"}}");
  /* the next answer is the later call's: the audit stopped long before its
   * 50 s, and neither cancelled call says anything */
  triage = server_read (s);
  g_assert_cmpstr (json_object_get_string_member (triage, "id"), ==, "after");
  g_assert_cmpint (g_get_monotonic_time () - start, <, 40 * G_USEC_PER_SEC);
  server_finish (s);
}

/* An id still running is refused for a second request: a cancellation
 * could not tell them apart. */
static void
test_id_in_use (void)
{
  g_autoptr(Server) s = server_start_no_bus ();
  g_autoptr(JsonObject) refused = NULL;
  g_autoptr(JsonObject) audit = NULL;

  server_send_line (s, LINE_AUDIT_WAIT ("9", "2"));
  server_send_line (s, LINE_AUDIT_WAIT ("9", "0"));
  refused = server_read (s);
  assert_error (refused, 9, -32600);
  audit = server_read (s);
  g_assert_cmpint (json_object_get_int_member (audit, "id"), ==, 9);
  g_assert_true (json_object_has_member (audit, "result"));
  server_finish (s);
}

/* The rusage of the server's peak memory, from /proc/PID/status. */
static guint64
peak_kib (Server *s)
{
  g_autofree char *path = g_strdup_printf ("/proc/%s/status", g_subprocess_get_identifier (s->process));
  g_autofree char *status = NULL;
  const char *line;

  g_assert_true (g_file_get_contents (path, &status, NULL, NULL));
  line = strstr (status, "VmHWM:");
  g_assert_nonnull (line);
  return g_ascii_strtoull (line + strlen ("VmHWM:"), NULL, 10);
}

static void
test_long_lines (void)
{
  g_autoptr(Server) s = server_start ("orin-agx-nvgpu");
  const char *ping = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}";
  g_autofree char *chunk = g_malloc (MIB);
  g_autoptr(JsonObject) reply = NULL;
  guint64 before;
  gsize pad;

  /* exactly 1 MiB, the ping padded with spaces: served */
  pad = MIB - strlen (ping);
  memset (chunk, ' ', pad);
  server_send (s, chunk, pad);
  server_send_line (s, ping);
  reply = server_read (s);
  g_assert_cmpint (json_object_get_int_member (reply, "id"), ==, 1);
  g_clear_pointer (&reply, json_object_unref);

  /* one byte more: refused (to the ping's id, whole in the line), and the
   * next line is served */
  server_send (s, " ", 1);
  server_send (s, chunk, pad);
  server_send_line (s, ping);
  reply = server_read (s);
  assert_error (reply, 1, -32600);
  g_assert_nonnull (strstr (json_object_get_string_member (json_object_get_object_member (reply, "error"), "message"),
                            "longer than 1048576 bytes"));
  g_clear_pointer (&reply, json_object_unref);
  assert_ping (s, 2);

  /* 64 MiB in one line: refused once, never held */
  before = peak_kib (s);
  memset (chunk, 'x', MIB);
  for (int i = 0; i < 64; i++)
    server_send (s, chunk, MIB);
  server_send (s, "\n", 1);
  reply = server_read (s);
  assert_error (reply, -1, -32600);
  assert_ping (s, 3);
  g_assert_cmpuint (peak_kib (s), <, before + 8 * 1024);
  server_finish (s);
}

/* A last message without a newline is still answered before the exit, and
 * so is a tool still running at the end of the input. */
static void
test_end_of_input (void)
{
  g_autoptr(Server) s = server_start ("orin-agx-nvgpu");
  const char *ping = "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"ping\"}";
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) reply = NULL;

  server_send_line (s, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\","
                       "\"params\":{\"name\":\"snapshot\",\"arguments\":{\"all\":true}}}");
  server_send (s, ping, strlen (ping));
  g_output_stream_close (s->in, NULL, &error);
  g_assert_no_error (error);
  reply = server_read (s);
  g_assert_cmpint (json_object_get_int_member (reply, "id"), ==, 5);
  g_clear_pointer (&reply, json_object_unref);
  reply = server_read (s);
  g_assert_cmpint (json_object_get_int_member (reply, "id"), ==, 4);
  server_finish (s);
}

/* A message damaged past its id is answered to that id, so the client's
 * call ends now rather than at its timeout: damaged arguments of a
 * tools/call are the tool's isError with the reason, anything else an
 * error; the id before or after "method", or after "params". */
static void
test_damage_after_id (void)
{
  g_autoptr(Server) s = server_start ("orin-agx-nvgpu");
  struct { const char *line; const char *id; const char *says; } arguments[] = {
    { "{\"jsonrpc\":\"2.0\",\"id\":\"first\",\"method\":\"tools/call\",\"params\":{\"name\":\"headroom\",\"arguments\":{\"need\":\"6G\\ud800\"}}}",
      "first", "surrogate" },
    { "{\"jsonrpc\":\"2.0\",\"method\":\"tools/call\",\"id\":\"after-method\",\"params\":{\"name\":\"headroom\",\"arguments\":{\"need\":\"\\udc00\"}}}",
      "after-method", "surrogate" },
    { "{\"method\":\"tools/call\",\"params\":{\"name\":\"snapshot\",\"arguments\":{\"top\":\"1\\u0000\"}},\"jsonrpc\":\"2.0\",\"id\":\"last\"}",
      "last", "U+0000 (NUL)" },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (arguments); i++)
    {
      g_autoptr(JsonObject) reply = NULL;
      JsonObject *result;
      const char *text;

      server_send_line (s, arguments[i].line);
      reply = server_read (s);
      g_assert_cmpstr (json_object_get_string_member (reply, "id"), ==, arguments[i].id);
      result = json_object_get_object_member (reply, "result");
      g_assert_nonnull (result);
      g_assert_true (json_object_get_boolean_member (result, "isError"));
      text = json_object_get_string_member (
        json_array_get_object_element (json_object_get_array_member (result, "content"), 0), "text");
      g_assert_true (g_str_has_prefix (text, "invalid arguments: "));
      if (strstr (text, arguments[i].says) == NULL)
        g_error ("%s: \"%s\" lacks \"%s\"", arguments[i].line, text, arguments[i].says);
    }

  /* a NUL byte, and damage outside the arguments: an error, to the id */
  {
    static const char nul[] = "{\"jsonrpc\":\"2.0\",\"method\":\"ping\",\"id\":41,\"x\":\"a\0b\"}\n";
    g_autoptr(JsonObject) reply = NULL;

    server_send (s, nul, sizeof nul - 1);
    reply = server_read (s);
    g_assert_nonnull (strstr (error_message (reply, 41, -32700), "NUL"));
  }
  assert_ping (s, 1);
  server_finish (s);
}

/* A line past 1 MiB is refused to its id, read from the line's start. */
static void
test_long_line_id (void)
{
  g_autoptr(Server) s = server_start ("orin-agx-nvgpu");
  const char *starts[] = {
    "{\"jsonrpc\":\"2.0\",\"id\":51,\"method\":\"tools/call\",\"params\":{\"name\":\"snapshot\",\"arguments\":{\"x\":\"",
    "{\"jsonrpc\":\"2.0\",\"method\":\"tools/call\",\"id\":52,\"params\":{\"name\":\"snapshot\",\"arguments\":{\"x\":\"",
  };
  g_autofree char *chunk = g_malloc (MIB);

  memset (chunk, 'x', MIB);
  for (gsize i = 0; i < G_N_ELEMENTS (starts); i++)
    {
      g_autoptr(JsonObject) reply = NULL;

      server_send (s, starts[i], strlen (starts[i]));
      server_send (s, chunk, MIB);
      server_send_line (s, "\"}}}");
      reply = server_read (s);
      g_assert_nonnull (strstr (error_message (reply, 51 + (gint64) i, -32600), "longer than 1048576 bytes"));
    }
  assert_ping (s, 1);
  server_finish (s);
}

/* A client that closes both pipes during a long call
 * sees the server end at once, not when the call would have ended. */
static void
test_client_gone (void)
{
  g_autoptr(Server) s = server_start_no_bus ();
  g_autoptr(GError) error = NULL;
  gint64 start;

  server_send_line (s, LINE_AUDIT_WAIT ("\"long\"", "20"));
  assert_ping (s, 1);
  start = g_get_monotonic_time ();
  g_output_stream_close (s->in, NULL, &error);
  g_assert_no_error (error);
  g_input_stream_close (G_INPUT_STREAM (s->out), NULL, &error);
  g_assert_no_error (error);
  g_subprocess_wait (s->process, NULL, &error);
  g_assert_no_error (error);
  /* loose: well before the 20 s wait, on a loaded machine */
  g_assert_cmpint (g_get_monotonic_time () - start, <, 10 * G_USEC_PER_SEC);
  g_assert_true (g_subprocess_get_if_exited (s->process));
  g_assert_cmpint (g_subprocess_get_exit_status (s->process), ==, 0);
}

/* The tools of tools/list (2025-11-25), whose names go to @names. */
static JsonArray *
list_tools (Server *s, GPtrArray *names)
{
  g_autoptr(JsonObject) reply = NULL;
  JsonArray *tools;

  initialize (s, "2025-11-25");
  server_send_line (s, "{\"jsonrpc\":\"2.0\",\"id\":\"list\",\"method\":\"tools/list\"}");
  reply = server_read (s);
  tools = json_object_get_array_member (json_object_get_object_member (reply, "result"), "tools");
  for (guint i = 0; names != NULL && i < json_array_get_length (tools); i++)
    g_ptr_array_add (names, g_strdup (json_object_get_string_member (
      json_array_get_object_element (tools, i), "name")));
  return json_array_ref (tools);
}

/* Every argument has one type (dialects with single types, Gemini's,
 * refuse a list, and other clients show its first); a size given as the
 * integer older clients send is still taken. The annotations clients
 * decide on: every reading tool read-only, the others not, and not
 * destructive (dropping clean caches loses nothing). */
static void
test_tool_schemas (void)
{
  g_autoptr(Server) s = server_start ("orin-agx-nvgpu");
  g_autoptr(JsonArray) tools = list_tools (s, NULL);
  const char *reading[] = { "snapshot", "triage", "headroom", "allocations", NULL };
  g_autoptr(JsonObject) reply = NULL;

  g_assert_cmpuint (json_array_get_length (tools), ==, 6);
  for (guint i = 0; i < json_array_get_length (tools); i++)
    {
      JsonObject *tool = json_array_get_object_element (tools, i);
      const char *name = json_object_get_string_member (tool, "name");
      JsonObject *properties = json_object_get_object_member (
        json_object_get_object_member (tool, "inputSchema"), "properties");
      JsonObject *annotations = json_object_get_object_member (tool, "annotations");
      g_autoptr(GList) members = json_object_get_members (properties);
      gboolean reads = g_strv_contains (reading, name);

      for (GList *l = members; l != NULL; l = l->next)
        {
          JsonNode *type = json_object_get_member (json_object_get_object_member (properties, l->data), "type");

          if (type == NULL || !JSON_NODE_HOLDS_VALUE (type) ||
              json_node_get_value_type (type) != G_TYPE_STRING)
            g_error ("%s: the type of \"%s\" is not one type", name, (const char *) l->data);
        }
      g_assert_true (JSON_NODE_HOLDS_VALUE (json_object_get_member (annotations, "readOnlyHint")));
      if (json_object_get_boolean_member (annotations, "readOnlyHint") != reads)
        g_error ("%s: readOnlyHint is not %d", name, reads);
      if (!reads)
        {
          g_assert_false (json_object_get_boolean_member (annotations, "destructiveHint"));
          g_assert_true (json_object_get_boolean_member (annotations, "idempotentHint"));
        }
    }

  server_send_line (s, "{\"jsonrpc\":\"2.0\",\"id\":\"n\",\"method\":\"tools/call\","
                       "\"params\":{\"name\":\"headroom\",\"arguments\":{\"need\":1073741824}}}");
  reply = server_read (s);
  g_assert_false (json_object_get_boolean_member (json_object_get_object_member (reply, "result"), "isError"));
  server_finish (s);
}

/* `jmem mcp --help` names the tools tools/list gives, all of them. */
static void
test_help_names_tools (void)
{
  g_autoptr(Server) s = server_start ("orin-agx-nvgpu");
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(JsonArray) tools = list_tools (s, names);
  g_autoptr(GError) error = NULL;
  g_autofree char *help = NULL;
  g_autofree char *joined = NULL;
  g_autofree char *expected = NULL;
  g_auto(GStrv) words = NULL;
  g_autoptr(GSubprocess) p = NULL;

  g_assert_cmpuint (names->len, ==, json_array_get_length (tools));
  server_finish (s);
  p = g_subprocess_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE, &error, g_getenv ("JMEM_EXE"), "mcp",
                        "--help", NULL);
  g_assert_no_error (error);
  g_subprocess_communicate_utf8 (p, NULL, NULL, &help, NULL, &error);
  g_assert_no_error (error);
  /* the help is folded to the terminal: one line of words */
  words = g_strsplit_set (help, " \n", -1);
  for (char **w = words; *w != NULL; w++)
    if (**w != '\0')
      {
        g_autofree char *old = joined;

        joined = old != NULL ? g_strconcat (old, " ", *w, NULL) : g_strdup (*w);
      }
  g_ptr_array_add (names, NULL);
  {
    g_autofree char *list = g_strjoinv (", ", (char **) names->pdata);

    expected = g_strdup_printf ("Tools: %s.", list);
  }
  if (strstr (joined, expected) == NULL)
    g_error ("jmem mcp --help lacks \"%s\": %s", expected, help);
}

static void
write_file (const char *root, const char *path, const char *text)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *full = g_build_filename (root, path, NULL);
  g_autofree char *dir = g_path_get_dirname (full);

  g_assert_cmpint (g_mkdir_with_parents (dir, 0755), ==, 0);
  g_file_set_contents (full, text, -1, &error);
  g_assert_no_error (error);
}

static void
spawn_ok (const char *const *argv)
{
  g_autoptr(GError) error = NULL;
  int status = -1;

  g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL, &status, &error);
  g_assert_no_error (error);
  g_assert_cmpint (status, ==, 0);
}

/* The snapshot's L4T version, its GPU probe line and host name. */
static void
snapshot_facts (Server *s, char **l4t, char **probe, char **hostname)
{
  g_autoptr(JsonObject) reply = NULL;
  JsonObject *doc;

  server_send_line (s, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\","
                       "\"params\":{\"name\":\"snapshot\",\"arguments\":{\"top\":0}}}");
  reply = server_read (s);
  doc = json_object_get_object_member (json_object_get_object_member (reply, "result"),
                                       "structuredContent");
  g_assert_nonnull (doc);
  *l4t = g_strdup (json_object_get_string_member (json_object_get_object_member (doc, "identity"),
                                                  "l4t_version"));
  *probe = g_strdup (json_array_get_string_element (
    json_object_get_array_member (json_object_get_object_member (doc, "gpu"), "evidence"), 0));
  *hostname = g_strdup (json_object_get_string_member (json_object_get_object_member (doc, "collected"),
                                                       "hostname"));
}

#define ASSERT_FACTS(s, want_l4t, want_probe, want_host)  \
  G_STMT_START {                                          \
    g_autofree char *l4t_ = NULL;                         \
    g_autofree char *probe_ = NULL;                       \
    g_autofree char *host_ = NULL;                        \
    snapshot_facts ((s), &l4t_, &probe_, &host_);         \
    g_assert_cmpstr (l4t_, ==, (want_l4t));               \
    g_assert_cmpstr (probe_, ==, (want_probe));           \
    g_assert_cmpstr (host_, ==, (want_host));             \
  } G_STMT_END

/* Board identity and the nvgpu probe are read once per boot_id: a change
 * to them shows only after a new boot_id, while the rest (here the host
 * name) is read by every call. Without a boot_id nothing is kept. */
static void
test_per_boot (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *tmp = jmem_test_make_tmp ("jmem-mcp-XXXXXX", &error);
  g_autofree char *tree = NULL;
  g_autofree char *source = jmem_test_fixture ("trees", "orin-agx-nvgpu", ".", NULL);
  const char *r35 = "# R35 (release), REVISION: 3.1, GCID: 32827747, BOARD: t186ref, EABI: aarch64, DATE: Sun Mar 19 15:19:21 UTC 2023\n";
  const char *probe36 = "query-gpu: 0, [N/A], [N/A], [N/A], [N/A], Orin (nvgpu)";
  const char *probe35 = "query-gpu: 0, [N/A], [N/A], [N/A], [N/A], Xavier (nvgpu)";

  g_assert_no_error (error);
  tree = g_build_filename (tmp, "tree", NULL);
  spawn_ok ((const char *[]) { "cp", "-a", source, tree, NULL });
  write_file (tree, "proc/sys/kernel/random/boot_id", "boot-a\n");

  {
    g_autoptr(Server) s = server_start_root (tree);

    ASSERT_FACTS (s, "36.4.0", probe36, "orin-agx");
    write_file (tree, "etc/nv_tegra_release", r35);
    write_file (tree, "nvidia-smi/query-gpu.csv", "0, [N/A], [N/A], [N/A], [N/A], Xavier (nvgpu)\n");
    write_file (tree, "proc/sys/kernel/hostname", "renamed\n");
    ASSERT_FACTS (s, "36.4.0", probe36, "renamed");
    write_file (tree, "proc/sys/kernel/random/boot_id", "boot-b\n");
    ASSERT_FACTS (s, "35.3.1", probe35, "renamed");
    server_finish (s);
  }
  {
    g_autofree char *boot_id = g_build_filename (tree, "proc/sys/kernel/random/boot_id", NULL);
    g_autoptr(Server) s = NULL;

    g_assert_cmpint (g_unlink (boot_id), ==, 0);
    s = server_start_root (tree);
    ASSERT_FACTS (s, "35.3.1", probe35, "renamed");
    write_file (tree, "etc/nv_tegra_release",
                "# R36 (release), REVISION: 4.0, GCID: 37537400, BOARD: generic, EABI: aarch64, DATE: Fri Sep 13 04:36:44 UTC 2024\n");
    ASSERT_FACTS (s, "36.4.0", probe35, "renamed");
    server_finish (s);
  }
  spawn_ok ((const char *[]) { "rm", "-rf", tmp, NULL });
}

/* A capture without NvMap's allocations: the tool says what to do, as the
 * command does. */
static void
test_allocations_not_captured (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *tmp = g_dir_make_tmp ("jmem-mcp-XXXXXX", &error);
  g_autofree char *tree = NULL;
  g_autofree char *source = jmem_test_fixture ("trees", "orin-agx-nvgpu", ".", NULL);
  g_autofree char *allocations = NULL;
  g_autofree char *text = NULL;
  g_autoptr(Server) s = NULL;

  g_assert_no_error (error);
  tree = g_build_filename (tmp, "tree", NULL);
  spawn_ok ((const char *[]) { "cp", "-a", source, tree, NULL });
  allocations = g_build_filename (tree, "sys/kernel/debug/nvmap/iovmm/allocations", NULL);
  g_assert_cmpint (g_unlink (allocations), ==, 0);
  s = server_start_root (tree);
  text = call_error (s, "allocations", "{}");
  if (strstr (text, "the capture holds no NvMap allocations") == NULL ||
      strstr (text, "\nTo fix: ") == NULL || strstr (text, "jmem capture DIR") == NULL)
    g_error ("allocations without the file: \"%s\"", text);
  server_finish (s);
  spawn_ok ((const char *[]) { "rm", "-rf", tmp, NULL });
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_assert_nonnull (g_getenv ("JMEM_EXE"));
  g_assert_nonnull (g_getenv ("JMEM_FIXTURES"));

  g_test_add_func ("/mcp/bad-json", test_bad_json);
  g_test_add_func ("/mcp/strict-json", test_strict_json);
  g_test_add_func ("/mcp/invalid-requests", test_invalid_requests);
  g_test_add_func ("/mcp/bad-arguments", test_bad_arguments);
  g_test_add_func ("/mcp/triage-history", test_triage_history);
  g_test_add_func ("/mcp/sysroot-refusals", test_sysroot_refusals);
  g_test_add_func ("/mcp/need-unit-note", test_need_unit_note);
  g_test_add_func ("/mcp/no-bus", test_no_bus);
  g_test_add_func ("/mcp/initialize", test_initialize);
  g_test_add_func ("/mcp/revisions", test_revisions);
  g_test_add_func ("/mcp/batches", test_batches);
  g_test_add_func ("/mcp/ping-during-audit", test_ping_during_audit);
  g_test_add_func ("/mcp/cancel", test_cancel);
  g_test_add_func ("/mcp/id-in-use", test_id_in_use);
  g_test_add_func ("/mcp/long-lines", test_long_lines);
  g_test_add_func ("/mcp/end-of-input", test_end_of_input);
  g_test_add_func ("/mcp/per-boot", test_per_boot);
  g_test_add_func ("/mcp/damage-after-id", test_damage_after_id);
  g_test_add_func ("/mcp/long-line-id", test_long_line_id);
  g_test_add_func ("/mcp/client-gone", test_client_gone);
  g_test_add_func ("/mcp/tool-schemas", test_tool_schemas);
  g_test_add_func ("/mcp/help-names-tools", test_help_names_tools);
  g_test_add_func ("/mcp/allocations-not-captured", test_allocations_not_captured);
  return g_test_run ();
}
