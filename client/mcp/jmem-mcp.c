/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "jmem-mcp.h"

#include "jmem-advice.h"
#include "jmem-error.h"
#include "jmem-json-reader.h"
#include "jmem-json-writer.h"
#include "jmem-mcp-revision.h"
#include "jmem-mcp-salvage.h"
#include "jmem-text.h"

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>

/* JSON-RPC 2.0 error codes, by their short names. */
#define PARSE_ERROR JMEM_MCP_PARSE_ERROR
#define INVALID_REQUEST JMEM_MCP_INVALID_REQUEST
#define METHOD_NOT_FOUND JMEM_MCP_METHOD_NOT_FOUND
#define INVALID_PARAMS JMEM_MCP_INVALID_PARAMS

static const char instructions[] =
  "jmem reports who holds memory on an NVIDIA Jetson, where CPU and GPU share one pool: CUDA, "
  "video and camera buffers come from NvMap and never show in top. Start with triage (the "
  "findings and what to do), then snapshot for the numbers. Before suggesting a model, a batch "
  "size or a context length, call headroom with need: it says whether that fits. When "
  "nvmap.readable is false, say "
  "so with its error and fix; never estimate NvMap numbers. Never run a privileged command "
  "yourself (sudo, root): jmem needs none, and access is granted by adding the account to the "
  "jmem group. An action with admin: true (a finding's, a warning's, one of headroom.actions), "
  "and a sudo command in a tool's fix, is a step for an administrator: quote it to the user as "
  "such.";

/* A JSON-RPC batch (2025-03-26): its answers go out together, as one array,
 * when the last of its requests is answered. */
typedef struct {
  guint      waiting;  /* requests not answered yet, + 1 while it is read */
  JsonArray *answers;
} Batch;

typedef struct {
  JmemMcpTools   *tools;
  int             out_fd;
  const JmemMcpRevision *revision;  /* the last initialize's; reading thread only */
  GThreadPool    *calls;      /* runs tools/call, one at a time, off the reading thread */
  GMutex          lock;       /* guards what follows */
  gboolean        write_failed;
  int             write_errno;   /* why it failed, for the one line that says so */
  gboolean        gone;       /* the client closed its end of out_fd */
  GHashTable     *running;    /* request key -> Call: tools/call queued or running */
} Server;

/* A tools/call, queued or running. Holds nothing of the request's JSON
 * tree: json-glib's reference counts are not atomic, and the tree is freed
 * on the reading thread. */
typedef struct {
  Server         *server;
  Batch          *batch;
  char           *key;
  JsonNode       *id;         /* a copy of its own */
  char           *tool;
  char           *arguments;  /* JSON text, or NULL */
  JmemMcpFeatures features;
  GCancellable   *cancellable;
} Call;

static void
call_free (Call *call)
{
  g_free (call->key);
  json_node_unref (call->id);
  g_free (call->tool);
  g_free (call->arguments);
  g_object_unref (call->cancellable);
  g_free (call);
}

/* Writes @message as one line; under server->lock. */
static void
write_locked (Server *server, JsonNode *message)
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
        {
          server->write_failed = TRUE;
          server->write_errno = n < 0 ? errno : EIO;
        }
      else
        done += (gsize) n;
    }
}

/* One request of @batch is answered (or needs none): the last sends them. */
static void
batch_done_locked (Server *server, Batch *batch)
{
  if (--batch->waiting > 0)
    return;
  if (json_array_get_length (batch->answers) > 0)
    {
      g_autoptr(JsonNode) all = json_node_init_array (json_node_alloc (), batch->answers);

      write_locked (server, all);
    }
  json_array_unref (batch->answers);
  g_free (batch);
}

/* Sends @message (taken), or keeps it for @batch's array. */
static void
send_node (Server *server, Batch *batch, JsonNode *message)
{
  g_mutex_lock (&server->lock);
  if (batch != NULL)
    json_array_add_element (batch->answers, message);
  else
    {
      write_locked (server, message);
      json_node_unref (message);
    }
  g_mutex_unlock (&server->lock);
}

static JsonNode *
id_copy (JsonNode *id)
{
  JsonNode *copy = json_node_alloc ();

  if (id == NULL || JSON_NODE_HOLDS_NULL (id))
    return json_node_init_null (copy);
  if (json_node_get_value_type (id) == G_TYPE_STRING)
    return json_node_init_string (copy, json_node_get_string (id));
  return json_node_init_int (copy, json_node_get_int (id));
}

static JsonNode *
result_message (JsonNode *id, JsonNode *result)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "jsonrpc");
  json_builder_add_string_value (b, "2.0");
  json_builder_set_member_name (b, "id");
  json_builder_add_value (b, id_copy (id));
  json_builder_set_member_name (b, "result");
  json_builder_add_value (b, result);
  json_builder_end_object (b);
  return json_builder_get_root (b);
}

static void
send_result (Server *server, Batch *batch, JsonNode *id, JsonNode *result)
{
  send_node (server, batch, result_message (id, result));
}

/* An error with @text, and @data (taken; may be NULL) where it has some. */
static void
send_error_data (Server *server, Batch *batch, JsonNode *id, int code, const char *text,
                 JsonNode *data)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "jsonrpc");
  json_builder_add_string_value (b, "2.0");
  json_builder_set_member_name (b, "id");
  json_builder_add_value (b, id_copy (id));
  json_builder_set_member_name (b, "error");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "code");
  json_builder_add_int_value (b, code);
  json_builder_set_member_name (b, "message");
  json_builder_add_string_value (b, text);
  if (data != NULL)
    {
      json_builder_set_member_name (b, "data");
      json_builder_add_value (b, data);
    }
  json_builder_end_object (b);
  json_builder_end_object (b);
  send_node (server, batch, json_builder_get_root (b));
}

static void
send_error (Server *server, Batch *batch, JsonNode *id, int code, const char *format, ...)
  G_GNUC_PRINTF (5, 6);

static void
send_error (Server *server, Batch *batch, JsonNode *id, int code, const char *format, ...)
{
  g_autofree char *text = NULL;
  va_list ap;

  va_start (ap, format);
  text = g_strdup_vprintf (format, ap);
  va_end (ap);
  send_error_data (server, batch, id, code, text, NULL);
}

/* What a request that names no revision of its own gets: the session's,
 * or before any initialize the newest with a handshake. */
static const JmemMcpRevision *
session_revision (Server *server)
{
  return server->revision != NULL ? server->revision
                                  : jmem_mcp_revision_for_initialize (NULL);
}

static JsonObject *
capabilities (void)
{
  JsonObject *capabilities = json_object_new ();
  JsonObject *tools = json_object_new ();

  json_object_set_boolean_member (tools, "listChanged", FALSE);
  json_object_set_object_member (capabilities, "tools", tools);
  return capabilities;
}

static JsonNode *
initialize_result (Server *server, JsonObject *params)
{
  g_autoptr(JsonObject) result = json_object_new ();
  const JmemMcpRevision *revision;
  const char *asked = NULL;

  if (params != NULL && json_object_has_member (params, "protocolVersion") &&
      JSON_NODE_HOLDS_VALUE (json_object_get_member (params, "protocolVersion")) &&
      json_node_get_value_type (json_object_get_member (params, "protocolVersion")) == G_TYPE_STRING)
    asked = json_object_get_string_member (params, "protocolVersion");
  revision = jmem_mcp_revision_for_initialize (asked);
  server->revision = revision;

  json_object_set_string_member (result, "protocolVersion", revision->name);
  json_object_set_object_member (result, "capabilities", capabilities ());
  json_object_set_member (result, "serverInfo", jmem_mcp_revision_server_info (revision->features));
  json_object_set_string_member (result, "instructions", instructions);
  return json_node_init_object (json_node_alloc (), result);
}

/* server/discover (2026-07-28): every revision spoken, the tools, who
 * answers; cacheable as tools/list is. */
static JsonNode *
discover_result (const JmemMcpRevision *revision)
{
  g_autoptr(JsonObject) result = json_object_new ();
  JsonNode *node;

  json_object_set_member (result, "supportedVersions", jmem_mcp_revision_names ());
  json_object_set_object_member (result, "capabilities", capabilities ());
  json_object_set_string_member (result, "instructions", instructions);
  jmem_mcp_revision_add_cache_hints (result, revision->features);
  jmem_mcp_revision_add_server_title (result, revision->features);
  node = json_node_init_object (json_node_alloc (), result);
  jmem_mcp_revision_finish_result (node, revision->features);
  return node;
}

/* The key of request @id among the running calls: ids 1 and "1" differ. */
static char *
request_key (JsonNode *id)
{
  if (json_node_get_value_type (id) == G_TYPE_STRING)
    return g_strconcat ("s", json_node_get_string (id), NULL);
  return g_strdup_printf ("i%" G_GINT64_FORMAT, json_node_get_int (id));
}

/* On the calls' thread. */
static void
run_call (gpointer data, gpointer user_data)
{
  Call *call = data;
  Server *server = call->server;
  g_autoptr(JsonNode) arguments = NULL;
  JsonNode *result = NULL;

  if (!g_cancellable_is_cancelled (call->cancellable))
    {
      if (call->arguments != NULL)
        arguments = json_from_string (call->arguments, NULL);
      result = jmem_mcp_tools_call (server->tools, call->tool,
                                    arguments != NULL ? json_node_get_object (arguments) : NULL,
                                    call->features, call->cancellable);
      jmem_mcp_revision_finish_result (result, call->features);
    }

  g_mutex_lock (&server->lock);
  g_hash_table_remove (server->running, call->key);
  /* cancelled: no answer, as the revisions ask */
  if (result != NULL && !g_cancellable_is_cancelled (call->cancellable))
    {
      JsonNode *message = result_message (call->id, g_steal_pointer (&result));

      if (call->batch != NULL)
        json_array_add_element (call->batch->answers, message);
      else
        {
          write_locked (server, message);
          json_node_unref (message);
        }
    }
  if (call->batch != NULL)
    batch_done_locked (server, call->batch);
  g_mutex_unlock (&server->lock);
  if (result != NULL)
    json_node_unref (result);
  call_free (call);
}

static void
call_tool (Server *server, Batch *batch, JsonNode *id, JsonObject *params,
           const JmemMcpRevision *revision)
{
  JsonNode *name = params != NULL ? json_object_get_member (params, "name") : NULL;
  JsonNode *arguments = params != NULL ? json_object_get_member (params, "arguments") : NULL;
  g_autofree char *key = NULL;
  const char *tool;
  Call *call;

  if (name == NULL || !JSON_NODE_HOLDS_VALUE (name) ||
      json_node_get_value_type (name) != G_TYPE_STRING)
    {
      send_error (server, batch, id, INVALID_PARAMS,
                  "tools/call needs params.name, one of: %s", jmem_mcp_tools_names ());
      return;
    }
  tool = json_node_get_string (name);
  if (!jmem_mcp_tools_has (server->tools, tool))
    {
      g_autofree char *shown = jmem_text_cap_field (tool);

      send_error (server, batch, id, INVALID_PARAMS, "Unknown tool: \"%s\"; the tools are %s",
                  shown, jmem_mcp_tools_names ());
      return;
    }
  if (arguments != NULL && !JSON_NODE_HOLDS_OBJECT (arguments) && !JSON_NODE_HOLDS_NULL (arguments))
    {
      send_error (server, batch, id, INVALID_PARAMS, "tools/call params.arguments must be an object");
      return;
    }

  key = request_key (id);
  g_mutex_lock (&server->lock);
  if (g_hash_table_contains (server->running, key))
    {
      g_mutex_unlock (&server->lock);
      send_error (server, batch, id, INVALID_REQUEST,
                  "Invalid Request: a request with this id is still running");
      return;
    }
  call = g_new0 (Call, 1);
  call->server = server;
  call->batch = batch;
  call->key = g_steal_pointer (&key);
  call->id = id_copy (id);
  call->tool = g_strdup (tool);
  if (arguments != NULL && JSON_NODE_HOLDS_OBJECT (arguments))
    call->arguments = json_to_string (arguments, FALSE);
  call->features = revision->features;
  call->cancellable = g_cancellable_new ();
  g_hash_table_insert (server->running, call->key, call);
  if (batch != NULL)
    batch->waiting++;
  g_mutex_unlock (&server->lock);
  g_thread_pool_push (server->calls, call, NULL);
}

/* notifications/cancelled: a call queued never runs, one running stops
 * where it can (an audit's wait and steps); neither is answered. */
static void
cancel_call (Server *server, JsonObject *params)
{
  JsonNode *id = params != NULL ? json_object_get_member (params, "requestId") : NULL;
  g_autofree char *key = NULL;
  Call *call;

  if (id == NULL || !JSON_NODE_HOLDS_VALUE (id) ||
      (json_node_get_value_type (id) != G_TYPE_STRING &&
       json_node_get_value_type (id) != G_TYPE_INT64))
    return;  /* an invalid cancellation is ignored */
  key = request_key (id);
  g_mutex_lock (&server->lock);
  call = g_hash_table_lookup (server->running, key);
  if (call != NULL)
    g_cancellable_cancel (call->cancellable);
  g_mutex_unlock (&server->lock);
}

static gboolean
valid_id (JsonNode *id)
{
  return JSON_NODE_HOLDS_VALUE (id) &&
         (json_node_get_value_type (id) == G_TYPE_STRING ||
          json_node_get_value_type (id) == G_TYPE_INT64);
}

/* One request or notification, alone or in @batch. */
static void
handle_object (Server *server, Batch *batch, JsonObject *message)
{
  g_auto(JmemMcpRevisionError) refused = { 0 };
  const JmemMcpRevision *revision;
  JsonObject *params = NULL;
  JsonNode *id, *method, *params_node;
  const char *name;

  id = json_object_get_member (message, "id");
  method = json_object_get_member (message, "method");
  if (id != NULL && !valid_id (id))
    {
      send_error (server, batch, NULL, INVALID_REQUEST, "Invalid Request: id must be a string or an integer");
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
        send_error (server, batch, id, INVALID_REQUEST,
                    "Invalid Request: needs \"jsonrpc\": \"2.0\" and a \"method\" string");
      else
        send_error (server, batch, NULL, INVALID_REQUEST,
                    "Invalid Request: needs \"jsonrpc\": \"2.0\", a \"method\" string and an \"id\"");
      return;
    }
  name = json_node_get_string (method);
  params_node = json_object_get_member (message, "params");
  if (params_node != NULL && JSON_NODE_HOLDS_OBJECT (params_node))
    params = json_node_get_object (params_node);

  if (id == NULL)
    {
      /* notifications need no answer; initialized and the rest change nothing */
      if (g_str_equal (name, "notifications/cancelled"))
        cancel_call (server, params);
      return;
    }
  if (params == NULL && params_node != NULL && !JSON_NODE_HOLDS_NULL (params_node))
    {
      send_error (server, batch, id, INVALID_PARAMS, "Invalid params: params must be an object");
      return;
    }

  /* the revision the request names in its _meta (2026-07-28 on), else
   * the session's: each request is served as its revision says */
  if (!jmem_mcp_revision_of_request (params, &revision, &refused))
    {
      send_error_data (server, batch, id, refused.code, refused.message,
                       g_steal_pointer (&refused.data));
      return;
    }
  if (g_str_equal (name, "server/discover"))
    {
      if (revision == NULL || !JMEM_MCP_REVISION_STATELESS (revision))
        send_error (server, batch, id, INVALID_PARAMS,
                    "Invalid params: server/discover needs _meta "
                    "\"io.modelcontextprotocol/protocolVersion\" (%s) and "
                    "\"io.modelcontextprotocol/clientCapabilities\"", JMEM_MCP_PROTOCOL_LATEST);
      else
        send_result (server, batch, id, discover_result (revision));
      return;
    }
  if (revision == NULL)
    revision = session_revision (server);

  /* 2026-07-28 has no handshake and no ping */
  if (g_str_equal (name, "initialize") && !JMEM_MCP_REVISION_STATELESS (revision))
    {
      if (batch != NULL)
        send_error (server, batch, id, INVALID_REQUEST,
                    "Invalid Request: initialize must not be part of a batch");
      else
        send_result (server, batch, id, initialize_result (server, params));
    }
  else if (g_str_equal (name, "ping") && !JMEM_MCP_REVISION_STATELESS (revision))
    {
      g_autoptr(JsonObject) empty = json_object_new ();

      send_result (server, batch, id, json_node_init_object (json_node_alloc (), empty));
    }
  else if (g_str_equal (name, "tools/list"))
    {
      g_autoptr(JsonObject) result = json_object_new ();
      JsonNode *node;

      json_object_set_member (result, "tools",
                              jmem_mcp_tools_list (server->tools, revision->features));
      jmem_mcp_revision_add_cache_hints (result, revision->features);
      node = json_node_init_object (json_node_alloc (), result);
      jmem_mcp_revision_finish_result (node, revision->features);
      send_result (server, batch, id, node);
    }
  else if (g_str_equal (name, "tools/call"))
    call_tool (server, batch, id, params, revision);
  else
    {
      g_autofree char *shown = jmem_text_cap_field (name);

      if (JMEM_MCP_REVISION_STATELESS (revision))
        send_error (server, batch, id, METHOD_NOT_FOUND,
                    "Method not found: \"%s\" (not in revision %s)", shown, revision->name);
      else
        send_error (server, batch, id, METHOD_NOT_FOUND, "Method not found: \"%s\"", shown);
    }
}

static void
handle_batch (Server *server, JsonArray *array)
{
  Batch *batch;

  if (!session_revision (server)->batches)
    {
      send_error (server, NULL, NULL, INVALID_REQUEST,
                  "Invalid Request: a message is one JSON object (batches are part of MCP "
                  "revision 2025-03-26 only; this session speaks %s)",
                  session_revision (server)->name);
      return;
    }
  if (json_array_get_length (array) == 0)
    {
      send_error (server, NULL, NULL, INVALID_REQUEST, "Invalid Request: an empty batch");
      return;
    }
  batch = g_new0 (Batch, 1);
  batch->waiting = 1;
  batch->answers = json_array_new ();
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonNode *element = json_array_get_element (array, i);

      if (JSON_NODE_HOLDS_OBJECT (element))
        handle_object (server, batch, json_node_get_object (element));
      else
        send_error (server, batch, NULL, INVALID_REQUEST,
                    "Invalid Request: a batch holds request objects");
    }
  g_mutex_lock (&server->lock);
  batch_done_locked (server, batch);
  g_mutex_unlock (&server->lock);
}

/* A tools/call of a known tool whose arguments alone cannot be read (a
 * lone surrogate, a NUL): the tool's isError with the reason, as for any
 * argument that does not match its schema. FALSE where that is not it. */
static gboolean
refuse_arguments (Server *server, const JmemMcpSalvage *salvage)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) arguments = NULL;
  g_autofree char *text = NULL;
  JsonNode *result;
  const char *reason;

  if (salvage->id == NULL || !salvage->tools_call || salvage->tool == NULL ||
      !jmem_mcp_tools_has (server->tools, salvage->tool) || salvage->arguments == NULL)
    return FALSE;
  arguments = jmem_json_read (salvage->arguments, salvage->arguments_len,
                              JMEM_MCP_MAX_LINE_BYTES, &error);
  if (arguments != NULL || g_error_matches (error, JMEM_ERROR, JMEM_ERROR_NOT_AVAILABLE))
    return FALSE;
  /* the column is the arguments', not the line's: left out */
  reason = error->message;
  if (g_str_has_prefix (reason, "column ") && strstr (reason, ": ") != NULL)
    reason = strstr (reason, ": ") + 2;
  text = g_strdup_printf ("invalid arguments: %s cannot read them: %s", salvage->tool, reason);
  result = jmem_mcp_tools_error_result (text);
  /* its _meta cannot be read: the session's revision */
  jmem_mcp_revision_finish_result (result, session_revision (server)->features);
  send_result (server, NULL, salvage->id, result);
  return TRUE;
}

/* A refusal of the message @line (@len bytes, maybe only its start) that
 * could not be read, sent to its id where its start says it. */
static void
refuse_message (Server *server, const char *line, gsize len, gboolean whole, int code,
                const char *message)
{
  g_auto(JmemMcpSalvage) salvage = { 0 };

  jmem_mcp_salvage (line, len, &salvage);
  if (whole && refuse_arguments (server, &salvage))
    return;
  send_error (server, NULL, salvage.id, code, "%s", message);
}

static void
refuse_long_line (Server *server, GByteArray *line)
{
  g_autofree char *message = g_strdup_printf (
    "Invalid Request: a message longer than %u bytes was refused", JMEM_MCP_MAX_LINE_BYTES);

  refuse_message (server, (const char *) line->data, line->len, FALSE, INVALID_REQUEST, message);
}

static void
handle_message (Server *server, const char *line, gsize len)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) root = jmem_json_read (line, len, JMEM_MCP_MAX_LINE_BYTES, &error);

  if (g_error_matches (error, JMEM_ERROR, JMEM_ERROR_NOT_AVAILABLE))
    return;  /* a blank line */
  /* valid JSON past a limit (an id beyond 64 bits, deep nesting) is an
   * invalid request; anything else the reader refuses is not JSON to it */
  if (g_error_matches (error, JMEM_ERROR, JMEM_ERROR_TOO_LARGE))
    {
      g_autofree char *message = g_strdup_printf ("Invalid Request: %s", error->message);

      refuse_message (server, line, len, TRUE, INVALID_REQUEST, message);
      return;
    }
  if (root == NULL)
    {
      g_autofree char *message = g_strdup_printf ("Parse error: %s", error->message);

      refuse_message (server, line, len, TRUE, PARSE_ERROR, message);
      return;
    }
  if (JSON_NODE_HOLDS_ARRAY (root))
    handle_batch (server, json_node_get_array (root));
  else if (JSON_NODE_HOLDS_OBJECT (root))
    handle_object (server, NULL, json_node_get_object (root));
  else
    send_error (server, NULL, NULL, INVALID_REQUEST, "Invalid Request: a message is one JSON object");
}

static gboolean
write_failed (Server *server)
{
  gboolean failed;

  g_mutex_lock (&server->lock);
  failed = server->write_failed;
  g_mutex_unlock (&server->lock);
  return failed;
}

/* Whether the client closed its end of @out_fd (a pipe's read end, a
 * socket's peer), waiting up to @timeout_ms; then nothing more can reach
 * it, and the server stops. It is marked gone. */
static gboolean
client_gone (Server *server, int timeout_ms)
{
  struct pollfd out = { server->out_fd, 0, 0 };
  int n;

  do
    n = poll (&out, 1, timeout_ms);
  while (n < 0 && errno == EINTR);
  if (n <= 0 || !(out.revents & (POLLERR | POLLHUP)))
    return FALSE;
  g_mutex_lock (&server->lock);
  server->gone = TRUE;
  g_mutex_unlock (&server->lock);
  return TRUE;
}

/* Waits for @in_fd to be readable, or its end; FALSE where the client
 * closed out_fd first. */
static gboolean
wait_input (Server *server, int in_fd)
{
  struct pollfd fds[2] = { { in_fd, POLLIN, 0 }, { server->out_fd, 0, 0 } };
  int n;

  do
    n = poll (fds, 2, -1);
  while (n < 0 && errno == EINTR);
  if (n > 0 && (fds[1].revents & (POLLERR | POLLHUP)) && !(fds[0].revents & POLLIN))
    return !client_gone (server, 0);
  return TRUE;
}

/* Reads requests until the end of input, a failed write or the client
 * gone. */
static void
read_requests (Server *server, int in_fd)
{
  g_autoptr(GByteArray) line = g_byte_array_new ();
  g_autofree guint8 *buf = g_malloc (65536);
  gboolean skipping = FALSE;  /* inside a line that was too long */

  for (;;)
    {
      ssize_t n;
      gsize start = 0;

      if (!wait_input (server, in_fd))
        return;
      n = read (in_fd, buf, 65536);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          g_printerr ("jmem mcp: cannot read the input: %s\n", g_strerror (errno));
          return;
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
                refuse_long_line (server, line);
              else
                {
                  if (line->len > 0 && line->data[line->len - 1] == '\r')
                    line->len--;
                  handle_message (server, (const char *) line->data, line->len);
                }
            }
          skipping = FALSE;
          g_byte_array_set_size (line, 0);
          start = i + 1;
          if (write_failed (server))
            return;
        }
      if (!skipping)
        {
          g_byte_array_append (line, buf + start, (guint) ((gsize) n - start));
          if (line->len > JMEM_MCP_MAX_LINE_BYTES)
            {
              /* refuse now, and drop the rest of the line as it comes */
              refuse_long_line (server, line);
              skipping = TRUE;
              g_byte_array_set_size (line, 0);
            }
        }
      if (write_failed (server))
        return;
    }
  if (!skipping && line->len > 0)
    handle_message (server, (const char *) line->data, line->len);
}

static gboolean
calls_left (Server *server)
{
  gboolean left;

  g_mutex_lock (&server->lock);
  left = g_hash_table_size (server->running) > 0;
  g_mutex_unlock (&server->lock);
  return left;
}

static void
cancel_all (Server *server)
{
  GHashTableIter iter;
  gpointer value;

  g_mutex_lock (&server->lock);
  g_hash_table_iter_init (&iter, server->running);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    g_cancellable_cancel (((Call *) value)->cancellable);
  g_mutex_unlock (&server->lock);
}

int
jmem_mcp_serve (JmemMcpTools *tools,
                int           in_fd,
                int           out_fd)
{
  Server server = { tools, out_fd, NULL, NULL };
  gboolean failed;

  g_mutex_init (&server.lock);
  server.running = g_hash_table_new (g_str_hash, g_str_equal);
  /* one thread runs the tools, in order (they share the boot cache and the
   * bus connection); this one keeps reading, so a ping, tools/list or a
   * cancellation is answered while an audit runs */
  server.calls = g_thread_pool_new (run_call, NULL, 1, FALSE, NULL);

  read_requests (&server, in_fd);

  /* at the end of input the calls still queued run and are answered, as
   * long as the client reads: one that stopped reading or closed its end
   * (an SDK's close() during an audit's wait) gets none, and the call
   * running stops now rather than at its end */
  while (!write_failed (&server) && !server.gone && calls_left (&server))
    client_gone (&server, 100);
  if (write_failed (&server) || server.gone)
    cancel_all (&server);
  g_thread_pool_free (server.calls, FALSE, TRUE);
  failed = server.write_failed;
  if (failed)
    g_printerr ("jmem mcp: cannot write to standard output: %s\n", g_strerror (server.write_errno));
  g_hash_table_unref (server.running);
  g_mutex_clear (&server.lock);
  return failed ? JMEM_EXIT_CANT_CREATE : JMEM_EXIT_OK;
}
