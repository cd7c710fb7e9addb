/* SPDX-License-Identifier: GPL-2.0-or-later */
/* NVML (libnvidia-ml.so.1) loaded at run time, for the unified driver stack
 * (Thor, discrete GPUs): the GPU list and per-process GPU memory without
 * starting nvidia-smi. No NVIDIA header or library is needed to build. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define JMEM_NVML_SONAME "libnvidia-ml.so.1"

/* Where root loads the library from: only these system directories, by full
 * path, never a search that LD_LIBRARY_PATH could steer (glibc ignores it
 * only for setuid programs). */
extern const char * const jmem_nvml_system_dirs[];

typedef struct {
  GPtrArray *gpus;      /* JmemNvsmiGpu; memory -1 where NVML says not supported */
  GPtrArray *apps;      /* JmemNvsmiApp, compute and graphics, one row per GPU and
                         * PID; process_name NULL (the collector names them from /proc) */
  GPtrArray *evidence;  /* char*: what was loaded and which calls answered */
} JmemNvmlAnswer;

void jmem_nvml_answer_clear (JmemNvmlAnswer *answer);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (JmemNvmlAnswer, jmem_nvml_answer_clear)

/* Loads the library, lists every GPU and its processes, unloads it. FALSE
 * when it is absent, lacks a needed symbol, nvmlInit fails or it lists no GPU:
 * @answer->evidence then says why (nvidia-smi is the fallback). */
gboolean jmem_nvml_query (JmemNvmlAnswer *answer);

G_END_DECLS
