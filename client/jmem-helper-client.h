/* The client's side of dev.jmem.Helper1: typed calls with errors a person can act on. */
#pragma once

#include <glib.h>

#include "jmem-nvmap.h"

G_BEGIN_DECLS

typedef struct {
  gboolean allow_interactive;  /* sets ALLOW_INTERACTIVE_AUTHORIZATION on the call */
  int      timeout_ms;         /* per call; <= 0 means the default (25 s) */
} JmemHelperCallOptions;

/* NvMap clients as the helper read them. *stats_total_bytes is
 * stats/total_memory from the call's info, or -1. */
JmemNvmapClients *jmem_helper_get_nvmap_clients (const JmemHelperCallOptions *options,
                                                 gint64                      *stats_total_bytes,
                                                 GError                     **error);

JmemNvmapAllocations *jmem_helper_get_nvmap_allocations (const JmemHelperCallOptions *options,
                                                         GError                     **error);

/* What a person should do about @error from one of the calls above (group
 * membership, install the helper, start polkit, ...), or NULL when there is
 * nothing to do. */
const char *jmem_helper_error_action (const GError *error);

G_END_DECLS
