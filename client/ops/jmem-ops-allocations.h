/* NvMap allocations: every handle of every client, from a capture, debugfs
 * (as root) or the helper. */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

#include "jmem-nvmap.h"

G_BEGIN_DECLS

typedef struct {
  const char *sysroot;            /* a capture; NULL or "/" for the live system */
  gboolean    allow_interactive;  /* polkit may ask for a password */
} JmemOpsAllocationsOptions;

typedef struct {
  JmemNvmapAllocations *allocations;
  const char           *via;   /* "sysroot", "debugfs" or "helper" */
} JmemOpsAllocations;

/* The allocations, or NULL with the source's error (jmem_advice_for_error()
 * says what to do about it). */
JmemOpsAllocations *jmem_ops_allocations (const JmemOpsAllocationsOptions *options,
                                          GError                         **error);
void jmem_ops_allocations_free (JmemOpsAllocations *allocations);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (JmemOpsAllocations, jmem_ops_allocations_free)

/* The jmem-allocations document (docs/allocations.schema.json): only
 * process @pid when >= 0. */
JsonNode *jmem_ops_allocations_json (const JmemOpsAllocations *allocations,
                                     gint64                    pid);

/* Begins that document in @b: its object and the members before
 * "clients" (schema, via, layout, total_kib, n_malformed). */
void jmem_ops_allocations_begin_json (JsonBuilder              *b,
                                      const JmemOpsAllocations *result,
                                      gint64                    pid);

/* One handle of that document's "handles", added to @b. */
void jmem_ops_allocations_add_handle (JsonBuilder           *b,
                                      const JmemNvmapHandle *h);

G_END_DECLS
