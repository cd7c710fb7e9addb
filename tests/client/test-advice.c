/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Every way an operation of the client can fail, as GDBus or the client
 * delivers it: the code it is decided by (never its message), the exit
 * status jmem(1) documents for it and the action the commands and the MCP
 * tools both give. */
#include <gio/gio.h>
#include <string.h>

#include "jmem-advice.h"
#include "jmem-client-error.h"
#include "jmem-error.h"
#include "jmem-helper-client-private.h"
#include "jmem-names.h"

typedef struct {
  const char *remote;     /* a D-Bus error name as the bus delivers it, or NULL */
  GQuark    (*domain) (void);  /* else a local error of this domain... */
  int         code;            /* ...and code */
  GQuark    (*as_domain) (void);  /* what the client decides by */
  int         as_code;
  JmemExit    exit_status;
  const char *terminal;   /* in the action at a terminal (NULL: no action) */
  const char *agent;      /* in the action for an agent (NULL: no action) */
  gboolean    helper_unavailable;
  const char *message;    /* what the sender said, when it matters */
} Case;

#define GROUP "usermod -aG " JMEM_GROUP
#define POLKIT "start polkit"
#define LOG "journalctl -u jmem-helper"
#define DBUS_NAME(n) "org.freedesktop.DBus.Error." n

static GQuark no_domain (void) { return 0; }

static const Case cases[] = {
  /* the helper is missing, cannot start, or is of another version */
  { DBUS_NAME ("ServiceUnknown"), no_domain, 0, g_dbus_error_quark, G_DBUS_ERROR_SERVICE_UNKNOWN,
    JMEM_EXIT_NO_DATA, "install the jmem package", "install the jmem package", TRUE },
  { DBUS_NAME ("NameHasNoOwner"), no_domain, 0, g_dbus_error_quark, G_DBUS_ERROR_NAME_HAS_NO_OWNER,
    JMEM_EXIT_NO_DATA, "install the jmem package", "install the jmem package", TRUE },
  { DBUS_NAME ("Spawn.ExecFailed"), no_domain, 0, g_dbus_error_quark, G_DBUS_ERROR_SPAWN_FAILED,
    JMEM_EXIT_NO_DATA, LOG, LOG, TRUE },
  { DBUS_NAME ("Spawn.ChildExited"), no_domain, 0, g_dbus_error_quark, G_DBUS_ERROR_SPAWN_FAILED,
    JMEM_EXIT_NO_DATA, LOG, LOG, TRUE },
  { DBUS_NAME ("Spawn.ChildSignaled"), no_domain, 0, g_dbus_error_quark, G_DBUS_ERROR_SPAWN_FAILED,
    JMEM_EXIT_NO_DATA, LOG, LOG, TRUE },
  { DBUS_NAME ("Spawn.ServiceNotFound"), no_domain, 0, g_dbus_error_quark, G_DBUS_ERROR_SPAWN_FAILED,
    JMEM_EXIT_NO_DATA, LOG, LOG, TRUE },
  { DBUS_NAME ("Spawn.FileInvalid"), no_domain, 0, g_dbus_error_quark, G_DBUS_ERROR_SPAWN_FAILED,
    JMEM_EXIT_NO_DATA, LOG, LOG, TRUE },
  { DBUS_NAME ("UnknownMethod"), no_domain, 0, g_dbus_error_quark, G_DBUS_ERROR_UNKNOWN_METHOD,
    JMEM_EXIT_NO_DATA, "matching versions", "matching versions", FALSE },
  { DBUS_NAME ("InvalidArgs"), no_domain, 0, g_dbus_error_quark, G_DBUS_ERROR_UNKNOWN_METHOD,
    JMEM_EXIT_NO_DATA, "matching versions", "matching versions", FALSE },
  /* it did not answer in time, or died mid-call: the same for every command */
  { DBUS_NAME ("NoReply"), no_domain, 0, g_dbus_error_quark, G_DBUS_ERROR_NO_REPLY,
    JMEM_EXIT_NO_DATA, LOG, LOG, FALSE },
  { DBUS_NAME ("Timeout"), no_domain, 0, g_dbus_error_quark, G_DBUS_ERROR_NO_REPLY,
    JMEM_EXIT_NO_DATA, LOG, LOG, FALSE },
  { NULL, g_io_error_quark, G_IO_ERROR_TIMED_OUT, g_dbus_error_quark, G_DBUS_ERROR_NO_REPLY,
    JMEM_EXIT_NO_DATA, LOG, LOG, FALSE },
  /* no bus to reach it by */
  { NULL, g_io_error_quark, G_IO_ERROR_CLOSED, g_io_error_quark, G_IO_ERROR_NOT_CONNECTED,
    JMEM_EXIT_NO_DATA, "system bus", "system bus", TRUE },
  /* polkit said no, or cannot say anything */
  { DBUS_NAME ("AccessDenied"), no_domain, 0, g_dbus_error_quark, G_DBUS_ERROR_ACCESS_DENIED,
    JMEM_EXIT_NOT_AUTHORIZED, GROUP, GROUP, FALSE },
  { DBUS_NAME ("InteractiveAuthorizationRequired"), no_domain, 0, g_dbus_error_quark,
    G_DBUS_ERROR_AUTH_FAILED, JMEM_EXIT_NOT_AUTHORIZED, "--no-ask-password", GROUP, FALSE },
  { "dev.jmem.Error.PolkitUnavailable", no_domain, 0, jmem_error_quark, JMEM_ERROR_POLKIT_UNAVAILABLE,
    JMEM_EXIT_NO_DATA, POLKIT, POLKIT, TRUE },
  /* ...as the helper words it when nothing provides polkit, and when polkitd hangs */
  { "dev.jmem.Error.PolkitUnavailable", no_domain, 0, jmem_error_quark, JMEM_ERROR_POLKIT_UNAVAILABLE,
    JMEM_EXIT_NO_DATA, "install and " POLKIT, "install and " POLKIT, TRUE,
    JMEM_POLKIT_UNAVAILABLE ", so jmem-helper refuses dev.jmem.read-nvmap: The name "
    "org.freedesktop.PolicyKit1 was not provided by any .service files" },
  { "dev.jmem.Error.PolkitUnavailable", no_domain, 0, jmem_error_quark, JMEM_ERROR_POLKIT_UNAVAILABLE,
    JMEM_EXIT_NO_DATA, "polkit did not answer within 10 s: check it (sudo systemctl status polkit)",
    "restart it (sudo systemctl restart polkit)", TRUE,
    JMEM_POLKIT_UNAVAILABLE ", so jmem-helper refuses dev.jmem.read-nvmap: "
    JMEM_POLKIT_NO_ANSWER "10 s" },
  /* what the helper itself says */
  { "dev.jmem.Error.Failed", no_domain, 0, jmem_error_quark, JMEM_ERROR_FAILED,
    JMEM_EXIT_NO_DATA, NULL, NULL, FALSE },
  { "dev.jmem.Error.NotAvailable", no_domain, 0, jmem_error_quark, JMEM_ERROR_NOT_AVAILABLE,
    JMEM_EXIT_NO_DATA, NULL, NULL, FALSE },
  { "dev.jmem.Error.TooLarge", no_domain, 0, jmem_error_quark, JMEM_ERROR_TOO_LARGE,
    JMEM_EXIT_NO_DATA, NULL, NULL, FALSE },
  { "dev.jmem.Error.RateLimited", no_domain, 0, jmem_error_quark, JMEM_ERROR_RATE_LIMITED,
    JMEM_EXIT_TEMP_FAIL, NULL, NULL, FALSE },
  { "dev.jmem.Error.InvalidArgument", no_domain, 0, jmem_error_quark, JMEM_ERROR_INVALID_ARGUMENT,
    JMEM_EXIT_INTERNAL, NULL, NULL, FALSE },
  /* the bus's own limits, and names nobody registered */
  { DBUS_NAME ("LimitsExceeded"), no_domain, 0, g_dbus_error_quark, G_DBUS_ERROR_LIMITS_EXCEEDED,
    JMEM_EXIT_NO_DATA, NULL, NULL, FALSE },
  { "org.freedesktop.systemd1.UnitFailed", no_domain, 0, g_io_error_quark, G_IO_ERROR_DBUS_ERROR,
    JMEM_EXIT_NO_DATA, NULL, NULL, FALSE },
  { NULL, jmem_client_error_quark, JMEM_CLIENT_ERROR_BUS_TIMED_OUT, jmem_client_error_quark,
    JMEM_CLIENT_ERROR_BUS_TIMED_OUT, JMEM_EXIT_NO_DATA, "does not answer", "does not answer", TRUE },
  /* the operations' own failures */
  { NULL, jmem_client_error_quark, JMEM_CLIENT_ERROR_NO_DEBUGFS, jmem_client_error_quark,
    JMEM_CLIENT_ERROR_NO_DEBUGFS, JMEM_EXIT_NO_DATA, "mount -t debugfs", "mount -t debugfs", FALSE },
  { NULL, jmem_client_error_quark, JMEM_CLIENT_ERROR_SNAPSHOT_FAILED, jmem_client_error_quark,
    JMEM_CLIENT_ERROR_SNAPSHOT_FAILED, JMEM_EXIT_INTERNAL, NULL, NULL, FALSE },
  { NULL, jmem_client_error_quark, JMEM_CLIENT_ERROR_NO_COMPACTION, jmem_client_error_quark,
    JMEM_CLIENT_ERROR_NO_COMPACTION, JMEM_EXIT_NO_DATA, NULL, NULL, FALSE },
  { NULL, jmem_client_error_quark, JMEM_CLIENT_ERROR_NOT_CAPTURED, jmem_client_error_quark,
    JMEM_CLIENT_ERROR_NOT_CAPTURED, JMEM_EXIT_NO_DATA, "jmem capture DIR", "jmem capture DIR", FALSE },
  /* NvMap files read without the helper: debugfs as root, or a capture */
  { NULL, g_io_error_quark, G_IO_ERROR_PERMISSION_DENIED, g_io_error_quark,
    G_IO_ERROR_PERMISSION_DENIED, JMEM_EXIT_NOT_AUTHORIZED, NULL, NULL, FALSE },
  { NULL, g_io_error_quark, G_IO_ERROR_NOT_FOUND, g_io_error_quark, G_IO_ERROR_NOT_FOUND,
    JMEM_EXIT_NO_DATA, NULL, NULL, FALSE },
  /* anything else is jmem's bug */
  { NULL, g_file_error_quark, G_FILE_ERROR_FAILED, g_file_error_quark, G_FILE_ERROR_FAILED,
    JMEM_EXIT_INTERNAL, NULL, NULL, FALSE },
};

/* The error as the helper client hands it on. */
static GError *
delivered (const Case *c)
{
  GError *e;

  if (c->remote != NULL)
    e = g_dbus_error_new_for_dbus_error (c->remote, c->message ? c->message : "what the sender said");
  else
    e = g_error_new_literal (c->domain (), c->code, "what went wrong");
  /* translation is for the helper's calls; the client's own errors pass through it unchanged */
  return jmem_helper_error_translate (e, JMEM_ACTION_READ_NVMAP, 25000);
}

static void
assert_action (const char *action, const char *expected, const char *remote)
{
  if (expected == NULL)
    {
      if (action != NULL)
        g_error ("%s: no action expected, got \"%s\"", remote, action);
      return;
    }
  if (action == NULL || strstr (action, expected) == NULL)
    g_error ("%s: the action \"%s\" does not say \"%s\"", remote, action, expected);
}

static void
test_table (void)
{
  /* the remote names below resolve to their codes once the domain is registered */
  (void) JMEM_ERROR;

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      const Case *c = &cases[i];
      g_autoptr(GError) e = delivered (c);
      g_autofree char *what = c->remote != NULL ? g_strdup (c->remote)
                              : g_strdup_printf ("%s %d", g_quark_to_string (c->domain ()), c->code);
      JmemAdvice terminal = jmem_advice_for_error (e, JMEM_ADVICE_CAN_ASK);
      JmemAdvice agent = jmem_advice_for_error (e, JMEM_ADVICE_NONE);

      g_test_message ("%s: %s", what, e->message);
      if (!g_error_matches (e, c->as_domain (), c->as_code))
        g_error ("%s became %s %d, not %s %d", what, g_quark_to_string (e->domain), e->code,
                 g_quark_to_string (c->as_domain ()), c->as_code);
      g_assert_cmpint (terminal.exit_status, ==, c->exit_status);
      g_assert_cmpint (agent.exit_status, ==, c->exit_status);
      assert_action (terminal.action, c->terminal, what);
      assert_action (agent.action, c->agent, what);
      g_assert_cmpint (terminal.helper_unavailable, ==, c->helper_unavailable);
      /* an agent never gets a password prompt: no advice to let it ask */
      g_assert_true (agent.action == NULL || strstr (agent.action, "password") == NULL);
      /* polkit reads the group database at each call: nobody is sent to log in again */
      g_assert_true (terminal.action == NULL || strstr (terminal.action, "log in again") == NULL);
    }
}

static gboolean
covered (GQuark domain, int code)
{
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    if (cases[i].as_domain () == domain && cases[i].as_code == code)
      return TRUE;
  return FALSE;
}

/* A code added to either domain without a row here fails the test. */
static void
test_every_code (void)
{
  guint n_registered = 0;

  for (int code = 0; code < 64; code++)
    {
      g_autoptr(GError) e = g_error_new_literal (JMEM_ERROR, code, "x");
      g_autofree char *name = g_dbus_error_encode_gerror (e);

      if (!g_str_has_prefix (name, "dev.jmem.Error."))
        continue;
      n_registered++;
      if (!covered (JMEM_ERROR, code))
        g_error ("%s has no row in the table", name);
    }
  g_assert_cmpuint (n_registered, >=, JMEM_ERROR_POLKIT_UNAVAILABLE + 1);
  for (int code = 0; code <= JMEM_CLIENT_ERROR_LAST; code++)
    if (!covered (JMEM_CLIENT_ERROR, code))
      g_error ("JmemClientError %d has no row in the table", code);
}

/* Each status the advice gives is one jmem(1) documents. */
static void
test_documented (void)
{
  g_autofree char *page = NULL;
  g_autoptr(GError) error = NULL;
  const char *section;

  g_assert_true (g_file_get_contents (JMEM_MAN_PAGE, &page, NULL, &error));
  section = strstr (page, ".SH EXIT STATUS");
  g_assert_nonnull (section);
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *entry = g_strdup_printf ("\n.TP\n.B %d\n", cases[i].exit_status);
      const char *end = strstr (section + 1, "\n.SH ");

      g_assert_nonnull (end);
      if (g_strstr_len (section, end - section, entry) == NULL)
        g_error ("exit status %d is not in jmem(1)'s table", cases[i].exit_status);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/advice/table", test_table);
  g_test_add_func ("/advice/every-code", test_every_code);
  g_test_add_func ("/advice/documented", test_documented);
  return g_test_run ();
}
