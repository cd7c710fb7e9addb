/* SPDX-License-Identifier: GPL-2.0-or-later */
/* /proc/buddyinfo: the free blocks of the kernel's page allocator, per zone
 * and order (mm/vmstat.c, frag_show_print). A block of order N is 2^N pages;
 * what a page is comes from the system read (jmem-headroom.h), never an
 * assumed 4 KiB. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Kernels print NR_PAGE_ORDERS columns: 11 with 4 KiB pages, up to 14 with
 * 64 KiB ones; more than this is no buddyinfo. */
#define JMEM_BUDDY_MAX_ORDERS 32

typedef struct {
  guint    node;
  char    *zone;                           /* "Normal", "DMA32", ...: valid UTF-8 */
  guint    n_orders;                       /* columns read */
  guint64  blocks[JMEM_BUDDY_MAX_ORDERS];  /* free blocks of each order */
} JmemBuddyZone;

typedef struct {
  GPtrArray *zones;        /* JmemBuddyZone, in file order */
  guint      n_malformed;  /* lines skipped */
} JmemBuddyinfo;

void jmem_buddyinfo_free (JmemBuddyinfo *buddyinfo);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (JmemBuddyinfo, jmem_buddyinfo_free)

/* "Node 0, zone   Normal   1   0 ..." lines; malformed ones are counted
 * and skipped. NULL (JMEM_ERROR_FAILED) when no line is a zone's. */
JmemBuddyinfo *jmem_buddyinfo_parse (const char *data,
                                     gsize       len,
                                     GError    **error);

G_END_DECLS
