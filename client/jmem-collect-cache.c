/* The per-boot answers a repeating caller keeps: within one process the boot
 * cannot change, so no key is needed. */
#include "jmem-collect-private.h"

JmemCollectCache *
jmem_collect_cache_new (void)
{
  JmemCollectCache *c = g_new0 (JmemCollectCache, 1);

  c->gpu_evidence = g_ptr_array_new_with_free_func (g_free);
  c->gpus = g_ptr_array_new_with_free_func ((GDestroyNotify) jmem_nvsmi_gpu_free);
  return c;
}

void
jmem_collect_cache_free (JmemCollectCache *c)
{
  if (c == NULL)
    return;
  g_ptr_array_unref (c->gpu_evidence);
  g_ptr_array_unref (c->gpus);
  g_free (c->power_mode);
  g_free (c);
}

static JmemNvsmiGpu *
gpu_copy (const JmemNvsmiGpu *g)
{
  JmemNvsmiGpu *copy = g_new0 (JmemNvsmiGpu, 1);

  copy->index = g->index;
  copy->uuid = g_strdup (g->uuid);
  copy->name = g_strdup (g->name);
  copy->memory_total_mib = g->memory_total_mib;
  copy->memory_used_mib = g->memory_used_mib;
  copy->memory_free_mib = g->memory_free_mib;
  return copy;
}

void
jmem_collect_cache_store_gpu (JmemCollectContext *ctx)
{
  JmemCollectCache *c = ctx->options->cache;
  const JmemSnapshot *s = ctx->snapshot;
  gboolean absent = FALSE;

  if (c == NULL || c->gpu_known || ctx->root != NULL)
    return;
  for (guint i = 0; s->gpus->len == 0 && i < s->gpu_evidence->len; i++)
    if (g_str_has_suffix (g_ptr_array_index (s->gpu_evidence, i), ": not installed"))
      absent = TRUE;
  if (s->gpu_stack != JMEM_GPU_STACK_NVGPU && !absent)
    return;
  c->gpu_known = TRUE;
  c->gpu_stack = s->gpu_stack;
  for (guint i = 0; i < s->gpu_evidence->len; i++)
    g_ptr_array_add (c->gpu_evidence, g_strdup (g_ptr_array_index (s->gpu_evidence, i)));
  for (guint i = 0; i < s->gpus->len; i++)
    g_ptr_array_add (c->gpus, gpu_copy (g_ptr_array_index (s->gpus, i)));
}

gboolean
jmem_collect_cache_load_gpu (JmemCollectContext *ctx)
{
  JmemCollectCache *c = ctx->options->cache;
  JmemSnapshot *s = ctx->snapshot;

  if (c == NULL || !c->gpu_known || ctx->root != NULL)
    return FALSE;
  s->gpu_stack = c->gpu_stack;
  for (guint i = 0; i < c->gpu_evidence->len; i++)
    g_ptr_array_add (s->gpu_evidence, g_strdup (g_ptr_array_index (c->gpu_evidence, i)));
  g_ptr_array_add (s->gpu_evidence,
                   g_strdup ("probed once for this run: the GPU list and driver stack do not "
                             "change before a reboot"));
  for (guint i = 0; i < c->gpus->len; i++)
    g_ptr_array_add (s->gpus, gpu_copy (g_ptr_array_index (c->gpus, i)));
  return TRUE;
}
