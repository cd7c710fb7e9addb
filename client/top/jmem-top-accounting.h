/* SPDX-License-Identifier: GPL-2.0-or-later */
/* jmem top's "RAM [...]" line: the accounting of MemTotal as one stacked
 * bar, a letter per bucket, and its legend. Pure text, tested without a
 * terminal. */
#pragma once

#include <glib.h>

#include "jmem-frame.h"

G_BEGIN_DECLS

/* What a bucket's letters are drawn in, by the bucket's stable name. */
typedef enum {
  JMEM_TOP_BUCKET_PLAIN,     /* free, and names this jmem does not know */
  JMEM_TOP_BUCKET_CACHE,     /* page cache, shmem */
  JMEM_TOP_BUCKET_PROCESS,   /* anonymous memory and its compressed stores */
  JMEM_TOP_BUCKET_KERNEL,    /* slab, stacks, page tables, vmalloc, per-CPU */
  JMEM_TOP_BUCKET_GPU,       /* NvMap, its pool, hugetlb (Thor's GPU carveout) */
  JMEM_TOP_BUCKET_UNEXPLAINED,
} JmemTopBucketKind;

/* The letter of a bucket, fixed by its stable name (docs/accounting.md):
 * "n" NvMap in use, "c" page cache, "?" unexplained, "." free, ...; "*"
 * for a name this jmem does not know. */
char jmem_top_bucket_letter (const char *name);
JmemTopBucketKind jmem_top_bucket_kind (char letter);

/* The bar's @cells letters: the known buckets larger than 0 in the
 * snapshot's order with free last (at the right, as in the Mem bar), each
 * given its share of their sum in whole cells, the cells left over going
 * to the largest remainders, so that the letters fill the bar; a bucket
 * too small for a cell may have none. NULL without buckets. */
char *jmem_top_accounting_bar (const JmemFrame *frame,
                               guint            cells);

/* The legend in at most @cols columns: "c page cache 13.6G" for each
 * bucket the bar draws, largest first and free last, as many as fit, then
 * "+N more" for the other buckets larger than 0 (which jmem snapshot
 * lists), and the overlap when the buckets add up to more than MemTotal. */
char *jmem_top_accounting_legend (const JmemFrame *frame,
                                  const char      *bar,
                                  guint            cols);

G_END_DECLS
