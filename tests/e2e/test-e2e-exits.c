/* SPDX-License-Identifier: GPL-2.0-or-later */
/* jmem's exit statuses and advice end to end, inside tests/e2e/jmem-sandbox,
 * against jmem(1)'s exit table: polkit not running, a helper that cannot
 * start (missing binary, broken Exec=, never takes its name), a helper that
 * dies mid-call, a system bus that accepts and never answers, and a refusal
 * whose advice (join the group, no new login) is proven at the next call.
 * Which cases run depends on the sandbox's polkit mode. */
#include <errno.h>
#include <gio/gio.h>
#include <gio/gunixsocketaddress.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jmem-glib-compat.h"
#include "jmem-names.h"
#include "jmem-test.h"

/* The bus deadline and the helper's start deadline (docs/jmem.1, NOTES),
 * with room for a loaded machine. */
#define DEADLINE_S 10
#define PROMPTLY_S (DEADLINE_S + 8)

static const char *build_dir;
static const char *source_dir;
static const char *agent_user;
static const char *outsider_user;
static const char *group_name;

/* jmem ARGS as @user through setpriv, stdin /dev/null (polkit never asks),
 * DBUS_SYSTEM_BUS_ADDRESS replaced by @bus when given. */
static GSubprocess *
start_as (const char *user, const char *bus, GSubprocessFlags flags, const char *const *args)
{
  g_autoptr(GSubprocessLauncher) launcher = g_subprocess_launcher_new (flags);
  g_autofree char *jmem = g_build_filename (build_dir, "client", "jmem", NULL);

  if (bus != NULL)
    g_subprocess_launcher_setenv (launcher, "DBUS_SYSTEM_BUS_ADDRESS", bus, TRUE);
  return jmem_test_spawn_as (launcher, user, jmem, args);
}

static void
run_as (const char *user, const char *bus, const char *const *args, JmemTestRun *r)
{
  gint64 start = g_get_monotonic_time ();
  g_autoptr(GSubprocess) process =
    start_as (user, bus, G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE, args);

  g_test_message ("jmem %s as %s", args[0], user);
  jmem_test_run_finish (process, start, r);
}

/* jmem(1)'s EXIT STATUS entry for @status names @command: the status
 * asserted is the one documented for it. */
static void
assert_documented (int status, const char *command)
{
  g_autofree char *path = g_build_filename (source_dir, "docs", "jmem.1", NULL);
  g_autofree char *page = NULL;
  g_autofree char *head = g_strdup_printf ("\n.TP\n.B %d\n", status);
  g_auto(GStrv) words = g_strsplit (command, "-", -1);
  g_autofree char *roff = g_strjoinv ("\\-", words);
  const char *entry, *end;

  g_assert_true (g_file_get_contents (path, &page, NULL, NULL));
  entry = strstr (strstr (page, ".SH EXIT STATUS"), head);
  g_assert_nonnull (entry);
  end = strstr (entry + strlen (head), "\n.TP\n.B ");
  if (end == NULL)
    end = strstr (entry, "\n.SH ");
  if (g_strstr_len (entry, end - entry, roff) == NULL)
    g_error ("jmem(1) gives exit status %d without naming %s", status, command);
}

static void
assert_exit (const JmemTestRun *r, int status, const char *command)
{
  if (r->status != status)
    g_error ("jmem %s exited %d, not %d: %s", command, r->status, status, r->err);
  assert_documented (status, command);
}

static void
assert_says (const char *text, const char *expected)
{
  if (strstr (text, expected) == NULL)
    g_error ("\"%s\" does not say \"%s\"", text, expected);
}

static void
assert_never_says (const char *text, const char *unexpected)
{
  if (strstr (text, unexpected) != NULL)
    g_error ("\"%s\" says \"%s\"", text, unexpected);
}

/* ---- MCP ------------------------------------------------------------------ */

typedef struct {
  GSubprocess      *process;
  GOutputStream    *in;
  GDataInputStream *out;
  guint             id;
} Mcp;

static void
mcp_send (Mcp *m, const char *method, const char *params)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *line = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":%u,\"method\":\"%s\","
                                           "\"params\":%s}\n", ++m->id, method, params);

  g_output_stream_write_all (m->in, line, strlen (line), NULL, NULL, &error);
  g_assert_no_error (error);
}

/* The result of the next answer. */
static JsonObject *
mcp_result (Mcp *m)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autofree char *line = g_data_input_stream_read_line_utf8 (m->out, NULL, NULL, &error);
  JsonObject *answer;

  g_assert_no_error (error);
  g_assert_nonnull (line);
  g_test_message ("mcp: %.1500s", line);
  json_parser_load_from_data (parser, line, -1, &error);
  g_assert_no_error (error);
  answer = json_node_get_object (json_parser_get_root (parser));
  g_assert_cmpint (json_object_get_int_member (answer, "id"), ==, m->id);
  return json_object_ref (json_object_get_object_member (answer, "result"));
}

static void
mcp_start (Mcp *m, const char *user, const char *bus)
{
  const char *const args[] = { "mcp", NULL };
  g_autoptr(JsonObject) hello = NULL;

  m->process = start_as (user, bus, G_SUBPROCESS_FLAGS_STDIN_PIPE | G_SUBPROCESS_FLAGS_STDOUT_PIPE,
                         args);
  m->in = g_subprocess_get_stdin_pipe (m->process);
  m->out = g_data_input_stream_new (g_subprocess_get_stdout_pipe (m->process));
  m->id = 0;
  mcp_send (m, "initialize", "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},"
                             "\"clientInfo\":{\"name\":\"e2e-exits\",\"version\":\"1\"}}");
  hello = mcp_result (m);
  g_assert_true (json_object_has_member (hello, "serverInfo"));
}

/* A tools/call: TRUE for a result that ran, and *text its document (the
 * structuredContent, compact JSON); FALSE for a refusal, and *text its
 * text block, which says why. */
static gboolean
mcp_call (Mcp *m, const char *tool, const char *arguments, char **text)
{
  g_autofree char *params = g_strdup_printf ("{\"name\":\"%s\",\"arguments\":%s}", tool, arguments);
  g_autoptr(JsonObject) result = NULL;
  JsonArray *content;

  mcp_send (m, "tools/call", params);
  result = mcp_result (m);
  if (json_object_has_member (result, "structuredContent"))
    {
      *text = json_to_string (json_object_get_member (result, "structuredContent"), FALSE);
      return !json_object_get_boolean_member (result, "isError");
    }
  content = json_object_get_array_member (result, "content");
  *text = g_strdup (json_object_get_string_member (json_array_get_object_element (content, 0), "text"));
  return !json_object_get_boolean_member (result, "isError");
}

static void
mcp_finish (Mcp *m)
{
  g_autoptr(GError) error = NULL;

  g_output_stream_close (m->in, NULL, NULL);
  g_subprocess_wait (m->process, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (g_subprocess_get_if_exited (m->process));
  g_assert_cmpint (g_subprocess_get_exit_status (m->process), ==, 0);
  g_clear_object (&m->out);
  g_clear_object (&m->process);
}

/* ---- the bus and the helper ------------------------------------------------ */

static GDBusConnection *
root_bus (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *address = g_dbus_address_get_for_bus_sync (G_BUS_TYPE_SYSTEM, NULL, &error);
  GDBusConnection *bus;

  g_assert_no_error (error);
  bus = g_dbus_connection_new_for_address_sync (address,
                                                G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT |
                                                G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION,
                                                NULL, NULL, &error);
  g_assert_no_error (error);
  return bus;
}

static GVariant *
bus_call (GDBusConnection *bus, const char *method, GVariant *parameters, const char *type)
{
  g_autoptr(GError) error = NULL;
  GVariant *reply = g_dbus_connection_call_sync (bus, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                                 "org.freedesktop.DBus", method, parameters,
                                                 G_VARIANT_TYPE (type), G_DBUS_CALL_FLAGS_NONE, 5000,
                                                 NULL, &error);

  g_assert_no_error (error);
  return reply;
}

static gboolean
helper_owned (GDBusConnection *bus)
{
  g_autoptr(GVariant) reply = bus_call (bus, "NameHasOwner", g_variant_new ("(s)", JMEM_DBUS_NAME), "(b)");
  gboolean owned;

  g_variant_get (reply, "(b)", &owned);
  return owned;
}

/* Ends the running helper, if any, so that the next call must start one. */
static void
helper_stop (GDBusConnection *bus)
{
  g_autoptr(GVariant) reply = NULL;
  gint64 deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
  guint32 pid;

  if (!helper_owned (bus))
    return;
  reply = bus_call (bus, "GetConnectionUnixProcessID", g_variant_new ("(s)", JMEM_DBUS_NAME), "(u)");
  g_variant_get (reply, "(u)", &pid);
  g_assert_cmpint (kill ((pid_t) pid, SIGTERM), ==, 0);
  while (helper_owned (bus) && g_get_monotonic_time () < deadline)
    g_usleep (50 * 1000);
  g_assert_false (helper_owned (bus));
}

static char *
service_path (void)
{
  return g_build_filename (g_getenv ("JMEM_SANDBOX_STATE"), "services", "dev.jmem.Helper1.service", NULL);
}

/* Replaces the Exec= line of the helper's activation file, or puts @original
 * back, and has the bus read it again. */
static void
service_write (GDBusConnection *bus, const char *original, const char *exec)
{
  g_autofree char *path = service_path ();
  g_autoptr(GString) text = g_string_new (NULL);
  g_auto(GStrv) lines = g_strsplit (original, "\n", -1);
  g_autoptr(GVariant) reply = NULL;

  for (guint i = 0; lines[i] != NULL; i++)
    {
      if (exec != NULL && g_str_has_prefix (lines[i], "Exec="))
        g_string_append_printf (text, "Exec=%s", exec);
      else
        g_string_append (text, lines[i]);
      if (lines[i + 1] != NULL)
        g_string_append_c (text, '\n');
    }
  g_assert_true (g_file_set_contents (path, text->str, -1, NULL));
  reply = bus_call (bus, "ReloadConfig", NULL, "()");
}

/* Kills what the broken activation file started (the stand-in that never
 * takes the name), so that the bus gives up its pending activation. */
static void
kill_stand_in (const char *marker)
{
  g_autoptr(GDir) proc = g_dir_open ("/proc", 0, NULL);
  const char *name;

  while (proc != NULL && (name = g_dir_read_name (proc)) != NULL)
    {
      g_autofree char *path = g_build_filename ("/proc", name, "cmdline", NULL);
      g_autofree char *cmdline = NULL;
      gsize len = 0;

      if (!g_ascii_isdigit (name[0]) || !g_file_get_contents (path, &cmdline, &len, NULL))
        continue;
      for (gsize i = 0; i + 1 < len; i++)
        if (cmdline[i] == '\0')
          cmdline[i] = ' ';
      if (strstr (cmdline, marker) != NULL)
        kill ((pid_t) g_ascii_strtoll (name, NULL, 10), SIGKILL);
    }
}

/* ---- polkit not running ------------------------------------------------------ */

/* With nobody owning org.freedesktop.PolicyKit1 the helper refuses every
 * call: the advice is to start polkit, never the group, and the status is
 * the one for a service that is unavailable. */
static void
test_polkit_down (void)
{
  const char *const drop[] = { "drop-caches", "--no-ask-password", NULL };
  const char *const audit[] = { "audit", "--no-ask-password", NULL };
  const char *const alloc[] = { "allocations", "--no-ask-password", NULL };
  const char *const *commands[] = { drop, audit, alloc };
  const char *const tools[][2] = { { "drop_caches", "{}" }, { "audit", "{\"level\":1}" },
                                   { "allocations", "{}" } };
  Mcp m = { 0 };

  for (gsize i = 0; i < G_N_ELEMENTS (commands); i++)
    {
      g_auto(JmemTestRun) r = { 0 };

      run_as (agent_user, NULL, commands[i], &r);
      assert_exit (&r, 69, commands[i][0]);
      assert_says (r.err, "polkit");
      assert_says (r.err, "To fix: install and start polkit");
      assert_never_says (r.err, "usermod");
      g_assert_cmpstr (r.out, ==, "");
    }

  mcp_start (&m, agent_user, NULL);
  for (gsize i = 0; i < G_N_ELEMENTS (tools); i++)
    {
      g_autofree char *text = NULL;

      g_assert_false (mcp_call (&m, tools[i][0], tools[i][1], &text));
      assert_says (text, "To fix: install and start polkit");
      assert_never_says (text, "add this account");
    }
  mcp_finish (&m);
}

/* ---- polkit hung --------------------------------------------------------------- */

/* polkit (the mock) runs but never answers: the helper refuses when its
 * time-out (10 s unless told) is up, and the advice says polkit did not
 * answer in that time and how to look at it and restart it, not to install
 * it; the same from the MCP tool. */
static void
test_polkit_hung (void)
{
  const char *const alloc[] = { "allocations", "--no-ask-password", NULL };
  g_auto(JmemTestRun) r = { 0 };
  g_autofree char *text = NULL;
  Mcp m = { 0 };

  run_as (agent_user, NULL, alloc, &r);
  assert_exit (&r, 69, alloc[0]);
  assert_says (r.err, "To fix: polkit did not answer within 10 s");
  assert_says (r.err, "systemctl status polkit");
  assert_says (r.err, "systemctl restart polkit");
  assert_never_says (r.err, "install and start polkit");
  assert_never_says (r.err, "usermod");

  mcp_start (&m, agent_user, NULL);
  g_assert_false (mcp_call (&m, "allocations", "{}", &text));
  assert_says (text, "To fix: polkit did not answer within 10 s");
  assert_never_says (text, "install and start polkit");
  mcp_finish (&m);
}

/* ---- a helper that dies mid-call ---------------------------------------------- */

static guint
mock_checks (void)
{
  g_autofree char *path = g_build_filename (g_getenv ("JMEM_SANDBOX_LOGS"), "mock-polkit.log", NULL);
  g_autofree char *text = NULL;
  guint n = 0;

  if (g_file_get_contents (path, &text, NULL, NULL))
    for (const char *p = text; (p = strstr (p, "CheckAuthorization #")) != NULL; p++)
      n++;
  return n;
}

/* polkit (the mock) never answers, so a call waits in the helper's gate
 * until the helper is killed: drop-caches (killed during DropCaches, its
 * second call, after the reading before the drop has given up on polkit)
 * and allocations both report a helper that did not answer, with the same
 * status. */
static void
test_helper_dies (void)
{
  const char *const drop[] = { "drop-caches", "--no-ask-password", NULL };
  const char *const alloc[] = { "allocations", "--no-ask-password", NULL };
  const char *const *commands[] = { drop, alloc };
  const guint calls[] = { 2, 1 };
  g_autoptr(GDBusConnection) bus = root_bus ();

  for (gsize i = 0; i < G_N_ELEMENTS (commands); i++)
    {
      guint before = mock_checks ();
      gint64 start = g_get_monotonic_time ();
      gint64 deadline = start + 40 * G_USEC_PER_SEC;
      g_autoptr(GSubprocess) process =
        start_as (agent_user, NULL, G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE,
                  commands[i]);
      g_autoptr(GVariant) reply = NULL;
      g_auto(JmemTestRun) r = { 0 };
      guint32 pid;

      while (mock_checks () < before + calls[i] && g_get_monotonic_time () < deadline)
        g_usleep (20 * 1000);
      g_assert_cmpuint (mock_checks (), >=, before + calls[i]);
      g_usleep (100 * 1000);  /* the check is logged as it arrives: let the helper wait on it */
      reply = bus_call (bus, "GetConnectionUnixProcessID", g_variant_new ("(s)", JMEM_DBUS_NAME), "(u)");
      g_variant_get (reply, "(u)", &pid);
      g_assert_cmpint (kill ((pid_t) pid, SIGKILL), ==, 0);
      jmem_test_run_finish (process, start, &r);
      assert_exit (&r, 69, commands[i][0]);
      assert_says (r.err, "jmem-helper did not answer");
      assert_says (r.err, "To fix: check the helper's log");
    }
}

/* ---- a helper that cannot start -------------------------------------------- */

/* Each way the bus cannot start the helper is said as such, within the
 * start deadline (not after the bus's own 25 s, twice for drop-caches):
 * exit 69 for the commands that need it, a warning in a snapshot. */
static void
test_helper_cannot_start (void)
{
  g_autoptr(GDBusConnection) bus = root_bus ();
  g_autofree char *path = service_path ();
  g_autofree char *original = NULL;
  const char *const execs[] = {
    "/nonexistent/jmem-helper",           /* a missing binary */
    "/bin/false",                         /* an Exec= that exits at once */
    "/bin/sleep 86398",                   /* a helper that never takes its name */
  };
  const char *const drop[] = { "drop-caches", "--no-ask-password", NULL };
  const char *const alloc[] = { "allocations", "--no-ask-password", NULL };
  const char *const audit[] = { "audit", "--no-ask-password", NULL };
  const char *const snapshot[] = { "snapshot", "--json", "--no-ask-password", NULL };

  g_assert_true (g_file_get_contents (path, &original, NULL, NULL));
  for (gsize i = 0; i < G_N_ELEMENTS (execs); i++)
    {
      const char *const *commands[] = { drop, alloc, audit };
      g_auto(JmemTestRun) s = { 0 };
      g_autoptr(JsonParser) parser = json_parser_new ();
      JsonObject *nvmap;

      g_test_message ("Exec=%s", execs[i]);
      helper_stop (bus);
      service_write (bus, original, execs[i]);
      for (gsize c = 0; c < G_N_ELEMENTS (commands); c++)
        {
          g_auto(JmemTestRun) r = { 0 };

          run_as (agent_user, NULL, commands[c], &r);
          kill_stand_in ("sleep 86398");
          assert_exit (&r, 69, commands[c][0]);
          assert_says (r.err, "jmem-helper could not be started");
          assert_says (r.err, "To fix: see why it does not start");
          assert_never_says (r.err, "on the host");
          g_assert_cmpfloat (r.seconds, <, PROMPTLY_S);
        }
      /* a snapshot goes on without NvMap rows, and says why */
      run_as (agent_user, NULL, snapshot, &s);
      kill_stand_in ("sleep 86398");
      g_assert_cmpint (s.status, ==, 0);
      g_assert_cmpfloat (s.seconds, <, PROMPTLY_S);
      g_assert_true (json_parser_load_from_data (parser, s.out, -1, NULL));
      nvmap = json_object_get_object_member (json_node_get_object (json_parser_get_root (parser)), "nvmap");
      g_assert_false (json_object_get_boolean_member (nvmap, "readable"));
      assert_says (json_object_get_string_member (nvmap, "error"), "could not be started");
    }
  service_write (bus, original, NULL);
}

/* ---- a system bus that never answers ------------------------------------------ */

/* A socket the agent may connect to that never answers: the kernel
 * completes each connection, and nobody reads from it. */
static char *
frozen_bus (GSocket **listener, char **dir)
{
  g_autofree char *path = NULL;
  g_autoptr(GSocketAddress) where = NULL;

  *dir = jmem_test_make_tmp ("jmem-e2e-frozen-XXXXXX", NULL);
  g_assert_cmpint (chmod (*dir, 0755), ==, 0);
  path = g_build_filename (*dir, "bus", NULL);
  where = g_unix_socket_address_new (path);
  *listener = g_socket_new (G_SOCKET_FAMILY_UNIX, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_DEFAULT, NULL);
  g_assert_nonnull (*listener);
  g_assert_true (g_socket_bind (*listener, where, FALSE, NULL));
  g_assert_true (g_socket_listen (*listener, NULL));
  g_assert_cmpint (chmod (path, 0777), ==, 0);
  return g_strdup_printf ("unix:path=%s", path);
}

static void
frozen_bus_remove (char *dir)
{
  g_autofree char *path = g_build_filename (dir, "bus", NULL);

  g_unlink (path);
  g_rmdir (dir);
}

/* Reports that read NvMap through the helper go on from /proc with a
 * warning; watch and summary --watch end at SIGTERM; the MCP server
 * answers. Nothing hangs. */
static void
test_bus_frozen (void)
{
  g_autoptr(GSocket) listener = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *address = frozen_bus (&listener, &dir);
  const char *const snapshot[] = { "snapshot", "--json", "--no-ask-password", NULL };
  const char *const watch[] = { "watch", "--interval", "1", "--no-ask-password", NULL };
  const char *const summary[] = { "summary", "--watch", "1", "--no-ask-password", NULL };
  const char *const *repeating[] = { watch, summary };
  g_auto(JmemTestRun) s = { 0 };
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonObject *doc, *nvmap;
  JsonArray *warnings;
  gboolean warned = FALSE;
  Mcp m = { 0 };
  g_autofree char *text = NULL;

  run_as (agent_user, address, snapshot, &s);
  g_assert_cmpint (s.status, ==, 0);
  g_assert_cmpfloat (s.seconds, <, PROMPTLY_S);
  g_assert_true (json_parser_load_from_data (parser, s.out, -1, NULL));
  doc = json_node_get_object (json_parser_get_root (parser));
  nvmap = json_object_get_object_member (doc, "nvmap");
  g_assert_false (json_object_get_boolean_member (nvmap, "readable"));
  assert_says (json_object_get_string_member (nvmap, "error"), "the system bus did not answer");
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (json_object_get_object_member (doc, "processes"), "list")), >, 0);
  warnings = json_object_get_array_member (doc, "warnings");
  for (guint i = 0; i < json_array_get_length (warnings); i++)
    {
      JsonObject *w = json_array_get_object_element (warnings, i);

      if (g_str_equal (json_object_get_string_member (w, "source"), "nvmap"))
        {
          assert_says (json_object_get_string_member (w, "action"), "check the system bus daemon");
          warned = TRUE;
        }
    }
  g_assert_true (warned);

  for (gsize i = 0; i < G_N_ELEMENTS (repeating); i++)
    {
      gint64 start = g_get_monotonic_time ();
      g_autoptr(GSubprocess) process =
        start_as (agent_user, address, G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE,
                  repeating[i]);
      g_auto(JmemTestRun) r = { 0 };

      g_usleep (2 * G_USEC_PER_SEC);
      /* setpriv execs jmem: the signal reaches jmem itself */
      g_subprocess_send_signal (process, SIGTERM);
      jmem_test_run_finish (process, start, &r);
      g_assert_cmpint (r.status, ==, 0);
      g_assert_cmpfloat (r.seconds, <, 2 + PROMPTLY_S);
      /* what it wrote is whole lines */
      g_assert_true (r.out[0] == '\0' || g_str_has_suffix (r.out, "\n"));
    }

  mcp_start (&m, agent_user, address);
  g_assert_false (mcp_call (&m, "drop_caches", "{}", &text));
  assert_says (text, "the system bus did not answer");
  assert_says (text, "To fix: check the system bus daemon");
  mcp_finish (&m);
  frozen_bus_remove (dir);
}

/* ---- a refusal, and its advice proven ------------------------------------------ */

static gboolean
set_group_member (const char *user, gboolean add)
{
  const char *argv[] = { "gpasswd", add ? "-a" : "-d", user, group_name, NULL };
  int status = 0;

  return g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH | G_SPAWN_STDOUT_TO_DEV_NULL |
                       G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, NULL, NULL, &status, NULL) &&
         g_spawn_check_wait_status (status, NULL);
}

/* The command says to join the group and that no new login is needed; an
 * MCP server started before the account joined is let in at its next call,
 * as the advice says. */
static void
test_refused_then_joined (void)
{
  const char *const drop[] = { "drop-caches", "--no-ask-password", NULL };
  g_auto(JmemTestRun) r = { 0 };
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  gboolean refused, allowed, removed;
  Mcp m = { 0 };

  run_as (outsider_user, NULL, drop, &r);
  assert_exit (&r, 77, "drop-caches");
  assert_says (r.err, "To fix: ");
  assert_says (r.err, "usermod -aG ");
  assert_says (r.err, "no new login");
  assert_never_says (r.err, "log in again");

  mcp_start (&m, outsider_user, NULL);
  refused = !mcp_call (&m, "allocations", "{\"limit\":1}", &before);
  g_assert_true (set_group_member (outsider_user, TRUE));
  allowed = mcp_call (&m, "allocations", "{\"limit\":1}", &after);
  /* the sandbox's outsider must leave as it came, whatever was seen */
  removed = set_group_member (outsider_user, FALSE);
  mcp_finish (&m);

  g_assert_true (removed);
  g_assert_true (refused);
  assert_says (before, "To fix: add this account to the ");
  assert_says (before, "no new login and no restart");
  g_assert_true (allowed);
  assert_says (after, "\"via\":\"helper\"");
}

int
main (int argc, char **argv)
{
  const char *polkit;

  g_test_init (&argc, &argv, NULL);
  if (g_getenv ("JMEM_SANDBOX") == NULL || geteuid () != 0)
    {
      g_printerr ("test-e2e-exits: SKIP: run through tests/e2e/jmem-sandbox (as root)\n");
      return 77;
    }
  build_dir = g_getenv ("JMEM_SANDBOX_BUILD_DIR");
  source_dir = g_getenv ("JMEM_SANDBOX_SOURCE_DIR");
  agent_user = g_getenv ("JMEM_SANDBOX_AGENT");
  outsider_user = g_getenv ("JMEM_SANDBOX_OUTSIDER");
  group_name = g_getenv ("JMEM_SANDBOX_GROUP");
  polkit = g_getenv ("JMEM_SANDBOX_POLKIT");
  g_assert_nonnull (build_dir);
  g_assert_nonnull (source_dir);
  g_assert_nonnull (agent_user);
  g_assert_nonnull (outsider_user);
  g_assert_nonnull (group_name);
  g_assert_nonnull (polkit);

  if (g_str_equal (polkit, "none"))
    g_test_add_func ("/e2e/exits/polkit-down", test_polkit_down);
  else if (g_str_equal (polkit, "mock-hang"))
    {
      g_test_add_func ("/e2e/exits/polkit-hung", test_polkit_hung);
      g_test_add_func ("/e2e/exits/helper-dies", test_helper_dies);
    }
  else if (g_str_equal (polkit, "real"))
    {
      g_test_add_func ("/e2e/exits/refused-then-joined", test_refused_then_joined);
      g_test_add_func ("/e2e/exits/bus-frozen", test_bus_frozen);
      g_test_add_func ("/e2e/exits/helper-cannot-start", test_helper_cannot_start);
    }
  return g_test_run ();
}
