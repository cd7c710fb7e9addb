/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "jmem-framework-gates.h"

#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "jmem-size.h"
#include "jmem-text.h"

typedef struct {
  const char *name;
  const char *reads;
  const char *source;
} GateDef;

/* Read in each framework's own source; docs/headroom.md quotes them. */
static const GateDef defs[JMEM_GATE_N] = {
  [JMEM_GATE_VLLM] = { "vllm", "free memory at start >= gpu_memory_utilization x total",
    "vllm/v1/worker/gpu_worker.py init_device; vllm/utils/mem_utils.py MemorySnapshot.measure "
    "(a6d5c39)" },
  [JMEM_GATE_SGLANG] = { "sglang", "available GPU memory at start",
    "python/sglang/srt/utils/common.py get_available_gpu_memory (4e75f46)" },
  [JMEM_GATE_TENSORRT] = { "tensorrt", "free device memory per tactic (\"Available\")",
    "closed builder; its log \"Tactic Device request: N Available: M\" "
    "(NVIDIA/TensorRT#1661, ultralytics/ultralytics#17640)" },
  [JMEM_GATE_PYTORCH] = { "pytorch", "no number: cudaMalloc, retried once its cache is freed",
    "c10/cuda/CUDACachingAllocator.cpp DeviceCachingAllocator::malloc (001074d)" },
  [JMEM_GATE_OLLAMA] = { "ollama", "min(system free, device free) - 457 MiB - OLLAMA_GPU_OVERHEAD",
    "server/sched.go availableMemoryForGPU, ml/device.go MinimumMemory (v0.33.0-rc2)" },
  [JMEM_GATE_LLAMA_CPP] = { "llama.cpp", "device free - --fit-target (1 GiB)",
    "ggml/src/ggml-cuda/ggml-cuda.cu ggml_backend_cuda_device_get_memory (0010882)" },
};

const char *
jmem_gate_name (JmemGateId id)
{
  return id < JMEM_GATE_N ? defs[id].name : NULL;
}

gboolean
jmem_gate_from_name (const char *name,
                     JmemGateId *id)
{
  for (guint i = 0; name != NULL && i < JMEM_GATE_N; i++)
    if (g_str_equal (name, defs[i].name))
      {
        *id = (JmemGateId) i;
        return TRUE;
      }
  return FALSE;
}

const char *
jmem_gate_choices (void)
{
  return "vllm, sglang, tensorrt, pytorch, ollama or llama.cpp";
}

static void add (GPtrArray *to, const char *format, ...) G_GNUC_PRINTF (2, 3);

static void
add (GPtrArray *to, const char *format, ...)
{
  va_list args;

  va_start (args, format);
  g_ptr_array_add (to, g_strdup_vprintf (format, args));
  va_end (args);
}

/* A share of @total, in hundredths, rounded down: what a fraction option
 * takes so that it asks for no more than @kib. */
static double
share (gint64 kib, gint64 total)
{
  return total > 0 && kib > 0 ? floor ((double) kib * 100.0 / (double) total) / 100.0 : 0.0;
}

static gint64
field (const JmemGatesInput *in, const char *name)
{
  return in->meminfo != NULL ? jmem_meminfo_get_kib (in->meminfo, name) : -1;
}

/* vLLM and SGLang read MemAvailable where the GPU's memory is the
 * system's (sm 8.7, 11.0, 12.1: Orin, Thor, GB10), cudaMemGetInfo elsewhere. */
static gboolean
reads_mem_available (const JmemGatesInput *in)
{
  static const char * const older[] = { "xavier", "tx2", "tx1" };

  for (gsize i = 0; in->generation != NULL && i < G_N_ELEMENTS (older); i++)
    if (g_str_equal (in->generation, older[i]))
      return FALSE;
  return TRUE;
}

/* cudaMemGetInfo's free on an integrated GPU is "the amount of memory ...
 * free according to the OS" (cuMemGetInfo): jmem, which calls no CUDA,
 * takes MemFree for it. */
#define CUDA_FREE_NOTE "cudaMemGetInfo's free, approximated: what is \"free according to the " \
                       "OS\" in cuMemGetInfo's words, without the page cache"

/* The free memory llama.cpp's CUDA backend reports on an integrated GPU. */
static gint64
llama_cpp_free (const JmemGatesInput *in, const char **fields)
{
  const JmemHeadroom *h = in->headroom;

  /* where a hugetlb pool exists, only its free pages: they are not swappable */
  if (h->hugetlb_total_kib > 0)
    {
      *fields = "HugePages_Free x Hugepagesize";
      return h->hugetlb_free_kib;
    }
  *fields = "MemAvailable";
  return field (in, "MemAvailable");
}

static void
measure (JmemGate *g, const JmemGatesInput *in)
{
  const JmemHeadroom *h = in->headroom;
  gint64 available = field (in, "MemAvailable"), free_kib = field (in, "MemFree");
  const char *llama_fields = NULL;
  gint64 llama = llama_cpp_free (in, &llama_fields);

  switch (g->id)
    {
    case JMEM_GATE_VLLM:
    case JMEM_GATE_SGLANG:
      if (reads_mem_available (in))
        {
          g->kib = available;
          g->fields = g_strdup ("MemAvailable");
          g->note = "psutil's available, read instead of cudaMemGetInfo on sm 8.7, 11.0 and "
                    "12.1: Orin, Thor, GB10";
        }
      else
        {
          g->kib = free_kib;
          g->fields = g_strdup ("MemFree");
          g->note = CUDA_FREE_NOTE;
          g->approximated = TRUE;
        }
      break;
    case JMEM_GATE_TENSORRT:
      g->kib = free_kib;
      g->fields = g_strdup ("MemFree");
      g->note = CUDA_FREE_NOTE;
      g->approximated = TRUE;
      break;
    case JMEM_GATE_PYTORCH:
      g->kib = h->allocatable_after_reclaim_kib;
      g->fields = g_strdup ("after reclaim");
      g->note = "no number is checked first: cudaMalloc gets what the kernel can give the "
                "driver, jmem's after reclaim; cudaMemGetInfo only words the out-of-memory "
                "message";
      g->approximated = TRUE;
      break;
    case JMEM_GATE_OLLAMA:
      g->kib = available >= 0 && llama >= 0 ? MAX (MIN (available, llama) - JMEM_GATE_OLLAMA_MINIMUM_KIB, 0) : -1;
      g->fields = g_str_equal (llama_fields, "MemAvailable") ?
                  g_strdup ("MemAvailable - 457 MiB") :
                  g_strdup_printf ("min(MemAvailable, %s) - 457 MiB", llama_fields);
      g->note = "the device's free is llama.cpp's; OLLAMA_GPU_OVERHEAD, in the server's "
                "environment, is taken as 0";
      break;
    case JMEM_GATE_LLAMA_CPP:
      g->kib = llama >= 0 ? MAX (llama - JMEM_GATE_LLAMA_CPP_FIT_TARGET_KIB, 0) : -1;
      g->fields = g_strdup_printf ("%s - 1 GiB", llama_fields);
      g->note = h->hugetlb_total_kib > 0 ?
                "on an integrated GPU with a hugetlb pool, HugePages_Free x Hugepagesize alone, "
                "whoever the pool is for" :
                "on an integrated GPU, MemAvailable instead of cudaMemGetInfo";
      break;
    case JMEM_GATE_N:
      g_assert_not_reached ();
    }
}

static char *
services_step (const JmemHeadroom *h)
{
  g_autofree char *services = jmem_headroom_services_text (h);

  return services[0] != '\0' ? g_strdup_printf ("stop what holds memory (sudo systemctl stop UNIT): %s",
                                                services)
                             : NULL;
}

/* llama.cpp reads only the free huge pages where a hugetlb pool exists:
 * the pool that holds the need, or none. */
static void
hugetlb_step (JmemGate *g, const JmemGatesInput *in)
{
  const JmemHeadroom *h = in->headroom;
  gint64 page = field (in, "Hugepagesize");
  gint64 more = h->need_kib + JMEM_GATE_LLAMA_CPP_FIT_TARGET_KIB - h->hugetlb_free_kib;

  if (h->gpu_carveout && page > 0)
    add (g->actions, "llama.cpp counts only the GPU carveout's free huge pages: sudo sysctl "
         "vm.nr_hugepages=%" G_GINT64_FORMAT " grows it to hold the need (the kernel may find "
         "fewer free pages than asked)", (h->hugetlb_total_kib + more + page - 1) / page);
  else
    add (g->actions, "llama.cpp counts only the free pages of the hugetlb pool, which is not "
         "the GPU's: sudo sysctl vm.nr_hugepages=0 hands its free pages back, and with no pool "
         "it reads MemAvailable");
}

/* The gate says no where jmem finds room: what raises the gate, or makes
 * the framework ask for what its gate passes. */
static void
close_short_gate (JmemGate *g, const JmemGatesInput *in)
{
  const JmemHeadroom *h = in->headroom;
  gint64 total = field (in, "MemTotal");
  gint64 swap = MAX (h->terms[JMEM_HEADROOM_TERM_SWAP].kib, 0);
  g_autofree char *need = jmem_size_option_text (h->need_kib);
  g_autofree char *drop = jmem_text_size (h->drop_caches_kib);
  g_autofree char *swapped = jmem_text_size (swap);
  g_autofree char *services = services_step (h);

  switch (g->id)
    {
    case JMEM_GATE_VLLM:
      if (share (g->kib, total) >= 0.01)
        add (g->actions, "vllm serve --gpu-memory-utilization %.2f: the largest share of total "
             "its start check passes now; it then reserves less than %s (a smaller KV cache)",
             share (g->kib, total), need);
      break;
    case JMEM_GATE_SGLANG:
      add (g->actions, "SGLang sizes its pool from this figure at start: no --mem-fraction-static "
           "makes it take more");
      break;
    case JMEM_GATE_TENSORRT:
      if (h->drop_caches_kib > 0)
        add (g->actions, "jmem drop-caches: frees up to %s of page cache and slab, which "
             "cudaMemGetInfo counts only once it is free (jmem headroom --need %s --drop)", drop, need);
      add (g->actions, "trtexec --memPoolSize=workspace:%" G_GINT64_FORMAT "M "
           "(IBuilderConfig::setMemoryPoolLimit): tactics asking more are skipped, a slower "
           "engine, not a failed build", g->kib / 1024);
      break;
    case JMEM_GATE_OLLAMA:
      add (g->actions, "Ollama then puts fewer layers on the GPU (the rest run on the CPU, "
           "from the same RAM): a smaller num_ctx or OLLAMA_KV_CACHE_TYPE=q8_0 makes its "
           "estimate smaller");
      break;
    case JMEM_GATE_LLAMA_CPP:
      if (h->hugetlb_total_kib > 0)
        hugetlb_step (g, in);
      else if (g->kib + JMEM_GATE_LLAMA_CPP_FIT_TARGET_KIB >= h->need_kib)
        add (g->actions, "llama-server --fit-target %" G_GINT64_FORMAT ": leaves that many MiB "
             "free instead of 1024, so that %s fits", (g->kib + JMEM_GATE_LLAMA_CPP_FIT_TARGET_KIB - h->need_kib) / 1024, need);
      add (g->actions, "or let --fit fit the job to this figure: it lowers the layers on the GPU "
           "(-ngl) and the context (-c)");
      break;
    case JMEM_GATE_PYTORCH:
    case JMEM_GATE_N:
      break;
    }
  /* MemAvailable leaves swap out: the kernel frees it only as memory is taken */
  if ((g->id == JMEM_GATE_VLLM || g->id == JMEM_GATE_SGLANG || g->id == JMEM_GATE_OLLAMA ||
       g->id == JMEM_GATE_LLAMA_CPP) && swap > 0 && !g->approximated)
    add (g->actions, "jmem counts %s that swap can take, which this figure leaves out: swap "
         "fills as memory is taken, after the framework has checked", swapped);
  if (services != NULL)
    g_ptr_array_add (g->actions, g_steal_pointer (&services));
}

/* The gate lets a job in that jmem finds no room for: it starts, then its
 * allocations fail. What makes the framework ask for no more than jmem's
 * after reclaim. */
static void
close_open_gate (JmemGate *g, const JmemGatesInput *in)
{
  const JmemHeadroom *h = in->headroom;
  gint64 total = field (in, "MemTotal"), after = h->allocatable_after_reclaim_kib;
  g_autofree char *after_text = jmem_text_size (after);
  g_autofree char *services = services_step (h);

  add (g->actions, "%s goes ahead by this figure, then its allocations fail: jmem finds %s "
       "after reclaim", g->framework, after_text);
  switch (g->id)
    {
    case JMEM_GATE_VLLM:
      if (share (after, total) >= 0.01)
        add (g->actions, "vllm serve --gpu-memory-utilization %.2f: reserves no more than jmem "
             "finds", share (after, total));
      break;
    case JMEM_GATE_SGLANG:
      if (share (total - (g->kib - after), total) >= 0.01)
        add (g->actions, "--mem-fraction-static %.2f: leaves free what jmem does not find, so "
             "that its pool stays within %s", share (total - (g->kib - after), total), after_text);
      break;
    case JMEM_GATE_TENSORRT:
      add (g->actions, "trtexec --memPoolSize=workspace:%" G_GINT64_FORMAT "M: no tactic asks "
           "more than jmem finds", after / 1024);
      break;
    case JMEM_GATE_OLLAMA:
      add (g->actions, "OLLAMA_GPU_OVERHEAD=%" G_GINT64_FORMAT " in the server's environment: "
           "sets aside what jmem does not find", (g->kib - after) * 1024);
      break;
    case JMEM_GATE_LLAMA_CPP:
      add (g->actions, "llama-server --fit-target %" G_GINT64_FORMAT ": leaves free what jmem "
           "does not find", (g->kib + JMEM_GATE_LLAMA_CPP_FIT_TARGET_KIB - after + 1023) / 1024);
      break;
    case JMEM_GATE_PYTORCH:
    case JMEM_GATE_N:
      break;
    }
  if (services != NULL)
    g_ptr_array_add (g->actions, g_steal_pointer (&services));
}

static void
gate_free (gpointer data)
{
  JmemGate *g = data;

  g_free (g->fields);
  g_ptr_array_unref (g->actions);
  g_free (g);
}

static JmemGate *
gate_new (JmemGateId id, const JmemGatesInput *in)
{
  const JmemHeadroom *h = in->headroom;
  JmemGate *g = g_new0 (JmemGate, 1);
  gboolean jmem_fits = h->verdict == JMEM_HEADROOM_FITS_NOW ||
                       h->verdict == JMEM_HEADROOM_FITS_AFTER_RECLAIM;

  g->id = id;
  g->framework = defs[id].name;
  g->reads = defs[id].reads;
  g->source = defs[id].source;
  g->actions = g_ptr_array_new_with_free_func (g_free);
  g->fits = g->agrees = -1;
  if (in->discrete_gpu)
    {
      g->kib = -1;
      g->fields = g_strdup ("unknown");
      g->note = "a discrete GPU: the gates read the card's own memory, which jmem does not "
                "(nvidia-smi shows it)";
      return g;
    }
  measure (g, in);
  if (g->kib < 0 || h->need_kib < 0 || h->verdict == JMEM_HEADROOM_UNKNOWN)
    return g;
  g->fits = h->need_kib <= g->kib;
  g->agrees = g->fits == jmem_fits;
  if (!g->agrees && jmem_fits)
    close_short_gate (g, in);
  else if (!g->agrees)
    close_open_gate (g, in);
  return g;
}

GPtrArray *
jmem_gates_compute (const JmemGatesInput *input,
                    JmemGateId            only)
{
  GPtrArray *gates = g_ptr_array_new_with_free_func (gate_free);

  for (guint i = 0; i < JMEM_GATE_N; i++)
    if (only == JMEM_GATE_N || only == i)
      g_ptr_array_add (gates, gate_new ((JmemGateId) i, input));
  return gates;
}
