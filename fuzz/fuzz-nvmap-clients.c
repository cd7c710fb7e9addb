/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer target for jmem_nvmap_clients_parse(). */
#include <stdint.h>
#include <stdlib.h>

#include <glib.h>

#include "jmem-nvmap.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JmemNvmapClients) clients = NULL;
  guint64 bytes = 0;

  clients = jmem_nvmap_clients_parse ((const char *) data, size, &error);
  if (clients == NULL)
    {
      /* Refusal is allowed, but only with a reason. */
      if (error == NULL || !g_utf8_validate (error->message, -1, NULL))
        abort ();
    }
  else
    {
      if (error != NULL || clients->layout > JMEM_NVMAP_LAYOUT_LOOSE)
        abort ();
      /* Every record takes at least one line: no invented rows. */
      if (clients->clients->len + clients->n_malformed > size)
        abort ();
      for (guint i = 0; i < clients->clients->len; i++)
        {
          const JmemNvmapClient *c = g_ptr_array_index (clients->clients, i);

          if (!g_utf8_validate (c->client, -1, NULL) || !g_utf8_validate (c->process, -1, NULL))
            abort ();
        }
    }

  /* The same bytes through the single-number parser. */
  g_clear_error (&error);
  if (!jmem_nvmap_total_memory_parse ((const char *) data, size, &bytes, &error) &&
      (error == NULL || !g_utf8_validate (error->message, -1, NULL)))
    abort ();
  return 0;
}
