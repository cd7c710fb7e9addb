/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "jmem-snapshot.h"

#include "jmem-glib-compat.h"

#include <stdarg.h>

JmemSnapshot *
jmem_snapshot_new (void)
{
  JmemSnapshot *s = g_new0 (JmemSnapshot, 1);

  s->mem_total_kib = -1;
  s->uptime_seconds = -1;
  s->nvmap_stats_total_bytes = -1;
  s->nvmap_unattributed_kib = -1;
  s->nvmap_extras = (JmemNvmapExtras) JMEM_NVMAP_EXTRAS_INIT;
  s->nvmap_hugetlbfs_kib = -1;
  s->zram_bytes = -1;
  s->device_tree_bytes = -1;
  s->page_size = s->min_free_kib = s->zram_orig_bytes = -1;
  s->gpu_evidence = g_ptr_array_new_with_free_func (g_free);
  s->gpus = g_ptr_array_new_with_free_func ((GDestroyNotify) jmem_nvsmi_gpu_free);
  s->gpu_apps = g_ptr_array_new_with_free_func ((GDestroyNotify) jmem_nvsmi_app_free);
  s->gpu_apps_trusted = TRUE;
  s->nvmap_by_pid = g_ptr_array_new_with_free_func ((GDestroyNotify) jmem_nvmap_pid_total_free);
  s->processes = g_ptr_array_new_with_free_func ((GDestroyNotify) jmem_process_free);
  s->thermal = g_ptr_array_new_with_free_func ((GDestroyNotify) jmem_thermal_free);
  s->disks = g_ptr_array_new_with_free_func ((GDestroyNotify) jmem_disk_free);
  s->warnings = g_ptr_array_new_with_free_func ((GDestroyNotify) jmem_warning_free);
  return s;
}

void
jmem_snapshot_free (JmemSnapshot *s)
{
  if (s == NULL)
    return;
  g_free (s->hostname);
  g_free (s->sysroot);
  g_clear_pointer (&s->identity, jmem_identity_free);
  g_clear_pointer (&s->release, jmem_tegra_release_free);
  g_clear_pointer (&s->platform, jmem_platform_free);
  g_free (s->default_target);
  g_free (s->kernel_release);
  g_clear_pointer (&s->meminfo, jmem_meminfo_free);
  g_free (s->gpu_source);
  g_ptr_array_unref (s->gpu_evidence);
  g_ptr_array_unref (s->gpus);
  g_ptr_array_unref (s->gpu_apps);
  g_free (s->nvmap_via);
  g_free (s->nvmap_error);
  g_clear_pointer (&s->nvmap_clients, jmem_nvmap_clients_free);
  g_ptr_array_unref (s->nvmap_by_pid);
  jmem_nvmap_extras_clear (&s->nvmap_extras);
  g_free (s->nvmap_extras_error);
  g_clear_pointer (&s->accounting, jmem_accounting_free);
  g_clear_pointer (&s->buddyinfo, jmem_buddyinfo_free);
  g_clear_pointer (&s->swaps, g_free);
  g_clear_pointer (&s->headroom, jmem_headroom_free);
  g_ptr_array_unref (s->processes);
  g_ptr_array_unref (s->thermal);
  g_free (s->power_mode);
  g_ptr_array_unref (s->disks);
  g_clear_pointer (&s->services, g_ptr_array_unref);
  g_clear_pointer (&s->tegrastats, jmem_tegrastats_free);
  g_ptr_array_unref (s->warnings);
  g_clear_pointer (&s->findings, g_ptr_array_unref);
  g_free (s);
}

void
jmem_snapshot_add_warning (JmemSnapshot *snapshot,
                           const char   *source,
                           const char   *action,
                           const char   *format,
                           ...)
{
  JmemWarning *w = g_new0 (JmemWarning, 1);
  va_list args;

  va_start (args, format);
  w->message = g_strdup_vprintf (format, args);
  va_end (args);
  w->source = g_strdup (source);
  w->action = g_strdup (action);
  g_ptr_array_add (snapshot->warnings, w);
}

void
jmem_warning_free (JmemWarning *w)
{
  if (w == NULL)
    return;
  g_free (w->source);
  g_free (w->message);
  g_free (w->action);
  g_free (w);
}

void
jmem_process_free (JmemProcess *p)
{
  if (p == NULL)
    return;
  g_free (p->name);
  g_free (p->user);
  g_free (p->container_runtime);
  g_free (p->container_id);
  g_free (p->unit);
  g_free (p->cmdline);
  g_free (p);
}

JmemProcess *
jmem_process_copy (const JmemProcess *p)
{
  JmemProcess *copy = g_new (JmemProcess, 1);

  *copy = *p;
  copy->name = g_strdup (p->name);
  copy->user = g_strdup (p->user);
  copy->container_runtime = g_strdup (p->container_runtime);
  copy->container_id = g_strdup (p->container_id);
  copy->unit = g_strdup (p->unit);
  copy->cmdline = g_strdup (p->cmdline);
  return copy;
}

void
jmem_nvmap_pid_total_free (JmemNvmapPidTotal *t)
{
  if (t == NULL)
    return;
  g_free (t->process);
  g_free (t);
}

void
jmem_thermal_free (JmemThermal *t)
{
  if (t == NULL)
    return;
  g_free (t->zone);
  g_free (t->type);
  g_free (t);
}

void
jmem_disk_free (JmemDisk *d)
{
  if (d == NULL)
    return;
  g_free (d->mount_point);
  g_free (d->device);
  g_free (d->fs_type);
  g_free (d);
}

void
jmem_service_free (JmemService *svc)
{
  if (svc == NULL)
    return;
  g_free (svc->name);
  g_free (svc->load_state);
  g_free (svc->active_state);
  g_free (svc->unit_file_state);
  g_free (svc);
}
