/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "jmem-collect-private.h"

#include "jmem-error.h"
#include "jmem-nvmap-source.h"

#include <gio/gio.h>
#include "jmem-text.h"

static void
skip_client (JmemNvmapClient *client, gpointer user_data)
{
  jmem_nvmap_client_free (client);
}

/* A handle's share of hugetlb pages, as clients' SIZE is computed
 * (size / share), added to the guint64 at @user_data. */
static void
add_hugetlbfs (JmemNvmapHandle *h, gpointer user_data)
{
  guint64 *kib = user_data;

  if (h->from_hugetlbfs == 1)
    *kib += MIN (h->size_kib / MAX (h->share, 1), (guint64) JMEM_ACCOUNTING_MAX_KIB);
  *kib = MIN (*kib, (guint64) JMEM_ACCOUNTING_MAX_KIB);
  jmem_nvmap_handle_free (h);
}

/* Handles the 2025 driver made from hugetlb pages (FROM_HUGETLBFS): their
 * share of each client, summed one row at a time. */
static void
read_hugetlbfs (JmemCollectContext *ctx, const JmemNvmapSource *source,
                const JmemNvmapSourceContext *sctx)
{
  static const JmemNvmapAllocationsVisitor sum = { skip_client, add_hugetlbfs };
  JmemSnapshot *s = ctx->snapshot;
  g_autoptr(JmemNvmapAllocationsReader) reader = NULL;
  JmemNvmapAllocations summary = { 0 };
  g_autoptr(GError) error = NULL;
  guint64 kib = 0;

  reader = source->open_allocations (sctx, &error);
  if (reader == NULL ||
      !jmem_nvmap_allocations_reader_walk (reader, &sum, &kib, &summary, &error))
    {
      jmem_snapshot_add_warning (s, "nvmap", jmem_nvmap_source_error_action (error),
                                 "hugetlb pages are in use, and NvMap's allocations (which say "
                                 "which of its buffers are hugetlb pages) are unread: %s",
                                 error->message);
      return;
    }
  s->nvmap_hugetlbfs_column = summary.has_hugetlbfs_column;
  if (summary.has_hugetlbfs_column)
    s->nvmap_hugetlbfs_kib = (gint64) kib;
}

static gboolean
hugetlb_in_use (const JmemMeminfo *m)
{
  guint64 total = 0, free_pages = 0;

  for (guint i = 0; m != NULL && i < m->fields->len; i++)
    {
      const JmemMeminfoField *f = &g_array_index (m->fields, JmemMeminfoField, i);

      if (!f->is_kib && g_str_equal (f->name, "HugePages_Total"))
        total = f->value;
      else if (!f->is_kib && g_str_equal (f->name, "HugePages_Free"))
        free_pages = f->value;
    }
  return total > free_pages;
}

/* maps, free_size and the page pool: the accounting's NvMap parts. */
static void
read_extras (JmemCollectContext *ctx, const JmemNvmapSource *source,
             const JmemNvmapSourceContext *sctx)
{
  JmemSnapshot *s = ctx->snapshot;
  g_autoptr(GError) error = NULL;

  if (!source->read_extras (sctx, &s->nvmap_extras, &error))
    {
      const char *action = jmem_nvmap_source_error_action (error);

      s->nvmap_extras_error = g_strdup (error->message);
      jmem_snapshot_add_warning (s, "nvmap", action,
                                 "NvMap's maps, free_size and page pool unread: %s",
                                 error->message);
    }
  if (hugetlb_in_use (s->meminfo))
    read_hugetlbfs (ctx, source, sctx);
}

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
  const char *not_applying = jmem_platform_not_applying (s->platform, JMEM_JETSON_PART_NVMAP);
  const JmemNvmapSource *source = NULL;
  gint64 stats_total = -1;

  /* no helper to ask, nothing to warn of: there is no NvMap to read */
  if (not_applying != NULL)
    {
      s->nvmap_readable = FALSE;
      s->nvmap_absent = TRUE;
      s->nvmap_error = g_strdup_printf ("does not apply on this system: %s", not_applying);
      return;
    }
  source = jmem_nvmap_source_choose (&sctx, &error);
  if (source != NULL)
    s->nvmap_clients = source->read_clients (&sctx, &stats_total, &error);

  if (s->nvmap_clients == NULL)
    {
      const char *action = jmem_nvmap_source_error_action (error);

      s->nvmap_readable = FALSE;
      s->nvmap_error = g_strdup (error->message);
      /* no /dev/nvmap here, or a capture of the unified stack without NvMap */
      s->nvmap_absent = g_error_matches (error, JMEM_ERROR, JMEM_ERROR_NOT_AVAILABLE) &&
                        (ctx->root == NULL || s->gpu_stack == JMEM_GPU_STACK_UNIFIED);
      /* On the unified stack nvidia-smi already answers; say so plainly. */
      jmem_snapshot_add_warning (s, "nvmap", action, "NvMap unread%s%s: %s",
                                 source ? " via " : "", source ? source->via : "",
                                 error->message);
      return;
    }

  s->nvmap_readable = TRUE;
  s->nvmap_via = g_strdup (source->via);
  s->nvmap_stats_total_bytes = stats_total;
  read_extras (ctx, source, &sctx);
  if (s->nvmap_clients->n_malformed > 0)
    jmem_snapshot_add_warning (s, "nvmap", NULL,
                               "%u malformed %s in NvMap clients %s skipped",
                               s->nvmap_clients->n_malformed,
                               jmem_text_plural (s->nvmap_clients->n_malformed, "line", "lines"),
                               jmem_text_plural (s->nvmap_clients->n_malformed, "was", "were"));
}
