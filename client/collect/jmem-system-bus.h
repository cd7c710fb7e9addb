/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The system bus connection, with a deadline: g_bus_get_sync() has none, so
 * a frozen bus daemon (or a socket that accepts and never answers) would
 * hang every command that talks to the helper. */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* How long connecting may take: the local bus answers in milliseconds, and
 * a board short of memory is given ample room. */
#define JMEM_SYSTEM_BUS_TIMEOUT_MS (10 * 1000)

/* The system bus connection jmem shares while it stays open (made anew
 * once closed), or NULL with G_IO_ERROR_NOT_CONNECTED (no bus) or
 * JMEM_CLIENT_ERROR_BUS_TIMED_OUT (no answer within @timeout_ms, or at the
 * last try, less than 30 s ago, or to a call less than 30 s ago
 * (jmem_system_bus_mark_frozen()): it is not waited for twice in a row). The
 * connection never ends the process when it closes. */
GDBusConnection *jmem_system_bus_get (guint    timeout_ms,
                                      GError **error);

/* Says that a call the bus daemon answers itself (NameHasOwner, GetId)
 * got no answer within @timeout_ms on the connection jmem_system_bus_get()
 * gave: the bus froze after connecting. jmem_system_bus_get() then fails at
 * once for 30 s, as after a connection that timed out. */
void jmem_system_bus_mark_frozen (guint timeout_ms);

/* Whether systemd manages this system (/run/systemd/system exists). */
gboolean jmem_system_bus_systemd_runs (void);

/* Whether jmem runs in a container (jmem_container_detect()). */
gboolean jmem_system_bus_in_container (void);

/* The advice when the system bus cannot be reached: start it where systemd
 * can; in a container, which runs none, go to the host; elsewhere start it
 * by this system's own means. */
const char *jmem_system_bus_missing_action (gboolean systemd_runs,
                                            gboolean in_container);

G_END_DECLS
