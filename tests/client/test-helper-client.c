/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The client's reading of helper failures: each ends in a message and an
 * action a person can follow. Errors are built as GDBus delivers them. */
#include <gio/gio.h>
#include <gio/gunixsocketaddress.h>
#include <glib/gstdio.h>
#include <signal.h>

#include "jmem-advice.h"
#include "jmem-client-error.h"
#include "jmem-error.h"
#include "jmem-helper-client-private.h"
#include "jmem-helper-client.h"
#include "jmem-names.h"
#include "jmem-system-bus.h"
#include "jmem-test.h"

static GError *
remote (const char *name,
        const char *message)
{
  return g_dbus_error_new_for_dbus_error (name, message);
}

/* The advice a command at a terminal prints. */
static const char *
jmem_helper_error_action (const GError *e)
{
  return jmem_advice_for_error (e, JMEM_ADVICE_CAN_ASK).action;
}

static GError *
translate (GError *e)
{
  return jmem_helper_error_translate (e, JMEM_ACTION_READ_NVMAP, 25000);
}

static void
test_not_installed (void)
{
  g_autoptr(GError) e = translate (remote ("org.freedesktop.DBus.Error.ServiceUnknown",
                                           "The name dev.jmem.Helper1 was not provided by any .service files"));

  g_assert_error (e, G_DBUS_ERROR, G_DBUS_ERROR_SERVICE_UNKNOWN);
  g_assert_true (g_str_has_prefix (e->message, "jmem-helper is not installed"));
  g_assert_nonnull (strstr (jmem_helper_error_action (e), "install the jmem package"));
}

static void
test_access_denied_names_action_and_group (void)
{
  g_autoptr(GError) e = translate (remote ("org.freedesktop.DBus.Error.AccessDenied",
                                           "not authorized for dev.jmem.read-nvmap: ..."));
  const char *action = jmem_helper_error_action (e);

  g_assert_error (e, G_DBUS_ERROR, G_DBUS_ERROR_ACCESS_DENIED);
  g_assert_cmpstr (e->message, ==, "not authorized for dev.jmem.read-nvmap");
  g_assert_nonnull (strstr (action, "usermod -aG " JMEM_GROUP));
  /* polkit looks the group up at each check: no new login is needed */
  g_assert_nonnull (strstr (action, "next call"));
  g_assert_nonnull (strstr (action, "no new login"));
}

static void
test_polkit_unavailable (void)
{
  g_autoptr(GError) e = translate (remote ("dev.jmem.Error.PolkitUnavailable",
                                           JMEM_POLKIT_UNAVAILABLE ", so jmem-helper refuses "
                                           "dev.jmem.read-nvmap: it did not answer in time"));

  /* decided by the error's name: the message is only shown */
  g_assert_error (e, JMEM_ERROR, JMEM_ERROR_POLKIT_UNAVAILABLE);
  g_assert_true (g_str_has_prefix (e->message, JMEM_POLKIT_UNAVAILABLE));
  g_assert_nonnull (strstr (e->message, "did not answer in time"));
  g_assert_nonnull (strstr (jmem_helper_error_action (e), "polkit"));
  g_assert_null (strstr (jmem_helper_error_action (e), "usermod"));
}

static void
test_interactive_required (void)
{
  g_autoptr(GError) e = translate (remote ("org.freedesktop.DBus.Error.InteractiveAuthorizationRequired",
                                           "dev.jmem.read-nvmap needs authentication"));

  g_assert_error (e, G_DBUS_ERROR, G_DBUS_ERROR_AUTH_FAILED);
  g_assert_nonnull (strstr (e->message, "dev.jmem.read-nvmap needs authentication"));
  g_assert_nonnull (strstr (jmem_helper_error_action (e), "terminal"));
  g_assert_nonnull (strstr (jmem_helper_error_action (e), "usermod -aG " JMEM_GROUP));
}

static void
test_no_nvmap (void)
{
  g_autoptr(GError) e = NULL;

  (void) JMEM_ERROR;
  e = translate (remote ("dev.jmem.Error.NotAvailable", "NvMap is not present on this kernel: ..."));
  g_assert_error (e, JMEM_ERROR, JMEM_ERROR_NOT_AVAILABLE);
  g_assert_true (g_str_has_prefix (e->message, "NvMap is not present on this kernel"));
  /* the message explains; there is nothing to do about it */
  g_assert_null (jmem_helper_error_action (e));
}

static void
test_rate_limited_keeps_seconds (void)
{
  g_autoptr(GError) e = NULL;

  (void) JMEM_ERROR;
  e = jmem_helper_error_translate (remote ("dev.jmem.Error.RateLimited",
                                           "caches were dropped less than 10 s ago: try again in 7 s"),
                                   JMEM_ACTION_DROP_CACHES, 25000);
  g_assert_error (e, JMEM_ERROR, JMEM_ERROR_RATE_LIMITED);
  g_assert_nonnull (strstr (e->message, "try again in 7 s"));
  /* the message names the wait; no second line says it again */
  g_assert_null (jmem_helper_error_action (e));
}

static void
test_timeouts (void)
{
  g_autoptr(GError) local = translate (g_error_new_literal (G_IO_ERROR, G_IO_ERROR_TIMED_OUT,
                                                            "Timeout was reached"));
  g_autoptr(GError) noreply = translate (remote ("org.freedesktop.DBus.Error.NoReply",
                                                 "Message recipient disconnected from message bus without replying"));

  g_assert_error (local, G_DBUS_ERROR, G_DBUS_ERROR_NO_REPLY);
  g_assert_cmpstr (local->message, ==, "jmem-helper did not answer within 25 s");
  g_assert_error (noreply, G_DBUS_ERROR, G_DBUS_ERROR_NO_REPLY);
  g_assert_true (g_str_has_prefix (noreply->message, "jmem-helper did not answer"));
  g_assert_nonnull (jmem_helper_error_action (local));
}

static void
test_spawn_failure (void)
{
  g_autoptr(GError) e = translate (remote ("org.freedesktop.DBus.Error.Spawn.ChildExited",
                                           "Process exited with status 1"));

  g_assert_error (e, G_DBUS_ERROR, G_DBUS_ERROR_SPAWN_FAILED);
  g_assert_true (g_str_has_prefix (e->message, "jmem-helper could not be started"));
  g_assert_nonnull (strstr (jmem_helper_error_action (e), "journalctl"));
}

/* No system bus at all: the call fails at once, saying so. */
static void
test_bus_unreachable (void)
{
  g_autoptr(GError) error = NULL;
  JmemHelperCallOptions options = { FALSE, 2000 };
  gint64 stats = 0;

  g_setenv ("DBUS_SYSTEM_BUS_ADDRESS", "unix:path=/nonexistent/jmem-test-bus", TRUE);
  g_assert_null (jmem_helper_get_nvmap_clients (&options, &stats, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_CONNECTED);
  g_assert_cmpint (stats, ==, -1);
  g_assert_true (g_str_has_prefix (error->message, "cannot reach the system bus"));
  g_assert_cmpstr (jmem_helper_error_action (error), ==,
                   jmem_system_bus_missing_action (jmem_system_bus_systemd_runs (),
                                                   jmem_system_bus_in_container ()));
  /* only where systemd runs does it start a bus; elsewhere the message says why there is none */
  g_assert_true (jmem_system_bus_systemd_runs () ==
                 g_file_test ("/run/systemd/system", G_FILE_TEST_IS_DIR));
  g_assert_true ((strstr (error->message, "runs none") == NULL) == jmem_system_bus_systemd_runs ());
  g_assert_true ((strstr (error->message, "this container") != NULL) ==
                 (!jmem_system_bus_systemd_runs () && jmem_system_bus_in_container ()));
  g_clear_error (&error);

  g_assert_false (jmem_helper_drop_caches (&options, 1, FALSE, NULL, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_CONNECTED);
}

/* A bus that accepts connections and never answers (a frozen bus daemon):
 * the connection gives up at its deadline, and again at the next try. */
static void
test_bus_frozen (void)
{
  g_autofree char *dir = jmem_test_make_tmp ("jmem-frozen-bus-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "bus", NULL);
  g_autofree char *address = g_strdup_printf ("unix:path=%s", path);
  g_autoptr(GSocket) listener = g_socket_new (G_SOCKET_FAMILY_UNIX, G_SOCKET_TYPE_STREAM,
                                              G_SOCKET_PROTOCOL_DEFAULT, NULL);
  g_autoptr(GSocketAddress) where = g_unix_socket_address_new (path);
  g_autoptr(GError) error = NULL;

  g_assert_nonnull (listener);
  g_assert_true (g_socket_bind (listener, where, FALSE, NULL));
  g_assert_true (g_socket_listen (listener, NULL));
  g_setenv ("DBUS_SYSTEM_BUS_ADDRESS", address, TRUE);

  for (guint attempt = 0; attempt < 2; attempt++)
    {
      gint64 start = g_get_monotonic_time ();
      g_autoptr(GDBusConnection) bus = jmem_system_bus_get (300, &error);
      double seconds = (g_get_monotonic_time () - start) / 1e6;

      g_assert_null (bus);
      g_assert_error (error, JMEM_CLIENT_ERROR, JMEM_CLIENT_ERROR_BUS_TIMED_OUT);
      g_assert_cmpstr (error->message, ==, "the system bus did not answer within 1 s");
      if (attempt == 0)
        g_assert_cmpfloat (seconds, >=, 0.29);
      /* ended by the deadline, not by the frozen bus: a loaded machine
       * may take a while longer to get there */
      g_assert_cmpfloat (seconds, <, 10);
      g_clear_error (&error);
    }
  g_unlink (path);
  g_rmdir (dir);
}

/* The body of test_bus_frozen_after_connect, in a process of its own: the
 * bus's frozen state is the process's. */
static void
bus_frozen_after_connect (void)
{
  g_autofree char *dir = g_dir_make_tmp ("jmem-frozen-bus-XXXXXX", NULL);
  g_autofree char *address = NULL;
  g_autoptr(GSubprocess) daemon = jmem_test_bus_start (dir, &address);
  g_autoptr(GDBusConnection) bus = NULL;
  g_autoptr(GError) error = NULL;
  JmemHelperCallOptions options = { FALSE, 2000 };
  double seconds[2];

  g_assert_nonnull (daemon);
  g_setenv ("DBUS_SYSTEM_BUS_ADDRESS", address, TRUE);
  bus = jmem_system_bus_get (JMEM_SYSTEM_BUS_TIMEOUT_MS, &error);
  g_assert_no_error (error);

  jmem_test_stop_process (daemon);
  for (guint i = 0; i < 2; i++)
    {
      gint64 start = g_get_monotonic_time ();
      gint64 stats = 0;

      g_assert_null (jmem_helper_get_nvmap_clients (&options, &stats, &error));
      seconds[i] = (g_get_monotonic_time () - start) / 1e6;
      g_assert_error (error, JMEM_CLIENT_ERROR, JMEM_CLIENT_ERROR_BUS_TIMED_OUT);
      g_assert_cmpstr (error->message, ==, "the system bus did not answer within 10 s");
      g_clear_error (&error);
    }
  g_subprocess_send_signal (daemon, SIGCONT);
  g_subprocess_send_signal (daemon, SIGTERM);
  g_subprocess_wait (daemon, NULL, NULL);
  g_rmdir (dir);

  /* the first call waited for the bus's deadline; the next did not wait
   * again (a loaded machine may take a while to get there) */
  g_assert_cmpfloat (seconds[0], >=, 9.9);
  g_assert_cmpfloat (seconds[1], <, 5);
}

/* The bus froze after jmem connected (its daemon stopped): a call waits for
 * it once, and the next within 30 s fails at once, as the man page says. */
static void
test_bus_frozen_after_connect (void)
{
  g_autofree char *dbus_daemon = g_find_program_in_path ("dbus-daemon");

  if (g_test_subprocess ())
    {
      bus_frozen_after_connect ();
      return;
    }
  if (dbus_daemon == NULL)
    {
      g_test_skip ("dbus-daemon is not installed");
      return;
    }
  /* the subprocess is this binary run again, which a cross build can only
   * be behind its emulator (no binfmt handler may be registered) */
  if (g_getenv ("MESON_EXE_WRAPPER") != NULL && g_getenv ("MESON_EXE_WRAPPER")[0] != '\0')
    {
      g_test_skip ("a test binary of a cross build cannot run itself again here");
      return;
    }
  g_test_trap_subprocess (NULL, 120 * G_USEC_PER_SEC, G_TEST_SUBPROCESS_INHERIT_STDERR);
  g_test_trap_assert_passed ();
}

/* systemctl only where systemd runs; a container goes to the host; a host
 * without systemd starts the bus by its own means, never "on the host" */
static void
test_no_bus_action (void)
{
  for (guint container = 0; container < 2; container++)
    g_assert_cmpstr (jmem_system_bus_missing_action (TRUE, container), ==,
                     "start the system bus (sudo systemctl start dbus)");
  g_assert_null (strstr (jmem_system_bus_missing_action (FALSE, TRUE), "systemctl"));
  g_assert_nonnull (strstr (jmem_system_bus_missing_action (FALSE, TRUE), "on the host"));
  g_assert_null (strstr (jmem_system_bus_missing_action (FALSE, FALSE), "on the host"));
  g_assert_nonnull (strstr (jmem_system_bus_missing_action (FALSE, FALSE), "dbus-daemon --system"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  /* as the client does before its first call: the helper's error names map
   * to JMEM_ERROR codes only once the domain is registered */
  (void) JMEM_ERROR;
  g_test_add_func ("/helper-client/not-installed", test_not_installed);
  g_test_add_func ("/helper-client/access-denied", test_access_denied_names_action_and_group);
  g_test_add_func ("/helper-client/polkit-unavailable", test_polkit_unavailable);
  g_test_add_func ("/helper-client/interactive-required", test_interactive_required);
  g_test_add_func ("/helper-client/no-nvmap", test_no_nvmap);
  g_test_add_func ("/helper-client/rate-limited", test_rate_limited_keeps_seconds);
  g_test_add_func ("/helper-client/timeouts", test_timeouts);
  g_test_add_func ("/helper-client/spawn-failure", test_spawn_failure);
  g_test_add_func ("/helper-client/bus-unreachable", test_bus_unreachable);
  g_test_add_func ("/helper-client/no-bus-action", test_no_bus_action);
  g_test_add_func ("/helper-client/bus-frozen", test_bus_frozen);
  g_test_add_func ("/helper-client/bus-frozen-after-connect", test_bus_frozen_after_connect);
  return g_test_run ();
}
