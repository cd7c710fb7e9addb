/* Facts that hold for one boot (board identity, the GPU driver-stack
 * probe), kept across the snapshots one process takes, such as the calls
 * of a `jmem mcp` server: read once per boot_id. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct _JmemCollectBoot JmemCollectBoot;

JmemCollectBoot *jmem_collect_boot_new (void);
void jmem_collect_boot_free (JmemCollectBoot *boot);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (JmemCollectBoot, jmem_collect_boot_free)

G_END_DECLS
