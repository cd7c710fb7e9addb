/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer target for the MCP message handler (client/mcp/jmem-mcp.c):
 * the input is what a client writes to `jmem mcp`'s stdin, lines and all.
 * Every answer must be one line of strict JSON in UTF-8, a JSON-RPC 2.0
 * response, or an array of them (a batch, in revision 2025-03-26). The
 * tools are a fixed table whose one tool, "echo", returns
 * its arguments: the handler is what is fuzzed, and echoing puts every
 * string a request may carry back through the writer. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <glib.h>

#include "jmem-advice.h"
#include "jmem-json-reader.h"
#include "jmem-mcp.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

struct _JmemMcpTools {
  int unused;
};

const char *
jmem_mcp_tools_names (void)
{
  return "echo";
}

gboolean
jmem_mcp_tools_has (JmemMcpTools *tools, const char *name)
{
  return g_str_equal (name, "echo");
}

JsonNode *
jmem_mcp_tools_list (JmemMcpTools *tools, JmemMcpFeatures features)
{
  g_autoptr(JsonArray) list = json_array_new ();
  JsonObject *echo = json_object_new ();

  json_object_set_string_member (echo, "name", "echo");
  json_array_add_object_element (list, echo);
  return json_node_init_array (json_node_alloc (), list);
}

JsonNode *
jmem_mcp_tools_call (JmemMcpTools *tools, const char *name, JsonObject *arguments,
                     JmemMcpFeatures features, GCancellable *cancellable)
{
  g_autoptr(JsonObject) result = json_object_new ();

  if (arguments != NULL)
    json_object_set_member (result, "structuredContent",
                            json_node_init_object (json_node_alloc (), arguments));
  json_object_set_boolean_member (result, "isError", FALSE);
  return json_node_init_object (json_node_alloc (), result);
}

JsonNode *
jmem_mcp_tools_error_result (const char *text)
{
  g_autoptr(JsonObject) result = json_object_new ();

  json_object_set_string_member (result, "text", text);
  json_object_set_boolean_member (result, "isError", TRUE);
  return json_node_init_object (json_node_alloc (), result);
}

static void
check_response (JsonNode *node)
{
  JsonObject *o;

  if (!JSON_NODE_HOLDS_OBJECT (node))
    abort ();
  o = json_node_get_object (node);
  if (g_strcmp0 (json_object_get_string_member_with_default (o, "jsonrpc", NULL), "2.0") != 0 ||
      !json_object_has_member (o, "id") ||
      json_object_has_member (o, "result") == json_object_has_member (o, "error"))
    abort ();
}

static void
check_answer (const char *line, gsize len)
{
  g_autoptr(JsonNode) node = NULL;

  if (!g_utf8_validate (line, (gssize) len, NULL))
    abort ();
  node = jmem_json_read (line, len, G_MAXSIZE, NULL);
  if (node == NULL)
    abort ();
  if (!JSON_NODE_HOLDS_ARRAY (node))
    {
      check_response (node);
      return;
    }
  /* a batch's answers: never empty */
  if (json_array_get_length (json_node_get_array (node)) == 0)
    abort ();
  for (guint i = 0; i < json_array_get_length (json_node_get_array (node)); i++)
    check_response (json_array_get_element (json_node_get_array (node), i));
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  JmemMcpTools tools = { 0 };
  g_autofree char *out = NULL;
  off_t out_len;
  int in_fd, out_fd;

  in_fd = memfd_create ("in", MFD_CLOEXEC);
  out_fd = memfd_create ("out", MFD_CLOEXEC);
  if (in_fd < 0 || out_fd < 0 || (size > 0 && write (in_fd, data, size) != (ssize_t) size) ||
      lseek (in_fd, 0, SEEK_SET) != 0)
    abort ();
  if (jmem_mcp_serve (&tools, in_fd, out_fd) != JMEM_EXIT_OK)
    abort ();

  out_len = lseek (out_fd, 0, SEEK_CUR);
  out = g_malloc ((gsize) out_len + 1);
  if (pread (out_fd, out, (size_t) out_len, 0) != out_len)
    abort ();
  out[out_len] = '\0';
  close (in_fd);
  close (out_fd);

  /* whole lines only, each one answer */
  if (out_len > 0 && out[out_len - 1] != '\n')
    abort ();
  for (char *p = out, *nl; p < out + out_len; p = nl + 1)
    {
      nl = memchr (p, '\n', (gsize) (out + out_len - p));
      check_answer (p, (gsize) (nl - p));
    }
  return 0;
}
