/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The helper's polkit gate without root: a private dbus-daemon (GTestDBus)
 * stands in for the system bus, tests/mock-polkit (or nobody) owns
 * org.freedesktop.PolicyKit1 on it, and the gate exports a skeleton whose
 * one handler answers at once (or, for the log of answered calls, the real
 * handlers). Callers are this process's own connections: one uid, as an
 * account opening several connections is. */
#include <gio/gio.h>
#include <gio/gunixfdlist.h>
#include <glib/gstdio.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include "jmem-activity.h"
#include "jmem-advice.h"
#include "jmem-error.h"
#include "jmem-helper-methods.h"
#include "jmem-helper1-generated.h"
#include "jmem-names.h"
#include "jmem-polkit.h"
#include "jmem-test.h"

#define POLKIT_NAME          "org.freedesktop.PolicyKit1"
#define RATE_LIMITED         "dev.jmem.Error.RateLimited"
#define POLKIT_UNAVAILABLE   "dev.jmem.Error.PolkitUnavailable"
#define INVALID_ARGUMENT     "dev.jmem.Error.InvalidArgument"
#define INTERACTIVE_REQUIRED "org.freedesktop.DBus.Error.InteractiveAuthorizationRequired"
#define ACCESS_DENIED        "org.freedesktop.DBus.Error.AccessDenied"
#define TIMEOUT_S             2
#define INTERACTIVE_TIMEOUT_S 3
/* A gate time no test reaches: the checks it governs end when the test
 * makes mock-polkit refuse them (SIGUSR1), however slow the machine. */
#define HELD_S                100
/* How long a wait for something that should happen at once may take on a
 * loaded machine before the test gives up. */
#define PATIENCE_S            30

static GTestDBus *test_bus;

/* Whether /proc/sys/vm is a tmpfs of this process's own (as root): then a
 * cache drop writes a file there, not the kernel's knob. */
static gboolean fake_knobs;

/* The helper's log lines (MESSAGE), while capturing: from any thread. */
static GMutex     log_lock;
static GPtrArray *log_lines;

static GLogWriterOutput
capture_writer (GLogLevelFlags   level,
                const GLogField *fields,
                gsize            n_fields,
                gpointer         user_data)
{
  g_mutex_lock (&log_lock);
  if (log_lines != NULL)
    for (gsize i = 0; i < n_fields; i++)
      if (g_str_equal (fields[i].key, "MESSAGE"))
        g_ptr_array_add (log_lines, g_strdup (fields[i].value));
  g_mutex_unlock (&log_lock);
  return g_log_writer_default (level, fields, n_fields, user_data);
}

typedef struct {
  GDBusConnection *helper_bus;
  JmemHelper1     *skeleton;
  JmemActivity    *activity;
  JmemPolkitGate  *gate;
  GSubprocess     *polkit;
  char            *polkit_log;
  guint            served;
} Fixture;

static GDBusConnection *
connect (void)
{
  g_autoptr(GError) error = NULL;
  GDBusConnection *bus = g_dbus_connection_new_for_address_sync (
      g_test_dbus_get_bus_address (test_bus),
      G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT | G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION,
      NULL, NULL, &error);

  g_assert_no_error (error);
  return bus;
}

/* Answers in the worker thread the gate hands authorized calls to. */
static gboolean
on_get_clients (JmemHelper1           *skeleton,
                GDBusMethodInvocation *invocation,
                gpointer               user_data)
{
  Fixture *f = user_data;

  g_atomic_int_inc (&f->served);
  g_dbus_method_invocation_return_value (invocation,
                                         g_variant_new_parsed ("(@a(ssut) [], @t 0, @a{sv} {})"));
  return TRUE;
}

static void
iterate_until (gboolean (*done) (gpointer), gpointer data, guint seconds)
{
  gint64 deadline = g_get_monotonic_time () + seconds * G_USEC_PER_SEC;

  while (!done (data) && g_get_monotonic_time () < deadline)
    if (!g_main_context_iteration (NULL, FALSE))
      g_usleep (1000);
}

static gboolean
polkit_owned (gpointer data)
{
  GDBusConnection *bus = data;
  g_autoptr(GVariant) reply = NULL;
  gboolean owned = FALSE;

  reply = g_dbus_connection_call_sync (bus, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                       "org.freedesktop.DBus", "NameHasOwner",
                                       g_variant_new ("(s)", POLKIT_NAME), G_VARIANT_TYPE ("(b)"),
                                       G_DBUS_CALL_FLAGS_NONE, 5000, NULL, NULL);
  if (reply != NULL)
    g_variant_get (reply, "(b)", &owned);
  return owned;
}

/* tests/mock-polkit in @mode on the test bus, its log in a file. */
static void
start_polkit (Fixture *f, const char *mode)
{
  g_autoptr(GSubprocessLauncher) launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_NONE);
  g_autoptr(GPtrArray) argv = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  int fd;

  fd = g_file_open_tmp ("jmem-test-gate-polkit-XXXXXX", &f->polkit_log, &error);
  g_assert_no_error (error);
  close (fd);
  g_subprocess_launcher_setenv (launcher, "DBUS_SYSTEM_BUS_ADDRESS",
                                g_test_dbus_get_bus_address (test_bus), TRUE);
  g_subprocess_launcher_set_stdout_file_path (launcher, f->polkit_log);
  jmem_test_add_program (argv, JMEM_MOCK_POLKIT);
  g_ptr_array_add (argv, g_strdup (mode));
  g_ptr_array_add (argv, NULL);
  f->polkit = g_subprocess_launcher_spawnv (launcher, (const char *const *) argv->pdata, &error);
  g_assert_no_error (error);
  iterate_until (polkit_owned, f->helper_bus, PATIENCE_S);
  g_assert_true (polkit_owned (f->helper_bus));
}

/* How many checks the mock polkit was asked. */
static guint
polkit_checks (Fixture *f)
{
  g_autofree char *text = NULL;
  guint n = 0;

  g_assert_true (g_file_get_contents (f->polkit_log, &text, NULL, NULL));
  for (const char *p = text; (p = strstr (p, "CheckAuthorization #")) != NULL; p++)
    n++;
  return n;
}

static void
fixture_set_up (Fixture *f, gconstpointer data)
{
  const JmemPolkitGateConfig *limits = data;
  JmemPolkitGateConfig config = { 0 };
  g_autoptr(GError) error = NULL;

  if (limits != NULL)
    config = *limits;
  if (config.timeout_s == 0)
    config.timeout_s = TIMEOUT_S;
  if (config.interactive_timeout_s == 0)
    config.interactive_timeout_s = INTERACTIVE_TIMEOUT_S;
  f->helper_bus = connect ();
  f->skeleton = jmem_helper1_skeleton_new ();
  g_signal_connect (f->skeleton, "handle-get-nvmap-clients", G_CALLBACK (on_get_clients), f);
  f->activity = jmem_activity_new ();
  f->gate = jmem_polkit_gate_export (G_DBUS_INTERFACE_SKELETON (f->skeleton), f->helper_bus,
                                     JMEM_DBUS_PATH, &config, f->activity, &error);
  g_assert_no_error (error);
}

static gboolean
nothing_in_flight (gpointer activity)
{
  return jmem_activity_in_flight (activity) == 0;
}

static void
fixture_tear_down (Fixture *f, gconstpointer data)
{
  g_clear_pointer (&f->gate, jmem_polkit_gate_free);
  if (f->polkit != NULL)
    {
      g_subprocess_send_signal (f->polkit, SIGTERM);
      g_subprocess_wait (f->polkit, NULL, NULL);
      g_clear_object (&f->polkit);
      /* the name must be gone before the next test asks for polkit */
      for (guint i = 0; i < PATIENCE_S * 50 && polkit_owned (f->helper_bus); i++)
        g_usleep (20 * 1000);
      g_assert_false (polkit_owned (f->helper_bus));
    }
  if (f->polkit_log != NULL)
    g_unlink (f->polkit_log);
  g_clear_pointer (&f->polkit_log, g_free);
  /* every call was answered, so none is counted any more, once the
   * helper's side has seen its last reply off (slow under emulation) */
  iterate_until (nothing_in_flight, f->activity, PATIENCE_S);
  g_assert_cmpuint (jmem_activity_in_flight (f->activity), ==, 0);
  g_clear_pointer (&f->activity, jmem_activity_unref);
  g_clear_object (&f->skeleton);
  g_dbus_connection_close_sync (f->helper_bus, NULL, NULL);
  g_clear_object (&f->helper_bus);
}

/* ---- calls ------------------------------------------------------------ */

typedef struct {
  guint  sent;
  guint  done;
  guint  ok;
  GHashTable *errors;  /* D-Bus error name → count */
  char  *last_message;
  GError *last_error;  /* as the client gets it, for its advice */
} Calls;

static void
calls_init (Calls *c)
{
  memset (c, 0, sizeof *c);
  c->errors = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
}

static void
calls_clear (Calls *c)
{
  g_clear_pointer (&c->errors, g_hash_table_unref);
  g_clear_pointer (&c->last_message, g_free);
  g_clear_error (&c->last_error);
}

static guint
calls_errors (Calls *c, const char *name)
{
  return GPOINTER_TO_UINT (g_hash_table_lookup (c->errors, name));
}

static void
on_call_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Calls *c = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) reply = g_dbus_connection_call_with_unix_fd_list_finish (
      G_DBUS_CONNECTION (source), NULL, result, &error);
  char *name;

  c->done++;
  if (reply != NULL)
    {
      c->ok++;
      return;
    }
  name = g_dbus_error_get_remote_error (error);
  if (name == NULL)
    name = g_strdup_printf ("(local: %s)", error->message);
  g_hash_table_insert (c->errors, name, GUINT_TO_POINTER (calls_errors (c, name) + 1));
  g_free (c->last_message);
  g_clear_error (&c->last_error);
  c->last_error = g_error_copy (error);
  g_dbus_error_strip_remote_error (error);
  c->last_message = g_strdup (error->message);
}

/* GetNvMapClients from @bus, allowing interaction or not, with @fds
 * descriptors attached (none: 0). */
static void
call (Calls *c, GDBusConnection *bus, const char *helper, gboolean interactive, int n_fds)
{
  g_autoptr(GUnixFDList) fds = NULL;

  if (n_fds > 0)
    {
      fds = g_unix_fd_list_new ();
      for (int i = 0; i < n_fds; i++)
        {
          int fd = open ("/dev/null", O_RDONLY | O_CLOEXEC);
          g_assert_cmpint (g_unix_fd_list_append (fds, fd, NULL), ==, i);
          close (fd);
        }
    }
  c->sent++;
  g_dbus_connection_call_with_unix_fd_list (bus, helper, JMEM_DBUS_PATH, JMEM_DBUS_INTERFACE,
                                            "GetNvMapClients", NULL, NULL,
                                            interactive ? G_DBUS_CALL_FLAGS_ALLOW_INTERACTIVE_AUTHORIZATION
                                                        : G_DBUS_CALL_FLAGS_NONE,
                                            60000, fds, NULL, on_call_done, c);
}

typedef struct {
  Calls *calls;
  guint  n;
} Until;

static gboolean
done_n (gpointer data)
{
  Until *u = data;
  return u->calls->done >= u->n;
}

static void
wait_done (Calls *c, guint n, guint seconds)
{
  Until u = { c, n };

  iterate_until (done_n, &u, seconds);
  g_assert_cmpuint (c->done, >=, n);
}

typedef struct {
  Fixture *f;
  guint    n;
} UntilChecks;

static gboolean
checks_seen (gpointer data)
{
  UntilChecks *u = data;
  return polkit_checks (u->f) >= u->n;
}

static void
wait_checks (Fixture *f, guint n)
{
  UntilChecks u = { f, n };

  iterate_until (checks_seen, &u, PATIENCE_S);
  g_assert_cmpuint (polkit_checks (f), ==, n);
}

/* Ends every check mock-polkit holds, with a refusal. */
static void
release_checks (Fixture *f)
{
  g_subprocess_send_signal (f->polkit, SIGUSR1);
}

static const char *
helper_name (Fixture *f)
{
  return g_dbus_connection_get_unique_name (f->helper_bus);
}

static guint
open_fds (void)
{
  g_autoptr(GDir) dir = g_dir_open ("/proc/self/fd", 0, NULL);
  guint n = 0;

  g_assert_nonnull (dir);
  while (g_dir_read_name (dir) != NULL)
    n++;
  return n;
}

/* ---- the cases ---------------------------------------------------------- */

/* Nobody owns org.freedesktop.PolicyKit1: refused at once, by its own name,
 * not when the gate's time is up (so long here that no slow machine
 * reaches it). */
static const JmemPolkitGateConfig slow_timer = { .timeout_s = HELD_S };

static void
test_fail_closed_absent (Fixture *f, gconstpointer data)
{
  g_autoptr(GDBusConnection) caller = connect ();
  gint64 start = g_get_monotonic_time ();
  JmemAdvice advice;
  Calls c;

  calls_init (&c);
  call (&c, caller, helper_name (f), FALSE, 0);
  wait_done (&c, 1, PATIENCE_S);
  g_test_message ("no polkit: %s after %.2f s", c.last_message,
                  (g_get_monotonic_time () - start) / 1e6);
  g_assert_cmpuint (calls_errors (&c, POLKIT_UNAVAILABLE), ==, 1);
  g_assert_true (g_str_has_prefix (c.last_message, "polkit is unavailable"));
  g_assert_null (strstr (c.last_message, "did not answer"));
  /* what jmem tells the person: polkit is missing */
  advice = jmem_advice_for_error (c.last_error, JMEM_ADVICE_NONE);
  g_test_message ("advice: %s", advice.action);
  g_assert_nonnull (strstr (advice.action, "install and start polkit"));
  g_assert_null (strstr (advice.action, "did not answer"));
  g_assert_cmpuint (f->served, ==, 0);
  g_assert_cmpint (g_get_monotonic_time () - start, <, PATIENCE_S * G_USEC_PER_SEC);
  calls_clear (&c);
}

/* One call, allowing interaction or not, that mock-polkit in @mode never
 * answers: refused when the gate's @timeout_s is up (not earlier, and within
 * what a loaded machine explains), counted in flight until then, and not
 * served. */
static void
assert_gate_times_out (Fixture *f, const char *mode, gboolean interactive, guint timeout_s)
{
  g_autoptr(GDBusConnection) caller = connect ();
  g_autofree char *expected = g_strdup_printf ("did not answer within %u s", timeout_s);
  g_autofree char *advised = g_strdup_printf ("polkit did not answer within %u s", timeout_s);
  JmemAdvice advice;
  gint64 start;
  double seconds;
  Calls c;

  start_polkit (f, mode);
  calls_init (&c);
  start = g_get_monotonic_time ();
  call (&c, caller, helper_name (f), interactive, 0);
  wait_checks (f, 1);
  /* waiting for polkit counts as in flight: the helper is not idle */
  g_assert_cmpuint (jmem_activity_in_flight (f->activity), ==, 1);
  g_assert_false (jmem_activity_idle (f->activity, g_get_monotonic_time () + (gint64) 3600 * G_USEC_PER_SEC, 0));
  wait_done (&c, 1, timeout_s + PATIENCE_S);
  g_assert_true (jmem_activity_idle (f->activity, g_get_monotonic_time () + G_USEC_PER_SEC,
                                     G_USEC_PER_SEC / 2));
  seconds = (g_get_monotonic_time () - start) / 1e6;
  g_test_message ("%s polkit: %s after %.2f s", mode, c.last_message, seconds);
  g_assert_cmpuint (calls_errors (&c, POLKIT_UNAVAILABLE), ==, 1);
  g_assert_nonnull (strstr (c.last_message, expected));
  /* what jmem tells the person: polkit is there but hung, not missing */
  advice = jmem_advice_for_error (c.last_error, JMEM_ADVICE_CAN_ASK);
  g_test_message ("advice: %s", advice.action);
  g_assert_nonnull (strstr (advice.action, advised));
  g_assert_nonnull (strstr (advice.action, "systemctl status polkit"));
  g_assert_nonnull (strstr (advice.action, "journalctl -u polkit"));
  g_assert_nonnull (strstr (advice.action, "systemctl restart polkit"));
  g_assert_null (strstr (advice.action, "install"));
  g_assert_cmpfloat (seconds, >=, timeout_s - 0.5);
  g_assert_cmpfloat (seconds, <, timeout_s + 20);
  g_assert_cmpuint (polkit_checks (f), ==, 1);
  g_assert_cmpuint (f->served, ==, 0);
  calls_clear (&c);
}

/* polkit that never answers */
static void
test_fail_closed_hang (Fixture *f, gconstpointer data)
{
  assert_gate_times_out (f, "hang", FALSE, TIMEOUT_S);
}

/* A challenge to a caller that did not allow interaction: the D-Bus name
 * that tells it interaction would help. */
static void
test_challenge (Fixture *f, gconstpointer data)
{
  g_autoptr(GDBusConnection) caller = connect ();
  Calls c;

  start_polkit (f, "challenge");
  calls_init (&c);
  call (&c, caller, helper_name (f), FALSE, 0);
  wait_done (&c, 1, PATIENCE_S);
  g_assert_cmpuint (calls_errors (&c, INTERACTIVE_REQUIRED), ==, 1);
  g_assert_nonnull (strstr (c.last_message, "allowing interactive authorization"));
  calls_clear (&c);
}

/* An interactive check polkit never answers (the caller's authentication
 * agent is gone) ends at the gate's interactive time, not its plain one. */
static void
test_interactive_timeout (Fixture *f, gconstpointer data)
{
  assert_gate_times_out (f, "hang-interactive", TRUE, INTERACTIVE_TIMEOUT_S);
}

/* 16 checks of one uid over two connections wait for polkit; the uid's next
 * call, on a third, is refused at once whatever its kind, and served once
 * the others have ended. The held checks end when polkit refuses them. */
static const JmemPolkitGateConfig held_checks = { .interactive_timeout_s = HELD_S };

static void
test_per_uid_limit (Fixture *f, gconstpointer data)
{
  g_autoptr(GDBusConnection) first = connect ();
  g_autoptr(GDBusConnection) second = connect ();
  g_autoptr(GDBusConnection) third = connect ();
  Calls held, extra, later;

  start_polkit (f, "hang-interactive");
  calls_init (&held);
  calls_init (&extra);
  calls_init (&later);
  for (guint i = 0; i < JMEM_POLKIT_MAX_PENDING_PER_UID; i++)
    call (&held, i % 2 ? first : second, helper_name (f), TRUE, 0);
  wait_checks (f, JMEM_POLKIT_MAX_PENDING_PER_UID);
  g_assert_cmpuint (held.done, ==, 0);

  call (&extra, third, helper_name (f), TRUE, 0);
  call (&extra, third, helper_name (f), FALSE, 0);
  wait_done (&extra, 2, PATIENCE_S);
  g_test_message ("the uid's next calls: %s", extra.last_message);
  g_assert_cmpuint (calls_errors (&extra, RATE_LIMITED), ==, 2);
  g_assert_nonnull (strstr (extra.last_message, "16 authorization checks pending"));
  g_assert_cmpuint (polkit_checks (f), ==, JMEM_POLKIT_MAX_PENDING_PER_UID);
  g_assert_cmpuint (held.done, ==, 0);

  release_checks (f);
  wait_done (&held, JMEM_POLKIT_MAX_PENDING_PER_UID, PATIENCE_S);
  g_assert_cmpuint (calls_errors (&held, ACCESS_DENIED), ==, JMEM_POLKIT_MAX_PENDING_PER_UID);

  call (&later, third, helper_name (f), FALSE, 0);
  wait_done (&later, 1, PATIENCE_S);
  g_assert_cmpuint (later.ok, ==, 1);
  g_assert_cmpuint (f->served, ==, 1);
  calls_clear (&held);
  calls_clear (&extra);
  calls_clear (&later);
}

/* With the pool of interactive checks full, the next interactive call is
 * refused at once, and a non-interactive one is still asked about and
 * served. Small limits, so that one uid can fill the pool. */
static const JmemPolkitGateConfig small_pools = {
  .interactive_timeout_s = HELD_S,
  .max_pending_per_uid = 16, .max_pending = 4, .max_pending_interactive = 3,
};

static void
test_interactive_pool (Fixture *f, gconstpointer data)
{
  g_autoptr(GDBusConnection) caller = connect ();
  Calls held, extra, plain;

  start_polkit (f, "hang-interactive");
  calls_init (&held);
  calls_init (&extra);
  calls_init (&plain);
  for (guint i = 0; i < small_pools.max_pending_interactive; i++)
    call (&held, caller, helper_name (f), TRUE, 0);
  wait_checks (f, small_pools.max_pending_interactive);

  call (&extra, caller, helper_name (f), TRUE, 0);
  wait_done (&extra, 1, PATIENCE_S);
  g_test_message ("interactive call beyond the pool: %s", extra.last_message);
  g_assert_cmpuint (calls_errors (&extra, RATE_LIMITED), ==, 1);
  g_assert_nonnull (strstr (extra.last_message, "allow interaction"));

  for (guint i = 0; i < small_pools.max_pending; i++)
    call (&plain, caller, helper_name (f), FALSE, 0);
  wait_done (&plain, small_pools.max_pending, PATIENCE_S);
  g_assert_cmpuint (plain.ok, ==, small_pools.max_pending);
  g_assert_cmpuint (held.done, ==, 0);

  release_checks (f);
  wait_done (&held, small_pools.max_pending_interactive, PATIENCE_S);
  g_assert_cmpuint (calls_errors (&held, ACCESS_DENIED), ==, small_pools.max_pending_interactive);
  calls_clear (&held);
  calls_clear (&extra);
  calls_clear (&plain);
}

/* Non-interactive checks beyond the places at polkit wait in their uid's
 * queue and go to polkit as places free up; one that allows interaction
 * goes at once. polkit holds every check until the test ends them. */
static const JmemPolkitGateConfig all_held = { .timeout_s = HELD_S, .interactive_timeout_s = HELD_S };
#define QUEUED_CALLS 5

/* QUEUED_CALLS non-interactive calls from @caller to a polkit that holds
 * them: as many reach it as it has places. */
static void
call_queued (Fixture *f, GDBusConnection *caller, Calls *c)
{
  start_polkit (f, "hang");
  calls_init (c);
  for (guint i = 0; i < QUEUED_CALLS; i++)
    call (c, caller, helper_name (f), FALSE, 0);
  wait_checks (f, JMEM_POLKIT_MAX_RUNNING);
}

static void
test_places (Fixture *f, gconstpointer data)
{
  g_autoptr(GDBusConnection) caller = connect ();
  Calls plain, ask;

  call_queued (f, caller, &plain);
  calls_init (&ask);
  call (&ask, caller, helper_name (f), TRUE, 0);
  wait_checks (f, JMEM_POLKIT_MAX_RUNNING + 1);
  g_assert_cmpuint (plain.done, ==, 0);

  /* each refusal frees a place for the next in the queue */
  release_checks (f);
  wait_done (&ask, 1, PATIENCE_S);
  wait_done (&plain, JMEM_POLKIT_MAX_RUNNING, PATIENCE_S);
  wait_checks (f, 2 * JMEM_POLKIT_MAX_RUNNING + 1);
  release_checks (f);
  wait_done (&plain, 2 * JMEM_POLKIT_MAX_RUNNING, PATIENCE_S);
  wait_checks (f, QUEUED_CALLS + 1);
  release_checks (f);
  wait_done (&plain, QUEUED_CALLS, PATIENCE_S);
  g_assert_cmpuint (calls_errors (&plain, ACCESS_DENIED), ==, QUEUED_CALLS);
  g_assert_cmpuint (calls_errors (&ask, ACCESS_DENIED), ==, 1);
  g_assert_cmpuint (f->served, ==, 0);
  calls_clear (&plain);
  calls_clear (&ask);
}

/* A gate that stops answers the calls still queued as well as those at
 * polkit: none is left without a reply. */
static void
test_stop_with_queue (Fixture *f, gconstpointer data)
{
  g_autoptr(GDBusConnection) caller = connect ();
  Calls c;

  call_queued (f, caller, &c);
  g_clear_pointer (&f->gate, jmem_polkit_gate_free);
  wait_done (&c, QUEUED_CALLS, PATIENCE_S);
  g_test_message ("calls when the gate stopped: %s", c.last_message);
  g_assert_cmpuint (calls_errors (&c, "dev.jmem.Error.Failed"), ==, QUEUED_CALLS);
  g_assert_nonnull (strstr (c.last_message, "stopping"));
  g_assert_cmpuint (polkit_checks (f), ==, JMEM_POLKIT_MAX_RUNNING);
  calls_clear (&c);
}

/* Calls with descriptors attached (16 each, then one alone), allowing
 * interaction against a polkit that never answers those: each refused at
 * once, before polkit is asked, and the descriptors closed rather than
 * held. */
static void
test_fds_refused (Fixture *f, gconstpointer data)
{
  g_autoptr(GDBusConnection) caller = connect ();
  guint before;
  Calls c, one;

  start_polkit (f, "hang-interactive");
  calls_init (&c);
  /* the connection's own descriptors are open by now */
  call (&c, caller, helper_name (f), FALSE, 0);
  wait_done (&c, 1, PATIENCE_S);
  g_assert_cmpuint (c.ok, ==, 1);
  before = open_fds ();

  for (guint i = 0; i < JMEM_POLKIT_MAX_PENDING_PER_UID; i++)
    call (&c, caller, helper_name (f), TRUE, 16);
  wait_done (&c, 1 + JMEM_POLKIT_MAX_PENDING_PER_UID, PATIENCE_S);
  g_test_message ("a call with 16 descriptors: %s", c.last_message);
  g_assert_cmpuint (calls_errors (&c, INVALID_ARGUMENT), ==, JMEM_POLKIT_MAX_PENDING_PER_UID);
  g_assert_nonnull (strstr (c.last_message, "takes no file descriptors"));
  g_assert_cmpuint (polkit_checks (f), ==, 1);

  /* a single descriptor is one too many as well */
  calls_init (&one);
  call (&one, caller, helper_name (f), TRUE, 1);
  call (&one, caller, helper_name (f), FALSE, 1);
  wait_done (&one, 2, PATIENCE_S);
  g_test_message ("a call with one descriptor: %s", one.last_message);
  g_assert_cmpuint (calls_errors (&one, INVALID_ARGUMENT), ==, 2);
  g_assert_nonnull (strstr (one.last_message, "1 came with this call"));
  g_assert_cmpuint (polkit_checks (f), ==, 1);
  g_assert_cmpuint (f->served, ==, 1);
  calls_clear (&one);
  /* what came in with them is closed once answered */
  for (guint i = 0; i < PATIENCE_S * 100 && open_fds () > before; i++)
    {
      g_main_context_iteration (NULL, FALSE);
      g_usleep (10 * 1000);
    }
  g_assert_cmpuint (open_fds (), <=, before);
  calls_clear (&c);
}

static guint
log_lines_with (const char *a, const char *b)
{
  guint n = 0;

  g_mutex_lock (&log_lock);
  for (guint i = 0; i < log_lines->len; i++)
    if (strstr (g_ptr_array_index (log_lines, i), a) != NULL &&
        (b == NULL || strstr (g_ptr_array_index (log_lines, i), b) != NULL))
      n++;
  g_mutex_unlock (&log_lock);
  return n;
}

static void
call_drop (Calls *c, GDBusConnection *bus, const char *helper, guint level)
{
  c->sent++;
  g_dbus_connection_call_with_unix_fd_list (bus, helper, JMEM_DBUS_PATH, JMEM_DBUS_INTERFACE,
                                            "DropCaches",
                                            g_variant_new_parsed ("(%u, @a{sv} {})", level),
                                            NULL, G_DBUS_CALL_FLAGS_NONE, 60000, NULL, NULL,
                                            on_call_done, c);
}

/* A member looping DropCaches (the review saw 1,320 lines in 5 s): behind
 * the gate, the real handlers log a bounded number of lines, one of which
 * counts the rest, while the drop carried out has its own line. */
#define LOOP_CALLS 120

static void
test_answers_counted (Fixture *f, gconstpointer data)
{
  g_autoptr(GDBusConnection) caller = connect ();
  g_autoptr(JmemHelperMethods) methods = NULL;
  g_autofree char *uid = g_strdup_printf ("by uid %u: ", (guint) getuid ());
  g_autofree char *drop_line = g_strdup_printf ("%s by uid %u: ok", JMEM_ACTION_DROP_CACHES,
                                                (guint) getuid ());
  g_autofree char *counted = NULL;
  g_autofree char *knob = NULL;
  guint more = 0;
  Calls c;

  start_polkit (f, "hang-interactive");  /* grants every non-interactive check */
  g_signal_handlers_disconnect_by_func (f->skeleton, on_get_clients, f);
  methods = jmem_helper_methods_new (f->skeleton);
  g_mutex_lock (&log_lock);
  log_lines = g_ptr_array_new_with_free_func (g_free);
  g_mutex_unlock (&log_lock);

  calls_init (&c);
  /* one the handler refuses first, so that the drop comes inside the
   * interval of an uid already counted */
  call_drop (&c, caller, helper_name (f), 7);
  wait_done (&c, 1, PATIENCE_S);
  /* in tens, below the gate's limit of pending checks */
  for (guint i = 1; i < LOOP_CALLS; i += 10)
    {
      for (guint j = 0; j < 10 && i + j < LOOP_CALLS; j++)
        call_drop (&c, caller, helper_name (f), 1);
      wait_done (&c, MIN (i + 10, LOOP_CALLS), PATIENCE_S);
    }
  g_assert_cmpuint (c.done, ==, LOOP_CALLS);
  g_clear_pointer (&methods, jmem_helper_methods_free);  /* writes what it counted */

  for (guint i = 0; i < log_lines->len; i++)
    g_test_message ("log: %s", (const char *) g_ptr_array_index (log_lines, i));
  /* the refused first, at once; and one line for all the others */
  g_assert_cmpuint (log_lines_with (uid, NULL), <=, 3);
  g_assert_cmpuint (log_lines_with (uid, "failed: level must be"), ==, 1);
  g_assert_cmpuint (log_lines_with ("answered calls ", uid), ==, 1);
  g_mutex_lock (&log_lock);
  for (guint i = 0; i < log_lines->len && counted == NULL; i++)
    if (strstr (g_ptr_array_index (log_lines, i), "answered calls ") != NULL)
      counted = g_strdup (strstr (g_ptr_array_index (log_lines, i), "summary: "));
  g_mutex_unlock (&log_lock);
  g_assert_nonnull (counted);
  g_assert_cmpint (sscanf (counted, "summary: %u more answered", &more), ==, 1);
  if (!fake_knobs)
    {
      /* not root: the first drop could not open the knob, and is counted */
      g_assert_cmpuint (more, ==, LOOP_CALLS - 1);
      g_assert_nonnull (strstr (counted, "(rate-limited 118, failed 1)"));
      g_test_skip ("a drop carried out needs root (a /proc/sys/vm of the test's own)");
    }
  else
    {
      g_assert_cmpuint (more, ==, LOOP_CALLS - 2);
      g_assert_nonnull (strstr (counted, "(rate-limited " G_STRINGIFY (118) ")"));
      g_assert_true (g_file_get_contents (JMEM_DROP_CACHES_PATH, &knob, NULL, NULL));
      g_assert_cmpstr (knob, ==, "1\n");
      g_assert_cmpuint (log_lines_with (drop_line, NULL), ==, 1);
    }
  g_assert_cmpuint (c.ok, ==, fake_knobs ? 1 : 0);

  g_mutex_lock (&log_lock);
  g_clear_pointer (&log_lines, g_ptr_array_unref);
  g_mutex_unlock (&log_lock);
  calls_clear (&c);
}

/* As root: a /proc/sys/vm of this process's own, before any thread starts. */
static void
make_fake_knobs (void)
{
  if (geteuid () != 0 || unshare (CLONE_NEWNS) != 0 ||
      /* the type is ignored for a propagation change; valgrind wants one */
      mount ("none", "/", "none", MS_REC | MS_PRIVATE, NULL) != 0 ||
      mount ("jmem-test-vm", "/proc/sys/vm", "tmpfs", 0, "mode=0755") != 0)
    return;
  fake_knobs = g_file_set_contents (JMEM_DROP_CACHES_PATH, "", 0, NULL) &&
               g_file_set_contents (JMEM_COMPACT_MEMORY_PATH, "", 0, NULL);
}

static void
skip_all (void)
{
  g_test_skip ("needs dbus-daemon and tests/mock-polkit");
}

int
main (int argc, char **argv)
{
  int rc;

  g_autofree char *dbus_daemon = NULL;

  make_fake_knobs ();
  dbus_daemon = g_find_program_in_path ("dbus-daemon");
  g_test_init (&argc, &argv, NULL);
  g_log_set_writer_func (capture_writer, NULL, NULL);
  if (dbus_daemon == NULL || !g_file_test (JMEM_MOCK_POLKIT, G_FILE_TEST_IS_EXECUTABLE))
    {
      g_test_add_func ("/helper/gate/skipped", skip_all);
      return g_test_run ();
    }
  (void) JMEM_ERROR;  /* its D-Bus names, for the errors the gate sends */
  test_bus = g_test_dbus_new (G_TEST_DBUS_NONE);
  g_test_dbus_up (test_bus);
  /* polkit's client library asks the system bus: this one */
  g_setenv ("DBUS_SYSTEM_BUS_ADDRESS", g_test_dbus_get_bus_address (test_bus), TRUE);

#define ADD(path, func, data) \
  g_test_add ("/helper/gate/" path, Fixture, data, fixture_set_up, func, fixture_tear_down)
  ADD ("fail-closed-absent", test_fail_closed_absent, &slow_timer);
  ADD ("fail-closed-hang", test_fail_closed_hang, NULL);
  ADD ("challenge", test_challenge, NULL);
  ADD ("interactive-timeout", test_interactive_timeout, NULL);
  ADD ("per-uid-limit", test_per_uid_limit, &held_checks);
  ADD ("interactive-pool", test_interactive_pool, &small_pools);
  ADD ("fds-refused", test_fds_refused, NULL);
  ADD ("places", test_places, &all_held);
  ADD ("stop-with-queue", test_stop_with_queue, &all_held);
  ADD ("answers-counted", test_answers_counted, NULL);
#undef ADD

  rc = g_test_run ();
  g_test_dbus_down (test_bus);
  g_clear_object (&test_bus);
  return rc;
}
