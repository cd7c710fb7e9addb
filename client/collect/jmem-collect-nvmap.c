#include "jmem-collect-private.h"

#include "jmem-nvmap-source.h"
#include "jmem-text.h"

void
jmem_collect_nvmap (JmemCollectContext *ctx)
{
  JmemSnapshot *s = ctx->snapshot;
  JmemNvmapSourceContext sctx = {
    .root = ctx->root,
    .allow_interactive = ctx->options->allow_interactive,
    .timeout_ms = 0,
  };
  g_autoptr(GError) error = NULL;
  const JmemNvmapSource *source = jmem_nvmap_source_choose (&sctx, &error);
  gint64 stats_total = -1;

  if (source != NULL)
    s->nvmap_clients = source->read_clients (&sctx, &stats_total, &error);

  if (s->nvmap_clients == NULL)
    {
      const char *action = jmem_nvmap_source_error_action (error);

      s->nvmap_readable = FALSE;
      s->nvmap_error = g_strdup (error->message);
      /* On the unified stack nvidia-smi already answers; say so plainly. */
      jmem_snapshot_add_warning (s, "nvmap", action, "NvMap unread%s%s: %s",
                                 source ? " via " : "", source ? source->via : "",
                                 error->message);
      return;
    }

  s->nvmap_readable = TRUE;
  s->nvmap_via = g_strdup (source->via);
  s->nvmap_stats_total_bytes = stats_total;
  if (s->nvmap_clients->n_malformed > 0)
    jmem_snapshot_add_warning (s, "nvmap", NULL,
                               "%u malformed %s in NvMap clients %s skipped",
                               s->nvmap_clients->n_malformed,
                               jmem_text_plural (s->nvmap_clients->n_malformed, "line", "lines"),
                               jmem_text_plural (s->nvmap_clients->n_malformed, "was", "were"));
}
