/* The system bus connection, with a deadline: g_bus_get_sync() has none, so
 * a frozen bus daemon (or a socket that accepts and never answers) would
 * hang every command that talks to the helper. */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* How long connecting may take: the local bus answers in milliseconds, and
 * a board short of memory is given ample room. */
#define JMEM_SYSTEM_BUS_TIMEOUT_MS (10 * 1000)

/* GIO's shared system bus connection, or NULL with G_IO_ERROR_NOT_CONNECTED
 * (no bus) or JMEM_CLIENT_ERROR_BUS_TIMED_OUT (no answer within @timeout_ms,
 * or at the last try, less than 30 s ago: it is not waited for twice in a
 * row). The connection never ends the process when it closes. */
GDBusConnection *jmem_system_bus_get (guint    timeout_ms,
                                      GError **error);

G_END_DECLS
