/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Facts that hold for one boot (board identity, the GPU driver-stack
 * probe, the power mode), kept across the snapshots one process takes,
 * such as the calls of a `jmem mcp` server: read once per boot_id. A
 * persistent one also keeps them in a file of the runtime directory, so
 * that the next process (`jmem metrics` from its timer) reads them there. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct _JmemCollectBoot JmemCollectBoot;

JmemCollectBoot *jmem_collect_boot_new (void);
/* Persistent in jmem_boot_cache_dir_from_env() for the live system; for a
 * @sysroot other than "/", the same as jmem_collect_boot_new(). */
JmemCollectBoot *jmem_collect_boot_new_persistent (const char *sysroot);
/* Persists in @dir (made 0700 when @create and missing). */
void jmem_collect_boot_set_cache_dir (JmemCollectBoot *boot,
                                      const char      *dir,
                                      gboolean         create);
void jmem_collect_boot_free (JmemCollectBoot *boot);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (JmemCollectBoot, jmem_collect_boot_free)

G_END_DECLS
