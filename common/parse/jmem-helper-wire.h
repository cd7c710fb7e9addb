/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The NvMap model on the wire of dev.jmem.Helper1: the helper builds the
 * replies, the client reads them back. Both directions live here so that one
 * test covers the pair (see dev.jmem.Helper1.xml for the signatures). */
#pragma once

#include <gio/gio.h>

#include "jmem-nvmap.h"

G_BEGIN_DECLS

#define JMEM_WIRE_CLIENTS_REPLY_TYPE     "(a(ssut)ta{sv})"
#define JMEM_WIRE_ALLOCATIONS_REPLY_TYPE "(a(ssuta(ttuuuuuuuis))ta{sv})"

/* The GetNvMapClients reply. @stats_total_bytes < 0 leaves it out of info.
 * Strings that are not valid UTF-8 are repaired, never passed through. */
GVariant *jmem_wire_clients_to_variant (const JmemNvmapClients *clients,
                                        gint64                  stats_total_bytes);

/* Reads a GetNvMapClients reply; *stats_total_bytes is -1 when absent. Fails
 * with JMEM_ERROR_FAILED on a reply of the wrong type. */
JmemNvmapClients *jmem_wire_clients_from_variant (GVariant  *reply,
                                                  gint64    *stats_total_bytes,
                                                  GError   **error);

GVariant *jmem_wire_allocations_to_variant (const JmemNvmapAllocations *allocations);

/* The GetNvMapAllocations reply built one client and one handle at a time,
 * without the whole model in memory: add a client, then its handles. */
typedef struct _JmemWireAllocationsBuilder JmemWireAllocationsBuilder;

JmemWireAllocationsBuilder *jmem_wire_allocations_builder_new (void);
void jmem_wire_allocations_builder_free (JmemWireAllocationsBuilder *builder);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (JmemWireAllocationsBuilder, jmem_wire_allocations_builder_free)

void jmem_wire_allocations_builder_add_client (JmemWireAllocationsBuilder *builder,
                                               const JmemNvmapClient      *client);
void jmem_wire_allocations_builder_add_handle (JmemWireAllocationsBuilder *builder,
                                               const JmemNvmapHandle      *handle);
/* The reply; @summary gives total and info (its clients are not read),
 * @extra_info (a{sv}, floating or not, nullable) adds keys to info. */
GVariant *jmem_wire_allocations_builder_end (JmemWireAllocationsBuilder *builder,
                                             const JmemNvmapAllocations *summary,
                                             GVariant                   *extra_info);

JmemNvmapAllocations *jmem_wire_allocations_from_variant (GVariant  *reply,
                                                          GError   **error);

G_END_DECLS
