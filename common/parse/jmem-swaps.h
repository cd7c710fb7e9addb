/* SPDX-License-Identifier: GPL-2.0-or-later */
/* /proc/swaps: where swap lives. zram swaps to RAM, compressed, so a page
 * swapped there frees less than a page (jmem-headroom.c). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct {
  guint  n_zram;          /* /dev/zram* devices */
  guint  n_other;         /* partitions and files on storage */
  gint64 zram_size_kib;
  gint64 zram_used_kib;
  gint64 other_size_kib;
  gint64 other_used_kib;
  guint  n_malformed;
} JmemSwaps;

/* The header line and one line per device ("Filename Type Size Used
 * Priority", mm/swapfile.c swap_show, sizes in KiB, the name escaped with
 * no blank in it). Malformed lines are counted, never fatal; FALSE
 * (JMEM_ERROR_FAILED) without the header. */
gboolean jmem_swaps_parse (const char *data,
                           gsize       len,
                           JmemSwaps  *swaps,
                           GError    **error);

G_END_DECLS
