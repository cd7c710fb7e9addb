/* SPDX-License-Identifier: GPL-2.0-or-later */
/* /sys/kernel/debug/nvmap/iovmm/clients: one row per client, with the
 * process and the total it holds (docs/nvmap-formats.md). */
#include "jmem-nvmap.h"

#include "jmem-error.h"
#include "jmem-nvmap-table.h"

void
jmem_nvmap_clients_free (JmemNvmapClients *clients)
{
  if (clients == NULL)
    return;
  g_clear_pointer (&clients->clients, g_ptr_array_unref);
  g_free (clients);
}

JmemNvmapClients *
jmem_nvmap_clients_parse (const char *data,
                          gsize       len,
                          GError    **error)
{
  g_autoptr(JmemNvmapClients) out = NULL;
  JmemNvmapTable t;
  gsize pos = 0;

  g_return_val_if_fail (data != NULL || len == 0, NULL);

  if (len == 0)
    {
      g_set_error_literal (error, JMEM_ERROR, JMEM_ERROR_FAILED,
                           "NvMap iovmm/clients is empty");
      return NULL;
    }

  out = g_new0 (JmemNvmapClients, 1);
  out->clients = g_ptr_array_new_with_free_func ((GDestroyNotify) jmem_nvmap_client_free);

  jmem_nvmap_table_init (&t, JMEM_NVMAP_TABLE_CLIENTS);
  while (pos < len && !t.seen_note)
    {
      JmemNvmapLine line;

      pos += jmem_nvmap_table_next (&t, data + pos, len - pos, &line);
      if (line.kind == JMEM_NVMAP_LINE_CLIENT)
        g_ptr_array_add (out->clients, jmem_nvmap_line_steal_client (&line));
      else if (line.kind == JMEM_NVMAP_LINE_INDENTED)
        t.n_malformed++;
    }

  if (!t.seen_header && out->clients->len == 0 && !t.has_total)
    {
      g_set_error_literal (error, JMEM_ERROR, JMEM_ERROR_FAILED,
                           "Not an NvMap iovmm/clients file: no \"CLIENT PROCESS PID SIZE\" "
                           "header, client row or total line");
      return NULL;
    }

  out->has_total = t.has_total;
  out->total_kib = t.total_kib;
  out->n_malformed = t.n_malformed;
  out->layout = jmem_nvmap_table_layout (&t);
  return g_steal_pointer (&out);
}
