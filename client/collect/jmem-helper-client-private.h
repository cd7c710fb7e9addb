/* Internals of jmem-helper-client.c, exposed for its tests. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Turns the error of a call to dev.jmem.Helper1 (made for polkit @action,
 * with @timeout_ms) into one whose message a person can act on; see
 * jmem_advice_for_error() for the matching advice. Takes @error. */
GError *jmem_helper_error_translate (GError     *error,
                                     const char *action,
                                     int         timeout_ms);

/* Whether systemd manages this system (/run/systemd/system exists). */
gboolean jmem_helper_systemd_runs (void);

/* The advice when the system bus cannot be reached: start it where systemd
 * can, else go to the host (a container or a chroot runs no bus). */
const char *jmem_helper_no_bus_action (gboolean systemd_runs);

G_END_DECLS
