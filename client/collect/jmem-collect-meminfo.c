/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "jmem-collect-private.h"

#include "jmem-names.h"
#include "jmem-text.h"

void
jmem_collect_meminfo (JmemCollectContext *ctx)
{
  JmemSnapshot *s = ctx->snapshot;
  g_autoptr(GError) error = NULL;
  g_autofree char *data = NULL;
  gsize len = 0;

  if (!jmem_root_read (ctx->files, "/proc/meminfo", JMEM_MAX_SMALL_BYTES, &data, &len, &error) ||
      (s->meminfo = jmem_meminfo_parse (data, len, &error)) == NULL)
    {
      jmem_snapshot_add_warning (s, "meminfo", NULL,
                                 "no memory totals: %s", error->message);
      return;
    }
  s->mem_total_kib = jmem_meminfo_get_kib (s->meminfo, "MemTotal");
  if (s->meminfo->n_malformed > 0)
    jmem_snapshot_add_warning (s, "meminfo", NULL,
                               "%u malformed %s in /proc/meminfo %s skipped",
                               s->meminfo->n_malformed,
                               jmem_text_plural (s->meminfo->n_malformed, "line", "lines"),
                               jmem_text_plural (s->meminfo->n_malformed, "was", "were"));
}
