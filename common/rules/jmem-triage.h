/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Triage: rules that turn a snapshot into findings a person or an agent can
 * act on. Every threshold is here, with the reason for its value; the rules
 * themselves live in jmem-triage-rules-*.c and docs/triage.md explains them. */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

#include "jmem-finding.h"
#include "jmem-snapshot.h"

G_BEGIN_DECLS

/* gpu-dominates: from half of RAM on, the shared pool is mostly GPU memory and
 * RSS-based tools (top, smem) miss the main consumer. */
#define JMEM_TRIAGE_GPU_DOMINATES_PERCENT 50

/* desktop-nvmap: a desktop's compositor and X server hold a few MiB of NvMap
 * for the cursor and scanout; from 16 MiB on, headless mode returns memory
 * that is worth a reboot into multi-user.target. */
#define JMEM_TRIAGE_DESKTOP_NVMAP_MIN_KIB (16 * 1024)

/* single-process-dominates: one process holding three quarters of the GPU
 * memory (or more than 60 % of RAM in all) is where the memory is: model
 * weights and KV cache. Below 1 GiB of GPU memory the share says nothing
 * (a desktop alone holds most of a small total). */
#define JMEM_TRIAGE_SINGLE_GPU_SHARE_PERCENT 75
#define JMEM_TRIAGE_SINGLE_RAM_PERCENT 60
#define JMEM_TRIAGE_SINGLE_MIN_GPU_KIB (1024 * 1024)

/* unexplained-large: the accounting's remainder (memory in no meminfo field
 * and no NvMap figure) above a tenth of MemTotal. A healthy Jetson keeps a
 * few hundred MiB there (drivers' dma_alloc, CMA lent to devices, GPU
 * firmware); a tenth of RAM is a driver or kernel leak, or a source jmem
 * could not read. On the unified stack the GPU memory nvidia-smi reports is
 * taken out first: nvidia.ko's allocations are in no meminfo field. */
#define JMEM_TRIAGE_UNEXPLAINED_PERCENT 10

/* cuda-pool-retained: before L4T r39 (JetPack 7.2) the GPU driver keeps the
 * pages a CUDA process freed pooled after it exits. With no live process
 * holding at least 256 MiB of GPU memory, a gap of a tenth of RAM beyond what
 * processes and the kernel's own counters explain is that pool. */
#define JMEM_TRIAGE_CUDA_POOL_FIXED_MAJOR JMEM_ACCOUNTING_GPU_POOL_FIXED_MAJOR
#define JMEM_TRIAGE_CUDA_LIVE_MIN_KIB JMEM_ACCOUNTING_GPU_LIVE_MIN_KIB
#define JMEM_TRIAGE_CUDA_POOL_PERCENT 10

/* gpu-managed-unreported: NVML under-reports memory CUDA manages
 * (cudaMallocManaged) on the unified stack; the UVM driver maps it into the
 * process, so it shows in its RSS. A listed GPU process whose RSS is at
 * least 1 GiB and more than twice the GPU memory reported for it points to
 * such memory. */
#define JMEM_TRIAGE_MANAGED_MIN_RSS_KIB (1024 * 1024)
#define JMEM_TRIAGE_MANAGED_RSS_FACTOR 2

/* swap-heavy: past half of swap in use, pages are being pushed out under
 * pressure, and on eMMC/SD swap that stalls everything. */
#define JMEM_TRIAGE_SWAP_USED_PERCENT 50

/* cma-exhausted: camera, video and display buffers need physically
 * contiguous memory from CMA; under 5 % free their allocations start failing. */
#define JMEM_TRIAGE_CMA_FREE_PERCENT 5

/* thermal-hot: Jetson modules start throttling in the mid 90s °C and shut
 * down near 105; above 90 the clocks (and throughput) are about to drop.
 * Readings above 150 °C are sensor errors, not heat, and are ignored. */
#define JMEM_TRIAGE_THERMAL_CELSIUS 90.0
#define JMEM_TRIAGE_THERMAL_PLAUSIBLE_CELSIUS 150.0

/* lfb-fragmented: tegrastats' largest free block, where buddyinfo was not
 * read (fragmented says it from the kernel's own figures). Less than 64 MiB of free
 * blocks of the largest size, or no 4 MiB block and fewer than 64 smaller
 * ones, means large contiguous allocations (NvMap, CMA, huge pages) fail or
 * stall on compaction. */
#define JMEM_TRIAGE_LFB_MIN_TOTAL_KIB (64 * 1024)
#define JMEM_TRIAGE_LFB_FULL_BLOCK_KIB (4 * 1024)
#define JMEM_TRIAGE_LFB_FEW_BLOCKS 64

/* headroom-low: after the kernel reclaims all it can (unmapped page cache,
 * half the reclaimable slab, what swap takes), less than a tenth of RAM is
 * left for a new allocation: a model load or an engine build sized for the
 * board fails, or the OOM killer chooses. Below a twentieth it is critical:
 * the board is one allocation from it. */
#define JMEM_TRIAGE_HEADROOM_LOW_PERCENT 10
#define JMEM_TRIAGE_HEADROOM_CRITICAL_PERCENT 5

/* fragmented: buddyinfo's largest free block below 2 MiB with at least 256
 * MiB free (JMEM_HEADROOM_HUGE_BLOCK_KIB, JMEM_HEADROOM_FRAGMENTED_MIN_FREE_KIB,
 * jmem-headroom.h). The thresholds live with the headroom, which computes
 * the flag; this rule reports it. */

/* Runs every rule on @snapshot; returns the findings (JmemFinding, most
 * severe first, rule order otherwise), empty when nothing needs attention.
 * Never fails: a rule whose inputs are missing stays silent. The process list
 * must still be complete (run before --top cuts it). */
GPtrArray *jmem_triage_run (const JmemSnapshot *snapshot);

/* The finding with @id in @findings, or NULL. */
const JmemFinding *jmem_triage_find (GPtrArray *findings, const char *id);

G_END_DECLS
