/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The helper's method handlers. They run after the polkit gate has said yes,
 * in a GTask worker thread, and read only fixed paths. */
#pragma once

#include <gio/gio.h>

#include "jmem-helper1-generated.h"

G_BEGIN_DECLS

#define JMEM_DROP_CACHES_INTERVAL_S 10

typedef struct _JmemHelperMethods JmemHelperMethods;

/* Connects the handle-* signals of @skeleton. */
JmemHelperMethods *jmem_helper_methods_new (JmemHelper1 *skeleton);
void jmem_helper_methods_free (JmemHelperMethods *methods);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (JmemHelperMethods, jmem_helper_methods_free)

/* TRUE while a new DropCaches would be refused, or while a snapshot handed
 * out is still held: exiting then would let a fresh instance forget the
 * limit, or what each account pins. */
gboolean jmem_helper_methods_keep_running (JmemHelperMethods *methods);

/* Checks DropCaches' arguments: level 1, 2 or 3; options holds at most
 * "compact" (b). Fails with JMEM_ERROR_INVALID_ARGUMENT. */
gboolean jmem_drop_caches_check_request (guint      level,
                                         GVariant  *options,
                                         gboolean  *compact,
                                         GError   **error);

G_END_DECLS
