/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Where the RAM is: MemTotal as disjoint named buckets and an honest
 * remainder, and each process's footprint without the NvMap pages its PSS
 * already holds. A pure computation over what collection parsed; every
 * face renders these structs and none recomputes a bucket. The sources and
 * overlap rules per kernel generation are in docs/accounting.md. */
#pragma once

#include <glib.h>

#include "jmem-meminfo.h"

G_BEGIN_DECLS

/* In display order; jmem_accounting_bucket_name() is the stable id
 * (JSON, the metrics' bucket label). */
typedef enum {
  JMEM_BUCKET_FREE,
  JMEM_BUCKET_PAGE_CACHE,
  JMEM_BUCKET_PAGE_CACHE_LOCKED,
  JMEM_BUCKET_SHMEM,
  JMEM_BUCKET_ANON,
  JMEM_BUCKET_SLAB_RECLAIMABLE,
  JMEM_BUCKET_SLAB_UNRECLAIMABLE,
  JMEM_BUCKET_KERNEL_RECLAIMABLE,
  JMEM_BUCKET_KERNEL_STACK,
  JMEM_BUCKET_PAGE_TABLES,
  JMEM_BUCKET_VMALLOC,
  JMEM_BUCKET_PERCPU,
  JMEM_BUCKET_HUGETLB,
  JMEM_BUCKET_ZRAM,
  JMEM_BUCKET_ZSWAP,
  JMEM_BUCKET_NVMAP,
  JMEM_BUCKET_NVMAP_POOL,
  JMEM_BUCKET_GPU,         /* nvidia.ko's GPU memory, as NVML or nvidia-smi report it */
  JMEM_BUCKET_GPU_POOL,    /* what nvidia.ko keeps pooled after processes exit: an estimate */
  JMEM_N_BUCKETS
} JmemBucketId;

/* Before L4T r39 (JetPack 7.2) nvidia.ko keeps the pages exited CUDA
 * processes freed pooled; with no live process holding this much GPU
 * memory, the remainder is taken as that pool (an estimate). */
#define JMEM_ACCOUNTING_GPU_POOL_FIXED_MAJOR 39
#define JMEM_ACCOUNTING_GPU_LIVE_MIN_KIB (256 * 1024)

/* Fields past this are refused (no board has 4 EiB): every sum then fits
 * 64 bits, in KiB and in bytes. */
#define JMEM_ACCOUNTING_MAX_KIB (G_GINT64_CONSTANT (1) << 42)

typedef struct {
  JmemBucketId id;
  gint64       kib;      /* -1: unknown (absent or refused inputs): not in the sum */
  char        *fields;   /* the arithmetic, in the source's names: "Active(file) + Inactive(file)" */
  const char  *source;   /* "meminfo", "nvmap", "zram", "nvml", "nvidia-smi", "estimate" */
  char        *note;     /* the overlap rule applied, or why it is unknown; NULL */
  gboolean     estimate; /* inferred, not read: the note gives the reasoning */
} JmemBucket;

typedef struct {
  guint  n_processes;
  guint  n_without_pss;          /* counted by RSS below, an upper bound */
  gint64 pss_kib;                /* sum of (PSS - NvMap-mapped PSS) */
  gint64 rss_without_pss_kib;    /* sum of (RSS - NvMap-mapped) where PSS is unknown */
  gint64 kernel_mapped_kib;      /* AnonPages + Mapped: what processes map, as the kernel counts it */
  gint64 nvmap_shares_kib;       /* sum of the processes' NvMap shares */
  gint64 nvmap_kib;              /* NvMap in use (the bucket before FROM_HUGETLBFS), -1 unknown */
  gint64 gpu_kib;                /* sum of the live processes' GPU memory, -1 none */
  gint64 used_kib;               /* MemTotal - MemFree */
  gint64 by_processes_kib;       /* pss + rss_without_pss + each process's larger of
                                  * its NvMap share and its GPU memory */
  gint64 held_by_no_process_kib; /* used - by_processes (negative: processes counted twice) */
} JmemReconciliation;

typedef struct {
  gint64      mem_total_kib;       /* -1: nothing accounted (why in notes) */
  JmemBucket  buckets[JMEM_N_BUCKETS];
  gint64      accounted_kib;       /* sum of the known buckets */
  gint64      unexplained_kib;     /* MemTotal - accounted; negative: counted twice */

  gint64      physical_kib;        /* RAM the board has; -1 unknown */
  const char *physical_source;     /* "device-tree", "module", NULL */
  char       *physical_note;       /* what the figure means, or why it is unknown */
  gint64      firmware_reserved_kib;  /* physical - MemTotal; -1 unknown */

  const char *nvmap_source;        /* "debugfs", "meminfo", NULL: where NvMap in use came from */
  gint64      nvmap_total_kib;     /* NvMap in use as read, before the hugetlbfs part */
  gint64      nvmap_hugetlbfs_kib; /* of it, pages from the hugetlb pool (FROM_HUGETLBFS); -1 unknown */
  gint64      nvmap_iovmm_allocatable_kib; /* iovmm/free_size; -1 unknown */
  gint64      hugetlb_free_kib;    /* of the hugetlb bucket, pages free in the pool; -1 unknown */
  gint64      gpu_reported_kib;    /* GPU memory the driver reports, every counted row; -1 none */
  gint64      gpu_exited_kib;      /* of it, rows of PIDs with no process */
  gint64      gpu_hugetlb_overlap_kib; /* of it, what may be hugetlb pages in use: counted
                                        * there, not in gpu (docs/accounting.md); -1 none */
  gint64      cma_total_kib;       /* CMA is inside free and the LRU: context only */
  gint64      cma_free_kib;

  JmemReconciliation reconciliation;
  GPtrArray  *notes;               /* char*: rules and assumptions, each with its source */
  GPtrArray  *warnings;            /* char*: refused inputs, sources that disagree */
} JmemAccounting;

/* What a process contributes; the collector fills it from JmemProcess. */
typedef struct {
  gint64 pid;
  gint64 pss_kib;           /* -1 unknown */
  gint64 rss_kib;
  gint64 nvmap_kib;         /* NvMap share, -1 unknown */
  gint64 nvmap_mapped_kib;  /* NvMap pages inside the base (PSS or RSS), -1 unknown */
  gint64 gpu_kib;           /* GPU memory the driver reports for it, -1 unknown */
} JmemAccountingProcess;

typedef struct {
  const JmemMeminfo *meminfo;          /* NULL: nothing accounted */
  const char        *kernel_release;   /* "5.15.148-tegra": which overlap rules hold; NULL unknown */
  gboolean           unified_gpu;      /* nvidia.ko stack (Thor) */
  gint64             gpu_reported_kib; /* the rows that count, one figure per PID, exited
                                        * PIDs' included; -1 no answer that counts */
  gint64             gpu_exited_kib;   /* of it, PIDs with no process */
  const char        *gpu_source;       /* "nvml", "nvidia-smi" */
  gint64             l4t_major;        /* 38 for R38.4; -1 unknown */

  gint64             nvmap_total_kib;  /* iovmm/clients total line; -1 unread */
  gboolean           nvmap_absent;     /* this kernel has no NvMap at all (not merely unread) */
  gint64             nvmap_pool_pages; /* pagepool available + to_zero pages; -1 unread */
  gint64             page_size;        /* bytes per page of the kernel; -1 unknown */
  gint64             nvmap_hugetlbfs_kib;  /* handles with FROM_HUGETLBFS 1; -1 unknown */
  gboolean           nvmap_hugetlbfs_column; /* the driver prints FROM_HUGETLBFS */
  gint64             nvmap_free_size_bytes;  /* iovmm/free_size; -1 unread */
  gint64             zram_bytes;       /* sum of /sys/block/zram*\/mm_stat mem_used_total; -1 none */
  gint64             device_tree_bytes;/* sum of the /memory nodes' reg sizes; -1 none */
  gint64             module_kib;       /* the module's RAM by its part number; -1 unknown */
  const char        *module_name;      /* "orin-agx-64gb" */

  const JmemAccountingProcess *processes;  /* every process, not only those shown */
  guint              n_processes;
} JmemAccountingInput;

JmemAccounting *jmem_accounting_compute (const JmemAccountingInput *input);
void jmem_accounting_free (JmemAccounting *accounting);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (JmemAccounting, jmem_accounting_free)

const char *jmem_accounting_bucket_name (JmemBucketId id);   /* "page_cache" */
const char *jmem_accounting_bucket_label (JmemBucketId id);  /* "page cache" */

/* The largest known bucket other than free (what `jmem summary` names). */
const JmemBucket *jmem_accounting_largest_used (const JmemAccounting *accounting);

/* A process's footprint: (base - nvmap_mapped) + swap + max(NvMap share,
 * GPU), where the base is PSS, or RSS when PSS is unknown, and
 * nvmap_mapped the NvMap pages inside that base (nvmap_fault.c maps them
 * as ordinary pages). *used_pss (nullable) tells which base. -1 when
 * neither base is known. */
gint64 jmem_accounting_footprint (gint64    pss_kib,
                                  gint64    rss_kib,
                                  gint64    swap_kib,
                                  gint64    nvmap_kib,
                                  gint64    gpu_kib,
                                  gint64    nvmap_mapped_kib,
                                  gboolean *used_pss);

/* Sum of the reg sizes of device-tree memory nodes: @reg holds big-endian
 * (address, size) pairs of @address_cells and @size_cells 32-bit cells.
 * FALSE for cells other than 1 or 2 or a length that is no whole pair. */
gboolean jmem_accounting_device_tree_bytes (const guint8 *reg,
                                            gsize         len,
                                            guint         address_cells,
                                            guint         size_cells,
                                            guint64      *bytes);

/* zram's mm_stat: the first number, orig_data_size (what it holds,
 * uncompressed), and the third, mem_used_total (the RAM that takes), in
 * bytes. */
gboolean jmem_accounting_zram_mm_stat (const char *data,
                                       gsize       len,
                                       guint64    *orig_bytes,
                                       guint64    *used_bytes);

G_END_DECLS
