/* SPDX-License-Identifier: GPL-2.0-or-later */
/* iovmm/allocations read once and walked as often as an output needs (its
 * summary first, then its rows), holding neither its rows nor its text: a
 * board leaking 240,000 handles prints 33 MB of it. The text stays where
 * it already is (the helper's sealed snapshot, a captured file) or in a
 * memfd copy (debugfs, which prints anew at every read); each walk reads it
 * in pieces of 64 KiB. */
#pragma once

#include <glib.h>

#include "jmem-nvmap.h"

G_BEGIN_DECLS

typedef struct _JmemNvmapAllocationsReader JmemNvmapAllocationsReader;

/* Takes @fd: a sealed memfd, or a regular file (refused at each walk once
 * its size or times change). Each walk reads it from its start, at most
 * @max_bytes (JMEM_ERROR_TOO_LARGE beyond). @name names it in errors. */
JmemNvmapAllocationsReader *jmem_nvmap_allocations_reader_new_fd (int         fd,
                                                                  const char *name,
                                                                  gsize       max_bytes,
                                                                  guint64     pid_namespace);

/* Reads @fd (not taken) to its end into a memfd, at most @max_bytes, and
 * walks that copy. */
JmemNvmapAllocationsReader *jmem_nvmap_allocations_reader_new_copy (int         fd,
                                                                    const char *name,
                                                                    gsize       max_bytes,
                                                                    guint64     pid_namespace,
                                                                    GError    **error);

/* Rows already parsed (a helper's typed reply); takes @allocations. */
JmemNvmapAllocationsReader *jmem_nvmap_allocations_reader_new_parsed (JmemNvmapAllocations *allocations);

void jmem_nvmap_allocations_reader_free (JmemNvmapAllocationsReader *reader);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (JmemNvmapAllocationsReader, jmem_nvmap_allocations_reader_free)

/* Each row to @visitor, as jmem_nvmap_allocations_visit() gives them, and
 * @summary (its pid_namespace too); the same rows at every walk. */
gboolean jmem_nvmap_allocations_reader_walk (JmemNvmapAllocationsReader        *reader,
                                             const JmemNvmapAllocationsVisitor *visitor,
                                             gpointer                           user_data,
                                             JmemNvmapAllocations              *summary,
                                             GError                           **error);

/* Every row in memory, for a view that keeps them all. */
JmemNvmapAllocations *jmem_nvmap_allocations_reader_parse (JmemNvmapAllocationsReader *reader,
                                                           GError                    **error);

G_END_DECLS
