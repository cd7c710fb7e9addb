/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A stand-in for polkitd on the sandbox's system bus, for the faults the real
 * one cannot be made to show: it owns org.freedesktop.PolicyKit1 and answers
 * CheckAuthorization by never replying (hang), by asking for authentication
 * (challenge) or by refusing (deny); hang-interactive never replies to a
 * check that allows user interaction, as when the caller's own
 * authentication agent never answers, and grants every other after 2 ms of
 * work, one check after another, as polkitd evaluates its rules. SIGUSR1
 * refuses every check held so far, so that a test ends them when it chooses
 * rather than when a timer does. Properties are answered in every mode so
 * that a client's proxy set-up does not stall before the call under test. */
#include <gio/gio.h>
#include <glib-unix.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

typedef enum { MODE_HANG, MODE_HANG_INTERACTIVE, MODE_CHALLENGE, MODE_DENY } MockMode;

#define ALLOW_USER_INTERACTION 0x1  /* CheckAuthorization flags */
/* What a non-interactive check costs polkitd, on its one thread. */
#define CHECK_COST_US 2000

static const char introspection_xml[] =
  "<node>"
  "  <interface name='org.freedesktop.PolicyKit1.Authority'>"
  "    <method name='CheckAuthorization'>"
  "      <arg type='(sa{sv})' name='subject' direction='in'/>"
  "      <arg type='s' name='action_id' direction='in'/>"
  "      <arg type='a{ss}' name='details' direction='in'/>"
  "      <arg type='u' name='flags' direction='in'/>"
  "      <arg type='s' name='cancellation_id' direction='in'/>"
  "      <arg type='(bba{ss})' name='result' direction='out'/>"
  "    </method>"
  "    <method name='CancelCheckAuthorization'>"
  "      <arg type='s' name='cancellation_id' direction='in'/>"
  "    </method>"
  "    <signal name='Changed'/>"
  "    <property type='s' name='BackendName' access='read'/>"
  "    <property type='s' name='BackendVersion' access='read'/>"
  "    <property type='u' name='BackendFeatures' access='read'/>"
  "  </interface>"
  "</node>";

static MockMode mode;
static GPtrArray *held;  /* invocations left unanswered in hang mode */
static guint n_checks;

static void
handle_method_call (GDBusConnection       *connection,
                    const char            *sender,
                    const char            *object_path,
                    const char            *interface_name,
                    const char            *method_name,
                    GVariant              *parameters,
                    GDBusMethodInvocation *invocation,
                    gpointer               user_data)
{
  if (g_strcmp0 (method_name, "CheckAuthorization") == 0)
    {
      const char *action_id = NULL;
      guint32 flags = 0;

      g_variant_get_child (parameters, 1, "&s", &action_id);
      g_variant_get_child (parameters, 3, "u", &flags);
      n_checks++;
      printf ("CheckAuthorization #%u from %s: action %s, flags 0x%x\n",
              n_checks, sender, action_id, flags);
      fflush (stdout);

      switch (mode)
        {
        case MODE_HANG:
          g_ptr_array_add (held, g_object_ref (invocation));
          return;
        case MODE_HANG_INTERACTIVE:
          if (flags & ALLOW_USER_INTERACTION)
            {
              g_ptr_array_add (held, g_object_ref (invocation));
              return;
            }
          g_usleep (CHECK_COST_US);
          g_dbus_method_invocation_return_value (invocation,
                                                 g_variant_new_parsed ("((true, false, @a{ss} {}),)"));
          return;
        case MODE_CHALLENGE:
          g_dbus_method_invocation_return_value (invocation,
                                                 g_variant_new_parsed ("((false, true, @a{ss} {}),)"));
          return;
        case MODE_DENY:
          g_dbus_method_invocation_return_value (invocation,
                                                 g_variant_new_parsed ("((false, false, @a{ss} {}),)"));
          return;
        }
    }

  if (g_strcmp0 (method_name, "CancelCheckAuthorization") == 0)
    {
      g_dbus_method_invocation_return_value (invocation, NULL);
      return;
    }

  g_dbus_method_invocation_return_dbus_error (invocation,
                                              "org.freedesktop.DBus.Error.UnknownMethod",
                                              "the mock answers CheckAuthorization only");
}

static GVariant *
handle_get_property (GDBusConnection *connection,
                     const char      *sender,
                     const char      *object_path,
                     const char      *interface_name,
                     const char      *property_name,
                     GError         **error,
                     gpointer         user_data)
{
  if (g_strcmp0 (property_name, "BackendName") == 0)
    return g_variant_new_string ("jmem-mock-polkit");
  if (g_strcmp0 (property_name, "BackendVersion") == 0)
    return g_variant_new_string ("0");
  if (g_strcmp0 (property_name, "BackendFeatures") == 0)
    return g_variant_new_uint32 (0);
  g_set_error (error, G_DBUS_ERROR, G_DBUS_ERROR_UNKNOWN_PROPERTY, "no property %s", property_name);
  return NULL;
}

static const GDBusInterfaceVTable vtable = {
  .method_call = handle_method_call,
  .get_property = handle_get_property,
};

static void
name_lost (GDBusConnection *connection, const char *name, gpointer user_data)
{
  g_printerr ("mock-polkit: could not own %s\n", name);
  g_main_loop_quit (user_data);
}

/* SIGUSR1: every held check is answered "not authorized". */
static gboolean
on_release (gpointer user_data)
{
  printf ("mock-polkit: refusing %u held checks\n", held->len);
  fflush (stdout);
  for (guint i = 0; i < held->len; i++)
    g_dbus_method_invocation_return_value (g_object_ref (g_ptr_array_index (held, i)),
                                           g_variant_new_parsed ("((false, false, @a{ss} {}),)"));
  g_ptr_array_set_size (held, 0);
  return G_SOURCE_CONTINUE;
}

static gboolean
on_signal (gpointer user_data)
{
  g_main_loop_quit (user_data);
  return G_SOURCE_REMOVE;
}

int
main (int argc, char **argv)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GDBusConnection) bus = NULL;
  g_autoptr(GDBusNodeInfo) info = NULL;
  g_autoptr(GMainLoop) loop = NULL;
  guint owner_id;
  guint object_id;

  if (argc != 2)
    {
      g_printerr ("usage: %s hang|hang-interactive|challenge|deny\n", argv[0]);
      return 2;
    }
  if (strcmp (argv[1], "hang") == 0)
    mode = MODE_HANG;
  else if (strcmp (argv[1], "hang-interactive") == 0)
    mode = MODE_HANG_INTERACTIVE;
  else if (strcmp (argv[1], "challenge") == 0)
    mode = MODE_CHALLENGE;
  else if (strcmp (argv[1], "deny") == 0)
    mode = MODE_DENY;
  else
    {
      g_printerr ("mock-polkit: unknown mode '%s'\n", argv[1]);
      return 2;
    }

  held = g_ptr_array_new_with_free_func (g_object_unref);
  loop = g_main_loop_new (NULL, FALSE);
  info = g_dbus_node_info_new_for_xml (introspection_xml, &error);
  g_assert_no_error (error);

  bus = g_bus_get_sync (G_BUS_TYPE_SYSTEM, NULL, &error);
  if (bus == NULL)
    {
      g_printerr ("mock-polkit: %s\n", error->message);
      return 1;
    }
  g_dbus_connection_set_exit_on_close (bus, FALSE);
  object_id = g_dbus_connection_register_object (bus, "/org/freedesktop/PolicyKit1/Authority",
                                                 info->interfaces[0], &vtable, NULL, NULL, &error);
  if (object_id == 0)
    {
      g_printerr ("mock-polkit: %s\n", error->message);
      return 1;
    }

  owner_id = g_bus_own_name_on_connection (bus, "org.freedesktop.PolicyKit1",
                                           G_BUS_NAME_OWNER_FLAGS_NONE,
                                           NULL, name_lost, loop, NULL);
  g_unix_signal_add (SIGTERM, on_signal, loop);
  g_unix_signal_add (SIGINT, on_signal, loop);
  g_unix_signal_add (SIGUSR1, on_release, NULL);
  g_main_loop_run (loop);

  g_bus_unown_name (owner_id);
  g_dbus_connection_unregister_object (bus, object_id);
  g_ptr_array_unref (held);
  printf ("mock-polkit: %u checks\n", n_checks);
  return 0;
}
