/* SPDX-License-Identifier: GPL-2.0-or-later */
/* End-to-end tests of GetNvMapAllocations and GetNvMapAllocationsSnapshot
 * with a big file: the helper's memory stays bounded, and jmem's with
 * 240,000 handles from each source, concurrent callers share one read, the
 * snapshot is sealed, read-only and free of kernel pointers, and what one
 * account keeps of them is bounded. Runs inside tests/e2e/jmem-sandbox, which mounts a small
 * allocations file; the cases bind their own files (written by
 * tests/gen-nvmap-allocations.py, or a FIFO) over it. */
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <grp.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gio/gio.h>
#include <gio/gunixfdlist.h>
#include <json-glib/json-glib.h>

#include "jmem-glib-compat.h"
#include "jmem-names.h"
#include "jmem-test.h"

#if defined(__SANITIZE_ADDRESS__)
#define JMEM_E2E_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define JMEM_E2E_ASAN 1
#endif
#endif

#define TYPED_REPLY_TYPE "(a(ssuta(ttuuuuuuuis))ta{sv})"
/* The bound the helper keeps for 60,000 handles (about 8 MB of text), and
 * jmem for 240,000 (33 MB of text: it holds neither the text nor the rows). */
#define PEAK_BOUND_KIB   (32 * 1024)
#define CLIENT_BOUND_KIB (32 * 1024)
#define ANON_BOUND_KIB   (4 * 1024)
#define N_CONCURRENT     8

static const char *build_dir;
static const char *source_dir;
static const char *state_dir;
static const char *agent_user;

/* ---- the file under test -------------------------------------------------- */

typedef struct {
  char  *path;
  char  *data;
  gsize  len;
  guint  n_clients;
  guint  n_handles;
} Allocations;

static void
allocations_free (Allocations *a)
{
  g_free (a->path);
  g_free (a->data);
  g_free (a);
}
G_DEFINE_AUTOPTR_CLEANUP_FUNC (Allocations, allocations_free)

/* Counts rows the way the kernel prints them, without the project's parser:
 * handle rows start with 38 spaces, client rows with their CLIENT word. */
static void
count_rows (Allocations *a)
{
  /* A walk by memchr: strstr over 8 MB per line is quadratic under ASan. */
  for (const char *l = a->data, *end = a->data + a->len; l < end;)
    {
      const char *nl = memchr (l, '\n', (gsize) (end - l));
      gsize n = nl != NULL ? (gsize) (nl - l) : (gsize) (end - l);
      gsize indent = 0;

      while (indent < n && l[indent] == ' ')
        indent++;
      if (indent >= 38 && !(n - indent >= 4 && memcmp (l + indent, "BASE", 4) == 0))
        a->n_handles++;
      else if (n > 0 && l[0] != ' ' && !g_str_has_prefix (l, "CLIENT") &&
               !g_str_has_prefix (l, "total"))
        a->n_clients++;
      l += n + 1;
    }
}

static void
mount_over_allocations (const char *file)
{
  g_autofree char *real = g_strdup_printf ("%s", JMEM_NVMAP_ALLOCATIONS_PATH);

  if (mount (file, real, NULL, MS_BIND, NULL) != 0)
    g_error ("cannot bind %s over %s: %s", file, real, g_strerror (errno));
}

static void
unmount_allocations (void)
{
  g_assert_cmpint (umount (JMEM_NVMAP_ALLOCATIONS_PATH), ==, 0);
}

/* Writes @n_handles handles with tests/gen-nvmap-allocations.py and mounts
 * them where the helper reads iovmm/allocations. */
static Allocations *
allocations_generate (guint n_handles)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *script = g_build_filename (source_dir, "tests", "gen-nvmap-allocations.py", NULL);
  g_autofree char *count = g_strdup_printf ("%u", n_handles);
  Allocations *a = g_new0 (Allocations, 1);
  int status = 0;

  a->path = g_strdup_printf ("%s/allocations-%u.txt", state_dir, n_handles);
  {
    const char *argv[] = { "python3", script, count, a->path, NULL };
    g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL,
                                 NULL, NULL, &status, &error));
  }
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  g_assert_true (g_file_get_contents (a->path, &a->data, &a->len, &error));
  g_assert_no_error (error);
  count_rows (a);
  g_assert_cmpuint (a->n_handles, ==, n_handles);
  mount_over_allocations (a->path);
  return a;
}

/* ---- the bus, the helper and its /proc ------------------------------------ */

static GDBusConnection *
bus_open_as (const char *user)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *address = g_dbus_address_get_for_bus_sync (G_BUS_TYPE_SYSTEM, NULL, &error);
  struct passwd *pw = getpwnam (user);
  gid_t saved_groups[64];
  int n_saved = getgroups (G_N_ELEMENTS (saved_groups), saved_groups);
  GDBusConnection *connection;

  g_assert_no_error (error);
  g_assert_nonnull (pw);
  g_assert_cmpint (n_saved, >=, 0);
  /* The bus records the credentials at connect time. */
  g_assert_cmpint (initgroups (pw->pw_name, pw->pw_gid), ==, 0);
  g_assert_cmpint (setegid (pw->pw_gid), ==, 0);
  g_assert_cmpint (seteuid (pw->pw_uid), ==, 0);
  connection = g_dbus_connection_new_for_address_sync (address,
                                                       G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT |
                                                       G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION,
                                                       NULL, NULL, &error);
  g_assert_cmpint (seteuid (0), ==, 0);
  g_assert_cmpint (setegid (0), ==, 0);
  g_assert_cmpint (setgroups (n_saved, saved_groups), ==, 0);
  g_assert_no_error (error);
  g_dbus_connection_set_exit_on_close (connection, FALSE);
  return connection;
}

static guint32
helper_pid (GDBusConnection *bus)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) ping = NULL;
  g_autoptr(GVariant) reply = NULL;
  guint32 pid = 0;

  /* A Peer.Ping needs no authorization and activates the helper. */
  ping = g_dbus_connection_call_sync (bus, JMEM_DBUS_NAME, JMEM_DBUS_PATH, "org.freedesktop.DBus.Peer",
                                      "Ping", NULL, NULL, G_DBUS_CALL_FLAGS_NONE, 30000, NULL, &error);
  g_assert_no_error (error);
  reply = g_dbus_connection_call_sync (bus, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                       "org.freedesktop.DBus", "GetConnectionUnixProcessID",
                                       g_variant_new ("(s)", JMEM_DBUS_NAME), G_VARIANT_TYPE ("(u)"),
                                       G_DBUS_CALL_FLAGS_NONE, 5000, NULL, &error);
  g_assert_no_error (error);
  g_variant_get (reply, "(u)", &pid);
  g_assert_cmpuint (pid, >, 0);
  return pid;
}

static guint64
status_kib (guint32 pid, const char *field)
{
  g_autofree char *path = g_strdup_printf ("/proc/%u/status", pid);
  g_autofree char *text = NULL;
  g_autofree char *key = g_strdup_printf ("\n%s:", field);
  const char *at;

  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  at = strstr (text, key);
  g_assert_nonnull (at);
  return g_ascii_strtoull (at + strlen (key), NULL, 10);
}

/* Starts a fresh peak: "5" to clear_refs resets VmHWM to the current RSS. */
static void
reset_peak (guint32 pid)
{
  g_autofree char *path = g_strdup_printf ("/proc/%u/clear_refs", pid);
  int fd = open (path, O_WRONLY | O_CLOEXEC);

  if (fd < 0 || write (fd, "5", 1) != 1)
    g_error ("cannot reset the peak in %s: %s", path, g_strerror (errno));
  close (fd);
}

/* The helper gives freed heap back about a second after a big reply. */
static guint64
wait_anon_below (guint32 pid, guint64 bound_kib)
{
  guint64 anon = 0;
#ifdef JMEM_E2E_ASAN
  const int tries = 1;  /* the quarantine keeps it anyway */
#else
  const int tries = 50;
#endif

  for (int i = 0; i < tries; i++)
    {
      anon = status_kib (pid, "RssAnon");
      if (anon < bound_kib)
        break;
      g_usleep (100 * 1000);
    }
  return anon;
}

/* ---- running real clients ----------------------------------------------- */

/* Runs @command (as the agent with @as_agent, else as root) under
 * peak-rss; returns its stdout and sets *peak_kib to its peak RSS. */
static char *
run_measured (gboolean           as_agent,
              const char *const *command,
              guint64           *peak_kib,
              double            *seconds)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) argv = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *peak_file = g_build_filename (state_dir, "client-peak", NULL);
  g_autofree char *peak = NULL;
  g_autofree char *err = NULL;
  char *out = NULL;
  gint64 start;
  int status = 0;

  g_ptr_array_add (argv, g_strdup (JMEM_PEAK_RSS));
  g_ptr_array_add (argv, g_strdup (peak_file));
  if (as_agent)
    {
      struct passwd *pw = getpwnam (agent_user);

      g_assert_nonnull (pw);
      g_ptr_array_add (argv, g_strdup ("setpriv"));
      g_ptr_array_add (argv, g_strdup_printf ("--reuid=%u", (unsigned) pw->pw_uid));
      g_ptr_array_add (argv, g_strdup_printf ("--regid=%u", (unsigned) pw->pw_gid));
      g_ptr_array_add (argv, g_strdup ("--init-groups"));
    }
  for (gsize i = 0; command[i] != NULL; i++)
    g_ptr_array_add (argv, g_strdup (command[i]));
  g_ptr_array_add (argv, NULL);

  start = g_get_monotonic_time ();
  g_assert_true (g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL,
                               &out, &err, &status, &error));
  *seconds = (double) (g_get_monotonic_time () - start) / G_USEC_PER_SEC;
  g_assert_no_error (error);
  if (!g_spawn_check_wait_status (status, NULL))
    g_error ("%s failed (status %d): %s", command[0], status, err);
  g_assert_true (g_file_get_contents (peak_file, &peak, NULL, NULL));
  *peak_kib = g_ascii_strtoull (peak, NULL, 10);
  g_assert_cmpuint (*peak_kib, >, 0);
  return out;
}

/* @command as the agent; returns its stdout. */
static char *
run_agent (const char *const *command, double *seconds)
{
  guint64 peak_kib;

  return run_measured (TRUE, command, &peak_kib, seconds);
}

/* ---- cases -------------------------------------------------------------- */

static guint
count_typed_handles (GVariant *reply, guint *n_clients)
{
  g_autoptr(GVariant) clients = g_variant_get_child_value (reply, 0);
  guint n = 0;

  *n_clients = (guint) g_variant_n_children (clients);
  for (gsize i = 0; i < *n_clients; i++)
    {
      g_autoptr(GVariant) entry = g_variant_get_child_value (clients, i);
      g_autoptr(GVariant) handles = g_variant_get_child_value (entry, 4);

      n += (guint) g_variant_n_children (handles);
    }
  return n;
}

static guint
count_json_handles (const char *json, guint *n_clients)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  JsonArray *clients;
  guint n = 0;

  g_assert_true (json_parser_load_from_data (parser, json, -1, &error));
  g_assert_no_error (error);
  clients = json_object_get_array_member (json_node_get_object (json_parser_get_root (parser)),
                                          "clients");
  *n_clients = json_array_get_length (clients);
  for (guint i = 0; i < *n_clients; i++)
    n += json_array_get_length (json_object_get_array_member (json_array_get_object_element (clients, i),
                                                              "handles"));
  return n;
}

/* ASan keeps freed memory in quarantine and maps shadow memory: a helper
 * built with it says nothing about the bounds (its leak checker watches
 * the helper instead). */
static void
assert_bounded (guint64 peak, guint64 anon)
{
#ifdef JMEM_E2E_ASAN
  g_test_message ("built with ASan: helper VmHWM and RssAnon not compared");
#else
  g_assert_cmpuint (peak, <=, PEAK_BOUND_KIB);
  g_assert_cmpuint (anon, <, ANON_BOUND_KIB);
#endif
}

static void
check_memory (guint n_handles)
{
  g_autoptr(Allocations) file = allocations_generate (n_handles);
  g_autoptr(GDBusConnection) bus = bus_open_as (agent_user);
  g_autoptr(GError) error = NULL;
  g_autofree char *json = NULL;
  g_autofree char *jmem = g_build_filename (build_dir, "client", "jmem", NULL);
  const char *gdbus[] = { "gdbus", "call", "--system", "--dest", JMEM_DBUS_NAME,
                          "--object-path", JMEM_DBUS_PATH,
                          "--method", JMEM_DBUS_INTERFACE ".GetNvMapAllocations", NULL };
  const char *client[] = { jmem, "allocations", "--json", NULL };
  guint32 pid = helper_pid (bus);
  guint n_clients = 0;
  guint64 peak, anon;
  double seconds;

  /* The typed method through gdbus: its text is a GVariant to read back.
   * Twice: the second big reply is where freed heap used to stay. */
  for (int round = 0; round < 2; round++)
    {
      g_autoptr(GVariant) reply = NULL;
      g_autofree char *typed = NULL;

      reset_peak (pid);
      typed = run_agent (gdbus, &seconds);
      peak = status_kib (pid, "VmHWM");
      anon = wait_anon_below (pid, ANON_BOUND_KIB);
      g_test_message ("GetNvMapAllocations, %u handles: %.2f s, helper VmHWM %" G_GUINT64_FORMAT
                      " KiB, RssAnon after %" G_GUINT64_FORMAT " KiB", n_handles, seconds, peak, anon);
      reply = g_variant_parse (G_VARIANT_TYPE (TYPED_REPLY_TYPE), typed, NULL, NULL, &error);
      g_assert_no_error (error);
      g_assert_cmpuint (count_typed_handles (reply, &n_clients), ==, file->n_handles);
      g_assert_cmpuint (n_clients, ==, file->n_clients);
      assert_bounded (peak, anon);
    }

  /* jmem, through the snapshot. */
  reset_peak (pid);
  json = run_agent (client, &seconds);
  peak = status_kib (pid, "VmHWM");
  anon = wait_anon_below (pid, ANON_BOUND_KIB);
  g_test_message ("jmem allocations (snapshot), %u handles: %.2f s, helper VmHWM %" G_GUINT64_FORMAT
                  " KiB, RssAnon after %" G_GUINT64_FORMAT " KiB", n_handles, seconds, peak, anon);
  g_assert_cmpuint (count_json_handles (json, &n_clients), ==, file->n_handles);
  g_assert_cmpuint (n_clients, ==, file->n_clients);
  assert_bounded (peak, anon);

  /* The same helper is still the one answering: nothing was restarted. */
  g_assert_cmpuint (helper_pid (bus), ==, pid);
  unmount_allocations ();
}

static void
test_memory_60000 (void)
{
  check_memory (60000);
}

static void
test_memory_1000 (void)
{
  check_memory (1000);
}

/* The lines of jmem's output that stand for a handle: a "base" member of
 * the JSON, a row of the table (a pipe gets whole lines: "  BASE SIZE ...").
 * A walk by memchr, as in count_rows(). */
static guint
count_handle_lines (const char *out, gboolean json)
{
  guint n = 0;

  for (const char *l = out, *end = out + strlen (out); l < end;)
    {
      const char *nl = memchr (l, '\n', (gsize) (end - l));
      gsize len = nl != NULL ? (gsize) (nl - l) : (gsize) (end - l);
      gsize indent = 0;

      while (indent < len && l[indent] == ' ')
        indent++;
      if (json ? len - indent >= 9 && memcmp (l + indent, "\"base\" : ", 9) == 0
               : indent >= 2 && indent < len && g_ascii_isxdigit (l[indent]) &&
                 !g_ascii_isupper (l[indent]))
        n++;
      l += len + 1;
    }
  return n;
}

static void
assert_client_bounded (guint64 peak)
{
#ifdef JMEM_E2E_ASAN
  g_test_message ("built with ASan: jmem's peak not compared");
#else
  g_assert_cmpuint (peak, <=, CLIENT_BOUND_KIB);
#endif
}

/* jmem itself with 240,000 handles from each of its sources: the helper's
 * snapshot (as the agent), debugfs (as root) and a captured tree. Each
 * output holds every handle, and jmem's peak RSS stays within the bound. */
static void
test_client_memory_240000 (void)
{
  g_autoptr(Allocations) file = allocations_generate (240000);
  g_autofree char *jmem = g_build_filename (build_dir, "client", "jmem", NULL);
  g_autofree char *tree = g_build_filename (state_dir, "tree-240000", NULL);
  g_autofree char *iovmm = g_build_filename (tree, "sys/kernel/debug/nvmap/iovmm", NULL);
  g_autofree char *tree_clients = g_build_filename (iovmm, "clients", NULL);
  g_autofree char *tree_allocations = g_build_filename (iovmm, "allocations", NULL);
  g_autofree char *clients = NULL;
  const struct {
    const char *via;
    gboolean    as_agent;
    const char *sysroot;
  } sources[] = {
    { "helper", TRUE, NULL },
    { "debugfs", FALSE, NULL },
    { "sysroot", FALSE, tree },
  };

  /* the capture: the same file, and the clients the sandbox mounted */
  g_assert_true (g_file_get_contents (JMEM_NVMAP_CLIENTS_PATH, &clients, NULL, NULL));
  g_assert_cmpint (g_mkdir_with_parents (iovmm, 0700), ==, 0);
  g_assert_true (g_file_set_contents (tree_clients, clients, -1, NULL));
  g_assert_cmpint (link (file->path, tree_allocations), ==, 0);

  for (gsize i = 0; i < G_N_ELEMENTS (sources); i++)
    for (int json = 1; json >= 0; json--)
      {
        const char *command[] = { jmem, "allocations", json ? "--json" : "--no-ask-password",
                                  sources[i].sysroot ? "--sysroot" : NULL, sources[i].sysroot,
                                  NULL };
        g_autofree char *via = g_strdup_printf (json ? "\"via\" : \"%s\"" : "(via %s)",
                                                sources[i].via);
        g_autofree char *out = NULL;
        guint64 peak = 0;
        guint n;
        double seconds;

        out = run_measured (sources[i].as_agent, command, &peak, &seconds);
        n = count_handle_lines (out, json);
        g_test_message ("jmem allocations%s via %s, %u handles: %.2f s, jmem's peak RSS %"
                        G_GUINT64_FORMAT " KiB", json ? " --json" : "", sources[i].via,
                        file->n_handles, seconds, peak);
        g_assert_nonnull (strstr (out, via));
        g_assert_cmpuint (n, ==, file->n_handles);
        assert_client_bounded (peak);
      }

  g_assert_cmpint (unlink (tree_allocations), ==, 0);
  unmount_allocations ();
}

/* GetNvMapAllocationsSnapshot from @bus: the descriptor, and in @reply
 * (nullable) the whole reply; -1 and @error when refused. */
static int
try_snapshot (GDBusConnection *bus, GVariant **reply_out, GError **error)
{
  g_autoptr(GUnixFDList) fds = NULL;
  g_autoptr(GVariant) reply = NULL;
  gint32 handle = -1;

  reply = g_dbus_connection_call_with_unix_fd_list_sync (bus, JMEM_DBUS_NAME, JMEM_DBUS_PATH,
                                                         JMEM_DBUS_INTERFACE,
                                                         "GetNvMapAllocationsSnapshot", NULL,
                                                         G_VARIANT_TYPE ("(ha{sv})"),
                                                         G_DBUS_CALL_FLAGS_NONE, 60000, NULL,
                                                         &fds, NULL, error);
  if (reply == NULL)
    return -1;
  g_variant_get_child (reply, 0, "h", &handle);
  if (reply_out != NULL)
    *reply_out = g_variant_ref (reply);
  return g_unix_fd_list_get (fds, handle, error);
}

static GVariant *
call_snapshot (GDBusConnection *bus, int *fd)
{
  g_autoptr(GError) error = NULL;
  GVariant *reply = NULL;

  *fd = try_snapshot (bus, &reply, &error);
  g_assert_no_error (error);
  return reply;
}

static char *
read_fd (int fd, gsize *len)
{
  struct stat st;
  char *data;

  g_assert_cmpint (fstat (fd, &st), ==, 0);
  data = g_malloc ((gsize) st.st_size + 1);
  g_assert_cmpint (pread (fd, data, (gsize) st.st_size, 0), ==, st.st_size);
  data[st.st_size] = '\0';
  *len = (gsize) st.st_size;
  return data;
}

static void
test_snapshot_sealed (void)
{
  g_autoptr(Allocations) file = allocations_generate (1000);
  g_autoptr(GDBusConnection) bus = bus_open_as (agent_user);
  g_autoptr(GVariant) reply = NULL;
  g_autofree char *data = NULL;
  const unsigned all = F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL;
  guint64 size = 0;
  guint differing_lines = 0;
  gsize len = 0;
  void *map;
  int fd = -1;

  reply = call_snapshot (bus, &fd);
  g_assert_true (g_variant_lookup (g_variant_get_child_value (reply, 1), "size", "t", &size));

  g_assert_cmpint (fcntl (fd, F_GET_SEALS), ==, (int) all);
  g_assert_cmpint (fcntl (fd, F_GETFL) & O_ACCMODE, ==, O_RDONLY);
  g_assert_cmpint (write (fd, "x", 1), ==, -1);
  g_assert_cmpint (errno, ==, EBADF);
  g_assert_cmpint (ftruncate (fd, 0), ==, -1);
  g_assert_cmpint (fcntl (fd, F_ADD_SEALS, 0), ==, -1);
  map = mmap (NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  g_assert_true (map == MAP_FAILED);

  /* The file as the kernel printed it, but no UID is left: each differs
   * from the file only where the snapshot holds '0's. */
  data = read_fd (fd, &len);
  close (fd);
  g_assert_cmpuint (len, ==, file->len);
  g_assert_cmpuint (size, ==, file->len);
  for (gsize i = 0, line_differs = 0; i < len; i++)
    {
      if (data[i] != file->data[i])
        {
          g_assert_cmpint (data[i], ==, '0');
          line_differs = 1;
        }
      if (data[i] == '\n')
        {
          differing_lines += (guint) line_differs;
          line_differs = 0;
        }
    }
  /* The generator gives every handle a non-zero pointer. */
  g_assert_cmpuint (differing_lines, ==, file->n_handles);
  unmount_allocations ();
}

/* A member that keeps every snapshot descriptor (the review saw 24 pin
 * 627 MiB): with 200,000 handles (about 27 MB a snapshot) the helper hands
 * out what fits the 96 MiB one account may pin, refuses the rest with
 * RateLimited, and once the caller has closed them lets it call again. */
#define PIN_CALLS     24
#define PIN_BOUND     (96 * 1024 * 1024)

static void
test_snapshot_pins_bounded (void)
{
  g_autoptr(Allocations) file = allocations_generate (200000);
  g_autoptr(GDBusConnection) bus = bus_open_as (agent_user);
  g_autoptr(GArray) fds = g_array_new (FALSE, FALSE, sizeof (int));
  g_autofree char *last_refusal = NULL;
  guint refused = 0;
  gint64 deadline;
  int fd = -1;

  for (guint i = 0; i < PIN_CALLS; i++)
    {
      g_autoptr(GError) error = NULL;
      g_autofree char *remote = NULL;

      fd = try_snapshot (bus, NULL, &error);
      if (fd >= 0)
        {
          g_array_append_val (fds, fd);
          continue;
        }
      g_assert_true (g_dbus_error_is_remote_error (error));
      remote = g_dbus_error_get_remote_error (error);
      g_assert_cmpstr (remote, ==, "dev.jmem.Error.RateLimited");
      refused++;
      g_free (last_refusal);
      last_refusal = g_strdup (error->message);
    }
  g_test_message ("%u snapshots of %" G_GSIZE_FORMAT " bytes kept, %u refused (%s): they pin "
                  "%" G_GUINT64_FORMAT " bytes", fds->len, file->len, refused, last_refusal,
                  jmem_test_fds_distinct_bytes (fds));
  g_assert_cmpuint (fds->len, ==, PIN_BOUND / file->len);
  g_assert_cmpuint (refused, ==, PIN_CALLS - fds->len);
  g_assert_cmpuint (jmem_test_fds_distinct_bytes (fds), <=, PIN_BOUND);
  g_assert_nonnull (strstr (last_refusal, "close the ones it no longer reads"));

  /* closed, they pin nothing: the next call is answered (once the helper
   * has seen the last descriptor go, in the bus too) */
  for (guint i = 0; i < fds->len; i++)
    close (g_array_index (fds, int, i));
  deadline = g_get_monotonic_time () + 30 * G_USEC_PER_SEC;
  for (fd = -1; fd < 0 && g_get_monotonic_time () < deadline;)
    {
      g_autoptr(GError) error = NULL;

      fd = try_snapshot (bus, NULL, &error);
      if (fd < 0)
        g_usleep (100 * 1000);
    }
  g_assert_cmpint (fd, >=, 0);
  close (fd);
  unmount_allocations ();
}

typedef struct {
  GVariant *reply;
  char     *data;  /* a snapshot's contents */
  gboolean  done;
} Answer;

static void
on_snapshot_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Answer *answer = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GUnixFDList) fds = NULL;
  gsize len = 0;
  int fd;

  answer->reply = g_dbus_connection_call_with_unix_fd_list_finish (G_DBUS_CONNECTION (source),
                                                                   &fds, result, &error);
  g_assert_no_error (error);
  fd = g_unix_fd_list_get (fds, 0, &error);
  g_assert_no_error (error);
  answer->data = read_fd (fd, &len);
  close (fd);
  answer->done = TRUE;
}

static void
on_typed_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Answer *answer = user_data;
  g_autoptr(GError) error = NULL;

  answer->reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), result, &error);
  g_assert_no_error (error);
  answer->done = TRUE;
}

/* Half the callers ask for the snapshot, half for the typed reply, while the
 * file is a FIFO that only this test writes, once: a second read of it would
 * see nothing (or wait forever), and every answer says which read it got. */
static void
test_single_flight (void)
{
  g_autofree char *fifo = g_build_filename (state_dir, "allocations.fifo", NULL);
  g_autofree char *fixture = g_build_filename (source_dir, "fixtures", "nvmap",
                                               "allocations.rendered-r36-format.txt", NULL);
  g_autofree char *text = NULL;
  GDBusConnection *buses[N_CONCURRENT];
  Answer answers[N_CONCURRENT] = { { 0 } };
  guint64 first_read = 0;
  gsize len = 0;
  int writer;

  g_assert_true (g_file_get_contents (fixture, &text, &len, NULL));
  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  mount_over_allocations (fifo);

  for (guint i = 0; i < N_CONCURRENT; i++)
    buses[i] = bus_open_as (agent_user);
  (void) helper_pid (buses[0]);

  for (guint i = 0; i < N_CONCURRENT; i++)
    {
      if (i % 2 == 0)
        g_dbus_connection_call_with_unix_fd_list (buses[i], JMEM_DBUS_NAME, JMEM_DBUS_PATH,
                                                  JMEM_DBUS_INTERFACE, "GetNvMapAllocationsSnapshot",
                                                  NULL, G_VARIANT_TYPE ("(ha{sv})"),
                                                  G_DBUS_CALL_FLAGS_NONE, 30000, NULL, NULL,
                                                  on_snapshot_done, &answers[i]);
      else
        g_dbus_connection_call (buses[i], JMEM_DBUS_NAME, JMEM_DBUS_PATH, JMEM_DBUS_INTERFACE,
                                "GetNvMapAllocations", NULL, G_VARIANT_TYPE (TYPED_REPLY_TYPE),
                                G_DBUS_CALL_FLAGS_NONE, 30000, NULL, on_typed_done, &answers[i]);
    }

  /* The first call opens the FIFO and waits for a writer (which is when a
   * writer's non-blocking open succeeds); give the others, each a polkit
   * check of some milliseconds, time to join it before anything is written. */
  writer = -1;
  for (int i = 0; i < 200 && writer < 0; i++)
    {
      writer = open (fifo, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
      if (writer < 0)
        {
          g_assert_cmpint (errno, ==, ENXIO);
          g_main_context_iteration (NULL, FALSE);
          g_usleep (50 * 1000);
        }
    }
  g_assert_cmpint (writer, >=, 0);
  g_usleep (2 * G_USEC_PER_SEC);
  g_assert_cmpint (fcntl (writer, F_SETFL, 0), ==, 0);
  g_assert_cmpint (write (writer, text, len), ==, (gssize) len);
  close (writer);

  for (guint i = 0; i < N_CONCURRENT; i++)
    while (!answers[i].done)
      g_main_context_iteration (NULL, TRUE);

  for (guint i = 0; i < N_CONCURRENT; i++)
    {
      g_autoptr(GVariant) info = g_variant_get_child_value (answers[i].reply, i % 2 == 0 ? 1 : 2);
      guint64 read_id = 0;
      guint32 shared_by = 0;

      g_assert_true (g_variant_lookup (info, "read_id", "t", &read_id));
      g_assert_true (g_variant_lookup (info, "shared_by", "u", &shared_by));
      if (i == 0)
        first_read = read_id;
      g_assert_cmpuint (read_id, ==, first_read);
      g_assert_cmpuint (shared_by, ==, N_CONCURRENT);
      if (i % 2 == 0)
        g_assert_cmpstr (answers[i].data, ==, text);  /* its UIDs are 0 already */
      else
        {
          guint n_clients = 0;
          g_assert_cmpuint (count_typed_handles (answers[i].reply, &n_clients), >, 0);
        }
      g_variant_unref (answers[i].reply);
      g_free (answers[i].data);
      g_object_unref (buses[i]);
    }
  unmount_allocations ();
  g_assert_cmpint (unlink (fifo), ==, 0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  if (g_getenv ("JMEM_SANDBOX") == NULL || geteuid () != 0)
    {
      g_printerr ("test-e2e-allocations: SKIP: run through tests/e2e/jmem-sandbox (as root)\n");
      return 77;
    }
  build_dir = g_getenv ("JMEM_SANDBOX_BUILD_DIR");
  source_dir = g_getenv ("JMEM_SANDBOX_SOURCE_DIR");
  state_dir = g_getenv ("JMEM_SANDBOX_STATE");
  agent_user = g_getenv ("JMEM_SANDBOX_AGENT");
  g_assert_nonnull (build_dir);
  g_assert_nonnull (source_dir);
  g_assert_nonnull (state_dir);
  g_assert_nonnull (agent_user);

  g_test_add_func ("/e2e/allocations/memory-60000", test_memory_60000);
  g_test_add_func ("/e2e/allocations/memory-1000", test_memory_1000);
  g_test_add_func ("/e2e/allocations/client-memory-240000", test_client_memory_240000);
  g_test_add_func ("/e2e/allocations/snapshot-sealed", test_snapshot_sealed);
  g_test_add_func ("/e2e/allocations/single-flight", test_single_flight);
  g_test_add_func ("/e2e/allocations/snapshot-pins-bounded", test_snapshot_pins_bounded);
  return g_test_run ();
}
