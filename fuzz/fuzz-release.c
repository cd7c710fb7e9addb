/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer target for nv_tegra_release, nv_boot_control.conf and the
 * identity resolver (the bytes also serve as the device-tree model). */
#include <stdint.h>
#include <stdlib.h>

#include <glib.h>

#include "jmem-release.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static void
check_text (const char *s)
{
  if (s != NULL && !g_utf8_validate (s, -1, NULL))
    abort ();
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JmemTegraRelease) rel = NULL;
  g_autoptr(GHashTable) bc = NULL;
  g_autoptr(JmemIdentity) id = NULL;
  g_autofree char *model = g_strndup ((const char *) data, size);
  GHashTableIter iter;
  gpointer key, value;

  rel = jmem_tegra_release_parse ((const char *) data, size, &error);
  if ((rel == NULL) != (error != NULL))
    abort ();
  if (rel != NULL)
    {
      if (rel->major == NULL || rel->version == NULL ||
          !g_str_has_prefix (rel->version, rel->major))
        abort ();
      check_text (rel->revision);
      check_text (rel->gcid);
      check_text (rel->board);
      check_text (rel->date);
      check_text (rel->kernel_variant);
    }

  bc = jmem_boot_control_parse ((const char *) data, size);
  g_hash_table_iter_init (&iter, bc);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      check_text (key);
      check_text (value);
    }

  id = jmem_identity_resolve (model, bc, (gint64) size * 1024 * 1024);
  if (id->sku == NULL || id->generation == NULL ||
      (id->variant == NULL) != (id->variant_source == NULL))
    abort ();
  check_text (id->model);
  return 0;
}
