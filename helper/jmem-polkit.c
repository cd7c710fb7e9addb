/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "jmem-polkit.h"

#include "jmem-polkit-compat.h"

#include "jmem-config.h"
#include "jmem-error.h"
#include "jmem-glib-compat.h"
#include "jmem-names.h"
#include "jmem-refusal-log.h"

#include <gio/gunixfdlist.h>

#define CALLER_UID_KEY "jmem-caller-uid"

static const struct {
  const char *method;
  const char *action;
} method_actions[] = {
  { "GetNvMapClients",             JMEM_ACTION_READ_NVMAP },
  { "GetNvMapAllocations",         JMEM_ACTION_READ_ALLOCATIONS },
  { "GetNvMapAllocationsSnapshot", JMEM_ACTION_READ_ALLOCATIONS },
  { "GetNvMapMapsSnapshot",        JMEM_ACTION_READ_NVMAP },
  { "DropCaches",                  JMEM_ACTION_DROP_CACHES },
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


/* ---- the gate -------------------------------------------------------------- */

/* Where an account stands in line for a place at polkit. */
typedef enum {
  LINE_NONE,   /* nothing of it waits for a place */
  LINE_FRESH,  /* it had no check at polkit when this one came: served first */
  LINE_TURNS,  /* it has had its turn and waits for the next round */
} Line;

/* One uid's admitted checks. */
typedef struct {
  gint64 uid;
  guint  pending;  /* admitted, both kinds, until answered */
  guint  running;  /* of them, non-interactive ones holding a place at polkit */
  GQueue queued;   /* Check *: non-interactive ones waiting for a place */
  Line   line;
} Account;

struct _JmemPolkitGate {
  JmemPolkitGateConfig    config;
  GDBusInterfaceSkeleton *skeleton;
  GDBusConnection        *bus;
  GDBusInterfaceVTable    vtable;
  guint                   registration_id;
  JmemActivity           *activity;

  /* Main context only. */
  GHashTable *checks;      /* Check *: undecided calls */
  GHashTable *per_sender;  /* unique name → undecided calls */
  GHashTable *accounts;    /* uid → Account *: those with admitted calls */
  guint       n_polkit[2]; /* admitted calls, all uids: [interactive] */
  guint       n_running;   /* non-interactive checks holding a place at polkit */
  GQueue      fresh;       /* Account *, in LINE_FRESH */
  GQueue      turns;       /* Account *, in LINE_TURNS */
  JmemRefusalLog *refusals;
  guint       refusal_flush_id;
  PolkitAuthority *authority;  /* once polkit_authority_get_async gave one */
  gboolean    getting_authority;
  GQueue      waiting;     /* Check *: for the authority */
  GCancellable *cancellable;  /* the gate's own calls */
  gboolean    stopping;
};

typedef struct {
  JmemPolkitGate        *gate;
  GDBusMethodInvocation *invocation;  /* owned until answered or dispatched */
  char                  *sender;
  const char            *action;
  gboolean               interactive;
  guint                  timeout_s;
  gint64                 uid;
  Account               *account;  /* once admitted */
  gboolean               queued;   /* in account->queued */
  gboolean               running;  /* holds a place at polkit */
  GCancellable          *cancellable;
  guint                  timer_id;
  gboolean               waiting;  /* in gate->waiting */
} Check;

static guint
count_get (GHashTable *table,
           gconstpointer key)
{
  return GPOINTER_TO_UINT (g_hash_table_lookup (table, key));
}

/* The per-sender table owns its keys: insert a copy the first time. */
static void
sender_add (JmemPolkitGate *gate,
            const char     *sender,
            int             delta)
{
  guint n = count_get (gate->per_sender, sender) + (guint) delta;

  if (n == 0)
    g_hash_table_remove (gate->per_sender, sender);
  else
    g_hash_table_replace (gate->per_sender, g_strdup (sender), GUINT_TO_POINTER (n));
}

static GQueue *
line_queue (JmemPolkitGate *gate,
            Line            line)
{
  return line == LINE_FRESH ? &gate->fresh : &gate->turns;
}

static void
account_leave_line (JmemPolkitGate *gate,
                    Account        *account)
{
  if (account->line != LINE_NONE)
    g_queue_remove (line_queue (gate, account->line), account);
  account->line = LINE_NONE;
}

static Account *
account_get (JmemPolkitGate *gate,
             gint64          uid)
{
  gpointer key = GSIZE_TO_POINTER ((gsize) uid);
  Account *account = g_hash_table_lookup (gate->accounts, key);

  if (account == NULL)
    {
      account = g_new0 (Account, 1);
      account->uid = uid;
      g_queue_init (&account->queued);
      g_hash_table_insert (gate->accounts, key, account);
    }
  return account;
}

/* Forgets @account once nothing of it is admitted. */
static void
account_release (JmemPolkitGate *gate,
                 Account        *account)
{
  if (account->pending == 0)
    {
      account_leave_line (gate, account);
      g_hash_table_remove (gate->accounts, GSIZE_TO_POINTER ((gsize) account->uid));
    }
}

static void check_with_authority (Check *check);

/* Gives the free places at polkit to the accounts in line: first those that
 * had none there when their call came, then the others in turn, one check
 * per turn. An account with many calls waiting thus delays another's by a
 * turn, not by its whole backlog, and one that calls now and then goes
 * ahead of a flood. */
static void
serve_turns (JmemPolkitGate *gate)
{
  while (!gate->stopping && gate->n_running < gate->config.max_running)
    {
      Account *account = g_queue_pop_head (&gate->fresh);
      Check *check;

      if (account == NULL)
        account = g_queue_pop_head (&gate->turns);
      if (account == NULL)
        return;
      account->line = LINE_NONE;
      check = g_queue_pop_head (&account->queued);
      if (check == NULL)
        continue;  /* never: an account leaves its line when its queue empties */
      check->queued = FALSE;
      check->running = TRUE;
      account->running++;
      gate->n_running++;
      if (!g_queue_is_empty (&account->queued))
        {
          account->line = LINE_TURNS;
          g_queue_push_tail (&gate->turns, account);
        }
      check_with_authority (check);
    }
}

/* Puts an admitted non-interactive check in its account's queue. */
static void
check_queue (Check *check)
{
  JmemPolkitGate *gate = check->gate;
  Account *account = check->account;

  g_queue_push_tail (&account->queued, check);
  check->queued = TRUE;
  if (account->line == LINE_NONE)
    {
      account->line = account->running == 0 ? LINE_FRESH : LINE_TURNS;
      g_queue_push_tail (line_queue (gate, account->line), account);
    }
  serve_turns (gate);
}

static void
check_free (Check *check)
{
  JmemPolkitGate *gate = check->gate;
  Account *account = check->account;

  if (check->timer_id != 0)
    g_source_remove (check->timer_id);
  if (account != NULL)
    {
      if (check->queued)
        {
          g_queue_remove (&account->queued, check);
          if (g_queue_is_empty (&account->queued))
            account_leave_line (gate, account);
        }
      if (check->running)
        {
          account->running--;
          gate->n_running--;
        }
      account->pending--;
      gate->n_polkit[check->interactive]--;
      account_release (gate, account);
    }
  sender_add (gate, check->sender, -1);
  g_hash_table_remove (gate->checks, check);
  g_clear_object (&check->invocation);
  g_object_unref (check->cancellable);
  g_free (check->sender);
  g_free (check);
  serve_turns (gate);
}

/* GDBus has no GDBusError for it (GLib 2.66 to 2.80), and the name is all
 * a caller needs. */
#define INTERACTIVE_AUTHORIZATION_REQUIRED "org.freedesktop.DBus.Error.InteractiveAuthorizationRequired"

static gboolean
on_refusal_flush (gpointer user_data)
{
  JmemPolkitGate *gate = user_data;
  gint64 now = g_get_monotonic_time ();
  gint64 next = jmem_refusal_log_flush (gate->refusals, now);

  gate->refusal_flush_id = next == 0 ? 0
    : g_timeout_add ((guint) MAX ((next - now) / 1000, 1), on_refusal_flush, gate);
  return G_SOURCE_REMOVE;
}

/* Logs a refusal: at once when it is the uid's first for a while, else
 * counted into one line per interval (jmem-refusal-log.h). */
static void
log_refusal (JmemPolkitGate *gate,
             const char     *action,
             gint64          uid,
             const char     *result,
             const char     *detail)
{
  jmem_refusal_log_add (gate->refusals, g_get_monotonic_time (), action, uid, result, detail);
  if (gate->refusal_flush_id == 0)
    gate->refusal_flush_id = g_timeout_add_seconds (JMEM_REFUSAL_LOG_INTERVAL_S,
                                                    on_refusal_flush, gate);
}

/* Logs and answers a call the gate does not let through; takes @invocation's
 * reference and @error. */
static void
refuse_invocation (JmemPolkitGate        *gate,
                   GDBusMethodInvocation *invocation,
                   const char            *action,
                   gint64                 uid,
                   const char            *result,
                   GError                *error)
{
  log_refusal (gate, action, uid, result, error->message);
  g_dbus_method_invocation_take_error (invocation, error);
}

static void
check_refuse (Check      *check,
              const char *result,
              GError     *error)
{
  refuse_invocation (check->gate, g_steal_pointer (&check->invocation), check->action, check->uid,
                     result, error);
  check_free (check);
}

static void
run_handler (GTask        *task,
             gpointer      source_object,
             gpointer      task_data,
             GCancellable *cancellable)
{
  GDBusInterfaceSkeleton *skeleton = source_object;
  GDBusMethodInvocation *invocation = task_data;

  g_dbus_interface_skeleton_get_vtable (skeleton)->method_call (
      g_dbus_method_invocation_get_connection (invocation),
      g_dbus_method_invocation_get_sender (invocation),
      g_dbus_method_invocation_get_object_path (invocation),
      g_dbus_method_invocation_get_interface_name (invocation),
      g_dbus_method_invocation_get_method_name (invocation),
      g_dbus_method_invocation_get_parameters (invocation),
      g_object_ref (invocation), skeleton);
}

/* Hands an authorized call to the skeleton's handle-* handlers. They read
 * files and may sync(): a worker thread does that, so the main context stays
 * free for the checks of other callers. */
static void
dispatch (JmemPolkitGate        *gate,
          GDBusMethodInvocation *invocation)
{
  g_autoptr(GTask) task = g_task_new (gate->skeleton, NULL, NULL, NULL);

  g_task_set_task_data (task, invocation, g_object_unref);
  g_task_run_in_thread (task, run_handler);
}

/* Answers a call whose check was cancelled: the gate stops, or its time is up. */
static void
check_refuse_cancelled (Check *check)
{
  if (check->gate->stopping)
    check_refuse (check, "failed", g_error_new (JMEM_ERROR, JMEM_ERROR_FAILED,
                                                "jmem-helper is stopping: call again"));
  else
    check_refuse (check, "polkit-unavailable",
                  g_error_new (JMEM_ERROR, JMEM_ERROR_POLKIT_UNAVAILABLE,
                               "%s, so jmem-helper refuses %s: " JMEM_POLKIT_NO_ANSWER "%u s%s",
                               JMEM_POLKIT_UNAVAILABLE, check->action, check->timeout_s,
                               check->interactive
                                 ? " (the time a call allowing interactive authorization "
                                   "may wait for an authentication agent)"
                                 : ""));
}

/* Whether the call ended because the gate stopped or its time ran out;
 * then it has been answered and freed. */
static gboolean
check_cancelled (Check  *check,
                 GError *error)
{
  if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return FALSE;
  check_refuse_cancelled (check);
  return TRUE;
}

static void
on_checked (GObject      *source,
            GAsyncResult *res,
            gpointer      user_data)
{
  Check *check = user_data;
  g_autoptr(PolkitAuthorizationResult) result = NULL;
  g_autoptr(GError) error = NULL;

  result = polkit_authority_check_authorization_finish (POLKIT_AUTHORITY (source), res, &error);
  if (result == NULL)
    {
      if (check_cancelled (check, error))
        return;
      g_dbus_error_strip_remote_error (error);
      check_refuse (check, "polkit-unavailable",
                    g_error_new (JMEM_ERROR, JMEM_ERROR_POLKIT_UNAVAILABLE,
                                 "%s, so jmem-helper refuses %s: %s", JMEM_POLKIT_UNAVAILABLE,
                                 check->action, error->message));
      return;
    }

  if (polkit_authorization_result_get_is_authorized (result))
    {
      dispatch (check->gate, g_steal_pointer (&check->invocation));
      check_free (check);
      return;
    }

  /* A challenge is only worth reporting to a caller that did not allow
   * interaction; one that did was not asked because no authentication agent
   * could ask, so for it this is a plain refusal. */
  if (polkit_authorization_result_get_is_challenge (result) && !check->interactive)
    {
      g_autofree char *message = g_strdup_printf ("%s needs authentication; call again allowing "
                                                  "interactive authorization, or join the %s group",
                                                  check->action, JMEM_PRIVILEGED_GROUP);

      log_refusal (check->gate, check->action, check->uid, "challenge", message);
      g_dbus_method_invocation_return_dbus_error (g_steal_pointer (&check->invocation),
                                                  INTERACTIVE_AUTHORIZATION_REQUIRED, message);
      check_free (check);
      return;
    }

  check_refuse (check, "denied",
                g_error_new (G_DBUS_ERROR, G_DBUS_ERROR_ACCESS_DENIED,
                             "not authorized for %s: members of the %s group are "
                             "(usermod -aG %s USER takes effect at the next call)",
                             check->action, JMEM_PRIVILEGED_GROUP, JMEM_PRIVILEGED_GROUP));
}

static void
check_start (Check           *check,
             PolkitAuthority *authority)
{
  g_autoptr(PolkitSubject) subject = polkit_system_bus_name_new (check->sender);

  polkit_authority_check_authorization (authority, subject, check->action, NULL,
                                        check->interactive
                                          ? POLKIT_CHECK_AUTHORIZATION_FLAGS_ALLOW_USER_INTERACTION
                                          : POLKIT_CHECK_AUTHORIZATION_FLAGS_NONE,
                                        check->cancellable, on_checked, check);
}

/* polkit_authority_get_async() runs its set-up in a worker thread, one per
 * call until the first is done: the gate asks once and queues the checks
 * that arrive meanwhile. */
static void
on_authority (GObject      *source,
              GAsyncResult *res,
              gpointer      user_data)
{
  JmemPolkitGate *gate = user_data;
  g_autoptr(GError) error = NULL;
  Check *check;

  GQueue waiting = gate->waiting;

  /* Checks queued while these are answered wait for an authority of their own. */
  g_queue_init (&gate->waiting);
  gate->getting_authority = FALSE;
  gate->authority = polkit_authority_get_finish (res, &error);
  while ((check = g_queue_pop_head (&waiting)) != NULL)
    {
      check->waiting = FALSE;
      if (gate->authority != NULL)
        check_start (check, gate->authority);
      else if (gate->stopping)
        check_refuse_cancelled (check);
      else
        check_refuse (check, "polkit-unavailable",
                      g_error_new (JMEM_ERROR, JMEM_ERROR_POLKIT_UNAVAILABLE,
                                   "%s, so jmem-helper refuses %s: %s", JMEM_POLKIT_UNAVAILABLE,
                                   check->action, error->message));
    }
}

static void
check_with_authority (Check *check)
{
  JmemPolkitGate *gate = check->gate;

  if (gate->authority != NULL)
    {
      check_start (check, gate->authority);
      return;
    }
  check->waiting = TRUE;
  g_queue_push_tail (&gate->waiting, check);
  if (!gate->getting_authority)
    {
      gate->getting_authority = TRUE;
      polkit_authority_get_async (gate->cancellable, on_authority, gate);
    }
}

static GError *
rate_limited (const char *who,
              guint       limit,
              guint       within_s)
{
  return g_error_new (JMEM_ERROR, JMEM_ERROR_RATE_LIMITED,
                      "%s already has %u authorization checks pending, the most jmem-helper "
                      "takes at once: call again once they are answered (within %u s)",
                      who, limit, within_s);
}

/* Whether @check, of a uid now known, may wait for polkit: the uid's own
 * limit first, then the pool of its kind; else it is refused here. The
 * first call of a uid with none pending is never refused for the pool of
 * non-interactive calls, so that however many accounts fill it, each
 * still gets its turn. */
static gboolean
check_admit (Check *check)
{
  JmemPolkitGate *gate = check->gate;
  const JmemPolkitGateConfig *config = &gate->config;
  Account *account = account_get (gate, check->uid);
  g_autofree char *who = NULL;

  if (account->pending >= config->max_pending_per_uid)
    {
      who = g_strdup_printf ("uid %" G_GINT64_FORMAT, check->uid);
      check_refuse (check, "rate-limited",
                    rate_limited (who, config->max_pending_per_uid, config->interactive_timeout_s));
      return FALSE;
    }
  if (check->interactive && gate->n_polkit[TRUE] >= config->max_pending_interactive)
    {
      account_release (gate, account);
      check_refuse (check, "rate-limited",
                    g_error_new (JMEM_ERROR, JMEM_ERROR_RATE_LIMITED,
                                 "jmem-helper already has %u authorization checks pending that "
                                 "allow interaction, the most it takes at once: call again "
                                 "without allowing interactive authorization (members of the %s "
                                 "group need none), or within %u s",
                                 config->max_pending_interactive, JMEM_PRIVILEGED_GROUP,
                                 config->interactive_timeout_s));
      return FALSE;
    }
  if (!check->interactive && account->pending > 0 && gate->n_polkit[FALSE] >= config->max_pending)
    {
      check_refuse (check, "rate-limited",
                    rate_limited ("jmem-helper", config->max_pending, config->timeout_s));
      return FALSE;
    }
  account->pending++;
  gate->n_polkit[check->interactive]++;
  check->account = account;
  return TRUE;
}

static void
on_caller_uid (GObject      *source,
               GAsyncResult *res,
               gpointer      user_data)
{
  Check *check = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), res, &error);
  guint32 uid;

  if (reply == NULL)
    {
      if (check_cancelled (check, error))
        return;
      g_dbus_error_strip_remote_error (error);
      check_refuse (check, "denied",
                    g_error_new (G_DBUS_ERROR, G_DBUS_ERROR_ACCESS_DENIED,
                                 "jmem-helper cannot tell who is calling: %s", error->message));
      return;
    }

  g_variant_get (reply, "(u)", &uid);
  check->uid = uid;
  /* Stored as uid + 1 so that NULL means "not looked up". */
  g_object_set_data (G_OBJECT (check->invocation), CALLER_UID_KEY,
                     GSIZE_TO_POINTER ((gsize) check->uid + 1));

  if (!check_admit (check))
    return;
  /* Interactive checks may wait minutes for a person: they go to polkit at
   * once and hold no place that a non-interactive check needs. */
  if (check->interactive)
    check_with_authority (check);
  else
    check_queue (check);
}

static gboolean
on_check_timeout (gpointer user_data)
{
  Check *check = user_data;

  check->timer_id = 0;
  if (check->waiting)
    {
      g_queue_remove (&check->gate->waiting, check);
      check_refuse_cancelled (check);
    }
  else if (check->queued)
    check_refuse_cancelled (check);
  else
    g_cancellable_cancel (check->cancellable);
  return G_SOURCE_REMOVE;
}

gint64
jmem_polkit_caller_uid (GDBusMethodInvocation *invocation)
{
  gpointer p = g_object_get_data (G_OBJECT (invocation), CALLER_UID_KEY);

  return p != NULL ? (gint64) GPOINTER_TO_SIZE (p) - 1 : -1;
}

/* How many file descriptors came with @message. */
static int
n_fds (GDBusMessage *message)
{
  GUnixFDList *fds = g_dbus_message_get_unix_fd_list (message);

  return fds != NULL ? g_unix_fd_list_get_length (fds) : 0;
}

/* The interface's method_call: sees every call on the main context. Nothing
 * here waits: the uid and polkit's answer are asked for asynchronously,
 * bounded by a timer, and the call is answered or dispatched when they come. */
static void
on_method_call (GDBusConnection       *connection,
                const char            *sender,
                const char            *object_path,
                const char            *interface_name,
                const char            *method_name,
                GVariant              *parameters,
                GDBusMethodInvocation *invocation,
                gpointer               user_data)
{
  JmemPolkitGate *gate = user_data;
  GDBusMessage *message = g_dbus_method_invocation_get_message (invocation);
  const char *action;
  JmemGateKind kind;
  Check *check;
  int fds;

  jmem_activity_hold (gate->activity, G_OBJECT (invocation));
  kind = jmem_polkit_gate_lookup (interface_name, method_name, &action);

  /* No method takes a descriptor. Refused before anything else, those a
   * caller attached are closed now, not held while polkit is asked: a few
   * callers with calls pending would otherwise use up the helper's. */
  fds = n_fds (message);
  if (fds > 0)
    {
      refuse_invocation (gate, invocation, action != NULL ? action : "(unknown)", -1, "denied",
                         g_error_new (JMEM_ERROR, JMEM_ERROR_INVALID_ARGUMENT,
                                      "jmem-helper takes no file descriptors, and %d came "
                                      "with this call of %s", fds,
                                      method_name != NULL ? method_name : "(none)"));
      return;
    }

  switch (kind)
    {
    case JMEM_GATE_ALLOW:
      dispatch (gate, invocation);
      return;
    case JMEM_GATE_DENY:
      refuse_invocation (gate, invocation, "(unknown)", -1, "denied",
                         g_error_new (G_DBUS_ERROR, G_DBUS_ERROR_ACCESS_DENIED,
                                      "%s.%s is not something jmem-helper does",
                                      interface_name != NULL ? interface_name : "(none)",
                                      method_name != NULL ? method_name : "(none)"));
      return;
    case JMEM_GATE_POLKIT:
      break;
    }

  /* A peer-to-peer connection has no sender: there is no one to ask about. */
  if (sender == NULL)
    {
      refuse_invocation (gate, invocation, action, -1, "denied",
                         g_error_new_literal (G_DBUS_ERROR, G_DBUS_ERROR_ACCESS_DENIED,
                                              "jmem-helper only answers callers on the system bus"));
      return;
    }

  /* One connection belongs to one uid: its calls count against that uid's
   * limit even before the bus has said which uid it is. */
  if (count_get (gate->per_sender, sender) >= gate->config.max_pending_per_uid)
    {
      refuse_invocation (gate, invocation, action, -1, "rate-limited",
                         rate_limited ("this connection", gate->config.max_pending_per_uid,
                                       gate->config.interactive_timeout_s));
      return;
    }

  check = g_new0 (Check, 1);
  check->gate = gate;
  check->invocation = invocation;
  check->sender = g_strdup (sender);
  check->action = action;
  check->interactive = (g_dbus_message_get_flags (message) &
                        G_DBUS_MESSAGE_FLAGS_ALLOW_INTERACTIVE_AUTHORIZATION) != 0;
  check->timeout_s = check->interactive ? gate->config.interactive_timeout_s : gate->config.timeout_s;
  check->uid = -1;
  check->cancellable = g_cancellable_new ();
  check->timer_id = g_timeout_add_seconds (check->timeout_s, on_check_timeout, check);
  sender_add (gate, sender, 1);
  g_hash_table_add (gate->checks, check);

  g_dbus_connection_call (connection, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                          "org.freedesktop.DBus", "GetConnectionUnixUser",
                          g_variant_new ("(s)", sender), G_VARIANT_TYPE ("(u)"),
                          G_DBUS_CALL_FLAGS_NONE, -1, check->cancellable, on_caller_uid, check);
}

/* The generated property getter expects the skeleton as its user data. */
static GVariant *
on_get_property (GDBusConnection *connection,
                 const char      *sender,
                 const char      *object_path,
                 const char      *interface_name,
                 const char      *property_name,
                 GError         **error,
                 gpointer         user_data)
{
  JmemPolkitGate *gate = user_data;

  return g_dbus_interface_skeleton_get_vtable (gate->skeleton)->get_property (
      connection, sender, object_path, interface_name, property_name, error, gate->skeleton);
}

/* GDBusInterfaceSkeleton's own export emits g-authorize-method in a worker
 * thread and needs the answer before it returns, so a pending polkit check
 * would hold that thread. The gate registers the skeleton's interface itself
 * instead, to see each call on the main context and answer it later. */
JmemPolkitGate *
jmem_polkit_gate_export (GDBusInterfaceSkeleton     *skeleton,
                         GDBusConnection            *bus,
                         const char                 *path,
                         const JmemPolkitGateConfig *config,
                         JmemActivity               *activity,
                         GError                    **error)
{
  g_autoptr(JmemPolkitGate) gate = g_new0 (JmemPolkitGate, 1);

  gate->config = *config;
  if (gate->config.max_pending_per_uid == 0)
    gate->config.max_pending_per_uid = JMEM_POLKIT_MAX_PENDING_PER_UID;
  if (gate->config.max_pending == 0)
    gate->config.max_pending = JMEM_POLKIT_MAX_PENDING;
  if (gate->config.max_pending_interactive == 0)
    gate->config.max_pending_interactive = JMEM_POLKIT_MAX_PENDING_INTERACTIVE;
  if (gate->config.max_running == 0)
    gate->config.max_running = JMEM_POLKIT_MAX_RUNNING;
  gate->skeleton = g_object_ref (skeleton);
  gate->bus = g_object_ref (bus);
  gate->activity = jmem_activity_ref (activity);
  gate->refusals = jmem_refusal_log_new (JMEM_REFUSAL_LOG_INTERVAL_S * G_USEC_PER_SEC);
  gate->checks = g_hash_table_new (NULL, NULL);
  gate->per_sender = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  gate->accounts = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  g_queue_init (&gate->fresh);
  g_queue_init (&gate->turns);
  g_queue_init (&gate->waiting);
  gate->cancellable = g_cancellable_new ();
  gate->vtable.method_call = on_method_call;
  gate->vtable.get_property = on_get_property;
  /* The properties are read-only: GDBus refuses a Set before asking. */
  gate->vtable.set_property = NULL;

  gate->registration_id = g_dbus_connection_register_object (bus, path,
                                                             g_dbus_interface_skeleton_get_info (skeleton),
                                                             &gate->vtable, gate, NULL, error);
  if (gate->registration_id == 0)
    return NULL;
  return g_steal_pointer (&gate);
}

void
jmem_polkit_gate_free (JmemPolkitGate *gate)
{
  gint64 deadline = g_get_monotonic_time () + G_USEC_PER_SEC;

  if (gate == NULL)
    return;
  if (gate->registration_id != 0)
    g_dbus_connection_unregister_object (gate->bus, gate->registration_id);

  /* Each pending check's callback still holds it: cancel them all and let
   * the callbacks answer their callers and free them. */
  if (gate->checks != NULL)
    {
      GHashTableIter iter;
      gpointer key;

      g_autoptr(GPtrArray) queued = g_ptr_array_new ();

      gate->stopping = TRUE;
      /* Queued checks have nothing to cancel: they are answered here. */
      g_hash_table_iter_init (&iter, gate->checks);
      while (g_hash_table_iter_next (&iter, &key, NULL))
        if (((Check *) key)->queued)
          g_ptr_array_add (queued, key);
      for (guint i = 0; i < queued->len; i++)
        check_refuse_cancelled (g_ptr_array_index (queued, i));
      g_cancellable_cancel (gate->cancellable);
      g_hash_table_iter_init (&iter, gate->checks);
      while (g_hash_table_iter_next (&iter, &key, NULL))
        g_cancellable_cancel (((Check *) key)->cancellable);
      while ((g_hash_table_size (gate->checks) > 0 || gate->getting_authority) &&
             g_get_monotonic_time () < deadline)
        if (!g_main_context_iteration (NULL, FALSE))
          g_usleep (1000);
      if (g_hash_table_size (gate->checks) > 0 || gate->getting_authority)
        {
          /* A callback may still come: the gate must outlive it. */
          g_warning ("%u authorization checks did not end on cancellation",
                     g_hash_table_size (gate->checks));
          return;
        }
    }

  g_clear_object (&gate->authority);
  g_clear_object (&gate->cancellable);
  g_clear_pointer (&gate->checks, g_hash_table_unref);
  g_clear_pointer (&gate->per_sender, g_hash_table_unref);
  g_clear_pointer (&gate->accounts, g_hash_table_unref);
  if (gate->refusal_flush_id != 0)
    g_source_remove (gate->refusal_flush_id);
  g_clear_pointer (&gate->refusals, jmem_refusal_log_free);
  g_clear_pointer (&gate->activity, jmem_activity_unref);
  g_clear_object (&gate->bus);
  g_clear_object (&gate->skeleton);
  g_free (gate);
}
