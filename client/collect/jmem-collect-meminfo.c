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
  /* the headroom counts it as MemTotal; the snapshot says where it came from */
  if (s->mem_total_kib > 0 && jmem_meminfo_get_kib (s->meminfo, "MemFree") > s->mem_total_kib)
    jmem_snapshot_add_warning (s, "meminfo", NULL,
                               "MemFree (%" G_GINT64_FORMAT " kB) is above MemTotal (%" G_GINT64_FORMAT
                               " kB) in /proc/meminfo: the headroom counts free memory as MemTotal",
                               jmem_meminfo_get_kib (s->meminfo, "MemFree"), s->mem_total_kib);
  if (s->meminfo->n_malformed > 0)
    jmem_snapshot_add_warning (s, "meminfo", NULL,
                               "%u malformed %s in /proc/meminfo %s skipped",
                               s->meminfo->n_malformed,
                               jmem_text_plural (s->meminfo->n_malformed, "line", "lines"),
                               jmem_text_plural (s->meminfo->n_malformed, "was", "were"));
}
