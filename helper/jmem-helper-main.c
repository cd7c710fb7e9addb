/* SPDX-License-Identifier: GPL-2.0-or-later */
/* jmem-helper: the D-Bus-activated root helper behind dev.jmem.Helper1.
 * Started by the bus on the first call; exits after a quiet spell. */
#include <gio/gio.h>
#include <glib-unix.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>

#include "jmem-activity.h"
#include "jmem-caps.h"
#include "jmem-config.h"
#include "jmem-error.h"
#include "jmem-helper-log.h"
#include "jmem-helper-methods.h"
#include "jmem-helper1-generated.h"
#include "jmem-names.h"
#include "jmem-polkit.h"

#define DEFAULT_IDLE_TIMEOUT_S 30

typedef struct {
  GMainLoop         *loop;
  GDBusConnection   *bus;
  JmemHelperMethods *methods;
  JmemActivity      *activity;
  JmemPolkitGate    *gate;
  guint              idle_timeout_s;
  int                exit_code;
} Helper;

static const char *const features[] = {
  "nvmap-clients", "nvmap-allocations", "nvmap-allocations-snapshot", "nvmap-maps-snapshot",
  "drop-caches", "compact-memory", NULL,
};

/* Idle means no call of ours is unanswered, waiting for polkit or in a
 * handler, and none arrived for a while (jmem-activity.h). */
static gboolean
is_idle (Helper *h)
{
  return jmem_activity_idle (h->activity, g_get_monotonic_time (),
                             (gint64) h->idle_timeout_s * G_USEC_PER_SEC);
}

static gboolean
name_call (GDBusConnection *bus,
           const char      *method,
           GVariant        *params,
           guint32         *answer,
           GError         **error)
{
  g_autoptr(GVariant) reply = NULL;

  reply = g_dbus_connection_call_sync (bus, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                       "org.freedesktop.DBus", method, params,
                                       G_VARIANT_TYPE ("(u)"), G_DBUS_CALL_FLAGS_NONE,
                                       -1, NULL, error);
  if (reply == NULL)
    return FALSE;
  g_variant_get (reply, "(u)", answer);
  return TRUE;
}

static gboolean
on_idle_check (gpointer user_data)
{
  Helper *h = user_data;
  g_autoptr(GError) error = NULL;
  guint32 answer;

  /* An instance that exits inside the DropCaches interval, or while a
   * caller holds a snapshot, would let the next one forget the limit. */
  if (!is_idle (h) || jmem_helper_methods_keep_running (h->methods))
    return G_SOURCE_CONTINUE;

  /* Give the name back first, synchronously: calls the bus routed to us
   * before that arrive ahead of its reply and are still answered below;
   * later ones activate a new instance. */
  if (!name_call (h->bus, "ReleaseName", g_variant_new ("(s)", JMEM_DBUS_NAME), &answer, &error))
    g_warning ("Cannot release %s: %s", JMEM_DBUS_NAME, error->message);

  for (;;)
    {
      while (g_main_context_iteration (NULL, FALSE))
        ;
      if (jmem_activity_in_flight (h->activity) == 0)
        break;
      g_usleep (10 * 1000);
    }
  g_dbus_connection_flush_sync (h->bus, NULL, NULL);
  g_message ("Idle for %u s: exiting", h->idle_timeout_s);
  g_main_loop_quit (h->loop);
  return G_SOURCE_REMOVE;
}

static gboolean
on_signal (gpointer user_data)
{
  Helper *h = user_data;

  g_main_loop_quit (h->loop);
  return G_SOURCE_CONTINUE;
}

static void
on_closed (GDBusConnection *bus,
           gboolean         remote_peer_vanished,
           GError          *error,
           gpointer         user_data)
{
  Helper *h = user_data;

  g_message ("The system bus connection closed: exiting");
  g_main_loop_quit (h->loop);
}

/* No-new-privs, not dumpable, and no capability (unless the unit grants
 * CAP_DAC_READ_SEARCH). Runs before any thread exists: capability sets are
 * per thread. */
static gboolean
harden (GError **error)
{
  gboolean changed = FALSE;
  guint64 kept = 0;

  if (prctl (PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
    {
      g_set_error (error, JMEM_ERROR, JMEM_ERROR_FAILED, "PR_SET_NO_NEW_PRIVS: %s", g_strerror (errno));
      return FALSE;
    }
  if (prctl (PR_SET_DUMPABLE, 0, 0, 0, 0) != 0)
    {
      g_set_error (error, JMEM_ERROR, JMEM_ERROR_FAILED, "PR_SET_DUMPABLE: %s", g_strerror (errno));
      return FALSE;
    }
  if (!jmem_caps_restrict (&changed, &kept, error))
    return FALSE;
  if (changed)
    g_message ("Dropped every capability");
  else if (kept != 0)
    g_message ("Keeping CAP_DAC_READ_SEARCH: the service manager's bounding set grants it");
  return TRUE;
}

/* Activated by a bus other than the default system bus (a private one in
 * tests, or a bus without systemd), talk to the bus that started us, and
 * let polkit's client library find polkitd on it too. */
static void
follow_starter_bus (void)
{
  const char *type = g_getenv ("DBUS_STARTER_BUS_TYPE");
  const char *address = g_getenv ("DBUS_STARTER_ADDRESS");

  if (g_strcmp0 (type, "system") == 0 && address != NULL && *address != '\0')
    g_setenv ("DBUS_SYSTEM_BUS_ADDRESS", address, TRUE);
}

int
main (int    argc,
      char **argv)
{
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JmemHelper1) skeleton = NULL;
  g_autoptr(JmemHelperMethods) methods = NULL;
  g_autoptr(JmemActivity) activity = jmem_activity_new ();
  gboolean version = FALSE, no_idle_exit = FALSE;
  int idle_timeout = DEFAULT_IDLE_TIMEOUT_S, polkit_timeout = 10, interactive_timeout = 120;
  JmemPolkitGateConfig gate = { 0 };
  Helper h = { 0 };
  guint32 answer = 0;
  const GOptionEntry entries[] = {
    { "version", 0, 0, G_OPTION_ARG_NONE, &version, "Print the version and exit", NULL },
    { "no-idle-exit", 0, 0, G_OPTION_ARG_NONE, &no_idle_exit, "Keep running while idle", NULL },
    { "idle-timeout", 0, 0, G_OPTION_ARG_INT, &idle_timeout,
      "Exit after SECONDS with no call pending or received (default 30)", "SECONDS" },
    { "polkit-timeout", 0, 0, G_OPTION_ARG_INT, &polkit_timeout,
      "Refuse a call when polkit has not answered within SECONDS (default 10)", "SECONDS" },
    { "interactive-timeout", 0, 0, G_OPTION_ARG_INT, &interactive_timeout,
      "The same for a call that allows interactive authorization (default 120)", "SECONDS" },
    { NULL }
  };

  context = g_option_context_new ("- answer dev.jmem.Helper1 on the system bus");
  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      g_printerr ("jmem-helper: %s\n", error->message);
      return 64;
    }
  if (version)
    {
      g_print ("jmem-helper %s\n", JMEM_VERSION);
      return 0;
    }
  if (idle_timeout < 1 || polkit_timeout < 1 || interactive_timeout < 1)
    {
      g_printerr ("jmem-helper: --idle-timeout, --polkit-timeout and --interactive-timeout take "
                  "a number of seconds >= 1\n");
      return 64;
    }

  jmem_helper_log_init ();
  if (!harden (&error))
    {
      g_critical ("Refusing to run: %s", error->message);
      return 1;
    }

  follow_starter_bus ();
  (void) JMEM_ERROR;  /* registers the dev.jmem.Error names */

  h.bus = g_bus_get_sync (G_BUS_TYPE_SYSTEM, NULL, &error);
  if (h.bus == NULL)
    {
      g_critical ("Cannot connect to the system bus: %s", error->message);
      return 1;
    }
  g_dbus_connection_set_exit_on_close (h.bus, FALSE);
  h.loop = g_main_loop_new (NULL, FALSE);
  h.idle_timeout_s = (guint) idle_timeout;

  skeleton = jmem_helper1_skeleton_new ();
  jmem_helper1_set_version (skeleton, JMEM_VERSION);
  jmem_helper1_set_features (skeleton, features);
  gate.timeout_s = (guint) polkit_timeout;
  gate.interactive_timeout_s = (guint) interactive_timeout;
  methods = jmem_helper_methods_new (skeleton);
  h.methods = methods;

  h.activity = activity;
  h.gate = jmem_polkit_gate_export (G_DBUS_INTERFACE_SKELETON (skeleton), h.bus, JMEM_DBUS_PATH,
                                    &gate, activity, &error);
  if (h.gate == NULL)
    {
      g_critical ("Cannot export %s: %s", JMEM_DBUS_PATH, error->message);
      h.exit_code = 1;
      goto out;
    }

  /* Own the name only once the object answers: activation queues calls on it. */
  if (!name_call (h.bus, "RequestName",
                  g_variant_new ("(su)", JMEM_DBUS_NAME, 0x4 /* DO_NOT_QUEUE */), &answer, &error))
    {
      g_dbus_error_strip_remote_error (error);
      g_critical ("Cannot own %s: %s", JMEM_DBUS_NAME, error->message);
      h.exit_code = 1;
      goto unexport;
    }
  if (answer != 1 /* PRIMARY_OWNER */)
    {
      g_critical ("Cannot own %s: another jmem-helper runs", JMEM_DBUS_NAME);
      h.exit_code = 1;
      goto unexport;
    }

  g_signal_connect (h.bus, "closed", G_CALLBACK (on_closed), &h);
  g_unix_signal_add (SIGTERM, on_signal, &h);
  g_unix_signal_add (SIGINT, on_signal, &h);
  if (!no_idle_exit)
    g_timeout_add_seconds (1, on_idle_check, &h);

  g_message ("jmem-helper %s ready on %s", JMEM_VERSION, JMEM_DBUS_NAME);
  g_main_loop_run (h.loop);

unexport:
  g_clear_pointer (&h.gate, jmem_polkit_gate_free);
out:
  g_clear_pointer (&h.loop, g_main_loop_unref);
  g_clear_object (&h.bus);
  return h.exit_code;
}
