/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer target for jmem_meminfo_parse(). */
#include <stdint.h>
#include <stdlib.h>

#include <glib.h>

#include "jmem-meminfo.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JmemMeminfo) mi = jmem_meminfo_parse ((const char *) data, size, &error);

  if (mi == NULL)
    {
      if (error == NULL || !g_utf8_validate (error->message, -1, NULL))
        abort ();
      return 0;
    }
  if (error != NULL || mi->fields->len == 0 || mi->fields->len + mi->n_malformed > size)
    abort ();
  for (guint i = 0; i < mi->fields->len; i++)
    {
      const JmemMeminfoField *f = &g_array_index (mi->fields, JmemMeminfoField, i);

      if (f->name[0] == '\0' || !g_str_is_ascii (f->name) || f->value > G_MAXINT64)
        abort ();
      if (f->is_kib && jmem_meminfo_get_kib (mi, f->name) < 0)
        abort ();
    }
  return 0;
}
