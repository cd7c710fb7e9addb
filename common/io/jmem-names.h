/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Names shared by the helper, the client and the tests: one place for each. */
#pragma once

#define JMEM_DBUS_NAME       "dev.jmem.Helper1"
#define JMEM_DBUS_PATH       "/dev/jmem/Helper1"
#define JMEM_DBUS_INTERFACE  "dev.jmem.Helper1"

#define JMEM_ACTION_READ_NVMAP       "dev.jmem.read-nvmap"
#define JMEM_ACTION_READ_ALLOCATIONS "dev.jmem.read-allocations"
#define JMEM_ACTION_DROP_CACHES      "dev.jmem.drop-caches"

/* Fixed kernel paths: the helper never takes a path from a caller. */
#define JMEM_NVMAP_CLIENTS_PATH      "/sys/kernel/debug/nvmap/iovmm/clients"
#define JMEM_NVMAP_ALLOCATIONS_PATH  "/sys/kernel/debug/nvmap/iovmm/allocations"
#define JMEM_NVMAP_TOTAL_MEMORY_PATH "/sys/kernel/debug/nvmap/stats/total_memory"
#define JMEM_NVMAP_MAPS_PATH         "/sys/kernel/debug/nvmap/iovmm/maps"
#define JMEM_NVMAP_FREE_SIZE_PATH    "/sys/kernel/debug/nvmap/iovmm/free_size"
#define JMEM_NVMAP_POOL_PAGES_PATH   "/sys/kernel/debug/nvmap/pagepool/page_pool_available_pages"
#define JMEM_NVMAP_POOL_TO_ZERO_PATH "/sys/kernel/debug/nvmap/pagepool/page_pool_pages_to_zero"
/* What a capture adds beside the kernel's files (docs/capture-format.md). */
#define JMEM_CAPTURE_PAGE_SIZE_PATH  "/jmem/page-size"
#define JMEM_CAPTURE_ZRAM_PATH       "/jmem/zram-devices"

#define JMEM_BUDDYINFO_PATH          "/proc/buddyinfo"
#define JMEM_SWAPS_PATH              "/proc/swaps"
#define JMEM_MIN_FREE_KBYTES_PATH    "/proc/sys/vm/min_free_kbytes"

#define JMEM_DROP_CACHES_PATH        "/proc/sys/vm/drop_caches"
#define JMEM_COMPACT_MEMORY_PATH     "/proc/sys/vm/compact_memory"

/* Size caps for every file read; larger input is refused, never truncated. */
#define JMEM_MAX_DEBUGFS_BYTES  (32u * 1024u * 1024u)
#define JMEM_MAX_PROC_BYTES     (4u * 1024u * 1024u)
#define JMEM_MAX_SMALL_BYTES    (64u * 1024u)

/* The helper's AccessDenied message starts with this when polkit cannot be
 * asked; the client tells that apart from a plain refusal. */
#define JMEM_POLKIT_UNAVAILABLE "polkit is unavailable"
/* ...and goes on with this, then the seconds, when polkit was there but
 * did not answer in time (a hung polkitd), not when nothing provides it. */
#define JMEM_POLKIT_NO_ANSWER   "it did not answer within "
