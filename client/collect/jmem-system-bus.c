/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "jmem-system-bus.h"

#include "jmem-container.h"

#include "jmem-client-error.h"

/* A bus that did not answer is not asked again for a while: a report
 * waits for it once, not at each of its steps (NvMap, services), and a
 * long-running jmem (watch, mcp) tries again later, whether it froze before
 * the connection or after (a call the bus answers itself timed out). */
#define RETRY_AFTER_US (30 * G_USEC_PER_SEC)

G_LOCK_DEFINE_STATIC (frozen);
static gint64 frozen_since;   /* monotonic time of the last timeout; 0: none */
static guint  frozen_timeout_ms;

/* The connection every caller shares while it stays open. jmem's own, not
 * GIO's singleton: a try never joins an earlier one that is giving up. */
G_LOCK_DEFINE_STATIC (shared);
static GDBusConnection *shared;

/* Shared with the connection attempt. When GIO does not heed the
 * cancellation within the grace period, the wait ends without it and the
 * attempt keeps its reference: its answer would come to a context nobody
 * iterates any more, so it never lands in freed memory (a few bytes stay). */
typedef struct {
  gint             refs;
  gboolean         done;
  GDBusConnection *bus;
  GError          *error;
} Attempt;

static void
attempt_unref (Attempt *a)
{
  if (!g_atomic_int_dec_and_test (&a->refs))
    return;
  g_clear_object (&a->bus);
  g_clear_error (&a->error);
  g_free (a);
}

static void
on_bus (GObject      *source,
        GAsyncResult *result,
        gpointer      data)
{
  Attempt *a = data;

  a->bus = g_dbus_connection_new_for_address_finish (result, &a->error);
  a->done = TRUE;
  attempt_unref (a);
}

static gboolean
on_deadline (gpointer data)
{
  g_cancellable_cancel (data);
  return G_SOURCE_REMOVE;
}

static gboolean
on_grace_over (gpointer data)
{
  *(gboolean *) data = TRUE;
  return G_SOURCE_REMOVE;
}

/* sd_booted()'s test: only where systemd runs can it start the bus. */
gboolean
jmem_system_bus_systemd_runs (void)
{
  return g_file_test ("/run/systemd/system", G_FILE_TEST_IS_DIR);
}

gboolean
jmem_system_bus_in_container (void)
{
  g_autofree char *evidence = jmem_container_detect (NULL);

  return evidence != NULL;
}

const char *
jmem_system_bus_missing_action (gboolean systemd_runs,
                                gboolean in_container)
{
  if (systemd_runs)
    return "start the system bus (sudo systemctl start dbus)";
  if (in_container)
    return "run jmem on the host, where the system bus runs";
  return "start the system bus with this system's init (its dbus service), or as root: "
         "dbus-daemon --system";
}

static gboolean
recently_frozen (GError **error)
{
  gboolean frozen;

  G_LOCK (frozen);
  frozen = frozen_since != 0 && g_get_monotonic_time () - frozen_since < RETRY_AFTER_US;
  if (frozen)
    g_set_error (error, JMEM_CLIENT_ERROR, JMEM_CLIENT_ERROR_BUS_TIMED_OUT,
                 "the system bus did not answer within %u s", (frozen_timeout_ms + 999) / 1000);
  G_UNLOCK (frozen);
  return frozen;
}

static void
set_frozen (gboolean frozen, guint timeout_ms)
{
  G_LOCK (frozen);
  frozen_since = frozen ? g_get_monotonic_time () : 0;
  frozen_timeout_ms = timeout_ms;
  G_UNLOCK (frozen);
}

/* The open shared connection, or NULL. */
static GDBusConnection *
shared_get (void)
{
  GDBusConnection *bus = NULL;

  G_LOCK (shared);
  if (shared != NULL && g_dbus_connection_is_closed (shared))
    g_clear_object (&shared);
  if (shared != NULL)
    bus = g_object_ref (shared);
  G_UNLOCK (shared);
  return bus;
}

static void
shared_set (GDBusConnection *bus)
{
  G_LOCK (shared);
  g_set_object (&shared, bus);
  G_UNLOCK (shared);
}

void
jmem_system_bus_mark_frozen (guint timeout_ms)
{
  set_frozen (TRUE, timeout_ms);
}

GDBusConnection *
jmem_system_bus_get (guint    timeout_ms,
                     GError **error)
{
  g_autofree char *address = NULL;
  g_autoptr(GMainContext) context = NULL;
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GSource) deadline = g_timeout_source_new (timeout_ms);
  g_autoptr(GSource) grace = g_timeout_source_new (timeout_ms + 1000);
  gboolean given_up = FALSE, timed_out;
  g_autoptr(GError) local = NULL;
  Attempt *a;
  GDBusConnection *bus = NULL;

  /* an open connection to a bus that stopped answering is not waited on
   * again either */
  if (recently_frozen (error))
    return NULL;
  bus = shared_get ();
  if (bus != NULL)
    return bus;
  address = g_dbus_address_get_for_bus_sync (G_BUS_TYPE_SYSTEM, NULL, &local);
  if (address == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_CONNECTED, "cannot reach the system bus (%s)",
                   local->message);
      return NULL;
    }
  a = g_new0 (Attempt, 1);
  context = g_main_context_new ();

  /* connecting, authenticating and saying Hello happen in a thread, each
   * step heeding the cancellable; the answer comes in this context only */
  g_main_context_push_thread_default (context);
  a->refs = 2;
  g_source_set_callback (deadline, on_deadline, cancellable, NULL);
  g_source_attach (deadline, context);
  g_source_set_callback (grace, on_grace_over, &given_up, NULL);
  g_source_attach (grace, context);
  g_dbus_connection_new_for_address (address,
                                     G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT |
                                     G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION,
                                     NULL, cancellable, on_bus, a);
  while (!a->done && !given_up)
    g_main_context_iteration (context, TRUE);
  g_source_destroy (deadline);
  g_source_destroy (grace);
  g_main_context_pop_thread_default (context);

  timed_out = g_cancellable_is_cancelled (cancellable);
  if (a->done && a->bus != NULL)
    {
      bus = g_steal_pointer (&a->bus);
      /* a bus that goes away is an error for the next call, not the end of jmem */
      g_dbus_connection_set_exit_on_close (bus, FALSE);
      shared_set (bus);
    }
  else if (timed_out)
    g_set_error (error, JMEM_CLIENT_ERROR, JMEM_CLIENT_ERROR_BUS_TIMED_OUT,
                 "the system bus did not answer within %u s", (timeout_ms + 999) / 1000);
  else
    /* without systemd nothing may start a bus: a container, a chroot */
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_CONNECTED,
                 "cannot reach the system bus (%s)%s", a->error->message,
                 jmem_system_bus_systemd_runs () ? ""
                 : jmem_system_bus_in_container () ? ": this container runs none"
                 : ": this system runs none, and no systemd to start one");
  set_frozen (bus == NULL && timed_out, timeout_ms);
  /* given up: the attempt's own reference stays with it */
  attempt_unref (a);
  return bus;
}
