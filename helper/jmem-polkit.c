#include "jmem-polkit.h"

#include "jmem-polkit-compat.h"

#include "jmem-config.h"
#include "jmem-glib-compat.h"
#include "jmem-helper-log.h"
#include "jmem-names.h"

#define CALLER_UID_KEY "jmem-caller-uid"

static const struct {
  const char *method;
  const char *action;
} method_actions[] = {
  { "GetNvMapClients",     JMEM_ACTION_READ_NVMAP },
  { "GetNvMapAllocations", JMEM_ACTION_READ_ALLOCATIONS },
  { "DropCaches",          JMEM_ACTION_DROP_CACHES },
};

JmemGateKind
jmem_polkit_gate_lookup (const char  *interface,
                         const char  *method,
                         const char **action)
{
  *action = NULL;
  if (interface == NULL || method == NULL)
    return JMEM_GATE_DENY;

  if (g_str_equal (interface, JMEM_DBUS_INTERFACE))
    {
      for (gsize i = 0; i < G_N_ELEMENTS (method_actions); i++)
        if (g_str_equal (method, method_actions[i].method))
          {
            *action = method_actions[i].action;
            return JMEM_GATE_POLKIT;
          }
      return JMEM_GATE_DENY;
    }

  /* GDBus answers property reads itself; should one come through here, the
   * read-only properties need no authorization, and there is nothing to Set. */
  if (g_str_equal (interface, "org.freedesktop.DBus.Properties") &&
      (g_str_equal (method, "Get") || g_str_equal (method, "GetAll")))
    return JMEM_GATE_ALLOW;

  return JMEM_GATE_DENY;
}

static gint64
lookup_caller_uid (GDBusMethodInvocation *invocation)
{
  g_autoptr(GVariant) reply = NULL;
  guint32 uid;

  reply = g_dbus_connection_call_sync (g_dbus_method_invocation_get_connection (invocation),
                                       "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                       "org.freedesktop.DBus", "GetConnectionUnixUser",
                                       g_variant_new ("(s)", g_dbus_method_invocation_get_sender (invocation)),
                                       G_VARIANT_TYPE ("(u)"), G_DBUS_CALL_FLAGS_NONE,
                                       5000, NULL, NULL);
  if (reply == NULL)
    return -1;
  g_variant_get (reply, "(u)", &uid);
  return uid;
}

gint64
jmem_polkit_caller_uid (GDBusMethodInvocation *invocation)
{
  gpointer p = g_object_get_data (G_OBJECT (invocation), CALLER_UID_KEY);

  /* Stored as uid + 1 so that NULL means "not looked up". */
  return p != NULL ? (gint64) GPOINTER_TO_SIZE (p) - 1 : -1;
}

static gboolean
cancel_check (gpointer data)
{
  g_cancellable_cancel (G_CANCELLABLE (data));
  return G_SOURCE_REMOVE;
}

/* Asks polkit, bounded: a polkitd that hangs must not hold the call (and a
 * worker thread) forever. The timer runs on the main context, which stays
 * free while this worker thread waits. */
static PolkitAuthorizationResult *
check_bounded (const char  *sender,
               const char  *action,
               gboolean     interactive,
               guint        timeout_s,
               GError     **error)
{
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(PolkitAuthority) authority = NULL;
  g_autoptr(PolkitSubject) subject = polkit_system_bus_name_new (sender);
  PolkitAuthorizationResult *result = NULL;
  GSource *timer = g_timeout_source_new_seconds (timeout_s);

  g_source_set_callback (timer, cancel_check, g_object_ref (cancellable), g_object_unref);
  g_source_attach (timer, NULL);

  authority = polkit_authority_get_sync (cancellable, error);
  if (authority != NULL)
    result = polkit_authority_check_authorization_sync (
        authority, subject, action, NULL,
        interactive ? POLKIT_CHECK_AUTHORIZATION_FLAGS_ALLOW_USER_INTERACTION
                    : POLKIT_CHECK_AUTHORIZATION_FLAGS_NONE,
        cancellable, error);

  g_source_destroy (timer);
  g_source_unref (timer);
  return result;
}

static gboolean
refuse (GDBusMethodInvocation *invocation,
        const char            *action,
        gint64                 uid,
        const char            *result,
        const char            *error_name,
        const char            *message)
{
  jmem_helper_log_action (action, uid, result, message);
  /* The signal's contract: a handler that says no keeps a reference and
   * finishes the call itself. */
  g_dbus_method_invocation_return_dbus_error (g_object_ref (invocation), error_name, message);
  return FALSE;
}

static gboolean
on_authorize_method (GDBusInterfaceSkeleton *skeleton,
                     GDBusMethodInvocation  *invocation,
                     gpointer                user_data)
{
  const JmemPolkitGateConfig *config = user_data;
  const char *interface = g_dbus_method_invocation_get_interface_name (invocation);
  const char *method = g_dbus_method_invocation_get_method_name (invocation);
  const char *sender = g_dbus_method_invocation_get_sender (invocation);
  GDBusMessage *message = g_dbus_method_invocation_get_message (invocation);
  gboolean interactive = (g_dbus_message_get_flags (message) &
                          G_DBUS_MESSAGE_FLAGS_ALLOW_INTERACTIVE_AUTHORIZATION) != 0;
  g_autoptr(PolkitAuthorizationResult) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  const char *action;
  gint64 uid;

  switch (jmem_polkit_gate_lookup (interface, method, &action))
    {
    case JMEM_GATE_ALLOW:
      return TRUE;
    case JMEM_GATE_DENY:
      text = g_strdup_printf ("%s.%s is not something jmem-helper does",
                              interface != NULL ? interface : "(none)",
                              method != NULL ? method : "(none)");
      return refuse (invocation, "(unknown)", lookup_caller_uid (invocation), "denied",
                     "org.freedesktop.DBus.Error.AccessDenied", text);
    case JMEM_GATE_POLKIT:
      break;
    }

  uid = lookup_caller_uid (invocation);
  g_object_set_data (G_OBJECT (invocation), CALLER_UID_KEY, GSIZE_TO_POINTER ((gsize) (uid + 1)));

  /* A peer-to-peer connection has no sender: there is no one to ask about. */
  if (sender == NULL)
    return refuse (invocation, action, uid, "denied", "org.freedesktop.DBus.Error.AccessDenied",
                   "jmem-helper only answers callers on the system bus");

  result = check_bounded (sender, action, interactive,
                          interactive ? config->interactive_timeout_s : config->timeout_s,
                          &error);
  if (result == NULL)
    {
      gboolean timed_out = g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);

      g_dbus_error_strip_remote_error (error);
      text = g_strdup_printf ("%s, so jmem-helper refuses %s: %s", JMEM_POLKIT_UNAVAILABLE, action,
                              timed_out ? "it did not answer in time" : error->message);
      return refuse (invocation, action, uid, "polkit-unavailable",
                     "org.freedesktop.DBus.Error.AccessDenied", text);
    }

  if (polkit_authorization_result_get_is_authorized (result))
    return TRUE;

  /* A challenge is only worth reporting to a caller that did not allow
   * interaction; one that did was not asked because no authentication agent
   * could ask, so for it this is a plain refusal. */
  if (polkit_authorization_result_get_is_challenge (result) && !interactive)
    {
      text = g_strdup_printf ("%s needs authentication; call again allowing interactive "
                              "authorization, or join the %s group", action,
                              JMEM_PRIVILEGED_GROUP);
      return refuse (invocation, action, uid, "challenge",
                     "org.freedesktop.DBus.Error.InteractiveAuthorizationRequired", text);
    }

  text = g_strdup_printf ("not authorized for %s: members of the %s group are "
                          "(usermod -aG %s USER, then log in again)",
                          action, JMEM_PRIVILEGED_GROUP, JMEM_PRIVILEGED_GROUP);
  return refuse (invocation, action, uid, "denied",
                 "org.freedesktop.DBus.Error.AccessDenied", text);
}

void
jmem_polkit_gate_attach (GDBusInterfaceSkeleton     *skeleton,
                         const JmemPolkitGateConfig *config)
{
  JmemPolkitGateConfig *copy = g_memdup2 (config, sizeof *config);

  g_signal_connect_data (skeleton, "g-authorize-method", G_CALLBACK (on_authorize_method),
                         copy, (GClosureNotify) (void (*) (void)) g_free, 0);
}
