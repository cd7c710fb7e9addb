/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer target for the nvidia-smi CSV parsers and the NVML record a
 * capture holds. */
#include <stdint.h>
#include <stdlib.h>

#include <glib.h>

#include "jmem-nvml-record.h"
#include "jmem-nvsmi.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) gpus = NULL;
  g_autoptr(GPtrArray) apps = NULL;
  guint bad = 0;

  gpus = jmem_nvsmi_gpus_parse ((const char *) data, size, &bad, &error);
  if ((gpus == NULL) != (error != NULL))
    abort ();
  if (gpus != NULL)
    {
      if (gpus->len + bad > size)
        abort ();
      for (guint i = 0; i < gpus->len; i++)
        {
          const JmemNvsmiGpu *g = g_ptr_array_index (gpus, i);

          if (g->name == NULL || !g_utf8_validate (g->name, -1, NULL) ||
              (g->uuid != NULL && !g_utf8_validate (g->uuid, -1, NULL)) ||
              g->index < -1 || g->memory_total_mib < -1 || g->memory_used_mib < -1 ||
              g->memory_free_mib < -1)
            abort ();
        }
      if (jmem_nvsmi_stack_from_gpus (gpus) == JMEM_GPU_STACK_NONE && gpus->len > 0)
        abort ();
    }

  g_clear_error (&error);
  apps = jmem_nvsmi_apps_parse ((const char *) data, size, &bad, &error);
  if ((apps == NULL) != (error != NULL))
    abort ();
  for (guint i = 0; apps != NULL && i < apps->len; i++)
    {
      const JmemNvsmiApp *a = g_ptr_array_index (apps, i);

      /* Never a row on a PID nvidia-smi did not print. */
      if (a->pid <= 0 || a->used_memory_mib < -1 ||
          !g_utf8_validate (a->process_name, -1, NULL) ||
          (a->gpu_uuid != NULL && !g_utf8_validate (a->gpu_uuid, -1, NULL)))
        abort ();
    }
  /* Only rows naming a GPU the same input listed survive the UUID check. */
  if (apps != NULL)
    {
      guint before = apps->len;
      guint removed = jmem_nvsmi_apps_keep_listed (apps, gpus);

      if (removed + apps->len != before)
        abort ();
      for (guint i = 0; i < apps->len; i++)
        {
          const JmemNvsmiApp *a = g_ptr_array_index (apps, i);
          gboolean listed = FALSE;

          for (guint j = 0; gpus != NULL && j < gpus->len; j++)
            {
              const JmemNvsmiGpu *g = g_ptr_array_index (gpus, j);

              listed |= g->uuid != NULL && g_strcmp0 (g->uuid, a->gpu_uuid) == 0;
            }
          if (!listed)
            abort ();
        }
    }

  /* The NVML record: whole or refused, and never a PID no process can have. */
  g_clear_error (&error);
  g_clear_pointer (&gpus, g_ptr_array_unref);
  g_clear_pointer (&apps, g_ptr_array_unref);
  if (jmem_nvml_record_parse ((const char *) data, size, &gpus, &apps, &error) != (error == NULL) ||
      (error == NULL) != (gpus != NULL && apps != NULL))
    abort ();
  for (guint i = 0; gpus != NULL && i < gpus->len; i++)
    {
      const JmemNvsmiGpu *g = g_ptr_array_index (gpus, i);

      if (g->uuid == NULL || !g_utf8_validate (g->uuid, -1, NULL) ||
          (g->name != NULL && !g_utf8_validate (g->name, -1, NULL)) || g->memory_used_mib < -1)
        abort ();
    }
  for (guint i = 0; apps != NULL && i < apps->len; i++)
    {
      const JmemNvsmiApp *a = g_ptr_array_index (apps, i);

      if (a->pid <= 0 || a->pid > 4194304 || a->used_memory_mib < -1 || a->process_name != NULL ||
          (a->gpu_uuid != NULL && !g_utf8_validate (a->gpu_uuid, -1, NULL)))
        abort ();
    }
  return 0;
}
