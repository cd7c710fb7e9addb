/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A stand-in libnvidia-ml.so.1 for the NVML loader's tests: one GPU
 * ("GPU-stub-0000") and its processes, the caller itself among them.
 * JMEM_NVML_STUB picks the behaviour: "processes" (default), "not-supported"
 * (no memory figures), "insufficient" (the list grows between the size query
 * and the fill), "fail-init". Each process-list call is appended to the file
 * JMEM_NVML_STUB_LOG names. Built without the _v3 entry points when
 * JMEM_NVML_STUB_NO_V3 is defined. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define EXPORT __attribute__ ((visibility ("default")))

typedef int nvmlReturn_t;
typedef void *nvmlDevice_t;
typedef struct { unsigned long long total, free, used; } nvmlMemory_t;
typedef struct { unsigned int pid; unsigned long long usedGpuMemory; } info_v1;
typedef struct { unsigned int pid; unsigned long long usedGpuMemory; unsigned int gi, ci; } info_v2;

#define GIB (1024ULL * 1024 * 1024)
#define NOT_AVAILABLE (~0ULL)

/* exported, so -Wmissing-prototypes wants them declared */
EXPORT nvmlReturn_t nvmlInit_v2 (void);
EXPORT nvmlReturn_t nvmlShutdown (void);
EXPORT nvmlReturn_t nvmlDeviceGetCount_v2 (unsigned int *count);
EXPORT nvmlReturn_t nvmlDeviceGetHandleByIndex_v2 (unsigned int index, nvmlDevice_t *device);
EXPORT nvmlReturn_t nvmlDeviceGetUUID (nvmlDevice_t device, char *uuid, unsigned int length);
EXPORT nvmlReturn_t nvmlDeviceGetName (nvmlDevice_t device, char *name, unsigned int length);
EXPORT nvmlReturn_t nvmlDeviceGetMemoryInfo (nvmlDevice_t device, nvmlMemory_t *memory);
EXPORT nvmlReturn_t nvmlDeviceGetComputeRunningProcesses (nvmlDevice_t d, unsigned int *n, info_v1 *p);
EXPORT nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v2 (nvmlDevice_t d, unsigned int *n, info_v2 *p);
EXPORT nvmlReturn_t nvmlDeviceGetGraphicsRunningProcesses (nvmlDevice_t d, unsigned int *n, info_v1 *p);
EXPORT nvmlReturn_t nvmlDeviceGetGraphicsRunningProcesses_v2 (nvmlDevice_t d, unsigned int *n, info_v2 *p);
#ifndef JMEM_NVML_STUB_NO_V3
EXPORT nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3 (nvmlDevice_t d, unsigned int *n, info_v2 *p);
EXPORT nvmlReturn_t nvmlDeviceGetGraphicsRunningProcesses_v3 (nvmlDevice_t d, unsigned int *n, info_v2 *p);
#endif

static int
mode_is (const char *mode)
{
  const char *m = getenv ("JMEM_NVML_STUB");

  return strcmp (m != NULL ? m : "processes", mode) == 0;
}

static void
record (const char *what)
{
  const char *path = getenv ("JMEM_NVML_STUB_LOG");
  FILE *f;

  if (path == NULL || (f = fopen (path, "a")) == NULL)
    return;
  fprintf (f, "%s\n", what);
  fclose (f);
}

nvmlReturn_t nvmlInit_v2 (void) { return mode_is ("fail-init") ? 999 : 0; }
nvmlReturn_t nvmlShutdown (void) { return 0; }
nvmlReturn_t nvmlDeviceGetCount_v2 (unsigned int *count) { *count = 1; return 0; }

nvmlReturn_t
nvmlDeviceGetHandleByIndex_v2 (unsigned int index, nvmlDevice_t *device)
{
  static int gpu;

  if (index != 0)
    return 2;
  *device = &gpu;
  return 0;
}

nvmlReturn_t
nvmlDeviceGetUUID (nvmlDevice_t device, char *uuid, unsigned int length)
{
  snprintf (uuid, length, "GPU-stub-0000");
  return 0;
}

nvmlReturn_t
nvmlDeviceGetName (nvmlDevice_t device, char *name, unsigned int length)
{
  snprintf (name, length, "NVIDIA Stub GPU");
  return 0;
}

nvmlReturn_t
nvmlDeviceGetMemoryInfo (nvmlDevice_t device, nvmlMemory_t *memory)
{
  if (mode_is ("not-supported"))
    return 3;
  memory->total = 80 * GIB;
  memory->used = 10 * GIB;
  memory->free = 70 * GIB;
  return 0;
}

/* compute: the caller with 1 GiB and PID 999999 (gone) with 2 GiB;
 * graphics: the caller with 3 GiB */
static nvmlReturn_t
fill (const char *what, int graphics, unsigned int *count, void *infos, int v1)
{
  unsigned int n = graphics ? 1 : 2;
  static int grown;

  record (what);
  if (*count < n || infos == NULL)
    {
      *count = n;
      return 7;
    }
  if (!graphics && mode_is ("insufficient") && !grown)
    {
      grown = 1;
      *count += 5;  /* processes started meanwhile */
      return 7;
    }
  for (unsigned int i = 0; i < n; i++)
    {
      unsigned int pid = graphics || i == 0 ? (unsigned int) getpid () : 999999;
      unsigned long long used = mode_is ("not-supported") ? NOT_AVAILABLE
                                : graphics ? 3 * GIB : (i + 1) * GIB;

      if (v1)
        {
          ((info_v1 *) infos)[i].pid = pid;
          ((info_v1 *) infos)[i].usedGpuMemory = used;
        }
      else
        {
          ((info_v2 *) infos)[i].pid = pid;
          ((info_v2 *) infos)[i].usedGpuMemory = used;
        }
    }
  *count = n;
  return 0;
}

nvmlReturn_t nvmlDeviceGetComputeRunningProcesses (nvmlDevice_t d, unsigned int *n, info_v1 *p)
{ return fill ("compute_v1", 0, n, p, 1); }
nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v2 (nvmlDevice_t d, unsigned int *n, info_v2 *p)
{ return fill ("compute_v2", 0, n, p, 0); }
nvmlReturn_t nvmlDeviceGetGraphicsRunningProcesses (nvmlDevice_t d, unsigned int *n, info_v1 *p)
{ return fill ("graphics_v1", 1, n, p, 1); }
nvmlReturn_t nvmlDeviceGetGraphicsRunningProcesses_v2 (nvmlDevice_t d, unsigned int *n, info_v2 *p)
{ return fill ("graphics_v2", 1, n, p, 0); }
#ifndef JMEM_NVML_STUB_NO_V3
nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3 (nvmlDevice_t d, unsigned int *n, info_v2 *p)
{ return fill ("compute_v3", 0, n, p, 0); }
nvmlReturn_t nvmlDeviceGetGraphicsRunningProcesses_v3 (nvmlDevice_t d, unsigned int *n, info_v2 *p)
{ return fill ("graphics_v3", 1, n, p, 0); }
#endif
