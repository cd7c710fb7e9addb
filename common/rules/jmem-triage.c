/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The triage engine: derives the shared figures once, runs each rule, orders
 * the findings. */
#include "jmem-triage-private.h"

#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "jmem-text.h"

static const JmemTriageRule rules[] = {
  jmem_triage_rule_gpu_dominates,
  jmem_triage_rule_single_process,
  jmem_triage_rule_desktop_nvmap,
  jmem_triage_rule_nvmap_orphan,
  jmem_triage_rule_unexplained_large,
  jmem_triage_rule_cuda_pool,
  jmem_triage_rule_gpu_managed,
  jmem_triage_rule_swap_heavy,
  jmem_triage_rule_cma_exhausted,
  jmem_triage_rule_headroom_low,
  jmem_triage_rule_fragmented,
  jmem_triage_rule_thermal_hot,
  jmem_triage_rule_lfb_fragmented,
};

JmemFinding *
jmem_triage_add (JmemTriage  *t,
                 const char  *id,
                 JmemSeverity severity,
                 JmemActionBy by,
                 const char  *action,
                 const char  *format,
                 ...)
{
  g_autofree char *message = NULL;
  JmemFinding *f;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  f = jmem_finding_new (id, severity, by, action, message);
  g_ptr_array_add (t->findings, f);
  return f;
}

const JmemFinding *
jmem_triage_find (GPtrArray *findings, const char *id)
{
  for (guint i = 0; findings != NULL && i < findings->len; i++)
    {
      const JmemFinding *f = g_ptr_array_index (findings, i);

      if (g_str_equal (f->id, id))
        return f;
    }
  return NULL;
}

/* Compares part * 100 with whole * percent; hostile sizes near 2^64 are
 * scaled down together first, which keeps the ratio. */
static int
compare_ratio (guint64 part, guint64 whole, guint percent)
{
  const guint64 limit = G_MAXUINT64 / 1000;
  guint64 a, b;

  while (part > limit || whole > limit)
    {
      part >>= 10;
      whole >>= 10;
    }
  a = part * 100;
  b = whole * MIN (percent, 1000u);
  return a < b ? -1 : a > b;
}

gboolean
jmem_triage_at_least (guint64 part, guint64 whole, guint percent)
{
  return whole > 0 && compare_ratio (part, whole, percent) >= 0;
}

gboolean
jmem_triage_above (guint64 part, guint64 whole, guint percent)
{
  return whole > 0 && compare_ratio (part, whole, percent) > 0;
}

gboolean
jmem_triage_below (guint64 part, guint64 whole, guint percent)
{
  return whole > 0 && compare_ratio (part, whole, percent) < 0;
}

double
jmem_triage_percent (guint64 part, guint64 whole)
{
  if (whole == 0)
    return 0.0;
  double per_mille = (double) part * 1000.0 / (double) whole;

  /* rounded half up without libm; beyond 2^53 there is nothing to round */
  return per_mille < 9e15 ? (double) (gint64) (per_mille + 0.5) / 10.0 : per_mille / 10.0;
}

gint64
jmem_triage_meminfo (const JmemTriage *t, const char *name)
{
  if (t->snapshot->meminfo == NULL)
    return -1;
  return jmem_meminfo_get_kib (t->snapshot->meminfo, name);
}

const JmemProcess *
jmem_triage_process (const JmemTriage *t, gint64 pid)
{
  const GPtrArray *procs = t->snapshot->processes;

  for (guint i = 0; procs != NULL && i < procs->len; i++)
    {
      const JmemProcess *p = g_ptr_array_index (procs, i);

      if (p->pid == pid)
        return p;
    }
  return NULL;
}

char *
jmem_triage_describe (const JmemTriage *t, gint64 pid, const char *name)
{
  const JmemProcess *p = jmem_triage_process (t, pid);
  GString *s = g_string_new (NULL);

  if (name == NULL && p != NULL)
    name = p->name;
  g_string_append_printf (s, "PID %" G_GINT64_FORMAT " (%s)", pid, name ? name : "?");
  if (p != NULL && p->container_id != NULL)
    {
      g_string_append (s, " in ");
      if (p->container_runtime != NULL)
        g_string_append_printf (s, "%s ", p->container_runtime);
      /* 12 characters, not bytes: a cut must not split a UTF-8 sequence */
      g_autofree char *id = g_utf8_validate (p->container_id, -1, NULL)
                              ? g_utf8_substring (p->container_id, 0, 12)
                              : g_strdup ("?");

      g_string_append_printf (s, "container %s", id);
    }
  return g_string_free (s, FALSE);
}

gint64
jmem_triage_sum (gint64 a, gint64 b)
{
  a = MAX (a, 0);
  b = MAX (b, 0);
  return a > G_MAXINT64 - b ? G_MAXINT64 : a + b;
}

char *
jmem_triage_size (guint64 kib)
{
  return jmem_text_size (kib > (guint64) G_MAXINT64 ? G_MAXINT64 : (gint64) kib);
}

static JmemTriageHolder *
holder_for (GArray *holders, gint64 pid)
{
  for (guint i = 0; i < holders->len; i++)
    if (g_array_index (holders, JmemTriageHolder, i).pid == pid)
      return &g_array_index (holders, JmemTriageHolder, i);
  return NULL;
}

static int
compare_holder (gconstpointer a, gconstpointer b)
{
  const JmemTriageHolder *x = a, *y = b;

  if (x->kib != y->kib)
    return x->kib > y->kib ? -1 : 1;
  return x->pid < y->pid ? -1 : x->pid > y->pid;
}

static void
derive (JmemTriage *t)
{
  const JmemSnapshot *s = t->snapshot;
  gint64 nvmap_total = -1, smi_total = -1;
  guint64 apps_sum = 0;

  t->mem_total_kib = jmem_triage_meminfo (t, "MemTotal");
  if (t->mem_total_kib < 0)
    t->mem_total_kib = s->mem_total_kib;
  t->mem_available_kib = jmem_triage_meminfo (t, "MemAvailable");
  /* the accounting the faces show; computed here for a snapshot made without it */
  t->accounting = s->accounting;
  if (t->accounting == NULL)
    t->accounting = t->own_accounting = jmem_snapshot_accounting_new (s);

  /* Holders: NvMap per PID, then nvidia-smi's rows (the larger wins). Host
   * PIDs (jmem in another PID namespace) would name the wrong processes. */
  t->holders = g_array_new (FALSE, TRUE, sizeof (JmemTriageHolder));
  for (guint i = 0; !s->nvmap_pids_host && s->nvmap_by_pid != NULL && i < s->nvmap_by_pid->len; i++)
    {
      const JmemNvmapPidTotal *n = g_ptr_array_index (s->nvmap_by_pid, i);
      JmemTriageHolder h = { n->pid, n->process, n->size_kib, n->size_kib, 0, n->pid_exists };

      if (n->pid > 0)
        g_array_append_val (t->holders, h);
    }
  /* rows that may be forged name no process and add to no total */
  for (guint i = 0; s->gpu_apps != NULL && i < s->gpu_apps->len; i++)
    {
      const JmemNvsmiApp *a = g_ptr_array_index (s->gpu_apps, i);
      JmemTriageHolder *h;
      guint64 kib;

      if (a->pid <= 0 || a->used_memory_mib < 0 || a->in_doubt)
        continue;
      kib = (guint64) MIN (a->used_memory_mib, G_MAXINT64 / 1024) * 1024;
      apps_sum = apps_sum > G_MAXUINT64 - kib ? G_MAXUINT64 : apps_sum + kib;
      h = holder_for (t->holders, a->pid);
      if (h == NULL)
        {
          /* a row whose PID has no /proc entry holds for no live process */
          JmemTriageHolder n = { a->pid, a->process_name, 0, 0, 0, a->pid_exists };

          g_array_append_val (t->holders, n);
          h = &g_array_index (t->holders, JmemTriageHolder, t->holders->len - 1);
        }
      /* one row per GPU the process uses: they add up */
      h->smi_kib = h->smi_kib > G_MAXUINT64 - kib ? G_MAXUINT64 : h->smi_kib + kib;
    }
  for (guint i = 0; i < t->holders->len; i++)
    {
      JmemTriageHolder *h = &g_array_index (t->holders, JmemTriageHolder, i);

      h->kib = MAX (h->nvmap_kib, h->smi_kib);
    }
  g_array_sort (t->holders, compare_holder);

  if (s->nvmap_clients != NULL && s->nvmap_clients->has_total)
    {
      nvmap_total = (gint64) MIN (s->nvmap_clients->total_kib, (guint64) G_MAXINT64);
      t->gpu_total_source = "nvmap";
    }
  else if ((nvmap_total = jmem_triage_meminfo (t, "NvMapMemUsed")) >= 0)
    t->gpu_total_source = "meminfo";
  if (apps_sum > 0)
    smi_total = (gint64) MIN (apps_sum, (guint64) G_MAXINT64);
  for (guint i = 0; s->gpus != NULL && i < s->gpus->len; i++)
    {
      const JmemNvsmiGpu *g = g_ptr_array_index (s->gpus, i);

      if (g->memory_used_mib >= 0)
        smi_total = MAX (smi_total, MIN (g->memory_used_mib, G_MAXINT64 / 1024) * 1024);
    }
  t->gpu_total_kib = nvmap_total;
  if (smi_total > nvmap_total)
    {
      t->gpu_total_kib = smi_total;
      t->gpu_total_source = "nvidia-smi";
    }
}

GPtrArray *
jmem_triage_run (const JmemSnapshot *snapshot)
{
  JmemTriage t = { 0 };
  GPtrArray *ordered;

  g_return_val_if_fail (snapshot != NULL, NULL);

  t.snapshot = snapshot;
  t.findings = g_ptr_array_new_with_free_func ((GDestroyNotify) jmem_finding_free);
  derive (&t);
  for (gsize i = 0; i < G_N_ELEMENTS (rules); i++)
    rules[i] (&t);
  g_array_unref (t.holders);
  g_clear_pointer (&t.own_accounting, jmem_accounting_free);

  /* most severe first, rule order within a severity */
  ordered = g_ptr_array_new_full (t.findings->len, (GDestroyNotify) jmem_finding_free);
  for (int sev = JMEM_SEVERITY_CRITICAL; sev >= JMEM_SEVERITY_INFO; sev--)
    for (guint i = 0; i < t.findings->len; i++)
      {
        JmemFinding *f = g_ptr_array_index (t.findings, i);

        if ((int) f->severity == sev)
          g_ptr_array_add (ordered, f);
      }
  g_ptr_array_set_free_func (t.findings, NULL);
  g_ptr_array_unref (t.findings);
  return ordered;
}
