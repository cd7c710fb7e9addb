/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The client's side of dev.jmem.Helper1: typed calls with errors a person can act on
 * (jmem_advice_for_error() in jmem-advice.h says what to do about each). */
#pragma once

#include <glib.h>

#include "jmem-nvmap.h"
#include "jmem-nvmap-reader.h"

G_BEGIN_DECLS

typedef struct {
  gboolean allow_interactive;  /* sets ALLOW_INTERACTIVE_AUTHORIZATION on the call */
  int      timeout_ms;         /* per call; <= 0 means the default (25 s) */
} JmemHelperCallOptions;

/* Connects to the system bus and has the helper started, each step within
 * its deadline (every call below does the same): for an operation that
 * needs the helper, to fail at once where it cannot be reached or started. */
gboolean jmem_helper_start (GError **error);

/* NvMap clients as the helper read them. *stats_total_bytes is
 * stats/total_memory from the call's info, or -1. */
JmemNvmapClients *jmem_helper_get_nvmap_clients (const JmemHelperCallOptions *options,
                                                 gint64                      *stats_total_bytes,
                                                 GError                     **error);

/* The helper's sealed snapshot of iovmm/allocations, to walk here; from a
 * helper without GetNvMapAllocationsSnapshot, its typed reply. */
JmemNvmapAllocationsReader *jmem_helper_open_nvmap_allocations (const JmemHelperCallOptions *options,
                                                                GError                     **error);

/* GetNvMapMapsSnapshot: iovmm/maps parsed here, free_size and the page
 * pool from its info (each -1 where the kernel has none); *maps_text
 * (nullable) gets the file as the helper sent it. FALSE with the helper's
 * error, G_DBUS_ERROR_UNKNOWN_METHOD from an older helper. */
gboolean jmem_helper_get_nvmap_extras (const JmemHelperCallOptions *options,
                                       JmemNvmapExtras             *extras,
                                       char                       **maps_text,
                                       GError                     **error);

/* DropCaches: sync(), then @level (1 page cache, 2 dentries and inodes, 3
 * both) to /proc/sys/vm/drop_caches; @compact also compacts memory. At most
 * once per 10 s on the whole system (JMEM_ERROR_RATE_LIMITED otherwise).
 * *result (nullable) receives what the helper wrote, an a{sv}. */
gboolean jmem_helper_drop_caches (const JmemHelperCallOptions *options,
                                  guint                        level,
                                  gboolean                     compact,
                                  GVariant                   **result,
                                  GError                     **error);

G_END_DECLS
