/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "jmem-advice.h"

#include <gio/gio.h>
#include <stdio.h>
#include <string.h>

#include "jmem-client-error.h"
#include "jmem-config.h"
#include "jmem-error.h"
#include "jmem-names.h"
#include "jmem-system-bus.h"

/* polkit's JavaScript rules and .pkla files both look the caller's groups
 * up in the group database at each check, not in the calling process: a
 * running jmem (or agent) is let in at its next call. */
#define GROUP_ADVICE                                                          \
  "add this account to the " JMEM_PRIVILEGED_GROUP " group "                  \
  "(sudo usermod -aG " JMEM_PRIVILEGED_GROUP " \"$USER\"); polkit reads the " \
  "group database at each call, so the next call is allowed, with no new "    \
  "login and no restart"

#define ASK_OR_GROUP_ADVICE                                                   \
  "run jmem at a terminal without --no-ask-password, so that polkit can ask " \
  "for a password, or " GROUP_ADVICE

#define START_POLKIT_ADVICE \
  "install and start polkit (package polkitd; sudo systemctl start polkit)"

#define HUNG_POLKIT_ADVICE                                                      \
  ": check it (sudo systemctl status polkit) and its log (journalctl -u polkit), " \
  "then restart it (sudo systemctl restart polkit)"

/* polkit is there but hung: the helper's message names the seconds it
 * waited; nothing provides polkit: no such words. The few distinct texts
 * are interned, as advice is a static string. */
static const char *
polkit_action (const char *message)
{
  const char *no_answer = strstr (message, JMEM_POLKIT_NO_ANSWER);
  guint seconds;

  if (no_answer == NULL)
    return START_POLKIT_ADVICE;
  if (sscanf (no_answer + strlen (JMEM_POLKIT_NO_ANSWER), "%u s", &seconds) == 1)
    {
      g_autofree char *text = g_strdup_printf ("polkit did not answer within %u s" HUNG_POLKIT_ADVICE,
                                               seconds);
      return g_intern_string (text);
    }
  return "polkit did not answer in time" HUNG_POLKIT_ADVICE;
}

static JmemAdvice
advise (JmemExit exit_status, const char *action, gboolean helper_unavailable)
{
  JmemAdvice advice = { exit_status, action, helper_unavailable };

  return advice;
}

/* The codes jmem_helper_error_translate() leaves in G_DBUS_ERROR. */
static JmemAdvice
dbus_advice (int code, JmemAdviceFlags flags)
{
  switch (code)
    {
    case G_DBUS_ERROR_SERVICE_UNKNOWN:
    case G_DBUS_ERROR_NAME_HAS_NO_OWNER:
      return advise (JMEM_EXIT_NO_DATA, "install the jmem package (it provides jmem-helper)", TRUE);
    case G_DBUS_ERROR_ACCESS_DENIED:
      return advise (JMEM_EXIT_NOT_AUTHORIZED, GROUP_ADVICE, FALSE);
    case G_DBUS_ERROR_AUTH_FAILED:
      return advise (JMEM_EXIT_NOT_AUTHORIZED,
                     (flags & JMEM_ADVICE_CAN_ASK) ? ASK_OR_GROUP_ADVICE : GROUP_ADVICE, FALSE);
    case G_DBUS_ERROR_NO_REPLY:
      /* it may have died mid-call: not jmem's bug, and the next call starts it anew */
      return advise (JMEM_EXIT_NO_DATA, "check the helper's log (journalctl -u jmem-helper) "
                     "and that polkit is running", FALSE);
    case G_DBUS_ERROR_SPAWN_FAILED:
      return advise (JMEM_EXIT_NO_DATA, "see why it does not start: journalctl -u jmem-helper "
                     "(without systemd, the system bus's log)", TRUE);
    case G_DBUS_ERROR_UNKNOWN_METHOD:
      return advise (JMEM_EXIT_NO_DATA, "install matching versions of jmem and jmem-helper", FALSE);
    default:  /* the bus's own failures (limits, memory): the system's, not jmem's */
      return advise (JMEM_EXIT_NO_DATA, NULL, FALSE);
    }
}

static JmemAdvice
jmem_error_advice (JmemError   code,
                   const char *message)
{
  switch (code)
    {
    case JMEM_ERROR_NOT_AVAILABLE:  /* the message says there is no NvMap: nothing to do */
    case JMEM_ERROR_TOO_LARGE:
    case JMEM_ERROR_FAILED:         /* the helper could not do it; the message says why */
      return advise (JMEM_EXIT_NO_DATA, NULL, FALSE);
    case JMEM_ERROR_RATE_LIMITED:   /* the message names the wait: once is enough */
      return advise (JMEM_EXIT_TEMP_FAIL, NULL, FALSE);
    case JMEM_ERROR_INVALID_ARGUMENT:  /* the helper refused what this client sent */
      return advise (JMEM_EXIT_INTERNAL, NULL, FALSE);
    case JMEM_ERROR_POLKIT_UNAVAILABLE:
      return advise (JMEM_EXIT_NO_DATA, polkit_action (message), TRUE);
    }
  return advise (JMEM_EXIT_INTERNAL, NULL, FALSE);
}

static JmemAdvice
client_error_advice (JmemClientError code)
{
  switch (code)
    {
    case JMEM_CLIENT_ERROR_BUS_TIMED_OUT:
      return advise (JMEM_EXIT_NO_DATA, "check the system bus daemon (sudo systemctl status dbus): "
                     "it accepts connections but does not answer", TRUE);
    case JMEM_CLIENT_ERROR_NO_DEBUGFS:
      return advise (JMEM_EXIT_NO_DATA, "mount debugfs: sudo mount -t debugfs none /sys/kernel/debug",
                     FALSE);
    case JMEM_CLIENT_ERROR_SNAPSHOT_FAILED:
      return advise (JMEM_EXIT_INTERNAL, NULL, FALSE);
    case JMEM_CLIENT_ERROR_NO_COMPACTION:  /* the message says to go without --compact */
      return advise (JMEM_EXIT_NO_DATA, NULL, FALSE);
    case JMEM_CLIENT_ERROR_NOT_CAPTURED:
      return advise (JMEM_EXIT_NO_DATA,
                     "run the command on the board itself, or capture it again there with "
                     "`jmem capture DIR` (a kernel without the file has none to capture: "
                     "`jmem snapshot` still gives NvMap per process)", FALSE);
    }
  return advise (JMEM_EXIT_INTERNAL, NULL, FALSE);
}

/* Files an NvMap source reads: debugfs as root, or a capture. */
static JmemAdvice
io_advice (int code)
{
  switch (code)
    {
    case G_IO_ERROR_NOT_CONNECTED:
      return advise (JMEM_EXIT_NO_DATA,
                     jmem_system_bus_missing_action (jmem_system_bus_systemd_runs (),
                                                     jmem_system_bus_in_container ()),
                     TRUE);
    case G_IO_ERROR_PERMISSION_DENIED:
      return advise (JMEM_EXIT_NOT_AUTHORIZED, NULL, FALSE);
    default:
      return advise (JMEM_EXIT_NO_DATA, NULL, FALSE);
    }
}

JmemAdvice
jmem_advice_for_error (const GError    *error,
                       JmemAdviceFlags  flags)
{
  if (error == NULL)
    return advise (JMEM_EXIT_OK, NULL, FALSE);
  if (error->domain == G_DBUS_ERROR)
    return dbus_advice (error->code, flags);
  if (error->domain == JMEM_ERROR)
    return jmem_error_advice ((JmemError) error->code, error->message);
  if (error->domain == JMEM_CLIENT_ERROR)
    return client_error_advice ((JmemClientError) error->code);
  if (error->domain == G_IO_ERROR)
    return io_advice (error->code);
  return advise (JMEM_EXIT_INTERNAL, NULL, FALSE);
}
