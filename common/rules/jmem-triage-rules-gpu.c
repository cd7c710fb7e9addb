/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Rules about GPU memory: how much of RAM it takes, who holds it, and memory
 * held for processes that can no longer free it. */
#include "jmem-triage-private.h"

#include <string.h>

#include "jmem-desktop.h"

void
jmem_triage_rule_gpu_dominates (JmemTriage *t)
{
  const JmemTegrastats *ts = t->snapshot->tegrastats;
  /* off a Jetson the GPU's load is nvidia-smi's, and there is no NvMap */
  gboolean no_tegrastats = jmem_platform_not_applying (t->snapshot->platform,
                                                       JMEM_JETSON_PART_TEGRASTATS) != NULL;
  g_autofree char *gpu = NULL, *total = NULL, *gr3d = NULL, *top = NULL;
  JmemFinding *f;

  if (t->gpu_total_kib < 0 || t->mem_total_kib <= 0 ||
      !jmem_triage_at_least ((guint64) t->gpu_total_kib, (guint64) t->mem_total_kib,
                             JMEM_TRIAGE_GPU_DOMINATES_PERCENT))
    return;

  gpu = jmem_triage_size ((guint64) t->gpu_total_kib);
  total = jmem_triage_size ((guint64) t->mem_total_kib);
  if (ts != NULL && ts->gr3d_freq_percent >= 0)
    gr3d = g_strdup_printf ("GR3D_FREQ (GPU load) is %" G_GINT64_FORMAT " %%", ts->gr3d_freq_percent);
  else if (no_tegrastats)
    gr3d = g_strdup ("check GPU-Util in nvidia-smi for GPU load");
  else
    gr3d = g_strdup ("check GR3D_FREQ in tegrastats for GPU load");
  if (t->holders->len > 0)
    {
      const JmemTriageHolder *h = &g_array_index (t->holders, JmemTriageHolder, 0);
      g_autofree char *who = jmem_triage_describe (t, h->pid, h->name);

      top = g_strdup_printf ("; the largest holder is %s", who);
    }

  f = jmem_triage_add (t, "gpu-dominates", JMEM_SEVERITY_INFO, JMEM_ACTION_ANY_USER,
                       no_tegrastats
                         ? "Look at the GPU column, not RSS; with GPU-Util near 0 %, look for "
                           "what holds the buffers while the GPU idles (a paused pipeline, a "
                           "loaded model waiting for requests)."
                         : "Look at the NvMap/GPU column, not RSS; with GR3D_FREQ near 0 %, look "
                           "for what holds the buffers while the GPU idles (a paused pipeline, a "
                           "loaded model waiting for requests).",
                       "GPU memory (%s) holds %s of %s RAM (%.1f %%): GPU, multimedia or CUDA "
                       "buffers dominate%s; %s",
                       t->gpu_total_source, gpu, total,
                       jmem_triage_percent ((guint64) t->gpu_total_kib, (guint64) t->mem_total_kib),
                       top ? top : "", gr3d);
  jmem_finding_add_number (f, "gpu_total_kib", (double) t->gpu_total_kib, "KiB");
  jmem_finding_add_number (f, "mem_total_kib", (double) t->mem_total_kib, "KiB");
  jmem_finding_add_number (f, "percent_of_mem_total",
                           jmem_triage_percent ((guint64) t->gpu_total_kib, (guint64) t->mem_total_kib),
                           "percent");
  if (ts != NULL && ts->gr3d_freq_percent >= 0)
    jmem_finding_add_number (f, "gr3d_freq_percent", (double) ts->gr3d_freq_percent, "percent");
}

void
jmem_triage_rule_single_process (JmemTriage *t)
{
  const GPtrArray *procs = t->snapshot->processes;
  const JmemProcess *big = NULL;
  const JmemTriageHolder *h = NULL;
  gboolean by_ram = FALSE, by_gpu = FALSE;
  g_autofree char *who = NULL, *size = NULL, *whole = NULL;
  JmemFinding *f;
  gint64 pid;

  for (guint i = 0; procs != NULL && i < procs->len; i++)
    {
      const JmemProcess *p = g_ptr_array_index (procs, i);

      if (big == NULL || p->footprint_kib > big->footprint_kib)
        big = p;
    }
  if (big != NULL && big->footprint_kib > 0 && t->mem_total_kib > 0)
    by_ram = jmem_triage_above ((guint64) big->footprint_kib, (guint64) t->mem_total_kib,
                                JMEM_TRIAGE_SINGLE_RAM_PERCENT);

  /* the largest live holder: zombies and stopped ones are nvmap-orphan's */
  for (guint i = 0; i < t->holders->len && h == NULL; i++)
    {
      const JmemTriageHolder *c = &g_array_index (t->holders, JmemTriageHolder, i);
      const JmemProcess *p = jmem_triage_process (t, c->pid);

      if (c->pid_exists && (p == NULL || (p->state != 'Z' && p->state != 'T' && p->state != 't')))
        h = c;
    }
  if (h != NULL && t->gpu_total_kib > 0 && h->kib >= JMEM_TRIAGE_SINGLE_MIN_GPU_KIB)
    by_gpu = jmem_triage_at_least (h->kib, (guint64) t->gpu_total_kib,
                                   JMEM_TRIAGE_SINGLE_GPU_SHARE_PERCENT);
  if (!by_ram && !by_gpu)
    return;

  pid = by_ram ? big->pid : h->pid;
  who = jmem_triage_describe (t, pid, by_ram ? big->name : h->name);
  if (by_ram)
    {
      size = jmem_triage_size ((guint64) big->footprint_kib);
      whole = jmem_triage_size ((guint64) t->mem_total_kib);
    }
  else
    {
      size = jmem_triage_size (h->kib);
      whole = jmem_triage_size ((guint64) t->gpu_total_kib);
    }
  f = jmem_triage_add (t, "single-process-dominates",
                       by_ram ? JMEM_SEVERITY_WARNING : JMEM_SEVERITY_INFO,
                       JMEM_ACTION_ANY_USER,
                       "Lower the batch size, the context length or the KV-cache share (e.g. "
                       "vLLM --gpu-memory-utilization, --max-model-len), load the model at a "
                       "lower precision (FP16, INT8, INT4), or stop the process to return the memory.",
                       "%s holds %s: %.1f %% of %s (%s), most likely model weights and KV cache",
                       who, size,
                       by_ram ? jmem_triage_percent ((guint64) big->footprint_kib, (guint64) t->mem_total_kib)
                              : jmem_triage_percent (h->kib, (guint64) t->gpu_total_kib),
                       by_ram ? "RAM" : "all GPU memory", whole);
  jmem_finding_add_number (f, "pid", (double) pid, "pid");
  if (h != NULL && h->pid == pid)
    {
      jmem_finding_add_number (f, "gpu_kib", (double) h->kib, "KiB");
      if (t->gpu_total_kib > 0)
        {
          jmem_finding_add_number (f, "gpu_total_kib", (double) t->gpu_total_kib, "KiB");
          jmem_finding_add_number (f, "percent_of_gpu_total",
                                   jmem_triage_percent (h->kib, (guint64) t->gpu_total_kib), "percent");
        }
    }
  if (big != NULL && big->pid == pid && t->mem_total_kib > 0)
    {
      jmem_finding_add_number (f, "footprint_kib", (double) big->footprint_kib, "KiB");
      jmem_finding_add_number (f, "percent_of_mem_total",
                               jmem_triage_percent ((guint64) MAX (big->footprint_kib, 0),
                                                    (guint64) t->mem_total_kib), "percent");
    }
}

static gboolean
is_display_manager (const char *unit)
{
  static const char * const patterns[] = {
    "gdm*.service", "lightdm.service", "sddm.service", "display-manager.service",
    "xdm.service", "lxdm.service",
  };

  for (gsize i = 0; i < G_N_ELEMENTS (patterns); i++)
    if (g_pattern_match_simple (patterns[i], unit))
      return TRUE;
  return FALSE;
}

void
jmem_triage_rule_desktop_nvmap (JmemTriage *t)
{
  const GPtrArray *services = t->snapshot->services;
  g_autoptr(GString) who = g_string_new (NULL);
  g_autoptr(GString) dms = g_string_new (NULL);
  g_autofree char *size = NULL, *action = NULL;
  guint64 sum = 0;
  guint n = 0;
  JmemFinding *f;

  for (guint i = 0; i < t->holders->len; i++)
    {
      const JmemTriageHolder *h = &g_array_index (t->holders, JmemTriageHolder, i);
      g_autofree char *s = NULL;

      if (!h->pid_exists || h->kib == 0 || !jmem_process_is_desktop (h->name))
        continue;
      sum = sum > G_MAXUINT64 - h->kib ? G_MAXUINT64 : sum + h->kib;
      s = jmem_triage_size (h->kib);
      g_string_append_printf (who, "%s%s (PID %" G_GINT64_FORMAT ") %s",
                              n++ ? ", " : "", h->name, h->pid, s);
    }
  if (sum < JMEM_TRIAGE_DESKTOP_NVMAP_MIN_KIB)
    return;

  for (guint i = 0; services != NULL && i < services->len; i++)
    {
      const JmemService *svc = g_ptr_array_index (services, i);

      if (svc->name != NULL && svc->active_state != NULL &&
          g_str_equal (svc->active_state, "active") && is_display_manager (svc->name))
        g_string_append_printf (dms, "%s%s", dms->len ? ", " : "", svc->name);
    }

  size = jmem_triage_size (sum);
  action = g_strdup_printf ("Run headless to reclaim it and the desktop's RAM: `sudo systemctl "
                            "set-default multi-user.target` and reboot%s%s%s.",
                            dms->len ? " (or `sudo systemctl stop " : "",
                            dms->str,
                            dms->len ? "` now)" : "");
  f = jmem_triage_add (t, "desktop-nvmap", JMEM_SEVERITY_INFO, JMEM_ACTION_ADMIN, action,
                       "The desktop holds %s of GPU memory: %s; %s%s",
                       size, who->str,
                       dms->len ? "active display manager: "
                       : services == NULL ? "display-manager state unknown"
                       : "no display-manager service is active",
                       dms->str);
  jmem_finding_add_number (f, "desktop_gpu_kib", (double) sum, "KiB");
  jmem_finding_add_number (f, "desktop_processes", (double) n, "count");
}

void
jmem_triage_rule_nvmap_orphan (JmemTriage *t)
{
  /* host PIDs are not this /proc's: whether they are gone is unknown here */
  const GPtrArray *totals = t->snapshot->nvmap_pids_host ? NULL : t->snapshot->nvmap_by_pid;
  g_autoptr(GString) who = g_string_new (NULL);
  g_autoptr(GString) action = g_string_new (NULL);
  g_autofree char *size = NULL;
  gboolean gone = FALSE, zombie = FALSE, stopped = FALSE;
  guint64 sum = 0;
  guint n = 0;
  JmemFinding *f;

  for (guint i = 0; totals != NULL && i < totals->len; i++)
    {
      const JmemNvmapPidTotal *nt = g_ptr_array_index (totals, i);
      const JmemProcess *p = NULL;
      const char *why = NULL;
      g_autofree char *s = NULL;

      if (nt->pid <= 0 || nt->size_kib == 0)
        continue;
      if (!nt->pid_exists)
        why = "no such process", gone = TRUE;
      else if ((p = jmem_triage_process (t, nt->pid)) != NULL && p->state == 'Z')
        why = "zombie", zombie = TRUE;
      else if (p != NULL && (p->state == 'T' || p->state == 't'))
        why = "stopped", stopped = TRUE;
      if (why == NULL)
        continue;
      sum = sum > G_MAXUINT64 - nt->size_kib ? G_MAXUINT64 : sum + nt->size_kib;
      s = jmem_triage_size (nt->size_kib);
      g_string_append_printf (who, "%sPID %" G_GINT64_FORMAT " (%s, %s) %s", n++ ? ", " : "",
                              nt->pid, nt->process ? nt->process : "?", why, s);
    }
  if (n == 0)
    return;

  /* Only the advice for what was found. A PID with no process is no other
   * namespace's: the rule looks only where NvMap's PIDs are this /proc's
   * (nvmap_pids_host). */
  if (zombie)
    g_string_append (action, "Reap the zombie: restart or signal its parent "
                     "(`ps -o ppid= -p PID`).");
  if (stopped)
    g_string_append_printf (action, "%sStop or resume the stopped process (`kill -CONT PID`, "
                            "`docker unpause`).", action->len > 0 ? " " : "");
  if (gone)
    g_string_append_printf (action, "%sIf the buffers of a PID with no process stay "
                            "(`jmem triage --history FILE` of a jmem watch history: nvmap-orphaned), reboot to return them: "
                            "nothing else frees them.", action->len > 0 ? " " : "");
  size = jmem_triage_size (sum);
  f = jmem_triage_add (t, "nvmap-orphan", JMEM_SEVERITY_WARNING,
                       gone ? JMEM_ACTION_ADMIN : JMEM_ACTION_ANY_USER, action->str,
                       "NvMap holds %s for processes that cannot free it: %s", size, who->str);
  jmem_finding_add_number (f, "orphan_kib", (double) sum, "KiB");
  jmem_finding_add_number (f, "orphan_pids", (double) n, "count");
}

void
jmem_triage_rule_cuda_pool (JmemTriage *t)
{
  const JmemSnapshot *s = t->snapshot;
  gint64 major, gap = 0, unattributed, pool = 0, retained;
  const char *end = NULL;
  g_autofree char *size = NULL;
  JmemFinding *f;

  if (s->release == NULL || s->release->major == NULL || t->mem_total_kib <= 0)
    return;
  /* "no live GPU process" needs the per-process source: NvMap, or nvidia-smi
   * on the unified stack, where it lists every process holding GPU memory */
  if (!s->nvmap_readable && s->gpu_stack != JMEM_GPU_STACK_UNIFIED)
    return;
  major = g_ascii_strtoll (s->release->major, (char **) &end, 10);
  if (end == s->release->major || major <= 0 || major >= JMEM_TRIAGE_CUDA_POOL_FIXED_MAJOR)
    return;

  for (guint i = 0; i < t->holders->len; i++)
    {
      const JmemTriageHolder *h = &g_array_index (t->holders, JmemTriageHolder, i);
      const JmemProcess *p = jmem_triage_process (t, h->pid);

      if (h->pid_exists && h->kib >= JMEM_TRIAGE_CUDA_LIVE_MIN_KIB && (p == NULL || p->state != 'Z'))
        return;  /* a live GPU process explains what is held */
    }

  /* what the accounting finds in no bucket, and NvMap's pool */
  if (t->accounting != NULL)
    {
      gap = MAX (t->accounting->unexplained_kib, 0);
      pool = MAX (t->accounting->buckets[JMEM_BUCKET_NVMAP_POOL].kib, 0);
      /* the accounting's estimate of nvidia.ko's pool is the remainder it took */
      gap = MAX (gap, t->accounting->buckets[JMEM_BUCKET_GPU_POOL].kib);
    }
  unattributed = MAX (s->nvmap_unattributed_kib, 0);
  retained = MAX (MAX (gap, unattributed), pool);
  if (!jmem_triage_at_least ((guint64) retained, (guint64) t->mem_total_kib,
                             JMEM_TRIAGE_CUDA_POOL_PERCENT))
    return;

  size = jmem_triage_size ((guint64) retained);
  f = jmem_triage_add (t, "cuda-pool-retained", JMEM_SEVERITY_WARNING, JMEM_ACTION_ADMIN,
                       "Drop caches on the host: `jmem drop-caches` (inside a container it acts on "
                       "the host), or upgrade to L4T r39 (JetPack 7.2) or later, which returns these "
                       "pages by itself.",
                       "%s (%.1f %% of RAM) stays in use with no live GPU process: L4T R%" G_GINT64_FORMAT
                       " keeps the pages of exited CUDA processes pooled",
                       size, jmem_triage_percent ((guint64) retained, (guint64) t->mem_total_kib), major);
  jmem_finding_add_number (f, "retained_kib", (double) retained, "KiB");
  jmem_finding_add_number (f, "percent_of_mem_total",
                           jmem_triage_percent ((guint64) retained, (guint64) t->mem_total_kib), "percent");
  jmem_finding_add_number (f, "nvmap_unattributed_kib", (double) unattributed, "KiB");
  jmem_finding_add_number (f, "nvmap_pool_kib", (double) pool, "KiB");
  jmem_finding_add_number (f, "unexplained_kib", (double) gap, "KiB");
  jmem_finding_add_number (f, "l4t_major", (double) major, "count");
}

void
jmem_triage_rule_gpu_managed (JmemTriage *t)
{
  const JmemTriageHolder *found = NULL;
  const JmemProcess *fp = NULL;
  g_autofree char *who = NULL, *rss = NULL, *gpu = NULL;
  JmemFinding *f;

  if (t->snapshot->gpu_stack != JMEM_GPU_STACK_UNIFIED)
    return;
  /* the listed process whose RSS is furthest above its GPU figure */
  for (guint i = 0; i < t->holders->len; i++)
    {
      const JmemTriageHolder *h = &g_array_index (t->holders, JmemTriageHolder, i);
      const JmemProcess *p = h->pid_exists ? jmem_triage_process (t, h->pid) : NULL;

      if (p == NULL || p->gpu_kib < 0 || p->rss_kib < JMEM_TRIAGE_MANAGED_MIN_RSS_KIB ||
          (guint64) p->rss_kib / JMEM_TRIAGE_MANAGED_RSS_FACTOR <= h->smi_kib)
        continue;
      if (fp == NULL || p->rss_kib - (gint64) MIN (h->smi_kib, (guint64) G_MAXINT64) >
                        fp->rss_kib - (gint64) MIN (found->smi_kib, (guint64) G_MAXINT64))
        found = h, fp = p;
    }
  if (fp == NULL)
    return;

  who = jmem_triage_describe (t, fp->pid, found->name);
  rss = jmem_triage_size ((guint64) fp->rss_kib);
  gpu = jmem_triage_size (found->smi_kib);
  f = jmem_triage_add (t, "gpu-managed-unreported", JMEM_SEVERITY_INFO, JMEM_ACTION_ANY_USER,
                       "Read its footprint (PSS), not its GPU figure, for what it holds; for the "
                       "managed part, ask the framework (e.g. torch.cuda.memory_stats) or "
                       "cudaMemGetInfo inside the process.",
                       "%s is a GPU process with an RSS of %s, more than twice the %s of GPU "
                       "memory the driver reports for it: memory CUDA manages (cudaMallocManaged) "
                       "is under-reported by NVML on this stack and lands in the process's RSS "
                       "(and in the accounting's remainder)",
                       who, rss, gpu);
  jmem_finding_add_number (f, "pid", (double) fp->pid, "count");
  jmem_finding_add_number (f, "rss_kib", (double) fp->rss_kib, "KiB");
  jmem_finding_add_number (f, "gpu_kib", (double) found->smi_kib, "KiB");
}
