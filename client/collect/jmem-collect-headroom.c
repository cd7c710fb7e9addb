/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the headroom reads beside the accounting: the free blocks
 * (/proc/buddyinfo), where swap lives (/proc/swaps), the kernel's reserve
 * (vm.min_free_kbytes) and the page size, each once; and the headroom
 * itself. The arithmetic is common/model/jmem-headroom.c. */
#include "jmem-collect-private.h"

#include "jmem-names.h"
#include "jmem-nvmap.h"
#include "jmem-text.h"

#include <gio/gio.h>
#include <unistd.h>

static gint64
read_number (JmemCollectContext *ctx, const char *path, GError **error)
{
  g_autofree char *data = NULL;
  gsize len = 0;
  guint64 value;

  if (!jmem_root_read (ctx->files, path, JMEM_MAX_SMALL_BYTES, &data, &len, error))
    return -1;
  if (!jmem_nvmap_counter_parse (data, len, &value, NULL) || value > G_MAXINT64)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                           "not one decimal number");
      return -1;
    }
  return (gint64) value;
}

/* The kernel's reserve: unread, the headroom cannot take it off, and says
 * so; the snapshot says why. */
static void
read_min_free (JmemCollectContext *ctx)
{
  JmemSnapshot *s = ctx->snapshot;
  g_autoptr(GError) error = NULL;

  s->min_free_kib = read_number (ctx, JMEM_MIN_FREE_KBYTES_PATH, &error);
  if (s->min_free_kib < 0)
    jmem_snapshot_add_warning (s, "headroom", NULL,
                               "%s unread (%s): the kernel's reserve is not taken off the "
                               "headroom, so allocatable now is an upper bound",
                               JMEM_MIN_FREE_KBYTES_PATH, error->message);
}

static void
read_buddyinfo (JmemCollectContext *ctx)
{
  JmemSnapshot *s = ctx->snapshot;
  g_autoptr(GError) error = NULL;
  g_autofree char *data = NULL;
  gsize len = 0;

  if (!jmem_root_read (ctx->files, JMEM_BUDDYINFO_PATH, JMEM_MAX_SMALL_BYTES, &data, &len, &error))
    return;  /* a capture of an older jmem: the largest block is unknown, said by the headroom */
  s->buddyinfo = jmem_buddyinfo_parse (data, len, &error);
  if (s->buddyinfo == NULL)
    jmem_snapshot_add_warning (s, "headroom", NULL, "/proc/buddyinfo: %s", error->message);
}

static void
read_swaps (JmemCollectContext *ctx)
{
  JmemSnapshot *s = ctx->snapshot;
  g_autoptr(GError) error = NULL;
  g_autofree char *data = NULL;
  g_autofree JmemSwaps *swaps = g_new0 (JmemSwaps, 1);
  gsize len = 0;

  if (!jmem_root_read (ctx->files, JMEM_SWAPS_PATH, JMEM_MAX_SMALL_BYTES, &data, &len, NULL))
    return;
  if (!jmem_swaps_parse (data, len, swaps, &error))
    {
      jmem_snapshot_add_warning (s, "headroom", NULL, "/proc/swaps: %s", error->message);
      return;
    }
  s->swaps = g_steal_pointer (&swaps);
}

void
jmem_collect_headroom_inputs (JmemCollectContext *ctx)
{
  JmemSnapshot *s = ctx->snapshot;

  read_buddyinfo (ctx);
  read_swaps (ctx);
  read_min_free (ctx);
  /* a capture records the page size of the system it copied */
  s->page_size = ctx->root == NULL ? (gint64) sysconf (_SC_PAGESIZE)
                                   : read_number (ctx, JMEM_CAPTURE_PAGE_SIZE_PATH, NULL);
}

void
jmem_collect_headroom (JmemCollectContext *ctx)
{
  JmemSnapshot *s = ctx->snapshot;

  if (s->accounting != NULL)
    s->headroom = jmem_snapshot_headroom_new (s, -1);
}
