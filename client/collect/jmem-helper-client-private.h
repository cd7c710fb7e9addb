/* SPDX-License-Identifier: GPL-2.0-or-later */
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

G_END_DECLS
