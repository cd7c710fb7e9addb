/* SPDX-License-Identifier: GPL-2.0-or-later */
/* `jmem mcp` in the e2e sandbox (tests/e2e/jmem-sandbox), against the real
 * helper and polkit: as a member of the group an agent gets the NvMap rows
 * and drops caches with no password and no sudo; as an outsider the tools
 * say why not and what to do. */
#include <gio/gio.h>
#include <json-glib/json-glib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "jmem-config.h"
#include "jmem-names.h"
#include "jmem-test.h"

static const char *build_dir;
static const char *agent_user;
static const char *outsider_user;

/* The answers of `jmem mcp`, run as @user, to the handshake and then one
 * tools/call per @calls entry ("name", "arguments JSON"), by request id. */
static GPtrArray *
mcp_session (const char *user, const char *const calls[][2], gsize n_calls)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *jmem = g_build_filename (build_dir, "client", "jmem", NULL);
  g_autoptr(GString) input = g_string_new (NULL);
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GSubprocess) process = NULL;
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_auto(GStrv) lines = NULL;
  const char *mcp[] = { "mcp", NULL };
  GPtrArray *answers = g_ptr_array_new_with_free_func ((GDestroyNotify) json_object_unref);

  g_string_append (input, "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":"
                          "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},"
                          "\"clientInfo\":{\"name\":\"e2e\",\"version\":\"1\"}}}\n"
                          "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n");
  for (gsize i = 0; i < n_calls; i++)
    g_string_append_printf (input, "{\"jsonrpc\":\"2.0\",\"id\":%zu,\"method\":\"tools/call\","
                            "\"params\":{\"name\":\"%s\",\"arguments\":%s}}\n",
                            i + 1, calls[i][0], calls[i][1]);

  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDIN_PIPE |
                                        G_SUBPROCESS_FLAGS_STDOUT_PIPE |
                                        G_SUBPROCESS_FLAGS_STDERR_PIPE);
  process = jmem_test_spawn_as (launcher, user, jmem, mcp);
  g_subprocess_communicate_utf8 (process, input->str, NULL, &out, &err, &error);
  g_assert_no_error (error);
  g_test_message ("jmem mcp as %s\nstdout: %.3000s\nstderr: %.2000s", user, out, err);
  g_assert_true (g_subprocess_get_if_exited (process));
  g_assert_cmpint (g_subprocess_get_exit_status (process), ==, 0);

  /* stdout is protocol only: one answer per request, each one JSON object */
  lines = g_strsplit (out, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_autoptr(JsonParser) parser = json_parser_new ();
      JsonObject *answer;

      if (lines[i][0] == '\0')
        {
          g_assert_null (lines[i + 1]);
          break;
        }
      json_parser_load_from_data (parser, lines[i], -1, &error);
      g_assert_no_error (error);
      answer = json_node_get_object (json_parser_get_root (parser));
      g_assert_cmpint (json_object_get_int_member (answer, "id"), ==, i);
      g_ptr_array_add (answers, json_object_ref (answer));
    }
  g_assert_cmpuint (answers->len, ==, n_calls + 1);
  return answers;
}

static JsonObject *
result_of (GPtrArray *answers, guint id)
{
  JsonObject *result = json_object_get_object_member (g_ptr_array_index (answers, id), "result");

  g_assert_nonnull (result);
  return result;
}

static const char *
text_of (JsonObject *result)
{
  JsonArray *content = json_object_get_array_member (result, "content");

  return json_object_get_string_member (json_array_get_object_element (content, 0), "text");
}

static char *
read_knob (const char *path)
{
  g_autoptr(GError) error = NULL;
  char *text = NULL;

  g_file_get_contents (path, &text, NULL, &error);
  g_assert_no_error (error);
  return g_strstrip (text);
}

static void
clear_knob (const char *path)
{
  FILE *f = fopen (path, "w");  /* a bind mount: truncate, not replace */

  g_assert_nonnull (f);
  fclose (f);
}

/* (pid, size) of each row of the mounted iovmm/clients, by the kernel's
 * fixed columns ("%-18s %18s %8u %10lluK"), not by the project's parser. */
static GArray *
fixture_rows (void)
{
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;
  GArray *rows = g_array_new (FALSE, FALSE, sizeof (guint64) * 2);

  g_assert_true (g_file_get_contents (JMEM_NVMAP_CLIENTS_PATH, &text, NULL, NULL));
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      gsize len = strlen (lines[i]);
      guint64 row[2];

      if (len < 49 || lines[i][len - 1] != 'K' || g_str_has_prefix (lines[i], "total"))
        continue;
      row[0] = g_ascii_strtoull (lines[i] + 38, NULL, 10);
      row[1] = g_ascii_strtoull (lines[i] + 47, NULL, 10);
      g_array_append_val (rows, row);
    }
  g_assert_cmpuint (rows->len, >, 0);
  return rows;
}

static void
test_agent (void)
{
  const char *const calls[][2] = {
    { "snapshot", "{\"all\":true}" },
    { "allocations", "{\"limit\":1}" },
    { "drop_caches", "{\"level\":2}" },
  };
  g_autoptr(GPtrArray) answers = NULL;
  g_autoptr(GArray) rows = fixture_rows ();
  g_autofree char *level = NULL;
  JsonObject *result, *nvmap, *doc;
  JsonArray *clients;

  clear_knob (JMEM_DROP_CACHES_PATH);
  answers = mcp_session (agent_user, calls, G_N_ELEMENTS (calls));

  /* the fixture's NvMap rows, through the helper and polkit */
  result = result_of (answers, 1);
  g_assert_false (json_object_get_boolean_member (result, "isError"));
  nvmap = json_object_get_object_member (json_object_get_object_member (result, "structuredContent"), "nvmap");
  g_assert_true (json_object_get_boolean_member (nvmap, "readable"));
  g_assert_cmpstr (json_object_get_string_member (nvmap, "via"), ==, "helper");
  clients = json_object_get_array_member (nvmap, "clients");
  g_assert_cmpuint (json_array_get_length (clients), ==, rows->len);
  for (guint i = 0; i < rows->len; i++)
    {
      JsonObject *row = json_array_get_object_element (clients, i);
      const guint64 *expected = &g_array_index (rows, guint64, 2 * i);

      g_assert_cmpint (json_object_get_int_member (row, "pid"), ==, (gint64) expected[0]);
      g_assert_cmpint (json_object_get_int_member (row, "size_kib"), ==, (gint64) expected[1]);
    }

  result = result_of (answers, 2);
  g_assert_false (json_object_get_boolean_member (result, "isError"));
  doc = json_object_get_object_member (result, "structuredContent");
  g_assert_cmpstr (json_object_get_string_member (doc, "via"), ==, "helper");
  g_assert_true (json_object_has_member (doc, "omitted"));

  /* the drop reached the (recording) drop_caches file */
  result = result_of (answers, 3);
  g_assert_false (json_object_get_boolean_member (result, "isError"));
  doc = json_object_get_object_member (result, "structuredContent");
  g_assert_cmpint (json_object_get_int_member (doc, "level"), ==, 2);
  level = read_knob (JMEM_DROP_CACHES_PATH);
  g_assert_cmpstr (level, ==, "2");
}

static void
test_outsider (void)
{
  const char *const calls[][2] = {
    { "snapshot", "{}" },
    { "drop_caches", "{\"level\":1}" },
    { "audit", "{\"level\":1}" },
    { "allocations", "{}" },
  };
  g_autoptr(GPtrArray) answers = NULL;
  g_autofree char *level = NULL;
  /* the group the build grants: the run's own is the sandbox's */
  const char *advice = "To fix: add this account to the " JMEM_PRIVILEGED_GROUP " group";
  JsonObject *result, *nvmap;
  gint64 start = g_get_monotonic_time ();

  clear_knob (JMEM_DROP_CACHES_PATH);
  answers = mcp_session (outsider_user, calls, G_N_ELEMENTS (calls));
  /* refused at once: nobody was asked for a password */
  g_assert_cmpint (g_get_monotonic_time () - start, <, 20 * G_USEC_PER_SEC);

  /* the snapshot runs, without NvMap numbers, and says why */
  result = result_of (answers, 1);
  g_assert_false (json_object_get_boolean_member (result, "isError"));
  nvmap = json_object_get_object_member (json_object_get_object_member (result, "structuredContent"), "nvmap");
  g_assert_false (json_object_get_boolean_member (nvmap, "readable"));
  g_assert_cmpstr (json_object_get_string_member (nvmap, "error"), !=, NULL);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (nvmap, "clients")), ==, 0);

  /* refused with the fix the commands give: the group, which polkit reads
   * at each call, so this agent needs no new login and no restart */
  for (guint id = 2; id <= 4; id++)
    {
      const char *text;

      result = result_of (answers, id);
      g_assert_true (json_object_get_boolean_member (result, "isError"));
      g_assert_false (json_object_has_member (result, "structuredContent"));
      text = text_of (result);
      if (id < 4)
        g_assert_nonnull (strstr (text, "caches were not dropped: "));
      if (strstr (text, advice) == NULL || strstr (text, "no new login and no restart") == NULL)
        g_error ("\"%s\" lacks \"%s\" or that no new login is needed", text, advice);
      g_assert_null (strstr (text, "log in again"));
    }
  level = read_knob (JMEM_DROP_CACHES_PATH);
  g_assert_cmpstr (level, ==, "");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  if (g_getenv ("JMEM_SANDBOX") == NULL || geteuid () != 0)
    {
      g_printerr ("test-e2e-mcp: SKIP: run through tests/e2e/jmem-sandbox (as root)\n");
      return 77;
    }
  build_dir = g_getenv ("JMEM_SANDBOX_BUILD_DIR");
  agent_user = g_getenv ("JMEM_SANDBOX_AGENT");
  outsider_user = g_getenv ("JMEM_SANDBOX_OUTSIDER");
  g_assert_nonnull (build_dir);
  g_assert_nonnull (agent_user);
  g_assert_nonnull (outsider_user);

  /* the outsider first: its refused drops must not meet the rate limit */
  g_test_add_func ("/e2e/mcp/outsider", test_outsider);
  g_test_add_func ("/e2e/mcp/agent", test_agent);
  return g_test_run ();
}
