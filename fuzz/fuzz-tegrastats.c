/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer target for jmem_tegrastats_parse(). */
#include <stdint.h>
#include <stdlib.h>

#include <glib.h>

#include "jmem-tegrastats.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JmemTegrastats) st = jmem_tegrastats_parse ((const char *) data, size, &error);

  if (st == NULL)
    {
      if (error == NULL)
        abort ();
      return 0;
    }
  if (st->timestamp != NULL && !g_utf8_validate (st->timestamp, -1, NULL))
    abort ();
  if (st->ram_used_mib < -1 || st->lfb_block_kib < -1 || st->gr3d_freq_percent < -1)
    abort ();
  for (guint i = 0; i < st->cpu_percent->len; i++)
    if (g_array_index (st->cpu_percent, gint64, i) < -1)
      abort ();
  for (guint i = 0; i < st->rails->len; i++)
    {
      const JmemTegrastatsRail *r = g_ptr_array_index (st->rails, i);

      if (!g_utf8_validate (r->name, -1, NULL) || r->current_mw < 0 || r->average_mw < -1)
        abort ();
    }
  for (guint i = 0; i < st->temps->len; i++)
    {
      const JmemTegrastatsTemp *t = g_ptr_array_index (st->temps, i);

      if (!g_utf8_validate (t->name, -1, NULL) || !(t->celsius >= -273.15 && t->celsius <= 1000.0))
        abort ();
    }
  return 0;
}
