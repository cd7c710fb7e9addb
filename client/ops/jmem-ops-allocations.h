/* SPDX-License-Identifier: GPL-2.0-or-later */
/* NvMap allocations: every handle of every client, from a capture, debugfs
 * (as root) or the helper. The rows are never all in memory: the source is
 * walked once for the summary and again by each output (jmem-nvmap-reader.h),
 * so 240,000 handles cost no more than 1,000. */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

#include "jmem-json-writer.h"
#include "jmem-nvmap.h"
#include "jmem-nvmap-reader.h"

G_BEGIN_DECLS

typedef struct {
  const char *sysroot;            /* a capture; NULL or "/" for the live system */
  gboolean    allow_interactive;  /* polkit may ask for a password */
} JmemOpsAllocationsOptions;

typedef struct {
  JmemNvmapAllocations        summary;  /* every field but clients (NULL) */
  const char                 *via;      /* "sysroot", "debugfs" or "helper" */
  JmemNvmapAllocationsReader *reader;   /* the rows, for jmem_ops_allocations_walk() */
} JmemOpsAllocations;

/* The allocations' source, read through once for the summary, or NULL with
 * the source's error (jmem_advice_for_error() says what to do about it). */
JmemOpsAllocations *jmem_ops_allocations (const JmemOpsAllocationsOptions *options,
                                          GError                         **error);
void jmem_ops_allocations_free (JmemOpsAllocations *allocations);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (JmemOpsAllocations, jmem_ops_allocations_free)

/* Every row again, one at a time, to @visitor (which owns each); FALSE with
 * an error where they cannot be read again (a captured file written since). */
gboolean jmem_ops_allocations_walk (const JmemOpsAllocations          *allocations,
                                    const JmemNvmapAllocationsVisitor *visitor,
                                    gpointer                           user_data,
                                    GError                           **error);

/* The jmem-allocations document (docs/allocations.schema.json) written to
 * @writer as the rows are read: only process @pid when >= 0; at most
 * @limit handles when >= 0, the others summed up by tag in "omitted".
 * FALSE as jmem_ops_allocations_walk(), with the document unfinished. */
gboolean jmem_ops_allocations_write_json (const JmemOpsAllocations *allocations,
                                          gint64                    pid,
                                          gint64                    limit,
                                          JmemJsonWriter           *writer,
                                          GError                  **error);

/* Begins that document in @w: its object and the members before
 * "clients" (schema, via, layout, total_kib, n_malformed), for a face that
 * chooses its own rows. */
void jmem_ops_allocations_begin_json (JmemJsonWriter           *w,
                                      const JmemOpsAllocations *allocations,
                                      gint64                    pid);

/* One handle of that document's "handles", written to @w. */
void jmem_ops_allocations_add_handle (JmemJsonWriter        *w,
                                      const JmemNvmapHandle *h);

/* The same document as a tree, or NULL with the error. */
JsonNode *jmem_ops_allocations_json (const JmemOpsAllocations *allocations,
                                     gint64                    pid,
                                     gint64                    limit,
                                     GError                  **error);

/* Every row in memory, for a view that keeps them all. */
JmemNvmapAllocations *jmem_ops_allocations_parse (const JmemOpsAllocations *allocations,
                                                  GError                  **error);

G_END_DECLS
