/* libFuzzer target for jmem_nvmap_allocations_parse(). */
#include <stdint.h>
#include <stdlib.h>

#include <glib.h>

#include "jmem-nvmap.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JmemNvmapAllocations) allocations = NULL;
  gsize n_handles = 0;

  allocations = jmem_nvmap_allocations_parse ((const char *) data, size, &error);
  if (allocations == NULL)
    {
      if (error == NULL || !g_utf8_validate (error->message, -1, NULL))
        abort ();
      return 0;
    }
  if (error != NULL || allocations->layout > JMEM_NVMAP_LAYOUT_LOOSE)
    abort ();

  for (guint i = 0; i < allocations->clients->len; i++)
    {
      const JmemNvmapClientHandles *ch = g_ptr_array_index (allocations->clients, i);

      if (!g_utf8_validate (ch->client->client, -1, NULL) ||
          !g_utf8_validate (ch->client->process, -1, NULL))
        abort ();
      for (guint j = 0; j < ch->handles->len; j++)
        {
          const JmemNvmapHandle *h = g_ptr_array_index (ch->handles, j);

          if (!g_utf8_validate (h->tag, -1, NULL))
            abort ();
          if (allocations->has_hugetlbfs_column ? (h->from_hugetlbfs != 0 && h->from_hugetlbfs != 1)
                                                : h->from_hugetlbfs != -1)
            abort ();
          if (!allocations->has_map_columns && (h->kmaps != 0 || h->umaps != 0 || h->share != 0))
            abort ();
        }
      n_handles += ch->handles->len;
    }
  /* Every client, handle and damaged line takes at least one line. */
  if (allocations->clients->len + n_handles + allocations->n_malformed > size)
    abort ();
  return 0;
}
