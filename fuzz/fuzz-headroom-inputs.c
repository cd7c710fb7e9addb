/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer target for what the headroom reads beside meminfo:
 * jmem_buddyinfo_parse(), jmem_swaps_parse() and the size reader. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "jmem-buddyinfo.h"
#include "jmem-size.h"
#include "jmem-swaps.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JmemBuddyinfo) b = jmem_buddyinfo_parse ((const char *) data, size, &error);
  g_autofree char *text = g_strndup ((const char *) data, size);
  JmemSwaps swaps;
  guint64 bytes = 0;

  if ((b == NULL) == (error == NULL))
    abort ();
  for (guint i = 0; b != NULL && i < b->zones->len; i++)
    {
      const JmemBuddyZone *z = g_ptr_array_index (b->zones, i);

      if (z->n_orders == 0 || z->n_orders > JMEM_BUDDY_MAX_ORDERS ||
          !g_utf8_validate (z->zone, -1, NULL))
        abort ();
    }
  g_clear_error (&error);
  if (jmem_swaps_parse ((const char *) data, size, &swaps, &error))
    {
      if (swaps.zram_used_kib > swaps.zram_size_kib || swaps.other_used_kib > swaps.other_size_kib ||
          swaps.zram_size_kib < 0 || swaps.other_size_kib < 0)
        abort ();
    }
  else if (error == NULL)
    abort ();
  g_clear_error (&error);
  /* a size never passes its limit, and every refusal says why, in UTF-8 */
  if (jmem_size_parse (text, &bytes, &error))
    {
      if (bytes > JMEM_SIZE_MAX_BYTES || error != NULL)
        abort ();
    }
  else if (error == NULL || !g_utf8_validate (error->message, -1, NULL) ||
           strstr (error->message, "6G, 6GiB, 6144M") == NULL)
    abort ();
  return 0;
}
