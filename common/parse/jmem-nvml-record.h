/* SPDX-License-Identifier: GPL-2.0-or-later */
/* NVML's answer as `jmem capture` records it beside nvidia-smi's output
 * (nvidia-smi/nvml.json, docs/capture-format.md), and read back by
 * `--sysroot`, which prefers it to nvidia-smi's text as live jmem does. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define JMEM_NVML_RECORD_PATH "/nvidia-smi/nvml.json"
#define JMEM_NVML_RECORD_VERSION 1

/* Which of NVML's process lists named a row (JmemNvsmiApp.nvml_lists). */
typedef enum {
  JMEM_NVML_LIST_COMPUTE = 1 << 0,  /* nvmlDeviceGetComputeRunningProcesses */
  JMEM_NVML_LIST_GRAPHICS = 1 << 1, /* nvmlDeviceGetGraphicsRunningProcesses */
} JmemNvmlList;

/* @gpus (JmemNvsmiGpu) and @apps (JmemNvsmiApp) as the record's JSON. */
char *jmem_nvml_record_render (const GPtrArray *gpus,
                               const GPtrArray *apps);

/* The record in @data: its GPUs and rows, as NVML's own answer gives them
 * (process_name NULL). FALSE with JMEM_ERROR when it is not one: not JSON,
 * another version, a GPU without a UUID, a row without a PID. */
gboolean jmem_nvml_record_parse (const char  *data,
                                 gsize        len,
                                 GPtrArray  **gpus,
                                 GPtrArray  **apps,
                                 GError     **error);

G_END_DECLS
