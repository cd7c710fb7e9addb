/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Each code maps to a D-Bus error name "dev.jmem.Error.<Name>" (see jmem-error.c). */
typedef enum {
  JMEM_ERROR_FAILED,           /* dev.jmem.Error.Failed */
  JMEM_ERROR_NOT_AVAILABLE,    /* dev.jmem.Error.NotAvailable: the data does not exist here */
  JMEM_ERROR_TOO_LARGE,        /* dev.jmem.Error.TooLarge: input above its size cap */
  JMEM_ERROR_RATE_LIMITED,     /* dev.jmem.Error.RateLimited */
  JMEM_ERROR_INVALID_ARGUMENT, /* dev.jmem.Error.InvalidArgument */
  JMEM_ERROR_POLKIT_UNAVAILABLE, /* dev.jmem.Error.PolkitUnavailable: no answer from polkit, so refused */
} JmemError;

#define JMEM_ERROR (jmem_error_quark ())
GQuark jmem_error_quark (void);

G_END_DECLS
