/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The few NVML declarations jmem uses, from NVIDIA's documented ABI, and the
 * calls in the order nvtop makes them: the newest process-list entry point
 * the library has (_v3, _v2, then the original), retried while the list
 * grows between the size query and the fill. */
#include "jmem-nvml.h"

#include "jmem-nvml-record.h"
#include "jmem-nvsmi.h"

#include <dlfcn.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef int nvmlReturn_t;
typedef struct nvmlDevice_st *nvmlDevice_t;

#define NVML_SUCCESS 0
#define NVML_ERROR_NOT_SUPPORTED 3
#define NVML_ERROR_INSUFFICIENT_SIZE 7
#define NVML_VALUE_NOT_AVAILABLE (~0ULL)
#define NVML_DEVICE_UUID_V2_BUFFER_SIZE 96
#define NVML_DEVICE_NAME_V2_BUFFER_SIZE 96

typedef struct {
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
} nvmlMemory_t;

/* nvmlProcessInfo_v1_t: the original entry points */
typedef struct {
  unsigned int       pid;
  unsigned long long usedGpuMemory;
} nvmlProcessInfo_v1_t;

/* nvmlProcessInfo_v2_t, also what the _v3 entry points fill */
typedef struct {
  unsigned int       pid;
  unsigned long long usedGpuMemory;
  unsigned int       gpuInstanceId;
  unsigned int       computeInstanceId;
} nvmlProcessInfo_v2_t;

typedef nvmlReturn_t (*InitFn) (void);
typedef nvmlReturn_t (*CountFn) (unsigned int *);
typedef nvmlReturn_t (*HandleFn) (unsigned int, nvmlDevice_t *);
typedef nvmlReturn_t (*StringFn) (nvmlDevice_t, char *, unsigned int);
typedef nvmlReturn_t (*MemoryFn) (nvmlDevice_t, nvmlMemory_t *);
typedef nvmlReturn_t (*ProcsFn) (nvmlDevice_t, unsigned int *, void *);

/* Processes appearing between the size query and the fill make the list
 * grow; a few tries cover a busy GPU without looping on a broken library. */
#define PROCESS_TRIES 4
#define PROCESS_SLACK 8
#define PROCESS_MAX 65536

const char * const jmem_nvml_system_dirs[] = {
  "/usr/lib/aarch64-linux-gnu",
  "/usr/lib/aarch64-linux-gnu/nvidia",
  "/usr/lib/x86_64-linux-gnu",
  "/usr/lib/x86_64-linux-gnu/nvidia",
  "/usr/lib64",
  "/usr/lib",
  "/lib/aarch64-linux-gnu",
  "/lib/x86_64-linux-gnu",
  NULL,
};

typedef struct {
  void     *lib;
  InitFn    shutdown;
  StringFn  uuid;
  StringFn  name;
  MemoryFn  memory;
  ProcsFn   compute;
  ProcsFn   graphics;
  gboolean  v1_layout;  /* the process functions found fill nvmlProcessInfo_v1_t */
} Nvml;

void
jmem_nvml_answer_clear (JmemNvmlAnswer *a)
{
  g_clear_pointer (&a->gpus, g_ptr_array_unref);
  g_clear_pointer (&a->apps, g_ptr_array_unref);
  g_clear_pointer (&a->evidence, g_ptr_array_unref);
}

static void
evidence (JmemNvmlAnswer *a, const char *format, ...) G_GNUC_PRINTF (2, 3);

static void
evidence (JmemNvmlAnswer *a, const char *format, ...)
{
  va_list ap;

  va_start (ap, format);
  g_ptr_array_add (a->evidence, g_strdup_vprintf (format, ap));
  va_end (ap);
}

/* A library root may load: a regular file owned by root that nobody else
 * can write, in a system directory. */
static char *
system_library (void)
{
  for (guint i = 0; jmem_nvml_system_dirs[i] != NULL; i++)
    {
      g_autofree char *path = g_build_filename (jmem_nvml_system_dirs[i], JMEM_NVML_SONAME, NULL);
      struct stat st;

      if (stat (path, &st) == 0 && S_ISREG (st.st_mode) && st.st_uid == 0 &&
          (st.st_mode & (S_IWGRP | S_IWOTH)) == 0)
        return g_steal_pointer (&path);
    }
  return NULL;
}

static void *
open_library (JmemNvmlAnswer *a)
{
  g_autofree char *path = NULL;
  void *lib;

  /* as root (or set-id) only a full path from a system directory */
  if (geteuid () == 0 || geteuid () != getuid () || getegid () != getgid ())
    {
      path = system_library ();
      if (path == NULL)
        {
          evidence (a, "nvml: %s (system library directories only, as root): not installed",
                    JMEM_NVML_SONAME);
          return NULL;
        }
    }
  lib = dlopen (path != NULL ? path : JMEM_NVML_SONAME, RTLD_NOW | RTLD_LOCAL);
  if (lib == NULL)
    {
      const char *why = dlerror ();

      /* said the way the other sources say it when it is simply absent */
      if (why != NULL && strstr (why, "No such file") != NULL)
        evidence (a, "nvml: %s: not installed", JMEM_NVML_SONAME);
      else
        evidence (a, "nvml: %s not loaded (%s)", JMEM_NVML_SONAME, why ? why : "unknown error");
      return NULL;
    }
  return lib;
}

/* The newest of @base_v3, @base_v2, @base the library has. */
static ProcsFn
process_fn (Nvml *n, const char *base, const char **used)
{
  static const char * const suffixes[] = { "_v3", "_v2", "" };

  for (guint i = 0; i < G_N_ELEMENTS (suffixes); i++)
    {
      g_autofree char *sym = g_strconcat (base, suffixes[i], NULL);
      ProcsFn fn = (ProcsFn) dlsym (n->lib, sym);

      if (fn != NULL)
        {
          n->v1_layout = suffixes[i][0] == '\0';
          *used = suffixes[i];
          return fn;
        }
    }
  return NULL;
}

static gint64
bytes_to_mib (unsigned long long bytes)
{
  if (bytes == NVML_VALUE_NOT_AVAILABLE)
    return -1;
  return (gint64) (bytes / (1024 * 1024));
}

/* Adds @dev's processes from @fn; FALSE when the call failed for good. */
static gboolean
add_processes (JmemNvmlAnswer *a, const Nvml *n, ProcsFn fn, JmemNvmlList list,
               nvmlDevice_t dev, const char *uuid, GHashTable *seen)
{
  gsize item = n->v1_layout ? sizeof (nvmlProcessInfo_v1_t) : sizeof (nvmlProcessInfo_v2_t);
  g_autofree guint8 *buf = NULL;
  unsigned int count = 0;
  nvmlReturn_t rc = NVML_ERROR_INSUFFICIENT_SIZE;
  const char *what = list == JMEM_NVML_LIST_COMPUTE ? "compute" : "graphics";

  for (guint tries = 0; tries < PROCESS_TRIES && rc == NVML_ERROR_INSUFFICIENT_SIZE; tries++)
    {
      unsigned int capacity = count;

      g_clear_pointer (&buf, g_free);
      if (capacity > 0)
        {
          capacity = MIN (capacity + PROCESS_SLACK, PROCESS_MAX);
          buf = g_malloc0 (capacity * item);
        }
      count = capacity;
      rc = fn (dev, &count, buf);
      if (rc == NVML_ERROR_INSUFFICIENT_SIZE && count <= capacity)
        count = MAX (capacity * 2, 1u);  /* a library that asks for more without saying how much */
    }
  if (rc == NVML_ERROR_NOT_SUPPORTED)
    {
      evidence (a, "nvml: %s processes of %s: not supported", what, uuid);
      return TRUE;
    }
  if (rc != NVML_SUCCESS)
    {
      evidence (a, "nvml: %s processes of %s: error %d", what, uuid, rc);
      return FALSE;
    }
  if (buf == NULL)
    count = 0;
  for (unsigned int i = 0; i < count; i++)
    {
      const guint8 *p = buf + i * item;
      unsigned int pid;
      unsigned long long used;
      g_autofree char *key = NULL;
      JmemNvsmiApp *app;

      if (n->v1_layout)
        {
          pid = ((const nvmlProcessInfo_v1_t *) p)->pid;
          used = ((const nvmlProcessInfo_v1_t *) p)->usedGpuMemory;
        }
      else
        {
          pid = ((const nvmlProcessInfo_v2_t *) p)->pid;
          used = ((const nvmlProcessInfo_v2_t *) p)->usedGpuMemory;
        }
      if (pid == 0)
        continue;
      /* a process both computing and drawing is one row, its larger figure */
      key = g_strdup_printf ("%s/%u", uuid, pid);
      app = g_hash_table_lookup (seen, key);
      if (app != NULL)
        {
          app->used_memory_mib = MAX (app->used_memory_mib, bytes_to_mib (used));
          app->nvml_lists |= list;
          continue;
        }
      app = g_new0 (JmemNvsmiApp, 1);
      app->gpu_uuid = g_strdup (uuid);
      app->pid = pid;
      app->used_memory_mib = bytes_to_mib (used);
      app->pid_exists = TRUE;
      app->nvml_lists = list;
      g_hash_table_insert (seen, g_steal_pointer (&key), app);
      g_ptr_array_add (a->apps, app);
    }
  return TRUE;
}

static gboolean
query_devices (JmemNvmlAnswer *a, Nvml *n, CountFn count_fn, HandleFn handle_fn)
{
  g_autoptr(GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  const char *compute_v = "", *graphics_v = "";
  unsigned int count = 0;
  nvmlReturn_t rc;

  n->compute = process_fn (n, "nvmlDeviceGetComputeRunningProcesses", &compute_v);
  {
    gboolean compute_v1 = n->v1_layout;

    n->graphics = process_fn (n, "nvmlDeviceGetGraphicsRunningProcesses", &graphics_v);
    if (n->compute != NULL && n->graphics != NULL && compute_v1 != n->v1_layout)
      n->graphics = NULL;  /* one layout for both, or only the compute list */
    if (n->compute != NULL)
      n->v1_layout = compute_v1;
  }
  if (n->compute == NULL)
    {
      evidence (a, "nvml: no nvmlDeviceGetComputeRunningProcesses in the library");
      return FALSE;
    }
  rc = count_fn (&count);
  if (rc != NVML_SUCCESS)
    {
      evidence (a, "nvml: nvmlDeviceGetCount_v2 failed: error %d", rc);
      return FALSE;
    }
  for (unsigned int i = 0; i < count && i < 64; i++)
    {
      nvmlDevice_t dev = NULL;
      char uuid[NVML_DEVICE_UUID_V2_BUFFER_SIZE] = "";
      char name[NVML_DEVICE_NAME_V2_BUFFER_SIZE] = "";
      nvmlMemory_t mem = { 0 };
      JmemNvsmiGpu *gpu;

      if (handle_fn (i, &dev) != NVML_SUCCESS || n->uuid (dev, uuid, sizeof uuid) != NVML_SUCCESS)
        {
          evidence (a, "nvml: GPU %u: no handle or UUID", i);
          return FALSE;
        }
      uuid[sizeof uuid - 1] = '\0';
      if (n->name (dev, name, sizeof name) != NVML_SUCCESS)
        name[0] = '\0';
      name[sizeof name - 1] = '\0';
      gpu = g_new0 (JmemNvsmiGpu, 1);
      gpu->index = i;
      gpu->uuid = g_utf8_make_valid (uuid, -1);
      gpu->name = name[0] ? g_utf8_make_valid (name, -1) : NULL;
      rc = n->memory (dev, &mem);
      gpu->memory_total_mib = rc == NVML_SUCCESS ? bytes_to_mib (mem.total) : -1;
      gpu->memory_used_mib = rc == NVML_SUCCESS ? bytes_to_mib (mem.used) : -1;
      gpu->memory_free_mib = rc == NVML_SUCCESS ? bytes_to_mib (mem.free) : -1;
      g_ptr_array_add (a->gpus, gpu);
      evidence (a, "nvml: GPU %u %s %s, memory %s", i, gpu->uuid, gpu->name ? gpu->name : "(no name)",
                rc == NVML_SUCCESS ? "known" : rc == NVML_ERROR_NOT_SUPPORTED ? "not supported" : "unknown");
      if (!add_processes (a, n, n->compute, JMEM_NVML_LIST_COMPUTE, dev, gpu->uuid, seen))
        return FALSE;
      if (n->graphics != NULL && !add_processes (a, n, n->graphics, JMEM_NVML_LIST_GRAPHICS, dev, gpu->uuid, seen))
        return FALSE;
    }
  evidence (a, "nvml: nvmlDeviceGetComputeRunningProcesses%s%s%s, %u processes", compute_v,
            n->graphics ? ", nvmlDeviceGetGraphicsRunningProcesses" : "",
            n->graphics ? graphics_v : "", a->apps->len);
  return a->gpus->len > 0;
}

gboolean
jmem_nvml_query (JmemNvmlAnswer *a)
{
  Nvml n = { 0 };
  InitFn init;
  CountFn count_fn;
  HandleFn handle_fn;
  gboolean ok;
  nvmlReturn_t rc;

  a->gpus = g_ptr_array_new_with_free_func ((GDestroyNotify) jmem_nvsmi_gpu_free);
  a->apps = g_ptr_array_new_with_free_func ((GDestroyNotify) jmem_nvsmi_app_free);
  a->evidence = g_ptr_array_new_with_free_func (g_free);

  n.lib = open_library (a);
  if (n.lib == NULL)
    return FALSE;
  init = (InitFn) dlsym (n.lib, "nvmlInit_v2");
  n.shutdown = (InitFn) dlsym (n.lib, "nvmlShutdown");
  count_fn = (CountFn) dlsym (n.lib, "nvmlDeviceGetCount_v2");
  handle_fn = (HandleFn) dlsym (n.lib, "nvmlDeviceGetHandleByIndex_v2");
  n.uuid = (StringFn) dlsym (n.lib, "nvmlDeviceGetUUID");
  n.name = (StringFn) dlsym (n.lib, "nvmlDeviceGetName");
  n.memory = (MemoryFn) dlsym (n.lib, "nvmlDeviceGetMemoryInfo");
  if (init == NULL || n.shutdown == NULL || count_fn == NULL || handle_fn == NULL ||
      n.uuid == NULL || n.name == NULL || n.memory == NULL)
    {
      evidence (a, "nvml: %s lacks a function jmem needs", JMEM_NVML_SONAME);
      dlclose (n.lib);
      return FALSE;
    }
  rc = init ();
  if (rc != NVML_SUCCESS)
    {
      evidence (a, "nvml: nvmlInit_v2 failed: error %d", rc);
      dlclose (n.lib);
      return FALSE;
    }
  ok = query_devices (a, &n, count_fn, handle_fn);
  n.shutdown ();
  dlclose (n.lib);
  if (!ok)
    {
      /* nvidia-smi answers instead: no half answer from here */
      g_ptr_array_set_size (a->gpus, 0);
      g_ptr_array_set_size (a->apps, 0);
    }
  return ok;
}
