/* SPDX-License-Identifier: GPL-2.0-or-later */
/* nvidia-smi CSV output (--format=csv,noheader,nounits). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The queries jmem runs; the name column comes last so commas in it survive. */
#define JMEM_NVSMI_QUERY_GPU  "--query-gpu=index,uuid,memory.total,memory.used,memory.free,name"
#define JMEM_NVSMI_QUERY_APPS "--query-compute-apps=gpu_uuid,pid,used_memory,process_name"
#define JMEM_NVSMI_FORMAT     "--format=csv,noheader,nounits"
/* A capture's nvidia-smi/NAME.csv for the second --query-compute-apps
 * answer, asked when the first listed a process that had gone */
#define JMEM_NVSMI_APPS_AGAIN "query-compute-apps.again"

typedef struct {
  gint64  index;            /* -1 when not reported */
  char   *uuid;             /* NULL when not reported */
  char   *name;
  gint64  memory_total_mib; /* -1 for [N/A], [Not Supported], N/A */
  gint64  memory_used_mib;
  gint64  memory_free_mib;
} JmemNvsmiGpu;

typedef struct {
  char   *gpu_uuid;
  gint64  pid;
  gint64  used_memory_mib;  /* -1 when not reported */
  char   *process_name;     /* valid UTF-8, may hold commas; the collector puts
                             * the /proc name of a PID that exists here */
  gboolean pid_exists;      /* TRUE from the parser; FALSE once the collector
                             * found no /proc entry for the PID */
  gboolean in_doubt;        /* FALSE from the parser and NVML; TRUE once the
                             * collector found that a name may have forged
                             * it: shown, but counted for no process */
  guint    nvml_lists;      /* JmemNvmlList: the NVML lists that named it; 0
                             * for nvidia-smi's rows */
} JmemNvsmiApp;

typedef enum {
  JMEM_GPU_STACK_NONE,      /* no nvidia-smi, or it printed no GPU */
  JMEM_GPU_STACK_NVGPU,     /* "Orin (nvgpu)": memory lives in NvMap */
  JMEM_GPU_STACK_UNIFIED,   /* nvidia.ko (Thor, discrete): nvidia-smi reports it */
} JmemGpuStack;

const char *jmem_gpu_stack_to_string (JmemGpuStack stack);

void jmem_nvsmi_gpu_free (JmemNvsmiGpu *gpu);
void jmem_nvsmi_app_free (JmemNvsmiApp *app);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (JmemNvsmiGpu, jmem_nvsmi_gpu_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (JmemNvsmiApp, jmem_nvsmi_app_free)

/* Each returns a GPtrArray with a free func; malformed lines are counted. */
GPtrArray *jmem_nvsmi_gpus_parse (const char *data, gsize len,
                                  guint *n_malformed, GError **error);
GPtrArray *jmem_nvsmi_apps_parse (const char *data, gsize len,
                                  guint *n_malformed, GError **error);

/* Removes from @apps each row whose GPU UUID is not one of @gpus' UUIDs (a
 * row without a UUID included): only a GPU --query-gpu listed holds memory.
 * Returns how many were removed. */
guint jmem_nvsmi_apps_keep_listed (GPtrArray *apps, const GPtrArray *gpus);

/* Unified when a GPU is named and the name lacks "(nvgpu)". */
JmemGpuStack jmem_nvsmi_stack_from_gpus (GPtrArray *gpus);

G_END_DECLS
