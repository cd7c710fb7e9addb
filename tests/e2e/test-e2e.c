/* SPDX-License-Identifier: GPL-2.0-or-later */
/* End-to-end tests: the helper from the build tree, activated by a private
 * system bus, gated by the real polkitd (or a mock), called by real
 * unprivileged accounts. Runs inside tests/e2e/jmem-sandbox, which sets the
 * JMEM_SANDBOX_* variables read here; which cases run depends on the
 * sandbox's polkit mode. */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gio/gio.h>
#include <gio/gunixfdlist.h>
#include <json-glib/json-glib.h>

#include "jmem-config.h"
#include "jmem-names.h"
#include "jmem-nvmap.h"
#include "jmem-test.h"

#if defined(__SANITIZE_ADDRESS__)
#define JMEM_E2E_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define JMEM_E2E_ASAN 1
#endif
#endif

/* A caller must learn that polkit is absent or stuck well before the D-Bus
 * default timeout of 25 s (the helper bounds its own wait for polkit). */
#define FAIL_CLOSED_BOUND_S  20
#define DENIED               "org.freedesktop.DBus.Error.AccessDenied"
#define POLKIT_UNAVAILABLE   "dev.jmem.Error.PolkitUnavailable"
#define INTERACTIVE_REQUIRED "org.freedesktop.DBus.Error.InteractiveAuthorizationRequired"
/* The helper's limit of pending authorization checks per uid. */
#define JMEM_E2E_MAX_PENDING_PER_UID 16

static const char *build_dir;
static const char *polkit_mode;
static const char *agent_user;
static const char *outsider_user;
static const char *group_name;  /* the run's: what the sandbox's rule grants */
/* What jmem advises joining: the group the build grants, whatever the run's. */
#define ADVISED_GROUP "the " JMEM_PRIVILEGED_GROUP " group"

/* ---- accounts and connections ------------------------------------------- */

static struct passwd *
lookup_user (const char *name)
{
  struct passwd *pw = getpwnam (name);

  g_assert_nonnull (pw);
  return pw;
}

/* A private connection to the sandbox's bus that the bus (and so polkit)
 * sees as @user: the kernel records the connecting credentials, so only the
 * connect and the authentication run with the user's effective ids. */
static GDBusConnection *
bus_open_as (const char *user)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *address = g_dbus_address_get_for_bus_sync (G_BUS_TYPE_SYSTEM, NULL, &error);
  gid_t saved_groups[64];
  int n_saved;
  GDBusConnection *connection;

  g_assert_no_error (error);
  n_saved = getgroups (G_N_ELEMENTS (saved_groups), saved_groups);
  g_assert_cmpint (n_saved, >=, 0);

  if (user != NULL)
    {
      struct passwd *pw = lookup_user (user);
      g_assert_cmpint (initgroups (pw->pw_name, pw->pw_gid), ==, 0);
      g_assert_cmpint (setegid (pw->pw_gid), ==, 0);
      g_assert_cmpint (seteuid (pw->pw_uid), ==, 0);
    }

  connection = g_dbus_connection_new_for_address_sync (address,
                                                       G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT |
                                                       G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION,
                                                       NULL, NULL, &error);
  if (user != NULL)
    {
      g_assert_cmpint (seteuid (0), ==, 0);
      g_assert_cmpint (setegid (0), ==, 0);
      g_assert_cmpint (setgroups (n_saved, saved_groups), ==, 0);
    }
  g_assert_no_error (error);
  g_dbus_connection_set_exit_on_close (connection, FALSE);
  return connection;
}

static char *
remote_error_name (const GError *error)
{
  char *name;

  g_assert_nonnull (error);
  name = g_dbus_error_get_remote_error (error);
  if (name == NULL)
    name = g_strdup_printf ("(local %s %d: %s)", g_quark_to_string (error->domain),
                            error->code, error->message);
  return name;
}

static GVariant *
helper_call (GDBusConnection *bus,
             const char      *method,
             GVariant        *parameters,
             GDBusCallFlags   flags,
             int              timeout_ms,
             GError         **error)
{
  return g_dbus_connection_call_sync (bus, JMEM_DBUS_NAME, JMEM_DBUS_PATH, JMEM_DBUS_INTERFACE,
                                      method, parameters, NULL, flags, timeout_ms, NULL, error);
}

/* Asserts that @method fails with the D-Bus error @expected. */
static void
assert_call_error (GDBusConnection *bus,
                   const char      *method,
                   GVariant        *parameters,
                   GDBusCallFlags   flags,
                   const char      *expected)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) reply = helper_call (bus, method, parameters, flags, 30000, &error);
  g_autofree char *name = NULL;

  if (reply != NULL)
    g_error ("%s succeeded (%s), expected %s", method, g_variant_print (reply, FALSE), expected);
  name = remote_error_name (error);
  if (g_strcmp0 (name, expected) != 0)
    g_error ("%s failed with %s (%s), expected %s", method, name, error->message, expected);
  g_assert_cmpstr (error->message, !=, "");
}

static guint32
bus_get_pid (GDBusConnection *bus, const char *name)
{
  g_autoptr(GVariant) reply = NULL;
  guint32 pid = 0;

  reply = g_dbus_connection_call_sync (bus, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                       "org.freedesktop.DBus", "GetConnectionUnixProcessID",
                                       g_variant_new ("(s)", name), G_VARIANT_TYPE ("(u)"),
                                       G_DBUS_CALL_FLAGS_NONE, 5000, NULL, NULL);
  if (reply != NULL)
    g_variant_get (reply, "(u)", &pid);
  return pid;
}

/* Starts the helper when it is not running (a Peer.Ping needs no
 * authorization, and any call to the name activates it); returns its PID. */
static guint32
helper_ensure_running (GDBusConnection *bus)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) reply = NULL;
  guint32 pid;

  reply = g_dbus_connection_call_sync (bus, JMEM_DBUS_NAME, JMEM_DBUS_PATH, "org.freedesktop.DBus.Peer",
                                       "Ping", NULL, NULL, G_DBUS_CALL_FLAGS_NONE, 30000, NULL, &error);
  g_assert_no_error (error);
  pid = bus_get_pid (bus, JMEM_DBUS_NAME);
  g_assert_cmpuint (pid, >, 0);
  return pid;
}

static gboolean
pid_alive (guint32 pid)
{
  g_autofree char *path = g_strdup_printf ("/proc/%u/stat", pid);
  g_autofree char *stat = NULL;
  const char *state;

  if (!g_file_get_contents (path, &stat, NULL, NULL))
    return FALSE;
  state = strrchr (stat, ')');
  return state != NULL && state[1] == ' ' && state[2] != 'Z' && state[2] != 'X';
}

/* ---- /proc of the helper ------------------------------------------------- */

static gboolean
status_field (guint32 pid, const char *field, char **value)
{
  g_autofree char *path = g_strdup_printf ("/proc/%u/status", pid);
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;
  gsize field_len = strlen (field);

  if (!g_file_get_contents (path, &text, NULL, NULL))
    return FALSE;
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    if (strncmp (lines[i], field, field_len) == 0 && lines[i][field_len] == ':')
      {
        *value = g_strstrip (g_strdup (lines[i] + field_len + 1));
        return TRUE;
      }
  return FALSE;
}

static guint64
status_kib (guint32 pid, const char *field)
{
  g_autofree char *value = NULL;

  g_assert_true (status_field (pid, field, &value));
  return g_ascii_strtoull (value, NULL, 10);
}

static guint
count_fds (guint32 pid)
{
  g_autofree char *path = g_strdup_printf ("/proc/%u/fd", pid);
  g_autoptr(GDir) dir = g_dir_open (path, 0, NULL);
  guint n = 0;

  g_assert_nonnull (dir);
  while (g_dir_read_name (dir) != NULL)
    n++;
  return n;
}

/* ---- running programs as the test accounts ------------------------------- */

typedef struct {
  int    status;  /* wait status */
  char  *out;
  char  *err;
  double seconds;
} RunResult;

static void
run_result_clear (RunResult *result)
{
  g_clear_pointer (&result->out, g_free);
  g_clear_pointer (&result->err, g_free);
}
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (RunResult, run_result_clear)

static char **
user_argv (const char *user, const char *const *command)
{
  GPtrArray *argv = g_ptr_array_new ();

  if (user != NULL)
    {
      struct passwd *pw = lookup_user (user);

      g_ptr_array_add (argv, g_strdup ("setpriv"));
      g_ptr_array_add (argv, g_strdup_printf ("--reuid=%u", (unsigned) pw->pw_uid));
      g_ptr_array_add (argv, g_strdup_printf ("--regid=%u", (unsigned) pw->pw_gid));
      g_ptr_array_add (argv, g_strdup ("--init-groups"));
    }
  for (gsize i = 0; command[i] != NULL; i++)
    g_ptr_array_add (argv, g_strdup (command[i]));
  g_ptr_array_add (argv, NULL);
  return (char **) g_ptr_array_free (argv, FALSE);
}

static char **
user_envp (void)
{
  char **envp = g_get_environ ();

  envp = g_environ_setenv (envp, "HOME", "/nonexistent", TRUE);
  envp = g_environ_setenv (envp, "LC_ALL", "C.UTF-8", TRUE);
  return envp;
}

static void
run_as (const char *user, const char *const *command, RunResult *result)
{
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) argv = user_argv (user, command);
  g_auto(GStrv) envp = user_envp ();
  gint64 start = g_get_monotonic_time ();

  g_spawn_sync ("/", argv, envp, G_SPAWN_SEARCH_PATH,
                NULL, NULL, &result->out, &result->err, &result->status, &error);
  g_assert_no_error (error);
  result->seconds = (g_get_monotonic_time () - start) / 1e6;
  g_test_message ("as %s: %s → status %d in %.1f s\nstdout: %.2000s\nstderr: %.2000s",
                  user ? user : "root", command[0], result->status, result->seconds,
                  result->out, result->err);
}

static char *
client_path (void)
{
  return g_build_filename (build_dir, "client", "jmem", NULL);
}

static void
assert_failed_exit (const RunResult *result)
{
  g_assert_true (WIFEXITED (result->status));
  g_assert_cmpint (WEXITSTATUS (result->status), !=, 0);
}

static gboolean
contains_ci (const char *haystack, const char *needle)
{
  g_autofree char *h = g_ascii_strdown (haystack, -1);
  g_autofree char *n = g_ascii_strdown (needle, -1);

  return strstr (h, n) != NULL;
}

/* ---- the fixture ----------------------------------------------------------- */

typedef struct {
  char    *client;
  char    *process;
  guint32  pid;
  guint64  size_kib;
} Row;

static void
row_free (Row *row)
{
  g_free (row->client);
  g_free (row->process);
  g_free (row);
}

typedef struct {
  GPtrArray *rows;
  gboolean   has_total;
  guint64    total_kib;
} Fixture;

static void
fixture_free (Fixture *fixture)
{
  g_ptr_array_unref (fixture->rows);
  g_free (fixture);
}
G_DEFINE_AUTOPTR_CLEANUP_FUNC (Fixture, fixture_free)

/* The iovmm/clients the sandbox mounted where the helper reads it, read by
 * the kernel's fixed columns ("%-18s %18s %8u %10lluK") independently of
 * the project's parser. */
static Fixture *
fixture_load (void)
{
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;
  Fixture *fixture;

  if (!g_file_get_contents (JMEM_NVMAP_CLIENTS_PATH, &text, NULL, NULL))
    return NULL;

  fixture = g_new0 (Fixture, 1);
  fixture->rows = g_ptr_array_new_with_free_func ((GDestroyNotify) row_free);
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      const char *line = lines[i];
      gsize len = strlen (line);
      char *end = NULL;

      if (g_str_has_prefix (line, "CLIENT") || len == 0)
        continue;
      if (g_str_has_prefix (line, "total"))
        {
          g_autofree char *size = g_strstrip (g_strndup (line + 5, len - 5));
          fixture->has_total = TRUE;
          fixture->total_kib = g_ascii_strtoull (size, &end, 10);
          g_assert_cmpstr (end, ==, "K");
          continue;
        }
      if (len < 49 || line[len - 1] != 'K')
        continue;  /* a Note: line of old kernels */
      Row *row = g_new0 (Row, 1);
      row->client = g_strstrip (g_strndup (line, 18));
      row->process = g_strstrip (g_strndup (line + 19, 18));
      row->pid = (guint32) g_ascii_strtoull (line + 38, NULL, 10);
      row->size_kib = g_ascii_strtoull (line + 47, &end, 10);
      g_assert_cmpstr (end, ==, "K");
      g_ptr_array_add (fixture->rows, row);
    }
  g_assert_cmpuint (fixture->rows->len, >, 0);
  return fixture;
}

static Fixture *
fixture_require (void)
{
  Fixture *fixture = fixture_load ();

  if (fixture == NULL)
    g_error ("the sandbox mounted no NvMap fixture (--fixture-tree, --nvmap-file)");
  return fixture;
}

static void
assert_row_matches (const Row *expected, const char *client, const char *process,
                    guint64 pid, guint64 size_kib)
{
  g_assert_cmpuint (pid, ==, expected->pid);
  g_assert_cmpuint (size_kib, ==, expected->size_kib);
  g_assert_cmpstr (client, ==, expected->client);
  g_assert_true (g_utf8_validate (process, -1, NULL));
  /* the fixed columns pad names; printable ASCII names must come back whole */
  if (g_str_is_ascii (expected->process))
    g_assert_cmpstr (process, ==, expected->process);
}

static void
assert_clients_reply (GVariant *reply, const Fixture *fixture)
{
  g_autoptr(GVariantIter) iter = NULL;
  g_autoptr(GVariant) info = NULL;
  const char *client, *process;
  guint32 pid;
  guint64 size_kib, total_kib;
  guint i = 0;

  g_assert_true (g_variant_is_of_type (reply, G_VARIANT_TYPE ("(a(ssut)ta{sv})")));
  g_variant_get (reply, "(a(ssut)t@a{sv})", &iter, &total_kib, &info);
  while (g_variant_iter_loop (iter, "(&s&sut)", &client, &process, &pid, &size_kib))
    {
      g_assert_cmpuint (i, <, fixture->rows->len);
      assert_row_matches (g_ptr_array_index (fixture->rows, i), client, process, pid, size_kib);
      i++;
    }
  g_assert_cmpuint (i, ==, fixture->rows->len);
  if (fixture->has_total)
    g_assert_cmpuint (total_kib, ==, fixture->total_kib);
}

/* ---- cases: the real polkitd ------------------------------------------------ */

static gboolean
in_group (const char *user, const char *group)
{
  struct passwd *pw = lookup_user (user);
  struct group *gr = getgrnam (group);
  gid_t groups[64];
  int n = G_N_ELEMENTS (groups);

  g_assert_nonnull (gr);
  g_assert_cmpint (getgrouplist (pw->pw_name, pw->pw_gid, groups, &n), >=, 0);
  for (int i = 0; i < n; i++)
    if (groups[i] == gr->gr_gid)
      return TRUE;
  return FALSE;
}

/* The harness itself: our rules reached polkitd, host rules did not. */
static void
test_polkit_rules (void)
{
  const char *check[] = { "sh", "-c", "exec pkcheck --action-id " JMEM_ACTION_READ_NVMAP " --process $$", NULL };
  g_auto(RunResult) agent = { 0 };
  g_auto(RunResult) outsider = { 0 };

  run_as (agent_user, check, &agent);
  g_assert_true (WIFEXITED (agent.status));
  g_assert_cmpint (WEXITSTATUS (agent.status), ==, 0);

  run_as (outsider_user, check, &outsider);
  g_assert_true (WIFEXITED (outsider.status));
  g_assert_cmpint (WEXITSTATUS (outsider.status), ==, 2);  /* needs authentication */

  /* the rule names the run's group, which only the agent is in */
  g_assert_true (in_group (agent_user, group_name));
  g_assert_false (in_group (outsider_user, group_name));
}

static void
test_agent_clients (void)
{
  g_autoptr(Fixture) fixture = fixture_require ();
  g_autoptr(GDBusConnection) bus = bus_open_as (agent_user);
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) reply = helper_call (bus, "GetNvMapClients", NULL, G_DBUS_CALL_FLAGS_NONE, 30000, &error);

  g_assert_no_error (error);
  assert_clients_reply (reply, fixture);
}

static void
test_agent_snapshot (void)
{
  g_autoptr(Fixture) fixture = fixture_require ();
  g_autofree char *jmem = client_path ();
  const char *command[] = { jmem, "snapshot", "--json", NULL };
  g_auto(RunResult) run = { 0 };
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  JsonObject *nvmap;
  JsonArray *clients;

  run_as (agent_user, command, &run);
  g_assert_true (WIFEXITED (run.status));
  g_assert_cmpint (WEXITSTATUS (run.status), ==, 0);
  json_parser_load_from_data (parser, run.out, -1, &error);
  g_assert_no_error (error);

  nvmap = json_object_get_object_member (json_node_get_object (json_parser_get_root (parser)), "nvmap");
  g_assert_nonnull (nvmap);
  g_assert_true (json_object_get_boolean_member (nvmap, "readable"));
  g_assert_cmpstr (json_object_get_string_member (nvmap, "via"), ==, "helper");
  clients = json_object_get_array_member (nvmap, "clients");
  g_assert_cmpuint (json_array_get_length (clients), ==, fixture->rows->len);
  for (guint i = 0; i < fixture->rows->len; i++)
    {
      JsonObject *row = json_array_get_object_element (clients, i);
      assert_row_matches (g_ptr_array_index (fixture->rows, i),
                          json_object_get_string_member (row, "client"),
                          json_object_get_string_member (row, "process"),
                          json_object_get_int_member (row, "pid"),
                          json_object_get_int_member (row, "size_kib"));
    }
}

/* A debugfs number as the sandbox mounted it, read as root: what the helper
 * must hand on. */
static gint64
debugfs_number (const char *path, const char *prefix)
{
  g_autofree char *text = NULL;

  if (!g_file_get_contents (path, &text, NULL, NULL))
    return -1;
  g_assert_true (g_str_has_prefix (text, prefix));
  return g_ascii_strtoll (text + strlen (prefix), NULL, 10);
}

/* GetNvMapMapsSnapshot through the helper as `jmem snapshot` uses it: the
 * page pool and free_size of the mounted debugfs in the accounting. */
static void
test_agent_maps (void)
{
  g_autofree char *jmem = client_path ();
  const char *command[] = { jmem, "snapshot", "--json", NULL };
  gint64 pool = debugfs_number (JMEM_NVMAP_POOL_PAGES_PATH, "");
  gint64 to_zero = debugfs_number (JMEM_NVMAP_POOL_TO_ZERO_PATH, "");
  gint64 free_size = debugfs_number (JMEM_NVMAP_FREE_SIZE_PATH, "Max allocatable IOVMM memory: ");
  g_auto(RunResult) run = { 0 };
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  JsonObject *accounting;
  JsonArray *buckets;
  gboolean seen = FALSE;

  if (!g_file_test (JMEM_NVMAP_MAPS_PATH, G_FILE_TEST_EXISTS) || pool < 0 || free_size < 0)
    {
      g_test_skip ("the sandbox mounted no maps, page pool or free_size");
      return;
    }
  run_as (agent_user, command, &run);
  g_assert_true (WIFEXITED (run.status));
  g_assert_cmpint (WEXITSTATUS (run.status), ==, 0);
  json_parser_load_from_data (parser, run.out, -1, &error);
  g_assert_no_error (error);
  accounting = json_object_get_object_member (json_node_get_object (json_parser_get_root (parser)),
                                              "accounting");
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (accounting, "nvmap"),
                                               "iovmm_allocatable_kib"), ==, free_size / 1024);
  buckets = json_object_get_array_member (accounting, "buckets");
  for (guint i = 0; i < json_array_get_length (buckets); i++)
    {
      JsonObject *b = json_array_get_object_element (buckets, i);

      if (!g_str_equal (json_object_get_string_member (b, "name"), "nvmap_pool"))
        continue;
      seen = TRUE;
      g_assert_cmpint (json_object_get_int_member (b, "kib"), ==,
                       (pool + MAX (to_zero, 0)) * (sysconf (_SC_PAGESIZE) / 1024));
      g_assert_nonnull (strstr (json_object_get_string_member (b, "fields"), "pagepool"));
    }
  g_assert_true (seen);
}

/* GetNvMapMapsSnapshot as the agent gets it (read-nvmap, the metrics
 * account's action): the same clients, handles and VMA lengths as the
 * mounted file, but no VMA address, which /proc/PID/maps shows only to
 * the process's owner, and no kernel pointer. */
static void
test_agent_maps_addresses (void)
{
  g_autoptr(GDBusConnection) bus = NULL;
  g_autoptr(GUnixFDList) fds = NULL;
  g_autoptr(GVariant) reply = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JmemNvmapMaps) mounted = NULL;
  g_autoptr(JmemNvmapMaps) given = NULL;
  g_autofree char *original = NULL;
  g_autofree char *snapshot = NULL;
  gsize len = 0;
  guint n_vmas = 0;
  struct stat st;
  gint32 handle = -1;
  int fd;

  if (!g_file_get_contents (JMEM_NVMAP_MAPS_PATH, &original, &len, NULL))
    {
      g_test_skip ("the sandbox mounted no maps");
      return;
    }
  mounted = jmem_nvmap_maps_parse (original, len, &error);
  g_assert_no_error (error);

  bus = bus_open_as (agent_user);
  reply = g_dbus_connection_call_with_unix_fd_list_sync (bus, JMEM_DBUS_NAME, JMEM_DBUS_PATH,
                                                         JMEM_DBUS_INTERFACE,
                                                         "GetNvMapMapsSnapshot", NULL,
                                                         G_VARIANT_TYPE ("(ha{sv})"),
                                                         G_DBUS_CALL_FLAGS_NONE, 30000, NULL,
                                                         &fds, NULL, &error);
  g_assert_no_error (error);
  g_variant_get_child (reply, 0, "h", &handle);
  fd = g_unix_fd_list_get (fds, handle, &error);
  g_assert_no_error (error);
  g_assert_cmpint (fstat (fd, &st), ==, 0);
  g_assert_cmpint (st.st_size, ==, (off_t) len);
  snapshot = g_malloc0 (len + 1);
  g_assert_cmpint (pread (fd, snapshot, len, 0), ==, (gssize) len);
  close (fd);

  given = jmem_nvmap_maps_parse (snapshot, len, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (given->clients->len, ==, mounted->clients->len);
  for (guint i = 0; i < mounted->clients->len; i++)
    {
      const JmemNvmapClientMaps *m = g_ptr_array_index (mounted->clients, i);
      const JmemNvmapClientMaps *g = g_ptr_array_index (given->clients, i);

      g_assert_cmpuint (g->client->pid, ==, m->client->pid);
      g_assert_cmpuint (g->mapped_kib, ==, m->mapped_kib);
      g_assert_cmpuint (g->vmas->len, ==, m->vmas->len);
      for (guint j = 0; j < m->vmas->len; j++)
        {
          const JmemNvmapVma *mv = &g_array_index (m->vmas, JmemNvmapVma, j);
          const JmemNvmapVma *gv = &g_array_index (g->vmas, JmemNvmapVma, j);
          g_autofree char *start = g_strdup_printf ("%" G_GINT64_MODIFIER "x", mv->start);

          g_assert_cmpuint (gv->start, ==, 0);
          g_assert_cmpuint (gv->end, ==, mv->end - mv->start);
          g_assert_nonnull (strstr (original, start));
          g_assert_null (strstr (snapshot, start));
          n_vmas++;
        }
    }
  g_assert_cmpuint (n_vmas, >, 0);
}

static void
test_agent_allocations (void)
{
  g_autoptr(Fixture) fixture = fixture_require ();
  g_autoptr(GDBusConnection) bus = bus_open_as (agent_user);
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) reply = NULL;
  g_autoptr(GVariant) clients = NULL;
  g_autofree char *jmem = client_path ();
  const char *command[] = { jmem, "allocations", NULL };
  g_auto(RunResult) run = { 0 };
  guint n_handles = 0;

  reply = helper_call (bus, "GetNvMapAllocations", NULL, G_DBUS_CALL_FLAGS_NONE, 30000, &error);
  g_assert_no_error (error);
  g_assert_true (g_variant_is_of_type (reply, G_VARIANT_TYPE ("(a(ssuta(ttuuuuuuuis))ta{sv})")));
  clients = g_variant_get_child_value (reply, 0);
  g_assert_cmpuint (g_variant_n_children (clients), >, 0);
  for (gsize i = 0; i < g_variant_n_children (clients); i++)
    {
      g_autoptr(GVariant) entry = g_variant_get_child_value (clients, i);
      g_autoptr(GVariant) handles = g_variant_get_child_value (entry, 4);
      const char *process = NULL;

      guint32 pid = 0;
      gboolean known = FALSE;

      g_variant_get_child (entry, 1, "&s", &process);
      g_variant_get_child (entry, 2, "u", &pid);
      g_assert_true (g_utf8_validate (process, -1, NULL));
      /* one kernel snapshot: every client with handles is a row of iovmm/clients */
      for (guint j = 0; j < fixture->rows->len && !known; j++)
        known = ((Row *) g_ptr_array_index (fixture->rows, j))->pid == pid;
      g_assert_true (known);
      n_handles += g_variant_n_children (handles);
    }
  g_assert_cmpuint (n_handles, >, 0);

  run_as (agent_user, command, &run);
  g_assert_true (WIFEXITED (run.status));
  g_assert_cmpint (WEXITSTATUS (run.status), ==, 0);
  g_assert_true (g_utf8_validate (run.out, -1, NULL));
  for (gsize i = 0; i < g_variant_n_children (clients); i++)
    {
      g_autoptr(GVariant) entry = g_variant_get_child_value (clients, i);
      guint32 pid = 0;
      g_autofree char *pid_text = NULL;

      g_variant_get_child (entry, 2, "u", &pid);
      pid_text = g_strdup_printf ("%u", pid);
      g_assert_nonnull (strstr (run.out, pid_text));
    }
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
  g_autoptr(GError) error = NULL;

  g_file_set_contents (path, "", 0, &error);
  if (error != NULL)  /* a bind mount cannot be replaced by rename: truncate */
    {
      FILE *f = fopen (path, "w");
      g_assert_nonnull (f);
      fclose (f);
    }
}

static void
test_agent_drop_caches (void)
{
  g_autoptr(GDBusConnection) bus = bus_open_as (agent_user);
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) reply = NULL;
  g_autofree char *level = NULL;
  g_autofree char *compact = NULL;
  g_autofree char *name = NULL;

  clear_knob (JMEM_DROP_CACHES_PATH);
  clear_knob (JMEM_COMPACT_MEMORY_PATH);

  /* refused before anything is written, and without using up the rate */
  assert_call_error (bus, "DropCaches", g_variant_new_parsed ("(@u 7, @a{sv} {})"),
                     G_DBUS_CALL_FLAGS_NONE, "dev.jmem.Error.InvalidArgument");
  level = read_knob (JMEM_DROP_CACHES_PATH);
  g_assert_cmpstr (level, ==, "");
  g_clear_pointer (&level, g_free);

  reply = helper_call (bus, "DropCaches", g_variant_new_parsed ("(@u 3, {'compact': <true>})"),
                       G_DBUS_CALL_FLAGS_NONE, 30000, &error);
  g_assert_no_error (error);
  level = read_knob (JMEM_DROP_CACHES_PATH);
  g_assert_cmpstr (level, ==, "3");
  compact = read_knob (JMEM_COMPACT_MEMORY_PATH);
  g_assert_cmpstr (compact, ==, "1");

  /* a second drop within 10 s, from anyone, is refused and writes nothing */
  clear_knob (JMEM_DROP_CACHES_PATH);
  g_clear_pointer (&reply, g_variant_unref);
  reply = helper_call (bus, "DropCaches", g_variant_new_parsed ("(@u 1, @a{sv} {})"),
                       G_DBUS_CALL_FLAGS_NONE, 30000, &error);
  g_assert_null (reply);
  name = remote_error_name (error);
  g_assert_cmpstr (name, ==, "dev.jmem.Error.RateLimited");
  g_clear_pointer (&level, g_free);
  level = read_knob (JMEM_DROP_CACHES_PATH);
  g_assert_cmpstr (level, ==, "");
}

/* An authorized caller's option key that forges a log line: the helper's
 * stderr (the bus's log here, as on a bus without systemd) holds it escaped
 * on the record's own line, and no line begins with the forged text. The
 * answer is logged at once, or, when the agent had another answered within
 * the interval (the drop before), as the last of its summary when the
 * interval ends. */
static void
test_log_escaped (void)
{
  g_autoptr(GDBusConnection) bus = bus_open_as (agent_user);
  g_autofree char *path = g_build_filename (g_getenv ("JMEM_SANDBOX_LOGS"), "dbus-daemon.log", NULL);
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;
  const char *forged = "jmem-helper-Message: dev.jmem.drop-caches by uid 0: ok";
  g_autofree char *key = g_strdup_printf ("x\n%s", forged);
  g_autofree char *escaped = g_strdup_printf ("x\\n%s", forged);
  GVariantBuilder options;
  gboolean found = FALSE;

  g_variant_builder_init (&options, G_VARIANT_TYPE_VARDICT);
  g_variant_builder_add (&options, "{sv}", key, g_variant_new_boolean (TRUE));
  assert_call_error (bus, "DropCaches", g_variant_new ("(u@a{sv})", 3, g_variant_builder_end (&options)),
                     G_DBUS_CALL_FLAGS_NONE, "dev.jmem.Error.InvalidArgument");

  for (guint i = 0; i < 300 && !found; i++)
    {
      g_clear_pointer (&text, g_free);
      g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
      found = strstr (text, escaped) != NULL;
      if (!found)
        g_usleep (100 * 1000);
    }
  g_assert_true (found);
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    g_assert_false (g_str_has_prefix (lines[i], forged));
}

static void
on_flood_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  guint *done = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), result, &error);

  g_assert_null (reply);
  (*done)++;
}

/* The helper's log from @offset on, once it holds @needle (up to 20 s). */
static char *
log_tail_with (gsize offset, const char *needle)
{
  g_autofree char *path = g_build_filename (g_getenv ("JMEM_SANDBOX_LOGS"), "dbus-daemon.log", NULL);

  for (guint i = 0; i < 200; i++)
    {
      g_autofree char *text = NULL;
      gsize len = 0;

      g_assert_true (g_file_get_contents (path, &text, &len, NULL));
      if (len > offset && strstr (text + offset, needle) != NULL)
        return g_strdup (text + offset);
      g_usleep (100 * 1000);
    }
  g_error ("the helper's log never said \"%s\"", needle);
}

static guint
count_lines_with (const char *text, const char *needle)
{
  g_auto(GStrv) lines = g_strsplit (text, "\n", -1);
  guint n = 0;

  for (guint i = 0; lines[i] != NULL; i++)
    if (strstr (lines[i], needle) != NULL)
      n++;
  return n;
}

/* The refusals counted for the key "by uid UID" in @tail: its lines logged
 * at once, and what its summary lines say they counted. */
static guint
refusals_logged (const char *tail, const char *uid, guint *lines)
{
  g_autofree char *key = g_strdup_printf ("by uid %s: ", uid);
  g_autofree char *summary_key = g_strdup_printf ("by uid %s: summary: ", uid);
  g_auto(GStrv) split = g_strsplit (tail, "\n", -1);
  guint n = 0;

  *lines = 0;
  for (guint i = 0; split[i] != NULL; i++)
    {
      const char *at = strstr (split[i], key);
      const char *summary = strstr (split[i], summary_key);
      guint more = 0;

      if (at == NULL || g_str_has_suffix (split[i], ": ok"))
        continue;
      (*lines)++;
      if (summary != NULL)
        g_assert_cmpint (sscanf (summary + strlen (summary_key), "%u more refused", &more), ==, 1);
      n += summary != NULL ? more : 1;
    }
  return n;
}

/* An outsider refused 300 times in a row costs the log a few lines: for its
 * uid, and for the calls refused before the bus said whose they are (uid
 * -1), the first refusal and one that counts the rest. 300 lines would make
 * journald's rate limit drop lines, the audit lines of the calls carried
 * out among them; those are all still there. */
#define FLOOD_CALLS 300

static void
test_refusals_counted (void)
{
  g_autoptr(GDBusConnection) root = bus_open_as (NULL);
  g_autoptr(GDBusConnection) agent = bus_open_as (agent_user);
  g_autoptr(GMainContext) context = g_main_context_new ();
  g_autofree char *path = g_build_filename (g_getenv ("JMEM_SANDBOX_LOGS"), "dbus-daemon.log", NULL);
  g_autofree char *before = NULL, *tail = NULL;
  g_autofree char *uid = g_strdup_printf ("%u", (guint) lookup_user (outsider_user)->pw_uid);
  g_autofree char *audit = g_strdup_printf ("%s by uid %u: ok", JMEM_ACTION_READ_NVMAP,
                                            (guint) lookup_user (agent_user)->pw_uid);
  g_autofree char *uid_summary = g_strdup_printf ("by uid %s: summary: ", uid);
  g_autofree char *agent_summary = g_strdup_printf ("answered calls by uid %u: summary: ",
                                                    (guint) lookup_user (agent_user)->pw_uid);
  GDBusConnection *outsider[4];
  gsize offset = 0;
  guint done = 0, lines = 0, unknown_lines = 0, counted;

  helper_ensure_running (root);
  g_assert_true (g_file_get_contents (path, &before, &offset, NULL));
  for (guint i = 0; i < G_N_ELEMENTS (outsider); i++)
    outsider[i] = bus_open_as (outsider_user);
  g_main_context_push_thread_default (context);
  for (guint i = 0; i < FLOOD_CALLS; i++)
    g_dbus_connection_call (outsider[i % G_N_ELEMENTS (outsider)], JMEM_DBUS_NAME, JMEM_DBUS_PATH,
                            JMEM_DBUS_INTERFACE, "GetNvMapClients", NULL, NULL, G_DBUS_CALL_FLAGS_NONE,
                            30000, NULL, on_flood_done, &done);
  while (done < FLOOD_CALLS)
    g_main_context_iteration (context, TRUE);
  g_main_context_pop_thread_default (context);
  for (guint i = 0; i < G_N_ELEMENTS (outsider); i++)
    g_object_unref (outsider[i]);

  /* an authorized call after the flood: logged at once, or, when the agent
   * had another answered in the interval, counted into its summary */
  {
    g_autoptr(GError) error = NULL;
    g_autoptr(GVariant) reply = helper_call (agent, "GetNvMapClients", NULL, G_DBUS_CALL_FLAGS_NONE,
                                             30000, &error);
    g_assert_no_error (error);
    g_assert_nonnull (reply);
  }
  g_clear_pointer (&tail, g_free);
  tail = log_tail_with (offset, "by uid");
  if (strstr (tail, audit) == NULL)
    {
      g_clear_pointer (&tail, g_free);
      tail = log_tail_with (offset, agent_summary);
    }

  /* once the interval has ended, every refusal is accounted for */
  g_clear_pointer (&tail, g_free);
  tail = log_tail_with (offset, uid_summary);
  g_usleep (G_USEC_PER_SEC);  /* the uid -1 line, written in the same pass */
  g_clear_pointer (&tail, g_free);
  tail = log_tail_with (offset, uid_summary);
  g_test_message ("the helper's log after the flood:\n%s", tail);
  counted = refusals_logged (tail, uid, &lines) + refusals_logged (tail, "-1", &unknown_lines);
  g_assert_cmpuint (lines, <=, 2);
  g_assert_cmpuint (unknown_lines, <=, 2);
  g_assert_cmpuint (counted, >=, FLOOD_CALLS);
  g_assert_cmpuint (count_lines_with (tail, audit) + count_lines_with (tail, agent_summary), >=, 1);
}

/* A kernel without CONFIG_COMPACTION: /proc/sys/vm holds drop_caches but no
 * compact_memory (a tmpfs over the directory, in the sandbox's namespace). */
static void
test_agent_no_compaction (void)
{
  g_autoptr(GDBusConnection) bus = bus_open_as (agent_user);
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) reply = NULL;
  g_autofree char *name = NULL;
  g_autofree char *level = NULL;
  g_autofree char *jmem = client_path ();
  const char *command[] = { jmem, "drop-caches", "--compact", "--no-ask-password", NULL };
  g_auto(RunResult) run = { 0 };

  g_assert_cmpint (mount ("jmem-e2e-vm", "/proc/sys/vm", "tmpfs", 0, "mode=0755"), ==, 0);
  g_assert_true (g_file_set_contents (JMEM_DROP_CACHES_PATH, "", 0, NULL));
  g_assert_cmpint (chmod (JMEM_DROP_CACHES_PATH, 0644), ==, 0);
  g_assert_false (g_file_test (JMEM_COMPACT_MEMORY_PATH, G_FILE_TEST_EXISTS));

  reply = helper_call (bus, "DropCaches", g_variant_new_parsed ("(@u 3, {'compact': <true>})"),
                       G_DBUS_CALL_FLAGS_NONE, 30000, &error);
  name = remote_error_name (error);
  run_as (agent_user, command, &run);
  level = read_knob (JMEM_DROP_CACHES_PATH);
  g_assert_cmpint (umount2 ("/proc/sys/vm", MNT_DETACH), ==, 0);

  g_assert_null (reply);
  g_assert_cmpstr (name, ==, "dev.jmem.Error.NotAvailable");
  g_assert_nonnull (strstr (error->message, JMEM_COMPACT_MEMORY_PATH));
  /* neither half was done: the caches were not dropped either */
  g_assert_cmpstr (level, ==, "");
  assert_failed_exit (&run);
  g_assert_nonnull (strstr (run.err, "without --compact"));
}

/* A kernel that checks a capability for an NvMap file: the helper holds
 * none, so a file its owner may not read (mode 0000, root's) stands in. The
 * error names the file and says what to grant. */
static void
test_agent_read_denied (void)
{
  g_autoptr(GDBusConnection) bus = bus_open_as (agent_user);
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) reply = NULL;
  g_autofree char *name = NULL;
  g_autofree char *file = g_build_filename (g_getenv ("JMEM_SANDBOX_STATE"), "clients-0000", NULL);

  g_assert_true (g_file_test (JMEM_NVMAP_CLIENTS_PATH, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_set_contents (file, "CLIENT PROCESS PID SIZE\n", -1, NULL));
  g_assert_cmpint (chmod (file, 0), ==, 0);
  g_assert_cmpint (mount (file, JMEM_NVMAP_CLIENTS_PATH, NULL, MS_BIND, NULL), ==, 0);

  reply = helper_call (bus, "GetNvMapClients", NULL, G_DBUS_CALL_FLAGS_NONE, 30000, &error);
  g_assert_cmpint (umount2 (JMEM_NVMAP_CLIENTS_PATH, MNT_DETACH), ==, 0);
  g_assert_cmpint (unlink (file), ==, 0);

  /* a helper holding CAP_DAC_READ_SEARCH (or more) would have read it */
  g_assert_null (reply);
  name = remote_error_name (error);
  g_assert_cmpstr (name, ==, "dev.jmem.Error.Failed");
  g_assert_nonnull (strstr (error->message, JMEM_NVMAP_CLIENTS_PATH));
  g_assert_nonnull (strstr (error->message, "CAP_DAC_READ_SEARCH"));
}

/* ---- PID namespaces ---- */

/* An NvMap clients file, in the kernel's columns, whose rows name PID 1 and
 * this test's own PID: host PIDs, as NvMap prints them. */
static char *
host_pid_clients (void)
{
  return g_strdup_printf ("%-18s %18s %8s %10s\n"
                          "%-18s %18s %8u %10uK\n"
                          "%-18s %18s %8u %10uK\n"
                          "%-18s %18s %8s %10uK\n",
                          "CLIENT", "PROCESS", "PID", "SIZE",
                          "user", "init", 1u, 1048576u,
                          "user", "test-e2e", (unsigned) getpid (), 33554432u,
                          "total", "", "", 34603008u);
}

static JsonObject *
snapshot_process (JsonObject *snapshot, gint64 pid)
{
  JsonArray *procs = json_object_get_array_member (json_object_get_object_member (snapshot, "processes"),
                                                   "list");

  for (guint i = 0; i < json_array_get_length (procs); i++)
    {
      JsonObject *p = json_array_get_object_element (procs, i);

      if (json_object_get_int_member (p, "pid") == pid)
        return p;
    }
  return NULL;
}

static gboolean
has_pid_namespace_warning (JsonObject *snapshot)
{
  JsonArray *warnings = json_object_get_array_member (snapshot, "warnings");

  for (guint i = 0; i < json_array_get_length (warnings); i++)
    if (strstr (json_object_get_string_member (json_array_get_object_element (warnings, i),
                                               "message"), "PID namespace") != NULL)
      return TRUE;
  return FALSE;
}

/* Runs @command as the agent, in a PID namespace of its own (unshare --pid
 * --fork --mount-proc, where it is PID 1) when @contained; it must succeed. */
static void
run_agent (gboolean contained, const char *const *command, RunResult *run)
{
  static const char *const unshare[] = { "unshare", "--pid", "--fork", "--mount-proc" };
  g_auto(GStrv) as_agent = user_argv (agent_user, command);
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();

  if (contained)
    for (gsize i = 0; i < G_N_ELEMENTS (unshare); i++)
      g_ptr_array_add (argv, (gpointer) unshare[i]);
  for (gsize i = 0; as_agent[i] != NULL; i++)
    g_ptr_array_add (argv, as_agent[i]);
  g_ptr_array_add (argv, NULL);
  run_as (NULL, (const char *const *) argv->pdata, run);
  g_assert_true (WIFEXITED (run->status));
  g_assert_cmpint (WEXITSTATUS (run->status), ==, 0);
}

static void
test_agent_pid_namespace (void)
{
  g_autofree char *file = g_build_filename (g_getenv ("JMEM_SANDBOX_STATE"), "clients-host-pids", NULL);
  g_autofree char *clients = host_pid_clients ();
  g_auto(RunResult) host = { 0 };
  g_auto(RunResult) contained = { 0 };
  g_auto(RunResult) human = { 0 };
  g_auto(RunResult) allocations = { 0 };
  g_autofree char *jmem = client_path ();
  const char *json[] = { jmem, "snapshot", "--json", NULL };
  const char *text[] = { jmem, "snapshot", NULL };
  const char *handles[] = { jmem, "allocations", NULL };
  g_autoptr(JsonParser) host_parser = json_parser_new ();
  g_autoptr(JsonParser) contained_parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *unshare = g_find_program_in_path ("unshare");
  JsonObject *snap, *nvmap, *p, *row;

  if (unshare == NULL)
    {
      g_test_skip ("unshare is not installed");
      return;
    }
  g_assert_true (g_file_set_contents (file, clients, -1, NULL));
  g_assert_cmpint (chmod (file, 0444), ==, 0);
  g_assert_cmpint (mount (file, JMEM_NVMAP_CLIENTS_PATH, NULL, MS_BIND, NULL), ==, 0);
  run_agent (FALSE, json, &host);
  run_agent (TRUE, json, &contained);
  run_agent (TRUE, text, &human);
  run_agent (TRUE, handles, &allocations);
  g_assert_cmpint (umount2 (JMEM_NVMAP_CLIENTS_PATH, MNT_DETACH), ==, 0);
  g_assert_cmpint (unlink (file), ==, 0);

  /* In the helper's namespace: joined by PID, as always. */
  json_parser_load_from_data (host_parser, host.out, -1, &error);
  g_assert_no_error (error);
  snap = json_node_get_object (json_parser_get_root (host_parser));
  nvmap = json_object_get_object_member (snap, "nvmap");
  g_assert_cmpstr (json_object_get_string_member (nvmap, "pid_namespace"), ==, "own");
  p = snapshot_process (snap, getpid ());
  g_assert_nonnull (p);
  g_assert_cmpint (json_object_get_int_member (p, "nvmap_kib"), ==, 33554432);
  g_assert_false (has_pid_namespace_warning (snap));

  /* In a PID namespace of its own, PID 1 is jmem: NvMap's PID 1 (the
   * host's init) must not be joined to it. */
  json_parser_load_from_data (contained_parser, contained.out, -1, &error);
  g_assert_no_error (error);
  snap = json_node_get_object (json_parser_get_root (contained_parser));
  nvmap = json_object_get_object_member (snap, "nvmap");
  g_assert_true (json_object_get_boolean_member (nvmap, "readable"));
  g_assert_cmpstr (json_object_get_string_member (nvmap, "pid_namespace"), ==, "host");
  p = snapshot_process (snap, 1);
  g_assert_nonnull (p);
  g_assert_true (json_object_get_null_member (p, "nvmap_kib"));
  /* the rows are still there, as host PIDs, neither found nor gone */
  row = json_array_get_object_element (json_object_get_array_member (nvmap, "by_pid"), 0);
  g_assert_cmpint (json_object_get_int_member (row, "pid"), ==, getpid ());
  g_assert_true (json_object_get_null_member (row, "pid_exists"));
  g_assert_true (has_pid_namespace_warning (snap));
  g_assert_nonnull (strstr (human.out, "host PIDs"));
  g_assert_nonnull (strstr (allocations.err, "host PIDs"));
}

static const char *const helper_methods[][2] = {
  { "GetNvMapClients", NULL },
  { "GetNvMapAllocations", NULL },
  { "GetNvMapMapsSnapshot", NULL },
  { "DropCaches", "(@u 3, @a{sv} {})" },
};

/* gdbus call as @user; the error name it prints must be @expected, and
 * nothing must be written or returned. */
static void
gdbus_call_refused (const char *user, const char *method, gboolean interactive, const char *expected)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new_with_free_func (g_free);
  g_auto(RunResult) run = { 0 };
  g_autofree char *level = NULL;

  g_ptr_array_add (argv, g_strdup ("gdbus"));
  g_ptr_array_add (argv, g_strdup ("call"));
  g_ptr_array_add (argv, g_strdup ("--system"));
  if (interactive)
    g_ptr_array_add (argv, g_strdup ("--interactive"));
  g_ptr_array_add (argv, g_strdup ("--dest=" JMEM_DBUS_NAME));
  g_ptr_array_add (argv, g_strdup ("--object-path=" JMEM_DBUS_PATH));
  g_ptr_array_add (argv, g_strdup_printf ("--method=" JMEM_DBUS_INTERFACE ".%s", method));
  if (g_strcmp0 (method, "DropCaches") == 0)
    {
      g_ptr_array_add (argv, g_strdup ("3"));
      g_ptr_array_add (argv, g_strdup ("{}"));
    }
  g_ptr_array_add (argv, NULL);

  clear_knob (JMEM_DROP_CACHES_PATH);
  run_as (user, (const char *const *) argv->pdata, &run);
  assert_failed_exit (&run);
  if (strstr (run.err, expected) == NULL)
    g_error ("%s as %s%s: expected %s, got: %s", method, user,
             interactive ? " (interactive)" : "", expected, run.err);
  g_assert_cmpstr (run.out, ==, "");
  level = read_knob (JMEM_DROP_CACHES_PATH);
  g_assert_cmpstr (level, ==, "");
}

/* Outside the group polkit's default is auth_admin: without the interactive
 * flag the helper says authentication could help; with it, polkitd has no
 * agent to ask, and the answer is a refusal. */
static void
test_outsider_denied (void)
{
  g_autofree char *jmem = client_path ();

  for (guint i = 0; i < G_N_ELEMENTS (helper_methods); i++)
    {
      gdbus_call_refused (outsider_user, helper_methods[i][0], FALSE, INTERACTIVE_REQUIRED);
      gdbus_call_refused (outsider_user, helper_methods[i][0], TRUE, DENIED);
    }

  /* the client says what to do: the group to join */
  {
    const char *command[] = { jmem, "allocations", NULL };
    g_auto(RunResult) run = { 0 };

    run_as (outsider_user, command, &run);
    assert_failed_exit (&run);
    g_assert_true (g_utf8_validate (run.err, -1, NULL));
    g_assert_nonnull (strstr (run.err, ADVISED_GROUP));
  }
  {
    const char *command[] = { jmem, "snapshot", "--json", NULL };
    g_auto(RunResult) run = { 0 };
    g_autoptr(JsonParser) parser = json_parser_new ();
    g_autoptr(GError) error = NULL;
    g_autoptr(JsonGenerator) generator = json_generator_new ();
    g_autofree char *warnings = NULL;
    JsonObject *root, *nvmap;

    run_as (outsider_user, command, &run);
    json_parser_load_from_data (parser, run.out, -1, &error);
    g_assert_no_error (error);
    root = json_node_get_object (json_parser_get_root (parser));
    nvmap = json_object_get_object_member (root, "nvmap");
    g_assert_false (json_object_get_boolean_member (nvmap, "readable"));
    g_assert_cmpuint (json_array_get_length (json_object_get_array_member (nvmap, "clients")), ==, 0);
    json_generator_set_root (generator, json_object_get_member (root, "warnings"));
    warnings = json_generator_to_data (generator, NULL);
    g_assert_nonnull (strstr (warnings, ADVISED_GROUP));
  }
}

static void
test_root_caller (void)
{
  g_autoptr(Fixture) fixture = fixture_require ();
  g_autoptr(GDBusConnection) bus = bus_open_as (NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) reply = helper_call (bus, "GetNvMapClients", NULL, G_DBUS_CALL_FLAGS_NONE, 30000, &error);

  g_assert_no_error (error);
  assert_clients_reply (reply, fixture);
}

/* Root's capture reads debugfs itself: the copy of iovmm/allocations keeps
 * every handle but not the kernel pointers of its UID column, and is root's
 * alone (0600 in a 0700 directory). */
static void
test_root_capture (void)
{
  g_autofree char *base = jmem_test_make_tmp ("jmem-e2e-capture-XXXXXX", NULL);
  g_autofree char *dir = g_build_filename (base, "cap", NULL);
  g_autofree char *copy_path = g_build_filename (dir, JMEM_NVMAP_ALLOCATIONS_PATH, NULL);
  g_autofree char *jmem = client_path ();
  g_autofree char *live = NULL;
  g_autofree char *copy = NULL;
  gsize live_len = 0, copy_len = 0;
  const char *capture[] = { jmem, "capture", "--no-ask-password", dir, NULL };
  RunResult result = { 0 };
  struct stat st;

  g_assert_true (g_file_get_contents (JMEM_NVMAP_ALLOCATIONS_PATH, &live, &live_len, NULL));
  run_as (NULL, capture, &result);
  g_assert_true (WIFEXITED (result.status));
  g_assert_cmpint (WEXITSTATUS (result.status), ==, 0);
  /* one line: what it wrote and the command that reads it */
  g_assert_true (g_str_has_prefix (result.out, "Wrote "));
  g_assert_nonnull (strstr (result.out, "; analyse it with: jmem snapshot --sysroot "));
  g_assert_true (strchr (result.out, '\n') == result.out + strlen (result.out) - 1);
  g_assert_true (g_file_get_contents (copy_path, &copy, &copy_len, NULL));

  /* Only UID digits differ, each now a zero; the fixture's pointers are gone. */
  g_assert_cmpuint (copy_len, ==, live_len);
  for (gsize i = 0; i < live_len; i++)
    if (copy[i] != live[i])
      {
        g_assert_cmpint (copy[i], ==, '0');
        g_assert_true (g_ascii_isxdigit (live[i]));
      }
  if (strstr (live, "ffff0000a1b2c3d4") != NULL)
    g_assert_null (strstr (copy, "ffff0000a1b2c3d4"));
  {
    g_autoptr(JmemNvmapAllocations) a = jmem_nvmap_allocations_parse (live, live_len, NULL);
    g_autoptr(JmemNvmapAllocations) b = jmem_nvmap_allocations_parse (copy, copy_len, NULL);

    g_assert_nonnull (a);
    g_assert_nonnull (b);
    g_assert_cmpuint (b->clients->len, ==, a->clients->len);
    g_assert_cmpuint (b->n_malformed, ==, a->n_malformed);
  }

  g_assert_cmpint (stat (copy_path, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 07777, ==, 0600);
  g_assert_cmpint (stat (dir, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 07777, ==, 0700);

  g_free (result.out);
  g_free (result.err);
  {
    const char *rm[] = { "rm", "-rf", base, NULL };
    RunResult removed = { 0 };

    run_as (NULL, rm, &removed);
    g_free (removed.out);
    g_free (removed.err);
  }
}

/* A caller polkit would ask to authenticate, over its own connection:
 * without the interactive flag the helper says interaction could help
 * (D-Bus spec); with it, polkit finds no agent to ask and the answer is a
 * plain refusal, never a request to retry with a flag already set. */
static void
check_challenged_caller (const char *user)
{
  g_autoptr(GDBusConnection) bus = bus_open_as (user);

  assert_call_error (bus, "GetNvMapClients", NULL, G_DBUS_CALL_FLAGS_NONE, INTERACTIVE_REQUIRED);
  assert_call_error (bus, "GetNvMapClients", NULL,
                     G_DBUS_CALL_FLAGS_ALLOW_INTERACTIVE_AUTHORIZATION, DENIED);
}

static void
test_interactive_flag (void)
{
  check_challenged_caller (outsider_user);
}

static void
test_cannot_own_name (void)
{
  const char *users[] = { agent_user, outsider_user };

  for (guint i = 0; i < G_N_ELEMENTS (users); i++)
    {
      const char *command[] = { "gdbus", "call", "--system", "--dest=org.freedesktop.DBus",
                                "--object-path=/org/freedesktop/DBus",
                                "--method=org.freedesktop.DBus.RequestName", JMEM_DBUS_NAME, "0", NULL };
      g_auto(RunResult) run = { 0 };

      run_as (users[i], command, &run);
      assert_failed_exit (&run);
      g_assert_nonnull (strstr (run.err, DENIED));
    }
}

static void
test_bad_calls (void)
{
  g_autoptr(GDBusConnection) bus = bus_open_as (agent_user);
  g_autoptr(GDBusConnection) root = bus_open_as (NULL);
  guint32 pid = helper_ensure_running (root);
  struct { const char *method; const char *args; } bad[] = {
    { "NoSuchMethod", NULL },
    { "GetNvMapClients", "('extra',)" },
    { "GetNvMapAllocations", "(@u 1,)" },
    { "DropCaches", "('3',)" },
    { "DropCaches", "(@u 3,)" },
    { "DropCaches", "(@u 3, @a{sv} {}, @u 0)" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(GVariant) reply = NULL;
      g_autofree char *name = NULL;

      reply = helper_call (bus, bad[i].method,
                           bad[i].args ? g_variant_new_parsed (bad[i].args) : NULL,
                           G_DBUS_CALL_FLAGS_NONE, 30000, &error);
      if (reply != NULL)
        g_error ("%s%s succeeded", bad[i].method, bad[i].args ? bad[i].args : "()");
      name = remote_error_name (error);
      g_test_message ("%s%s → %s", bad[i].method, bad[i].args ? bad[i].args : "()", name);
      g_assert_true (g_str_has_prefix (name, "org.freedesktop.DBus.Error.") ||
                     g_str_has_prefix (name, "dev.jmem.Error."));
    }

  /* properties are read-only */
  {
    g_autoptr(GError) error = NULL;
    g_autoptr(GVariant) reply = NULL;

    reply = g_dbus_connection_call_sync (bus, JMEM_DBUS_NAME, JMEM_DBUS_PATH,
                                         "org.freedesktop.DBus.Properties", "Set",
                                         g_variant_new ("(ssv)", JMEM_DBUS_INTERFACE, "Version",
                                                        g_variant_new_string ("9")),
                                         NULL, G_DBUS_CALL_FLAGS_NONE, 30000, NULL, &error);
    g_assert_null (reply);
    g_assert_nonnull (error);
  }

  /* still the same process, still answering */
  g_assert_cmpuint (bus_get_pid (root, JMEM_DBUS_NAME), ==, pid);
  {
    g_autoptr(GError) error = NULL;
    g_autoptr(GVariant) reply = helper_call (bus, "GetNvMapClients", NULL, G_DBUS_CALL_FLAGS_NONE, 30000, &error);
    g_assert_no_error (error);
    g_assert_nonnull (reply);
  }
}

static void
test_properties_unauthorized (void)
{
  g_autoptr(GDBusConnection) bus = bus_open_as (outsider_user);
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) reply = NULL;
  g_autoptr(GVariant) props = NULL;
  g_autoptr(GVariant) features = NULL;
  const char *version = NULL;

  reply = g_dbus_connection_call_sync (bus, JMEM_DBUS_NAME, JMEM_DBUS_PATH,
                                       "org.freedesktop.DBus.Properties", "GetAll",
                                       g_variant_new ("(s)", JMEM_DBUS_INTERFACE),
                                       G_VARIANT_TYPE ("(a{sv})"), G_DBUS_CALL_FLAGS_NONE, 30000, NULL, &error);
  g_assert_no_error (error);
  props = g_variant_get_child_value (reply, 0);
  g_assert_true (g_variant_lookup (props, "Version", "&s", &version));
  g_assert_cmpstr (version, !=, "");
  features = g_variant_lookup_value (props, "Features", G_VARIANT_TYPE ("as"));
  g_assert_nonnull (features);
}

static void
test_capabilities (void)
{
  g_autoptr(GDBusConnection) root = bus_open_as (NULL);
  guint32 pid = helper_ensure_running (root);
  const char *sets[] = { "CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb" };
  g_autofree char *no_new_privs = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (sets); i++)
    {
      g_autofree char *value = NULL;
      guint64 caps;

      g_assert_true (status_field (pid, sets[i], &value));
      caps = g_ascii_strtoull (value, NULL, 16);
      g_test_message ("helper %s: %s", sets[i], value);
      /* Started by dbus-daemon with every capability, it must hold none. */
      if (caps != 0)
        g_error ("helper %s is %s: it must hold no capability at all", sets[i], value);
    }
  g_assert_true (status_field (pid, "NoNewPrivs", &no_new_privs));
  g_assert_cmpstr (no_new_privs, ==, "1");
}

typedef struct {
  GDBusConnection *bus;
  guint32          helper_pid;
  gint            *n_done;
  gint            *n_errors;
  guint64         *rss_at_1000;
  guint           *fds_at_1000;
} LoadWorker;

#define LOAD_CLIENTS 16
#define LOAD_CALLS   200

static gpointer
load_worker (gpointer data)
{
  LoadWorker *worker = data;

  for (guint i = 0; i < LOAD_CALLS; i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(GVariant) reply = helper_call (worker->bus, "GetNvMapClients", NULL,
                                               G_DBUS_CALL_FLAGS_NONE, 30000, &error);
      if (reply == NULL)
        {
          if (g_atomic_int_add (worker->n_errors, 1) < 5)
            g_printerr ("load: %s\n", error->message);
        }
      if (g_atomic_int_add (worker->n_done, 1) + 1 == 1000)
        {
          *worker->rss_at_1000 = status_kib (worker->helper_pid, "VmRSS");
          *worker->fds_at_1000 = count_fds (worker->helper_pid);
        }
    }
  return NULL;
}

static void
test_load (void)
{
  g_autoptr(GDBusConnection) root = bus_open_as (NULL);
  guint32 pid = helper_ensure_running (root);
  LoadWorker workers[LOAD_CLIENTS];
  GThread *threads[LOAD_CLIENTS];
  gint n_done = 0, n_errors = 0;
  guint64 rss_at_1000 = 0, rss_end;
  guint fds_at_1000 = 0, fds_end;

  for (guint i = 0; i < LOAD_CLIENTS; i++)
    workers[i] = (LoadWorker) { bus_open_as (agent_user), pid, &n_done, &n_errors, &rss_at_1000, &fds_at_1000 };
  for (guint i = 0; i < LOAD_CLIENTS; i++)
    threads[i] = g_thread_new ("load", load_worker, &workers[i]);
  for (guint i = 0; i < LOAD_CLIENTS; i++)
    {
      g_thread_join (threads[i]);
      g_object_unref (workers[i].bus);
    }

  rss_end = status_kib (pid, "VmRSS");
  fds_end = count_fds (pid);
  g_test_message ("helper after 1000 calls: VmRSS %" G_GUINT64_FORMAT " KiB, %u fds; after %d: %"
                  G_GUINT64_FORMAT " KiB, %u fds", rss_at_1000, fds_at_1000, n_done, rss_end, fds_end);
  g_assert_cmpint (n_errors, ==, 0);
  g_assert_cmpint (n_done, ==, LOAD_CLIENTS * LOAD_CALLS);
  g_assert_cmpuint (bus_get_pid (root, JMEM_DBUS_NAME), ==, pid);
  g_assert_cmpuint (rss_at_1000, >, 0);
  g_assert_cmpuint (fds_end, <=, fds_at_1000 + 2);
#ifdef JMEM_E2E_ASAN
  /* ASan keeps freed memory in quarantine: RSS says nothing there, and its
   * leak checker watches the helper instead. */
  g_test_message ("built with ASan: helper VmRSS not compared");
#else
  /* allocator slack, not growth per call: 2200 more calls would leak far more */
  g_assert_cmpuint (rss_end, <=, rss_at_1000 + 2048);
#endif
}

/* ---- cases: polkit absent, stuck, refusing --------------------------------- */

static void
test_fail_closed (void)
{
  g_autoptr(GDBusConnection) bus = bus_open_as (agent_user);
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) reply = NULL;
  g_autofree char *name = NULL;
  g_autofree char *jmem = client_path ();
  const char *const commands[][4] = {
    { jmem, "allocations", NULL },
    { jmem, "drop-caches", "--no-ask-password", NULL },
  };
  gint64 start = g_get_monotonic_time ();
  double seconds;

  /* the caller waits far longer than the helper may */
  reply = helper_call (bus, "GetNvMapClients", NULL, G_DBUS_CALL_FLAGS_NONE, 120000, &error);
  seconds = (g_get_monotonic_time () - start) / 1e6;
  g_assert_null (reply);
  name = remote_error_name (error);
  g_test_message ("polkit %s: %s (%s) after %.1f s", polkit_mode, name, error->message, seconds);
  /* its own name, so that no caller mistakes it for a refusal by polkit */
  g_assert_cmpstr (name, ==, POLKIT_UNAVAILABLE);
  g_assert_true (contains_ci (error->message, "polkit"));
  g_assert_cmpfloat (seconds, <, FAIL_CLOSED_BOUND_S);

  /* jmem(1): 69, polkit is missing; not 77, which would send the user to
   * the group they are in already */
  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    {
      g_auto(RunResult) run = { 0 };

      run_as (agent_user, commands[i], &run);
      g_assert_true (WIFEXITED (run.status));
      g_assert_cmpint (WEXITSTATUS (run.status), ==, 69);
      g_assert_cmpfloat (run.seconds, <, FAIL_CLOSED_BOUND_S + 5);
      g_assert_true (contains_ci (run.err, "polkit"));
      g_assert_null (strstr (run.err, "usermod"));
    }
}

static void
test_mock_deny (void)
{
  g_autoptr(GDBusConnection) bus = bus_open_as (agent_user);

  /* group membership means nothing when polkit says no */
  for (guint i = 0; i < G_N_ELEMENTS (helper_methods); i++)
    assert_call_error (bus, helper_methods[i][0],
                       helper_methods[i][1] ? g_variant_new_parsed (helper_methods[i][1]) : NULL,
                       G_DBUS_CALL_FLAGS_NONE, DENIED);
}

static void
test_mock_challenge (void)
{
  check_challenged_caller (agent_user);
}

static gboolean
log_count_checks (guint *count)
{
  g_autofree char *path = g_build_filename (g_getenv ("JMEM_SANDBOX_LOGS"), "mock-polkit.log", NULL);
  g_autofree char *text = NULL;
  guint n = 0;

  if (!g_file_get_contents (path, &text, NULL, NULL))
    return FALSE;
  for (const char *p = text; (p = strstr (p, "CheckAuthorization #")) != NULL; p++)
    n++;
  *count = n;
  return TRUE;
}

static void
wait_for_check (guint before)
{
  guint n = 0;

  for (guint i = 0; i < 200; i++)
    {
      if (log_count_checks (&n) && n > before)
        return;
      g_usleep (50 * 1000);
    }
  g_error ("the helper never asked the mock polkit");
}

/* The flags of the checks the mock polkit logged after its first @before:
 * 0 for a check that did not allow interaction, 1 for one that did. */
static GArray *
logged_check_flags (guint before)
{
  g_autofree char *path = g_build_filename (g_getenv ("JMEM_SANDBOX_LOGS"), "mock-polkit.log", NULL);
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;
  GArray *flags = g_array_new (FALSE, FALSE, sizeof (guint));

  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      guint n = 0, f = 0;
      const char *at = strstr (lines[i], ", flags 0x");

      if (sscanf (lines[i], "CheckAuthorization #%u", &n) == 1 && n > before && at != NULL &&
          sscanf (at, ", flags 0x%x", &f) == 1)
        g_array_append_val (flags, f);
    }
  return flags;
}

/* `jmem snapshot` of an account polkit challenges: at a terminal it asks
 * each time without interaction first and with it only after the
 * challenge; without a terminal it never allows interaction. */
static void
test_mock_challenge_terminal (void)
{
  g_autofree char *jmem = client_path ();
  g_autofree char *inner = g_strdup_printf ("%s snapshot --json", jmem);
  const char *at_terminal[] = { "script", "-qec", inner, "/dev/null", NULL };
  const char *in_pipe[] = { jmem, "snapshot", "--json", NULL };
  g_auto(RunResult) run = { 0 };
  g_auto(RunResult) piped = { 0 };
  g_autoptr(GArray) flags = NULL;
  guint before = 0;

  g_assert_true (log_count_checks (&before));
  run_as (agent_user, at_terminal, &run);
  g_assert_true (WIFEXITED (run.status));
  flags = logged_check_flags (before);
  g_assert_cmpuint (flags->len, >=, 2);
  g_assert_cmpuint (flags->len % 2, ==, 0);
  for (guint i = 0; i < flags->len; i++)
    g_assert_cmpuint (g_array_index (flags, guint, i), ==, i % 2);
  g_clear_pointer (&flags, g_array_unref);

  g_assert_true (log_count_checks (&before));
  run_as (agent_user, in_pipe, &piped);
  g_assert_true (WIFEXITED (piped.status));
  flags = logged_check_flags (before);
  g_assert_cmpuint (flags->len, >=, 1);
  for (guint i = 0; i < flags->len; i++)
    g_assert_cmpuint (g_array_index (flags, guint, i), ==, 0);
}

static void
on_call_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GError **error = user_data;
  g_autoptr(GVariant) reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), result, error);

  g_assert_null (reply);
}

/* The helper dies while the caller waits on it (here: on polkit). */
static void
test_helper_killed (void)
{
  g_autoptr(GDBusConnection) bus = bus_open_as (agent_user);
  g_autoptr(GDBusConnection) root = bus_open_as (NULL);
  g_autoptr(GMainContext) context = g_main_context_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *name = NULL;
  guint32 pid, new_pid;
  guint checks = 0;

  pid = helper_ensure_running (root);
  g_main_context_push_thread_default (context);
  log_count_checks (&checks);
  g_dbus_connection_call (bus, JMEM_DBUS_NAME, JMEM_DBUS_PATH, JMEM_DBUS_INTERFACE, "GetNvMapClients",
                          NULL, NULL, G_DBUS_CALL_FLAGS_NONE, 120000, NULL, on_call_done, &error);
  wait_for_check (checks);
  g_assert_cmpint (kill ((pid_t) pid, SIGKILL), ==, 0);
  {
    gint64 deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
    while (error == NULL && g_get_monotonic_time () < deadline)
      if (!g_main_context_iteration (context, FALSE))
        g_usleep (10000);
  }
  g_main_context_pop_thread_default (context);
  g_assert_nonnull (error);
  name = remote_error_name (error);
  g_test_message ("call during SIGKILL: %s (%s)", name, error->message);
  g_assert_cmpstr (name, ==, "org.freedesktop.DBus.Error.NoReply");

  /* the next call brings a fresh helper */
  new_pid = helper_ensure_running (root);
  g_assert_cmpuint (new_pid, !=, pid);
  g_assert_true (pid_alive (new_pid));

  /* the command-line client, too, says what happened instead of hanging */
  {
    g_autofree char *jmem = client_path ();
    const char *command[] = { jmem, "allocations", NULL };
    g_auto(GStrv) argv = user_argv (agent_user, command);
    g_auto(GStrv) envp = user_envp ();
    GPid child;
    int err_fd, status = 0;
    g_autoptr(GError) spawn_error = NULL;
    g_autofree char *err_text = NULL;
    g_autoptr(GIOChannel) channel = NULL;
    gint64 start;

    log_count_checks (&checks);
    g_spawn_async_with_pipes ("/", argv, envp,
                              G_SPAWN_SEARCH_PATH | G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_STDOUT_TO_DEV_NULL,
                              NULL, NULL, &child, NULL, NULL, &err_fd, &spawn_error);
    g_assert_no_error (spawn_error);
    wait_for_check (checks);
    g_assert_cmpint (kill ((pid_t) new_pid, SIGKILL), ==, 0);
    start = g_get_monotonic_time ();
    channel = g_io_channel_unix_new (err_fd);
    g_io_channel_set_close_on_unref (channel, TRUE);
    g_io_channel_read_to_end (channel, &err_text, NULL, NULL);
    g_assert_cmpint (waitpid (child, &status, 0), ==, child);
    g_test_message ("jmem allocations after SIGKILL: status %d, %.1f s: %s", status,
                    (g_get_monotonic_time () - start) / 1e6, err_text);
    g_assert_true (WIFEXITED (status));
    g_assert_cmpint (WEXITSTATUS (status), !=, 0);
    g_assert_cmpint (g_get_monotonic_time () - start, <, 10 * G_USEC_PER_SEC);
    g_assert_true (contains_ci (err_text, "helper"));
  }
}

/* ---- the gate under pressure: a polkit that never answers interactive checks */

#define RATE_LIMITED "dev.jmem.Error.RateLimited"
#define OUTSIDER_CALLS 200
/* The bus refuses more than 128 replies pending on one connection. */
#define OUTSIDER_CONNECTIONS 4

/* The helper's --interactive-timeout, from its command line (its default:
 * 120 s). */
static guint
helper_interactive_timeout (guint32 pid)
{
  g_autofree char *path = g_strdup_printf ("/proc/%u/cmdline", pid);
  g_autofree char *cmdline = NULL;
  gsize len = 0;

  g_assert_true (g_file_get_contents (path, &cmdline, &len, NULL));
  for (const char *arg = cmdline; arg < cmdline + len; arg += strlen (arg) + 1)
    if (g_str_has_prefix (arg, "--interactive-timeout="))
      return (guint) g_ascii_strtoull (arg + strlen ("--interactive-timeout="), NULL, 10);
  return 120;
}

static guint
helper_threads (guint32 pid)
{
  g_autofree char *value = NULL;
  g_autofree char *dir_path = g_strdup_printf ("/proc/%u/task", pid);
  g_autoptr(GDir) dir = g_dir_open (dir_path, 0, NULL);
  g_autoptr(GString) names = g_string_new (NULL);
  const char *task;

  while (dir != NULL && (task = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *comm_path = g_build_filename (dir_path, task, "comm", NULL);
      g_autofree char *comm = NULL;

      if (g_file_get_contents (comm_path, &comm, NULL, NULL))
        g_string_append_printf (names, " %s", g_strstrip (comm));
    }
  g_test_message ("helper threads:%s", names->str);
  g_assert_true (status_field (pid, "Threads", &value));
  return (guint) g_ascii_strtoull (value, NULL, 10);
}

typedef struct {
  gint64 start;
  guint  n_done;
  char  *last_rate_limited;  /* the message */
  guint  n_rate_limited;
  guint  n_timed_out;
  guint  n_other;
  double rate_limited_last_s;  /* when the last RateLimited came */
  double timed_out_first_s;
  double timed_out_last_s;
} Pending;

static void
pending_clear (Pending *p)
{
  g_clear_pointer (&p->last_rate_limited, g_free);
}
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Pending, pending_clear)

static void
on_pending_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Pending *p = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), result, &error);
  g_autofree char *name = NULL;
  double t = (g_get_monotonic_time () - p->start) / 1e6;

  p->n_done++;
  if (reply != NULL)
    {
      g_printerr ("a pending call succeeded: %s\n", g_variant_print (reply, FALSE));
      p->n_other++;
      return;
    }
  name = remote_error_name (error);
  if (g_strcmp0 (name, RATE_LIMITED) == 0 && contains_ci (error->message, "pending"))
    {
      if (p->n_rate_limited++ == 0)
        g_test_message ("RateLimited: %s", error->message);
      g_free (p->last_rate_limited);
      p->last_rate_limited = g_strdup (error->message);
      p->rate_limited_last_s = MAX (p->rate_limited_last_s, t);
    }
  else if (g_strcmp0 (name, POLKIT_UNAVAILABLE) == 0 && contains_ci (error->message, "did not answer within"))
    {
      if (p->n_timed_out++ == 0)
        {
          g_test_message ("timed out after %.1f s: %s", t, error->message);
          p->timed_out_first_s = t;
        }
      p->timed_out_last_s = MAX (p->timed_out_last_s, t);
    }
  else
    {
      g_printerr ("a pending call ended with %s: %s\n", name, error->message);
      p->n_other++;
    }
}

static void
pending_call (GDBusConnection *bus, Pending *p)
{
  g_dbus_connection_call (bus, JMEM_DBUS_NAME, JMEM_DBUS_PATH, JMEM_DBUS_INTERFACE, "GetNvMapClients",
                          NULL, NULL, G_DBUS_CALL_FLAGS_ALLOW_INTERACTIVE_AUTHORIZATION, 120000, NULL,
                          on_pending_done, p);
}

static void
pending_wait (GMainContext *context, Pending *p, guint n_done, guint seconds)
{
  gint64 deadline = g_get_monotonic_time () + seconds * G_USEC_PER_SEC;

  while (p->n_done < n_done && g_get_monotonic_time () < deadline)
    if (!g_main_context_iteration (context, FALSE))
      g_usleep (1000);
}

/* The mock polkit has logged @n more checks than @before. */
static void
wait_for_checks (guint before, guint n)
{
  guint count = 0;

  for (guint i = 0; i < 200; i++)
    {
      if (log_count_checks (&count) && count >= before + n)
        return;
      g_usleep (50 * 1000);
    }
  g_error ("the mock polkit saw %u checks, expected %u", count - before, n);
}

/* An authorized call, answered at once however many others wait. */
static void
assert_agent_served (GDBusConnection *agent, const Fixture *fixture)
{
  for (guint i = 0; i < 3; i++)
    {
      g_autoptr(GError) error = NULL;
      gint64 start = g_get_monotonic_time ();
      g_autoptr(GVariant) reply = helper_call (agent, "GetNvMapClients", NULL, G_DBUS_CALL_FLAGS_NONE,
                                               30000, &error);
      double seconds = (g_get_monotonic_time () - start) / 1e6;

      g_test_message ("authorized GetNvMapClients #%u: %.3f s", i + 1, seconds);
      g_assert_no_error (error);
      assert_clients_reply (reply, fixture);
      g_assert_cmpfloat (seconds, <, 1.0);
    }
}

/* An outsider whose interactive checks polkit never answers (its own
 * authentication agent stays silent) sends 200 calls over 4 connections: it gets 16
 * pending, the rest are refused at once, the agent is served in under a
 * second by a helper with few threads, and every pending call ends when its
 * time is up. */
static void
test_gate_not_starved (void)
{
  g_autoptr(Fixture) fixture = fixture_require ();
  g_autoptr(GDBusConnection) root = bus_open_as (NULL);
  GDBusConnection *outsider[OUTSIDER_CONNECTIONS];
  g_autoptr(GDBusConnection) agent = bus_open_as (agent_user);
  g_autoptr(GMainContext) context = g_main_context_new ();
  guint32 pid = helper_ensure_running (root);
  guint timeout_s = helper_interactive_timeout (pid);
  guint checks = 0, threads;
  g_auto(Pending) p = { 0 };

  for (guint i = 0; i < OUTSIDER_CONNECTIONS; i++)
    outsider[i] = bus_open_as (outsider_user);
  log_count_checks (&checks);
  g_main_context_push_thread_default (context);
  p.start = g_get_monotonic_time ();
  for (guint i = 0; i < OUTSIDER_CALLS; i++)
    pending_call (outsider[i % OUTSIDER_CONNECTIONS], &p);

  /* the calls beyond the uid's 16 are refused at once */
  pending_wait (context, &p, OUTSIDER_CALLS - JMEM_E2E_MAX_PENDING_PER_UID, 5);
  g_test_message ("after %.2f s: %u RateLimited, %u other answers",
                  (g_get_monotonic_time () - p.start) / 1e6, p.n_rate_limited, p.n_other);
  g_assert_cmpuint (p.n_rate_limited, ==, OUTSIDER_CALLS - JMEM_E2E_MAX_PENDING_PER_UID);
  g_assert_cmpuint (p.n_other, ==, 0);
  g_assert_cmpfloat (p.rate_limited_last_s, <, 2.0);
  wait_for_checks (checks, JMEM_E2E_MAX_PENDING_PER_UID);

  assert_agent_served (agent, fixture);
  threads = helper_threads (pid);
  g_test_message ("helper threads with %u calls pending: %u", JMEM_E2E_MAX_PENDING_PER_UID, threads);
  g_assert_cmpuint (threads, <, 16);

  /* every pending call ends by its time-out, with an error that says so */
  g_assert_cmpuint (timeout_s, <, 20);  /* the variant sets --interactive-timeout */
  pending_wait (context, &p, OUTSIDER_CALLS, timeout_s + 15);
  g_main_context_pop_thread_default (context);
  g_test_message ("pending calls ended after %.1f..%.1f s (time-out %u s)",
                  p.timed_out_first_s, p.timed_out_last_s, timeout_s);
  g_assert_cmpuint (p.n_done, ==, OUTSIDER_CALLS);
  g_assert_cmpuint (p.n_timed_out, ==, JMEM_E2E_MAX_PENDING_PER_UID);
  g_assert_cmpuint (p.n_other, ==, 0);
  g_assert_cmpfloat (p.timed_out_first_s, >=, timeout_s - 0.5);
  g_assert_cmpfloat (p.timed_out_last_s, <, timeout_s + 5);
  g_assert_cmpuint (bus_get_pid (root, JMEM_DBUS_NAME), ==, pid);
  for (guint i = 0; i < OUTSIDER_CONNECTIONS; i++)
    g_object_unref (outsider[i]);
}

/* The limit is per uid, not per connection: with 16 checks pending over two
 * connections, a third connection of the same account is refused at once,
 * even for a check polkit would grant, while another account is served. */
static void
test_gate_uid_limit (void)
{
  g_autoptr(Fixture) fixture = fixture_require ();
  g_autoptr(GDBusConnection) root = bus_open_as (NULL);
  g_autoptr(GDBusConnection) first = bus_open_as (outsider_user);
  g_autoptr(GDBusConnection) second = bus_open_as (outsider_user);
  g_autoptr(GDBusConnection) third = bus_open_as (outsider_user);
  g_autoptr(GDBusConnection) agent = bus_open_as (agent_user);
  g_autoptr(GMainContext) context = g_main_context_new ();
  guint32 pid = helper_ensure_running (root);
  guint timeout_s = helper_interactive_timeout (pid);
  guint checks = 0;
  g_auto(Pending) p = { 0 };

  log_count_checks (&checks);
  g_main_context_push_thread_default (context);
  p.start = g_get_monotonic_time ();
  for (guint i = 0; i < JMEM_E2E_MAX_PENDING_PER_UID; i++)
    pending_call (i % 2 ? first : second, &p);
  wait_for_checks (checks, JMEM_E2E_MAX_PENDING_PER_UID);
  g_assert_cmpuint (p.n_done, ==, 0);

  for (guint i = 0; i < 2; i++)
    {
      g_autoptr(GError) error = NULL;
      g_autofree char *name = NULL;
      gint64 start = g_get_monotonic_time ();
      g_autoptr(GVariant) reply = helper_call (third, "GetNvMapClients", NULL,
                                               i == 0 ? G_DBUS_CALL_FLAGS_ALLOW_INTERACTIVE_AUTHORIZATION
                                                      : G_DBUS_CALL_FLAGS_NONE,
                                               30000, &error);
      double seconds = (g_get_monotonic_time () - start) / 1e6;

      g_assert_null (reply);
      name = remote_error_name (error);
      g_test_message ("call #%u of the uid: %s (%s) after %.3f s",
                      JMEM_E2E_MAX_PENDING_PER_UID + 1 + i, name, error->message, seconds);
      g_assert_cmpstr (name, ==, RATE_LIMITED);
      g_assert_true (contains_ci (error->message, "16 authorization checks pending"));
      g_assert_cmpfloat (seconds, <, 1.0);
    }
  assert_agent_served (agent, fixture);

  g_assert_cmpuint (timeout_s, <, 20);
  pending_wait (context, &p, JMEM_E2E_MAX_PENDING_PER_UID, timeout_s + 15);
  g_main_context_pop_thread_default (context);
  g_assert_cmpuint (p.n_timed_out, ==, JMEM_E2E_MAX_PENDING_PER_UID);

  /* once they have ended, the uid is served again (the mock grants) */
  {
    g_autoptr(GError) error = NULL;
    g_autoptr(GVariant) reply = helper_call (third, "GetNvMapClients", NULL, G_DBUS_CALL_FLAGS_NONE,
                                             30000, &error);
    g_assert_no_error (error);
    assert_clients_reply (reply, fixture);
  }
}

/* Eight accounts outside the group each hold 16 checks that allow
 * interaction (their own authentication agents never answer): only the
 * pool for such checks fills, the rest are refused at once, and a member of
 * the group, whose checks need no interaction, is served as before. With
 * one pool for both kinds, these 128 took every place and locked the group
 * out. */
#define INTERACTIVE_POOL 32

static void
test_gate_outsiders_interactive_pool (void)
{
  g_autoptr(Fixture) fixture = fixture_require ();
  g_autoptr(GDBusConnection) root = bus_open_as (NULL);
  g_autoptr(GDBusConnection) agent = bus_open_as (agent_user);
  g_autoptr(GMainContext) context = g_main_context_new ();
  g_auto(GStrv) outsiders = g_strsplit (g_getenv ("JMEM_SANDBOX_OUTSIDERS"), " ", -1);
  guint n = g_strv_length (outsiders);
  GDBusConnection **buses = g_new0 (GDBusConnection *, n);
  guint32 pid = helper_ensure_running (root);
  guint timeout_s = helper_interactive_timeout (pid);
  guint checks = 0;
  g_auto(Pending) p = { 0 };

  g_assert_cmpuint (n, ==, 8);  /* the variant's --outsiders */
  for (guint i = 0; i < n; i++)
    buses[i] = bus_open_as (outsiders[i]);
  log_count_checks (&checks);
  g_main_context_push_thread_default (context);
  p.start = g_get_monotonic_time ();
  for (guint i = 0; i < n; i++)
    for (guint j = 0; j < JMEM_E2E_MAX_PENDING_PER_UID; j++)
      pending_call (buses[i], &p);

  /* beyond the pool, refused at once; the pool's checks reach polkit */
  pending_wait (context, &p, n * JMEM_E2E_MAX_PENDING_PER_UID - INTERACTIVE_POOL, 10);
  g_test_message ("after %.2f s: %u RateLimited (%s), %u other answers",
                  (g_get_monotonic_time () - p.start) / 1e6, p.n_rate_limited,
                  p.last_rate_limited ? p.last_rate_limited : "", p.n_other);
  g_assert_cmpuint (p.n_rate_limited, ==, n * JMEM_E2E_MAX_PENDING_PER_UID - INTERACTIVE_POOL);
  g_assert_nonnull (strstr (p.last_rate_limited, "allow interaction"));
  g_assert_cmpuint (p.n_other, ==, 0);
  wait_for_checks (checks, INTERACTIVE_POOL);

  assert_agent_served (agent, fixture);

  g_assert_cmpuint (timeout_s, <, 20);
  pending_wait (context, &p, n * JMEM_E2E_MAX_PENDING_PER_UID, timeout_s + 15);
  g_main_context_pop_thread_default (context);
  g_assert_cmpuint (p.n_timed_out, ==, INTERACTIVE_POOL);
  g_assert_cmpuint (bus_get_pid (root, JMEM_DBUS_NAME), ==, pid);
  for (guint i = 0; i < n; i++)
    g_object_unref (buses[i]);
  g_free (buses);
}

/* `jmem snapshot` of a member at a terminal, while two outsiders hold every
 * place for checks that allow interaction: the client asks without
 * interaction first, so the member's NvMap is read. Asking with it at
 * once, as it did whenever stdin was a terminal, was refused for want of a
 * place, and NvMap was reported unreadable. */
static void
test_gate_member_at_terminal (void)
{
  g_autoptr(Fixture) fixture = fixture_require ();
  g_autoptr(GDBusConnection) root = bus_open_as (NULL);
  g_autoptr(GMainContext) context = g_main_context_new ();
  g_auto(GStrv) outsiders = g_strsplit (g_getenv ("JMEM_SANDBOX_OUTSIDERS"), " ", -1);
  g_autofree char *jmem = client_path ();
  g_autofree char *inner = g_strdup_printf ("%s snapshot --json", jmem);
  /* script(1) gives jmem a terminal for its stdin */
  const char *command[] = { "script", "-qec", inner, "/dev/null", NULL };
  GDBusConnection *buses[2];
  g_auto(RunResult) run = { 0 };
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(GString) out = g_string_new (NULL);
  guint32 pid = helper_ensure_running (root);
  guint timeout_s = helper_interactive_timeout (pid);
  guint checks = 0;
  JsonObject *nvmap;
  g_auto(Pending) p = { 0 };

  g_assert_cmpuint (g_strv_length (outsiders), >=, G_N_ELEMENTS (buses));
  log_count_checks (&checks);
  g_main_context_push_thread_default (context);
  p.start = g_get_monotonic_time ();
  for (guint i = 0; i < G_N_ELEMENTS (buses); i++)
    {
      buses[i] = bus_open_as (outsiders[i]);
      for (guint j = 0; j < JMEM_E2E_MAX_PENDING_PER_UID; j++)
        pending_call (buses[i], &p);
    }
  wait_for_checks (checks, INTERACTIVE_POOL);
  g_assert_cmpuint (p.n_done, ==, 0);

  run_as (agent_user, command, &run);
  g_assert_true (WIFEXITED (run.status));
  g_assert_cmpint (WEXITSTATUS (run.status), ==, 0);
  /* the terminal writes CR LF */
  for (const char *c = run.out; *c != '\0'; c++)
    if (*c != '\r')
      g_string_append_c (out, *c);
  json_parser_load_from_data (parser, out->str, -1, &error);
  g_assert_no_error (error);
  nvmap = json_object_get_object_member (json_node_get_object (json_parser_get_root (parser)), "nvmap");
  g_assert_nonnull (nvmap);
  g_assert_true (json_object_get_boolean_member (nvmap, "readable"));
  g_assert_cmpstr (json_object_get_string_member (nvmap, "via"), ==, "helper");
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (nvmap, "clients")), ==,
                    fixture->rows->len);

  g_assert_cmpuint (timeout_s, <, 20);
  pending_wait (context, &p, INTERACTIVE_POOL, timeout_s + 15);
  g_main_context_pop_thread_default (context);
  g_assert_cmpuint (p.n_timed_out, ==, INTERACTIVE_POOL);
  for (guint i = 0; i < G_N_ELEMENTS (buses); i++)
    g_object_unref (buses[i]);
}

/* ---- fairness: a member among eight flooding outsiders ------------------- */

/* Calls of a member timed in a row, idle and under the flood. */
#define MEMBER_IDLE_CALLS  20
#define MEMBER_FLOOD_CALLS 40

/* One outsider connection that keeps @per_connection calls of one kind in
 * flight, sending the next as each is answered (after a pause when it was
 * refused at once, so that the flood is of waiting calls, not of
 * refusals). Runs in the flood thread. */
typedef struct Flood Flood;

typedef struct {
  Flood           *flood;
  GDBusConnection *bus;
  gboolean         interactive;
} FloodConnection;

struct Flood {
  GMainContext    *context;
  GMainLoop       *loop;
  FloodConnection *connections;
  guint            n_connections;
  guint            per_connection;
  gint             stopping;  /* atomic */
  guint            in_flight;
  guint            sent, ok, rate_limited, other;
};

static void flood_send (FloodConnection *fc);

static gboolean
flood_resend (gpointer user_data)
{
  flood_send (user_data);
  return G_SOURCE_REMOVE;
}

static void
on_flood_answer (GObject *source, GAsyncResult *result, gpointer user_data)
{
  FloodConnection *fc = user_data;
  Flood *flood = fc->flood;
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), result, &error);
  g_autofree char *name = reply == NULL ? remote_error_name (error) : NULL;
  gboolean refused = g_strcmp0 (name, RATE_LIMITED) == 0;

  flood->in_flight--;
  if (reply != NULL)
    flood->ok++;
  else if (refused)
    flood->rate_limited++;
  else
    flood->other++;
  if (g_atomic_int_get (&flood->stopping))
    {
      if (flood->in_flight == 0)
        g_main_loop_quit (flood->loop);
      return;
    }
  if (refused)
    g_timeout_add (50, flood_resend, fc);
  else
    flood_send (fc);
}

static void
flood_send (FloodConnection *fc)
{
  if (g_atomic_int_get (&fc->flood->stopping))
    return;
  fc->flood->in_flight++;
  fc->flood->sent++;
  g_dbus_connection_call (fc->bus, JMEM_DBUS_NAME, JMEM_DBUS_PATH, JMEM_DBUS_INTERFACE,
                          "GetNvMapClients", NULL, NULL,
                          fc->interactive ? G_DBUS_CALL_FLAGS_ALLOW_INTERACTIVE_AUTHORIZATION
                                          : G_DBUS_CALL_FLAGS_NONE,
                          120000, NULL, on_flood_answer, fc);
}

static gpointer
flood_thread (gpointer data)
{
  Flood *flood = data;

  g_main_context_push_thread_default (flood->context);
  for (guint i = 0; i < flood->n_connections; i++)
    for (guint j = 0; j < flood->per_connection; j++)
      flood_send (&flood->connections[i]);
  g_main_loop_run (flood->loop);
  g_main_context_pop_thread_default (flood->context);
  return NULL;
}

static gboolean
flood_stop_in_thread (gpointer data)
{
  Flood *flood = data;

  g_atomic_int_set (&flood->stopping, 1);
  if (flood->in_flight == 0)
    g_main_loop_quit (flood->loop);
  return G_SOURCE_REMOVE;
}

/* The median of @n seconds, sorted in place. */
static double
median (double *seconds, guint n)
{
  for (guint i = 1; i < n; i++)
    for (guint j = i; j > 0 && seconds[j - 1] > seconds[j]; j--)
      {
        double t = seconds[j];
        seconds[j] = seconds[j - 1];
        seconds[j - 1] = t;
      }
  return n % 2 ? seconds[n / 2] : (seconds[n / 2 - 1] + seconds[n / 2]) / 2;
}

/* @n authorized calls of the member in a row: their median time, the
 * refusals counted in *refused. */
static double
member_calls (GDBusConnection *agent, const Fixture *fixture, guint n, guint *refused)
{
  g_autofree double *seconds = g_new0 (double, n);

  *refused = 0;
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(GError) error = NULL;
      gint64 start = g_get_monotonic_time ();
      g_autoptr(GVariant) reply = helper_call (agent, "GetNvMapClients", NULL, G_DBUS_CALL_FLAGS_NONE,
                                               60000, &error);

      seconds[i] = (g_get_monotonic_time () - start) / 1e6;
      if (reply == NULL)
        {
          g_autofree char *name = remote_error_name (error);
          if ((*refused)++ == 0)
            g_test_message ("the member refused: %s (%s)", name, error->message);
          continue;
        }
      assert_clients_reply (reply, fixture);
    }
  return median (seconds, n);
}

/* Eight accounts outside the group each keep 16 calls that allow
 * interaction (which polkit holds: their agents never answer) and 16 that
 * do not in flight, sending the next as each is answered, while a member
 * of the group calls 40 times in a row. Every one of the member's calls is
 * served, and its median time stays near the idle one. With one pool of
 * 128 places that the outsiders' calls filled, most of its calls were
 * refused, and those let in waited behind every outsider's check at
 * polkit. The bound asserted is loose, for a loaded machine;
 * tests/bench/bench-helper-gate prints the figures. */
static void
test_gate_fair (void)
{
  g_autoptr(Fixture) fixture = fixture_require ();
  g_autoptr(GDBusConnection) root = bus_open_as (NULL);
  g_autoptr(GDBusConnection) agent = bus_open_as (agent_user);
  g_auto(GStrv) outsiders = g_strsplit (g_getenv ("JMEM_SANDBOX_OUTSIDERS"), " ", -1);
  guint n = g_strv_length (outsiders);
  guint32 pid = helper_ensure_running (root);
  Flood flood = { 0 };
  GThread *thread;
  guint idle_refused, refused;
  double idle, loaded;

  g_assert_cmpuint (n, ==, 8);  /* the variant's --outsiders */
  idle = member_calls (agent, fixture, MEMBER_IDLE_CALLS, &idle_refused);
  g_assert_cmpuint (idle_refused, ==, 0);

  flood.context = g_main_context_new ();
  flood.loop = g_main_loop_new (flood.context, FALSE);
  flood.n_connections = 2 * n;
  flood.per_connection = JMEM_E2E_MAX_PENDING_PER_UID;
  flood.connections = g_new0 (FloodConnection, flood.n_connections);
  for (guint i = 0; i < flood.n_connections; i++)
    {
      flood.connections[i].flood = &flood;
      flood.connections[i].bus = bus_open_as (outsiders[i / 2]);
      flood.connections[i].interactive = i % 2 == 0;
    }
  thread = g_thread_new ("flood", flood_thread, &flood);
  /* let the flood fill every place it can before the member calls */
  g_usleep (G_USEC_PER_SEC);

  loaded = member_calls (agent, fixture, MEMBER_FLOOD_CALLS, &refused);

  g_main_context_invoke (flood.context, flood_stop_in_thread, &flood);
  /* the held interactive checks end when polkit refuses them */
  g_assert_cmpint (kill ((pid_t) bus_get_pid (root, "org.freedesktop.PolicyKit1"), SIGUSR1), ==, 0);
  g_thread_join (thread);
  g_test_message ("outsiders: %u calls sent, %u served, %u RateLimited, %u other answers",
                  flood.sent, flood.ok, flood.rate_limited, flood.other);
  g_test_message ("member median: idle %.1f ms, among %u flooding outsiders %.1f ms "
                  "(ratio %.2f), refused %u of %u",
                  idle * 1e3, n, loaded * 1e3, loaded / idle, refused, MEMBER_FLOOD_CALLS);
  for (guint i = 0; i < flood.n_connections; i++)
    g_object_unref (flood.connections[i].bus);
  g_free (flood.connections);
  g_main_loop_unref (flood.loop);
  g_main_context_unref (flood.context);

  g_assert_cmpuint (refused, ==, 0);
  /* the outsiders did flood the gate */
  g_assert_cmpuint (flood.rate_limited, >, 0);
  g_assert_cmpfloat (loaded, <, 20 * idle + 0.5);
  g_assert_cmpuint (bus_get_pid (root, JMEM_DBUS_NAME), ==, pid);
}

/* A call with descriptors attached, sent the way gdbus or any client sends
 * them (GUnixFDList), allowing interaction against a polkit that never
 * answers such calls: refused at once, before polkit is asked, and the
 * descriptors closed, not held. Held, 16 calls of 16 descriptors from each
 * of four accounts used up systemd's default of 1024. */
static void
test_gate_fds_refused (void)
{
  g_autoptr(GDBusConnection) root = bus_open_as (NULL);
  g_autoptr(GDBusConnection) outsider = bus_open_as (outsider_user);
  guint32 pid = helper_ensure_running (root);
  guint fds_before = count_fds (pid);
  guint checks = 0, after = 0;
  int null_fd = open ("/dev/null", O_RDONLY | O_CLOEXEC);

  g_assert_cmpint (null_fd, >=, 0);
  log_count_checks (&checks);
  for (guint i = 0; i < JMEM_E2E_MAX_PENDING_PER_UID; i++)
    {
      g_autoptr(GUnixFDList) fds = g_unix_fd_list_new ();
      g_autoptr(GError) error = NULL;
      g_autoptr(GVariant) reply = NULL;
      g_autofree char *name = NULL;
      gint64 start = g_get_monotonic_time ();

      for (guint j = 0; j < 16; j++)
        g_assert_cmpint (g_unix_fd_list_append (fds, null_fd, NULL), >=, 0);
      reply = g_dbus_connection_call_with_unix_fd_list_sync (
          outsider, JMEM_DBUS_NAME, JMEM_DBUS_PATH, JMEM_DBUS_INTERFACE, "GetNvMapClients", NULL,
          NULL, G_DBUS_CALL_FLAGS_ALLOW_INTERACTIVE_AUTHORIZATION, 30000, fds, NULL, NULL, &error);
      g_assert_null (reply);
      name = remote_error_name (error);
      if (i == 0)
        g_test_message ("a call with 16 descriptors: %s (%s)", name, error->message);
      g_assert_cmpstr (name, ==, "dev.jmem.Error.InvalidArgument");
      g_assert_nonnull (strstr (error->message, "takes no file descriptors"));
      g_assert_cmpint (g_get_monotonic_time () - start, <, G_USEC_PER_SEC);
    }
  close (null_fd);
  /* polkit was not asked, and nothing of them stays open in the helper */
  g_assert_true (log_count_checks (&after));
  g_assert_cmpuint (after, ==, checks);
  g_test_message ("helper fds before %u, after %u", fds_before, count_fds (pid));
  g_assert_cmpuint (count_fds (pid), <=, fds_before);
  g_assert_cmpuint (bus_get_pid (root, JMEM_DBUS_NAME), ==, pid);
}

/* The sandbox starts the helper with the unit's LimitNOFILE=, as systemd
 * would, so that the cases above ran under it. */
static void
test_helper_open_files_limit (void)
{
  g_autoptr(GDBusConnection) root = bus_open_as (NULL);
  guint32 pid = helper_ensure_running (root);
  g_autofree char *unit_path = g_build_filename (g_getenv ("JMEM_SANDBOX_SOURCE_DIR"), "systemd",
                                                 "jmem-helper.service.in", NULL);
  g_autofree char *limits_path = g_strdup_printf ("/proc/%u/limits", pid);
  g_autofree char *unit = NULL, *limits = NULL, *expected = NULL;
  const char *key;
  guint64 nofile;

  g_assert_true (g_file_get_contents (unit_path, &unit, NULL, NULL));
  key = strstr (unit, "\nLimitNOFILE=");
  g_assert_nonnull (key);
  nofile = g_ascii_strtoull (key + strlen ("\nLimitNOFILE="), NULL, 10);
  g_assert_cmpuint (nofile, >=, 64);
  g_assert_true (g_file_get_contents (limits_path, &limits, NULL, NULL));
  expected = g_strdup_printf ("Max open files            %" G_GUINT64_FORMAT "                  %"
                              G_GUINT64_FORMAT, nofile, nofile);
  if (strstr (limits, expected) == NULL)
    g_error ("the helper's limits lack \"%s\":\n%s", expected, limits);
}

/* ---- idle exit --------------------------------------------------------------- */

/* Peer.Ping with NO_REPLY_EXPECTED from anyone, while a call waits for a
 * polkit that hangs longer than the idle time-out: the helper must still
 * answer that call (with the polkit time-out), not exit idle under it. */
static void
test_idle_with_pending_call (void)
{
  g_autoptr(GDBusConnection) root = bus_open_as (NULL);
  g_autoptr(GDBusConnection) agent = bus_open_as (agent_user);
  g_autoptr(GDBusConnection) pinger = bus_open_as (outsider_user);
  g_autoptr(GMainContext) context = g_main_context_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *name = NULL;
  guint idle = (guint) g_ascii_strtoull (g_getenv ("JMEM_SANDBOX_IDLE_TIMEOUT"), NULL, 10);
  guint32 pid = helper_ensure_running (root);
  guint checks = 0, pings = 0;
  gint64 start, deadline;

  log_count_checks (&checks);
  g_main_context_push_thread_default (context);
  start = g_get_monotonic_time ();
  g_dbus_connection_call (agent, JMEM_DBUS_NAME, JMEM_DBUS_PATH, JMEM_DBUS_INTERFACE, "GetNvMapClients",
                          NULL, NULL, G_DBUS_CALL_FLAGS_NONE, 120000, NULL, on_call_done, &error);
  wait_for_check (checks);

  /* a few pings, then quiet: an idle time-out passes while the call waits */
  for (; pings < 3; pings++)
    {
      g_autoptr(GDBusMessage) ping = g_dbus_message_new_method_call (JMEM_DBUS_NAME, JMEM_DBUS_PATH,
                                                                     "org.freedesktop.DBus.Peer", "Ping");
      g_autoptr(GError) send_error = NULL;

      g_dbus_message_set_flags (ping, G_DBUS_MESSAGE_FLAGS_NO_REPLY_EXPECTED);
      g_dbus_connection_send_message (pinger, ping, G_DBUS_SEND_MESSAGE_FLAGS_NONE, NULL, &send_error);
      g_assert_no_error (send_error);
    }
  deadline = g_get_monotonic_time () + 60 * G_USEC_PER_SEC;
  while (error == NULL && g_get_monotonic_time () < deadline)
    if (!g_main_context_iteration (context, FALSE))
      g_usleep (10 * 1000);
  g_main_context_pop_thread_default (context);

  g_assert_nonnull (error);
  name = remote_error_name (error);
  g_test_message ("after %u pings, %.1f s (idle time-out %u s): %s (%s)", pings,
                  (g_get_monotonic_time () - start) / 1e6, idle, name, error->message);
  g_assert_cmpstr (name, ==, POLKIT_UNAVAILABLE);
  g_assert_true (contains_ci (error->message, "did not answer"));
  g_assert_cmpuint (g_get_monotonic_time () - start, >, (gint64) (idle + 1) * G_USEC_PER_SEC);
  g_assert_true (pid_alive (pid));

  /* with nothing pending, the pings alone do not keep it running */
  deadline = g_get_monotonic_time () + (idle + 10) * G_USEC_PER_SEC;
  while (pid_alive (pid) && g_get_monotonic_time () < deadline)
    {
      g_autoptr(GDBusMessage) ping = g_dbus_message_new_method_call (JMEM_DBUS_NAME, JMEM_DBUS_PATH,
                                                                     "org.freedesktop.DBus.Peer", "Ping");
      g_dbus_message_set_flags (ping, G_DBUS_MESSAGE_FLAGS_NO_REPLY_EXPECTED);
      g_dbus_connection_send_message (pinger, ping, G_DBUS_SEND_MESSAGE_FLAGS_NONE, NULL, NULL);
      g_usleep (200 * 1000);
    }
  g_assert_false (pid_alive (pid));
}

static gboolean
name_has_owner (GDBusConnection *bus, const char *name)
{
  g_autoptr(GVariant) reply = NULL;
  gboolean owned = FALSE;

  reply = g_dbus_connection_call_sync (bus, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                       "org.freedesktop.DBus", "NameHasOwner", g_variant_new ("(s)", name),
                                       G_VARIANT_TYPE ("(b)"), G_DBUS_CALL_FLAGS_NONE, 5000, NULL, NULL);
  g_assert_nonnull (reply);
  g_variant_get (reply, "(b)", &owned);
  return owned;
}

static void
test_idle_exit (void)
{
  g_autoptr(GDBusConnection) root = bus_open_as (NULL);
  guint idle = (guint) g_ascii_strtoull (g_getenv ("JMEM_SANDBOX_IDLE_TIMEOUT"), NULL, 10);
  guint32 pid, new_pid;
  gint64 deadline;

  pid = helper_ensure_running (root);
  deadline = g_get_monotonic_time () + (idle + 10) * G_USEC_PER_SEC;
  while ((name_has_owner (root, JMEM_DBUS_NAME) || pid_alive (pid)) && g_get_monotonic_time () < deadline)
    g_usleep (100 * 1000);
  g_assert_false (name_has_owner (root, JMEM_DBUS_NAME));
  g_assert_false (pid_alive (pid));

  new_pid = helper_ensure_running (root);
  g_assert_cmpuint (new_pid, !=, pid);
  g_assert_true (name_has_owner (root, JMEM_DBUS_NAME));
}

int
main (int argc, char **argv)
{
  const char *idle;

  g_test_init (&argc, &argv, NULL);

  if (g_getenv ("JMEM_SANDBOX") == NULL || geteuid () != 0)
    {
      g_printerr ("test-e2e: SKIP: run through tests/e2e/jmem-sandbox (as root)\n");
      return 77;
    }

  build_dir = g_getenv ("JMEM_SANDBOX_BUILD_DIR");
  polkit_mode = g_getenv ("JMEM_SANDBOX_POLKIT");
  agent_user = g_getenv ("JMEM_SANDBOX_AGENT");
  outsider_user = g_getenv ("JMEM_SANDBOX_OUTSIDER");
  group_name = g_getenv ("JMEM_SANDBOX_GROUP");
  idle = g_getenv ("JMEM_SANDBOX_IDLE_TIMEOUT");
  g_assert_nonnull (build_dir);
  g_assert_nonnull (polkit_mode);
  g_assert_nonnull (agent_user);
  g_assert_nonnull (outsider_user);
  g_assert_nonnull (group_name);

  if (idle != NULL && *idle != '\0' && g_strcmp0 (polkit_mode, "mock-hang") == 0)
    {
      g_test_add_func ("/e2e/helper/idle-with-pending-call", test_idle_with_pending_call);
    }
  else if (idle != NULL && *idle != '\0')
    {
      g_test_add_func ("/e2e/helper/idle-exit", test_idle_exit);
    }
  else if (g_strcmp0 (polkit_mode, "real") == 0)
    {
      g_test_add_func ("/e2e/polkit/rules", test_polkit_rules);
      g_test_add_func ("/e2e/agent/clients", test_agent_clients);
      g_test_add_func ("/e2e/agent/snapshot", test_agent_snapshot);
      g_test_add_func ("/e2e/agent/maps", test_agent_maps);
      g_test_add_func ("/e2e/agent/maps-addresses", test_agent_maps_addresses);
      g_test_add_func ("/e2e/agent/allocations", test_agent_allocations);
      g_test_add_func ("/e2e/agent/drop-caches", test_agent_drop_caches);
      g_test_add_func ("/e2e/agent/log-escaped", test_log_escaped);
      g_test_add_func ("/e2e/outsider/refusals-counted", test_refusals_counted);
      g_test_add_func ("/e2e/agent/no-compaction", test_agent_no_compaction);
      g_test_add_func ("/e2e/agent/read-denied", test_agent_read_denied);
      g_test_add_func ("/e2e/agent/pid-namespace", test_agent_pid_namespace);
      g_test_add_func ("/e2e/outsider/denied", test_outsider_denied);
      g_test_add_func ("/e2e/outsider/interactive-flag", test_interactive_flag);
      g_test_add_func ("/e2e/outsider/properties", test_properties_unauthorized);
      g_test_add_func ("/e2e/root/clients", test_root_caller);
      g_test_add_func ("/e2e/root/capture", test_root_capture);
      g_test_add_func ("/e2e/bus/cannot-own-name", test_cannot_own_name);
      g_test_add_func ("/e2e/bus/bad-calls", test_bad_calls);
      g_test_add_func ("/e2e/helper/capabilities", test_capabilities);
      g_test_add_func ("/e2e/helper/load", test_load);
    }
  else if (g_strcmp0 (polkit_mode, "none") == 0)
    {
      g_test_add_func ("/e2e/no-polkit/fail-closed", test_fail_closed);
    }
  else if (g_strcmp0 (polkit_mode, "mock-hang") == 0)
    {
      g_test_add_func ("/e2e/mock-hang/fail-closed", test_fail_closed);
      g_test_add_func ("/e2e/mock-hang/helper-killed", test_helper_killed);
    }
  else if (g_strcmp0 (polkit_mode, "mock-hang-interactive") == 0)
    {
      g_test_add_func ("/e2e/helper/open-files-limit", test_helper_open_files_limit);
      g_test_add_func ("/e2e/gate/fds-refused", test_gate_fds_refused);
      g_test_add_func ("/e2e/gate/not-starved", test_gate_not_starved);
      g_test_add_func ("/e2e/gate/uid-limit", test_gate_uid_limit);
      g_test_add_func ("/e2e/gate/outsiders-interactive-pool", test_gate_outsiders_interactive_pool);
      g_test_add_func ("/e2e/gate/fair", test_gate_fair);
      g_test_add_func ("/e2e/gate/member-at-terminal", test_gate_member_at_terminal);
    }
  else if (g_strcmp0 (polkit_mode, "mock-deny") == 0)
    {
      g_test_add_func ("/e2e/mock-deny/denied", test_mock_deny);
    }
  else if (g_strcmp0 (polkit_mode, "mock-challenge") == 0)
    {
      g_test_add_func ("/e2e/mock-challenge/interactive-flag", test_mock_challenge);
      g_test_add_func ("/e2e/mock-challenge/terminal", test_mock_challenge_terminal);
    }

  return g_test_run ();
}
