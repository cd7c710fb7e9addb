/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The model the NvMap table parsers share: the layouts, and a client's
 * life. One file per table reads it (jmem-nvmap-clients.c,
 * jmem-nvmap-allocations.c, jmem-nvmap-maps.c, jmem-nvmap-stats.c), each line
 * through the reader the helper's redaction shares (jmem-nvmap-table.h); the
 * formats and how ambiguities are resolved are in docs/nvmap-formats.md. */
#include "jmem-nvmap.h"

const char *
jmem_nvmap_layout_to_string (JmemNvmapLayout layout)
{
  switch (layout)
    {
    case JMEM_NVMAP_LAYOUT_KERNEL:
      return "kernel";
    case JMEM_NVMAP_LAYOUT_KERNEL_NOTE:
      return "kernel-note";
    case JMEM_NVMAP_LAYOUT_LOOSE:
      return "loose";
    case JMEM_NVMAP_LAYOUT_UNKNOWN:
    default:
      return "unknown";
    }
}

void
jmem_nvmap_client_free (JmemNvmapClient *client)
{
  if (client == NULL)
    return;
  g_free (client->client);
  g_free (client->process);
  g_free (client);
}

JmemNvmapClient *
jmem_nvmap_client_new (const char *client,
                       const char *process,
                       guint32     pid,
                       guint64     size_kib)
{
  JmemNvmapClient *c = g_new0 (JmemNvmapClient, 1);

  c->client = g_strdup (client);
  c->process = g_strdup (process);
  c->pid = pid;
  c->size_kib = size_kib;
  return c;
}

void
jmem_nvmap_extras_clear (JmemNvmapExtras *extras)
{
  g_clear_pointer (&extras->maps, jmem_nvmap_maps_free);
  extras->free_size_bytes = extras->pool_pages = extras->pool_to_zero = extras->page_size = -1;
}
