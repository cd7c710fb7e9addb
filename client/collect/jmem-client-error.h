/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The client's own error codes, never sent on the bus: what an operation
 * failed at, so that the faces decide by a code and never by a message. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum {
  JMEM_CLIENT_ERROR_BUS_TIMED_OUT,   /* the system bus accepted the connection but did not answer */
  JMEM_CLIENT_ERROR_NO_DEBUGFS,      /* root reads NvMap itself, and debugfs is not mounted */
  JMEM_CLIENT_ERROR_SNAPSHOT_FAILED, /* a snapshot an operation needs could not be taken */
  JMEM_CLIENT_ERROR_NO_COMPACTION,   /* this kernel cannot compact memory */
  JMEM_CLIENT_ERROR_NOT_CAPTURED,    /* a capture lacks an optional file the operation reads */
} JmemClientError;

#define JMEM_CLIENT_ERROR_LAST JMEM_CLIENT_ERROR_NOT_CAPTURED

#define JMEM_CLIENT_ERROR (jmem_client_error_quark ())
GQuark jmem_client_error_quark (void);

G_END_DECLS
