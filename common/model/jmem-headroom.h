/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Can this board still allocate N? How much a new GPU allocation can get
 * now, after the kernel reclaims what it can, the largest contiguous free
 * block, and what stands in the way. A pure computation over what
 * collection parsed (the accounting's buckets, meminfo, buddyinfo, swaps,
 * zram, the page size); every face renders these structs and none
 * recomputes a figure. The method, its sources and where it differs from
 * NVIDIA's own estimate are in docs/headroom.md. */
#pragma once

#include <glib.h>

#include "jmem-accounting.h"
#include "jmem-buddyinfo.h"
#include "jmem-meminfo.h"
#include "jmem-swaps.h"

G_BEGIN_DECLS

/* A transparent huge page, and the block a large contiguous buffer wants:
 * below it in every zone, memory is fragmented for such requests. */
#define JMEM_HEADROOM_HUGE_BLOCK_KIB 2048

/* Fragmented: no free block of JMEM_HEADROOM_HUGE_BLOCK_KIB anywhere while at
 * least this much is free. With less free, small blocks are what is left
 * of any allocator and say nothing about fragmentation. */
#define JMEM_HEADROOM_FRAGMENTED_MIN_FREE_KIB (256 * 1024)

/* Swapping a page into zram keeps it compressed in RAM: with nothing stored
 * yet to measure the ratio, jmem assumes 2:1 and says so (lz4 and lzo, the
 * compressors Jetson's nvzramconfig and Debian's zram-tools use, reach 2
 * to 3 on ordinary anonymous memory). */
#define JMEM_HEADROOM_ZRAM_ASSUMED_RATIO 2.0

/* How many holders and services are named. */
#define JMEM_HEADROOM_MAX_NAMED 3

/* A service holding less is not worth stopping for a GPU allocation. */
#define JMEM_HEADROOM_MIN_SERVICE_KIB (64 * 1024)

typedef enum {
  JMEM_HEADROOM_NO_NEED,       /* no size was asked about */
  JMEM_HEADROOM_FITS_NOW,
  JMEM_HEADROOM_FITS_AFTER_RECLAIM,
  JMEM_HEADROOM_DOES_NOT_FIT,
  JMEM_HEADROOM_UNKNOWN,       /* the figures it needs are unknown */
} JmemHeadroomVerdict;

/* "fits-now", "fits-after-reclaim", "does-not-fit", "unknown"; NULL for NO_NEED. */
const char *jmem_headroom_verdict_name (JmemHeadroomVerdict verdict);

/* The parts of the two figures, in order; the first five make "now", the
 * rest what reclaim adds. */
typedef enum {
  JMEM_HEADROOM_TERM_FREE,         /* + MemFree */
  JMEM_HEADROOM_TERM_CMA_FREE,     /* - CmaFree: NvMap does not allocate from CMA */
  JMEM_HEADROOM_TERM_RESERVE,      /* - min_free_kbytes: the kernel's own reserve */
  JMEM_HEADROOM_TERM_NVMAP_POOL,   /* + NvMap's page pool: allocated from first */
  JMEM_HEADROOM_TERM_GPU_CARVEOUT, /* + free hugetlb pages of a GPU carveout */
  JMEM_HEADROOM_TERM_PAGE_CACHE,   /* + unmapped page cache: what drop-caches frees */
  JMEM_HEADROOM_TERM_SLAB,         /* + half the reclaimable kernel memory */
  JMEM_HEADROOM_TERM_GPU_POOL,     /* + nvidia.ko's pool (R38): its shrinker gives it back */
  JMEM_HEADROOM_TERM_SWAP,         /* + anonymous memory swap can take, less zram's cost */
  JMEM_HEADROOM_N_TERMS
} JmemHeadroomTermId;

#define JMEM_HEADROOM_FIRST_RECLAIM_TERM JMEM_HEADROOM_TERM_PAGE_CACHE

typedef struct {
  JmemHeadroomTermId id;
  gint64      kib;       /* the size, >= 0, or -1 unknown (then it counts 0) */
  gboolean    subtract;  /* taken off, not added */
  char       *fields;    /* the arithmetic in the source's names */
  const char *source;    /* "meminfo", "nvmap", "sysctl", "swaps", "zram" */
  char       *note;      /* a rule applied, or why unknown; NULL */
} JmemHeadroomTerm;

typedef struct {
  guint   node;
  char   *zone;
  gint64  free_kib;            /* every free block; -1 without the page size */
  gint    largest_order;       /* -1: nothing free */
  guint64 largest_blocks;      /* free blocks of that order */
  gint64  largest_block_kib;   /* -1 without the page size */
  gint64  huge_free_kib;       /* in blocks of JMEM_HEADROOM_HUGE_BLOCK_KIB or more */
} JmemHeadroomZone;

typedef struct {
  gint64  pid;
  char   *name;
  char   *user;
  char   *unit;                /* the systemd service, or NULL */
  gint64  footprint_kib;
  gint64  nvmap_kib;           /* -1 unknown */
  gint64  gpu_kib;             /* -1 unknown */
} JmemHeadroomHolder;

typedef struct {
  char   *unit;                /* "ollama.service" */
  gint64  kib;                 /* its processes' footprints */
  guint   n_processes;
  gboolean desktop;            /* the display manager, by its session's processes */
} JmemHeadroomService;

typedef struct {
  gint64              need_kib;        /* -1: none asked */
  JmemHeadroomVerdict verdict;
  gint64              shortfall_kib;   /* fits after reclaim: need - now; does not fit:
                                        * need - after; else 0 (-1 unknown) */

  gint64           allocatable_now_kib;            /* -1 unknown */
  gint64           allocatable_after_reclaim_kib;  /* -1 unknown */
  gint64           drop_caches_kib;  /* page cache + slab + the GPU driver's pool: what
                                      * `jmem drop-caches` gives back */
  JmemHeadroomTerm terms[JMEM_HEADROOM_N_TERMS];

  gint64      page_size;              /* bytes; -1 unknown */
  gint64      largest_free_block_kib; /* over every zone, -1 unknown */
  guint64     largest_free_blocks;
  char       *largest_free_block_zone;/* where (the first zone that has one), or NULL */
  gint64      buddy_free_kib;         /* every free block (about MemFree), -1 unknown */
  gint64      huge_free_kib;          /* of it in blocks of 2 MiB or more, -1 unknown */
  gboolean    fragmented;             /* free plenty, no block of 2 MiB (jmem-triage.h) */
  GPtrArray  *zones;                  /* JmemHeadroomZone; empty without buddyinfo */

  gint64      cma_total_kib;          /* -1 unknown (0: no CMA) */
  gint64      cma_free_kib;
  gint64      hugetlb_total_kib;      /* the hugetlb pool, -1 unknown */
  gint64      hugetlb_free_kib;
  gboolean    gpu_carveout;           /* the pool is the GPU's (Thor, FROM_HUGETLBFS) */
  gint64      swap_free_kib;          /* SwapFree, -1 unknown */
  double      zram_ratio;             /* used for zram; 0 when there is no zram swap */
  gboolean    zram_ratio_assumed;
  gint64      nvmap_free_size_kib;    /* NvMap's own estimate (iovmm/free_size), -1 unread */
  gint64      app_note_kib;           /* the CUDA for Tegra application note's estimate, -1 */
  char       *app_note_fields;

  GPtrArray  *holders;    /* JmemHeadroomHolder, largest footprint first */
  GPtrArray  *services;   /* JmemHeadroomService, largest first */
  GPtrArray  *actions;    /* char*: what makes the need fit, commands first */
  GPtrArray  *notes;      /* char*: assumptions and what was unknown, with sources */
} JmemHeadroom;

/* A process as the headroom sees it; the snapshot's adapter fills it. */
typedef struct {
  gint64      pid;
  const char *name;
  const char *user;
  const char *unit;      /* systemd service, NULL */
  gboolean    desktop;   /* a desktop session process (jmem_process_is_desktop) */
  gint64      footprint_kib;
  gint64      nvmap_kib;
  gint64      gpu_kib;
} JmemHeadroomProcess;

typedef struct {
  const JmemAccounting *accounting;   /* NULL: nothing is known */
  const JmemMeminfo    *meminfo;      /* fields no bucket has: Mapped, SwapFree, the anon LRU */
  const JmemBuddyinfo  *buddyinfo;    /* NULL unread */
  gint64                page_size;    /* bytes; -1 unknown */
  gint64                min_free_kib; /* /proc/sys/vm/min_free_kbytes; -1 unread */
  const JmemSwaps      *swaps;        /* NULL unread */
  gint64                zram_orig_bytes;  /* what zram holds, uncompressed; -1 unread */
  gint64                zram_used_bytes;  /* the RAM it takes for it; -1 unread */
  gboolean              unified_gpu;  /* nvidia.ko (Thor) */
  gboolean              discrete_gpu; /* not a Jetson, and nvidia-smi lists a GPU: it has its
                                       * own memory, and this RAM is the CPU's */
  const char           *display_manager;  /* the active one among the snapshot's services */
  const JmemHeadroomProcess *processes;   /* largest footprint first */
  guint                 n_processes;
  gint64                need_kib;     /* -1: no need */
} JmemHeadroomInput;

JmemHeadroom *jmem_headroom_compute (const JmemHeadroomInput *input);
void jmem_headroom_free (JmemHeadroom *headroom);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (JmemHeadroom, jmem_headroom_free)

const char *jmem_headroom_term_name (JmemHeadroomTermId id);   /* "page_cache" */
const char *jmem_headroom_term_label (JmemHeadroomTermId id);  /* "page cache" */

/* The services holding the most, as the actions name them: "ollama.service
 * (3.1 GiB), gdm3.service (1.2 GiB, the desktop)"; "" for none. */
char *jmem_headroom_services_text (const JmemHeadroom *headroom);

/* What drop_caches_kib is made of, in words: "page cache and slab", and
 * the GPU driver's pool where it holds any. */
const char *jmem_headroom_drop_caches_what (const JmemHeadroom *headroom);

/* The process exit status of `jmem headroom` for @verdict: 0 fits now (or
 * nothing asked), 1 fits after reclaim, 2 does not fit; -1 unknown. */
int jmem_headroom_exit_status (JmemHeadroomVerdict verdict);

G_END_DECLS
