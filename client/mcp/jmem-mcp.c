#include "jmem-mcp.h"

#include "jmem-advice.h"
#include "jmem-config.h"
#include "jmem-error.h"
#include "jmem-json-reader.h"
#include "jmem-json-writer.h"
#include "jmem-text.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

/* JSON-RPC 2.0 error codes. */
#define PARSE_ERROR -32700
#define INVALID_REQUEST -32600
#define METHOD_NOT_FOUND -32601
#define INVALID_PARAMS -32602

static const char * const protocol_versions[] = { JMEM_MCP_PROTOCOL_LATEST, "2025-06-18" };

static const char instructions[] =
  "jmem reports who holds memory on an NVIDIA Jetson, where CPU and GPU share one pool: CUDA, "
  "video and camera buffers come from NvMap and never show in top. Start with triage (the "
  "findings and what to do), then snapshot for the numbers. Before suggesting a model, a batch "
  "size or a context length, call headroom with need: it says whether that fits. When "
  "nvmap.readable is false, say "
  "so with its error and fix; never estimate NvMap numbers. Never suggest sudo: access is "
  "granted by adding the account to the jmem group.";

typedef struct {
  JmemMcpTools *tools;
  int           out_fd;
  gboolean      write_failed;
} Server;

static void
send_node (Server *server, JsonNode *message)
{
  g_autoptr(JmemJsonWriter) writer = jmem_json_writer_new (FALSE);
  g_autofree char *text = NULL;
  gsize len, done = 0;

  /* the writer, not json-glib's generator: every string it writes is
   * valid UTF-8, whatever a tool's answer or an echoed request holds */
  jmem_json_writer_add_node (writer, message);
  text = jmem_json_writer_free_to_string (g_steal_pointer (&writer));
  len = strlen (text);
  /* one write per message where it fits, so a reader never sees half */
  text = g_realloc (text, len + 1);
  text[len++] = '\n';
  while (done < len && !server->write_failed)
    {
      ssize_t n = write (server->out_fd, text + done, len - done);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        server->write_failed = TRUE;
      else
        done += (gsize) n;
    }
}

static void
send_result (Server *server, JsonNode *id, JsonNode *result)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autoptr(JsonNode) message = NULL;

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "jsonrpc");
  json_builder_add_string_value (b, "2.0");
  json_builder_set_member_name (b, "id");
  json_builder_add_value (b, json_node_copy (id));
  json_builder_set_member_name (b, "result");
  json_builder_add_value (b, result);
  json_builder_end_object (b);
  message = json_builder_get_root (b);
  send_node (server, message);
}

static void
send_error (Server *server, JsonNode *id, int code, const char *format, ...) G_GNUC_PRINTF (4, 5);

static void
send_error (Server *server, JsonNode *id, int code, const char *format, ...)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autoptr(JsonNode) message = NULL;
  g_autofree char *text = NULL;
  va_list ap;

  va_start (ap, format);
  text = g_strdup_vprintf (format, ap);
  va_end (ap);

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "jsonrpc");
  json_builder_add_string_value (b, "2.0");
  json_builder_set_member_name (b, "id");
  if (id != NULL)
    json_builder_add_value (b, json_node_copy (id));
  else
    json_builder_add_null_value (b);
  json_builder_set_member_name (b, "error");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "code");
  json_builder_add_int_value (b, code);
  json_builder_set_member_name (b, "message");
  json_builder_add_string_value (b, text);
  json_builder_end_object (b);
  json_builder_end_object (b);
  message = json_builder_get_root (b);
  send_node (server, message);
}

static JsonNode *
initialize_result (JsonObject *params)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  const char *version = JMEM_MCP_PROTOCOL_LATEST;
  const char *asked = NULL;

  if (params != NULL && json_object_has_member (params, "protocolVersion") &&
      JSON_NODE_HOLDS_VALUE (json_object_get_member (params, "protocolVersion")) &&
      json_node_get_value_type (json_object_get_member (params, "protocolVersion")) == G_TYPE_STRING)
    asked = json_object_get_string_member (params, "protocolVersion");
  for (gsize i = 0; asked != NULL && i < G_N_ELEMENTS (protocol_versions); i++)
    if (g_str_equal (asked, protocol_versions[i]))
      version = protocol_versions[i];

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "protocolVersion");
  json_builder_add_string_value (b, version);
  json_builder_set_member_name (b, "capabilities");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "tools");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "listChanged");
  json_builder_add_boolean_value (b, FALSE);
  json_builder_end_object (b);
  json_builder_end_object (b);
  json_builder_set_member_name (b, "serverInfo");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "name");
  json_builder_add_string_value (b, "jmem");
  json_builder_set_member_name (b, "title");
  json_builder_add_string_value (b, "jmem: who holds memory on this Jetson");
  json_builder_set_member_name (b, "version");
  json_builder_add_string_value (b, JMEM_VERSION);
  json_builder_end_object (b);
  json_builder_set_member_name (b, "instructions");
  json_builder_add_string_value (b, instructions);
  json_builder_end_object (b);
  return json_builder_get_root (b);
}

static void
call_tool (Server *server, JsonNode *id, JsonObject *params)
{
  JsonNode *name = params != NULL ? json_object_get_member (params, "name") : NULL;
  JsonNode *arguments = params != NULL ? json_object_get_member (params, "arguments") : NULL;
  const char *tool;

  if (name == NULL || !JSON_NODE_HOLDS_VALUE (name) ||
      json_node_get_value_type (name) != G_TYPE_STRING)
    {
      send_error (server, id, INVALID_PARAMS,
                  "tools/call needs params.name, one of: %s", jmem_mcp_tools_names ());
      return;
    }
  tool = json_node_get_string (name);
  if (!jmem_mcp_tools_has (server->tools, tool))
    {
      g_autofree char *shown = jmem_text_cap_field (tool);

      send_error (server, id, INVALID_PARAMS, "Unknown tool: \"%s\"; the tools are %s", shown,
                  jmem_mcp_tools_names ());
      return;
    }
  if (arguments != NULL && !JSON_NODE_HOLDS_OBJECT (arguments) && !JSON_NODE_HOLDS_NULL (arguments))
    {
      send_error (server, id, INVALID_PARAMS, "tools/call params.arguments must be an object");
      return;
    }
  send_result (server, id,
               jmem_mcp_tools_call (server->tools, tool,
                                    arguments != NULL && JSON_NODE_HOLDS_OBJECT (arguments) ?
                                      json_node_get_object (arguments) : NULL));
}

static gboolean
valid_id (JsonNode *id)
{
  return JSON_NODE_HOLDS_VALUE (id) &&
         (json_node_get_value_type (id) == G_TYPE_STRING ||
          json_node_get_value_type (id) == G_TYPE_INT64);
}

static void
handle_message (Server *server, const char *line, gsize len)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) root = jmem_json_read (line, len, JMEM_MCP_MAX_LINE_BYTES, &error);
  JsonObject *message, *params = NULL;
  JsonNode *id, *method, *params_node;
  const char *name;

  if (g_error_matches (error, JMEM_ERROR, JMEM_ERROR_NOT_AVAILABLE))
    return;  /* a blank line */
  /* valid JSON past a limit (an id beyond 64 bits, deep nesting) is an
   * invalid request; anything else the reader refuses is not JSON to it */
  if (g_error_matches (error, JMEM_ERROR, JMEM_ERROR_TOO_LARGE))
    {
      send_error (server, NULL, INVALID_REQUEST, "Invalid Request: %s", error->message);
      return;
    }
  if (root == NULL)
    {
      send_error (server, NULL, PARSE_ERROR, "Parse error: %s", error->message);
      return;
    }
  if (!JSON_NODE_HOLDS_OBJECT (root))
    {
      send_error (server, NULL, INVALID_REQUEST, "Invalid Request: a message is one JSON object%s",
                  JSON_NODE_HOLDS_ARRAY (root) ? " (batches are not part of MCP)" : "");
      return;
    }
  message = json_node_get_object (root);
  id = json_object_get_member (message, "id");
  method = json_object_get_member (message, "method");
  if (id != NULL && !valid_id (id))
    {
      send_error (server, NULL, INVALID_REQUEST, "Invalid Request: id must be a string or an integer");
      return;
    }
  if (method == NULL && id != NULL &&
      (json_object_has_member (message, "result") || json_object_has_member (message, "error")))
    return;  /* an answer to a request this server never makes */
  if (method == NULL || !JSON_NODE_HOLDS_VALUE (method) ||
      json_node_get_value_type (method) != G_TYPE_STRING ||
      g_strcmp0 (json_object_get_string_member_with_default (message, "jsonrpc", NULL), "2.0") != 0)
    {
      if (id != NULL)
        send_error (server, id, INVALID_REQUEST,
                    "Invalid Request: needs \"jsonrpc\": \"2.0\" and a \"method\" string");
      else
        send_error (server, NULL, INVALID_REQUEST,
                    "Invalid Request: needs \"jsonrpc\": \"2.0\", a \"method\" string and an \"id\"");
      return;
    }
  name = json_node_get_string (method);
  if (id == NULL)
    return;  /* notifications (initialized, cancelled, ...) need no answer */

  params_node = json_object_get_member (message, "params");
  if (params_node != NULL && JSON_NODE_HOLDS_OBJECT (params_node))
    params = json_node_get_object (params_node);
  else if (params_node != NULL && !JSON_NODE_HOLDS_NULL (params_node))
    {
      send_error (server, id, INVALID_PARAMS, "Invalid params: params must be an object");
      return;
    }

  if (g_str_equal (name, "initialize"))
    send_result (server, id, initialize_result (params));
  else if (g_str_equal (name, "ping"))
    {
      g_autoptr(JsonObject) empty = json_object_new ();

      send_result (server, id, json_node_init_object (json_node_alloc (), empty));
    }
  else if (g_str_equal (name, "tools/list"))
    {
      g_autoptr(JsonObject) result = json_object_new ();

      json_object_set_member (result, "tools", jmem_mcp_tools_list (server->tools));
      send_result (server, id, json_node_init_object (json_node_alloc (), result));
    }
  else if (g_str_equal (name, "tools/call"))
    call_tool (server, id, params);
  else
    {
      g_autofree char *shown = jmem_text_cap_field (name);

      send_error (server, id, METHOD_NOT_FOUND, "Method not found: \"%s\"", shown);
    }
}

int
jmem_mcp_serve (JmemMcpTools *tools,
                int           in_fd,
                int           out_fd)
{
  Server server = { tools, out_fd, FALSE };
  g_autoptr(GByteArray) line = g_byte_array_new ();
  g_autofree guint8 *buf = g_malloc (65536);
  gboolean skipping = FALSE;  /* inside a line that was too long */

  for (;;)
    {
      ssize_t n = read (in_fd, buf, 65536);
      gsize start = 0;

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          g_printerr ("jmem mcp: cannot read the input: %s\n", g_strerror (errno));
          return JMEM_EXIT_OK;
        }
      if (n == 0)
        break;
      for (gsize i = 0; i < (gsize) n; i++)
        {
          if (buf[i] != '\n')
            continue;
          if (!skipping)
            {
              g_byte_array_append (line, buf + start, (guint) (i - start));
              if (line->len > JMEM_MCP_MAX_LINE_BYTES)
                send_error (&server, NULL, INVALID_REQUEST,
                            "Invalid Request: a message longer than %u bytes was refused",
                            JMEM_MCP_MAX_LINE_BYTES);
              else
                {
                  if (line->len > 0 && line->data[line->len - 1] == '\r')
                    line->len--;
                  handle_message (&server, (const char *) line->data, line->len);
                }
            }
          skipping = FALSE;
          g_byte_array_set_size (line, 0);
          start = i + 1;
          if (server.write_failed)
            return JMEM_EXIT_CANT_CREATE;
        }
      if (!skipping)
        {
          g_byte_array_append (line, buf + start, (guint) ((gsize) n - start));
          if (line->len > JMEM_MCP_MAX_LINE_BYTES)
            {
              /* refuse now, and drop the rest of the line as it comes */
              send_error (&server, NULL, INVALID_REQUEST,
                          "Invalid Request: a message longer than %u bytes was refused",
                          JMEM_MCP_MAX_LINE_BYTES);
              skipping = TRUE;
              g_byte_array_set_size (line, 0);
            }
        }
      if (server.write_failed)
        return JMEM_EXIT_CANT_CREATE;
    }
  if (!skipping && line->len > 0)
    handle_message (&server, (const char *) line->data, line->len);
  return server.write_failed ? JMEM_EXIT_CANT_CREATE : JMEM_EXIT_OK;
}
