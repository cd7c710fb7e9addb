/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Where NvMap data comes from: a captured tree, debugfs read directly when
 * running as root, or the helper on the system bus. One table, so snapshot,
 * allocations and capture choose the same way. */
#pragma once

#include <glib.h>

#include "jmem-nvmap.h"
#include "jmem-nvmap-reader.h"

G_BEGIN_DECLS

typedef struct {
  const char *root;              /* NULL for the live system */
  gboolean    allow_interactive; /* helper calls may ask for a password */
  int         timeout_ms;
} JmemNvmapSourceContext;

typedef struct {
  const char *via;  /* "sysroot", "debugfs", "helper" */
  /* *stats_total_bytes (may be NULL) is stats/total_memory, or -1 */
  JmemNvmapClients *(*read_clients) (const JmemNvmapSourceContext *ctx,
                                     gint64                       *stats_total_bytes,
                                     GError                      **error);
  /* iovmm/allocations, to walk as often as needed (jmem-nvmap-reader.h) */
  JmemNvmapAllocationsReader *(*open_allocations) (const JmemNvmapSourceContext *ctx,
                                                   GError                      **error);
  /* maps, free_size, the page pool and the page size; each part the
   * kernel lacks stays unread. FALSE only when none could be asked for. */
  gboolean (*read_extras) (const JmemNvmapSourceContext *ctx,
                           JmemNvmapExtras              *extras,
                           GError                      **error);
} JmemNvmapSource;

/* The source for @ctx, or NULL with JMEM_ERROR_NOT_AVAILABLE when this
 * system (or capture) has no NvMap at all. */
const JmemNvmapSource *jmem_nvmap_source_choose (const JmemNvmapSourceContext *ctx,
                                                 GError                      **error);

/* What to do about @error from a source's read (NULL when nothing helps,
 * as where there is no NvMap: the message says so). */
const char *jmem_nvmap_source_error_action (const GError *error);

G_END_DECLS
