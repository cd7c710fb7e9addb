/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "jmem-error.h"

#include <gio/gio.h>

static const GDBusErrorEntry jmem_error_entries[] = {
  { JMEM_ERROR_FAILED,           "dev.jmem.Error.Failed" },
  { JMEM_ERROR_NOT_AVAILABLE,    "dev.jmem.Error.NotAvailable" },
  { JMEM_ERROR_TOO_LARGE,        "dev.jmem.Error.TooLarge" },
  { JMEM_ERROR_RATE_LIMITED,     "dev.jmem.Error.RateLimited" },
  { JMEM_ERROR_INVALID_ARGUMENT, "dev.jmem.Error.InvalidArgument" },
  { JMEM_ERROR_POLKIT_UNAVAILABLE, "dev.jmem.Error.PolkitUnavailable" },
};

G_STATIC_ASSERT (G_N_ELEMENTS (jmem_error_entries) == JMEM_ERROR_POLKIT_UNAVAILABLE + 1);

GQuark
jmem_error_quark (void)
{
  static gsize quark = 0;

  /* Registering the domain lets both sides of the bus see JMEM_ERROR codes,
   * not a generic G_DBUS_ERROR with a remote name. */
  g_dbus_error_register_error_domain ("jmem-error-quark", &quark,
                                      jmem_error_entries,
                                      G_N_ELEMENTS (jmem_error_entries));
  return (GQuark) quark;
}
