/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Triage rules: each one on a fixture tree that triggers it and one that must
 * not, collected through the real collector; and each threshold exactly at
 * its boundary on snapshots built here. Expected numbers come from the
 * fixture files, not restated. */
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "jmem-test.h"

#include "jmem-buddyinfo.h"
#include "jmem-collect.h"
#include "jmem-desktop.h"
#include "jmem-glib-compat.h"
#include "jmem-meminfo.h"
#include "jmem-nvmap.h"
#include "jmem-triage.h"

static JmemSnapshot *
collect (const char *name)
{
  g_autofree char *root = jmem_test_fixture ("triage", name, NULL);
  JmemCollectOptions options = { .sysroot = root, .top = 3, .tegrastats_seconds = 1 };
  g_autoptr(GError) error = NULL;
  JmemSnapshot *s = jmem_collect_snapshot (&options, &error);

  g_assert_no_error (error);
  g_assert_nonnull (s);
  g_assert_nonnull (s->findings);
  return s;
}

static gint64
fixture_meminfo (const char *name, const char *field)
{
  g_autofree char *path = jmem_test_fixture ("triage", name, "proc", "meminfo", NULL);
  g_autofree char *data = NULL;
  g_autoptr(JmemMeminfo) m = NULL;
  gsize len;

  g_assert_true (g_file_get_contents (path, &data, &len, NULL));
  m = jmem_meminfo_parse (data, len, NULL);
  g_assert_nonnull (m);
  return jmem_meminfo_get_kib (m, field);
}

/* An action is steps: it opens with what to do (or when to do it), never
 * with the explanation, which is the message's. */
static void
assert_action_is_steps (const char *action)
{
  static const char *const openings[] = {
    "Check ", "Compact ", "Drop ", "Find ", "If ", "Look ", "Lower ", "Reap ", "Run ", "Stop ",
  };

  for (gsize i = 0; i < G_N_ELEMENTS (openings); i++)
    if (g_str_has_prefix (action, openings[i]))
      return;
  g_error ("an action that does not open with a step: %s", action);
}

/* Whether an action names a step only an administrator can take: what an
 * agent must relay to a person rather than run, and what `admin` says. */
static gboolean
names_admin_step (const char *action)
{
  static const char *const steps[] = {
    "sudo ", "reboot", "at boot", "extlinux.conf", "jmem group", "upgrade to L4T",
    "enable zram swap",
  };

  for (gsize i = 0; i < G_N_ELEMENTS (steps); i++)
    if (strstr (action, steps[i]) != NULL)
      return TRUE;
  return FALSE;
}

static const JmemFinding *
expect (JmemSnapshot *s, const char *id, JmemSeverity severity)
{
  const JmemFinding *f = jmem_triage_find (s->findings, id);

  g_assert_nonnull (f);
  g_assert_cmpint (f->severity, ==, severity);
  g_assert_true (g_utf8_validate (f->message, -1, NULL));
  g_assert_null (strchr (f->message, '\n'));
  g_assert_nonnull (f->action);
  assert_action_is_steps (f->action);
  if (f->admin != names_admin_step (f->action))
    g_error ("%s: admin is %s for the action: %s", id, f->admin ? "true" : "false", f->action);
  g_assert_cmpuint (f->numbers->len, >, 0);
  return f;
}

static void
assert_number (const JmemFinding *f, const char *name, double value)
{
  double got = jmem_finding_get_number (f, name);

  g_assert_false (isnan (got));
  g_assert_cmpfloat_with_epsilon (got, value, 0.05);
}

/* ---- fixtures, both ways ---- */

typedef struct {
  const char  *rule;
  JmemSeverity severity;
} Case;

static void
test_fixture_miss (gconstpointer data)
{
  const Case *c = data;
  g_autofree char *name = g_strconcat (c->rule, "-miss", NULL);
  g_autoptr(JmemSnapshot) s = collect (name);

  g_assert_null (jmem_triage_find (s->findings, c->rule));
}

static void
test_fixture_hit (gconstpointer data)
{
  const Case *c = data;
  g_autofree char *name = g_strconcat (c->rule, "-hit", NULL);
  g_autoptr(JmemSnapshot) s = collect (name);
  const JmemFinding *f = expect (s, c->rule, c->severity);
  gint64 total = fixture_meminfo (name, "MemTotal");

  if (g_str_equal (c->rule, "gpu-dominates"))
    {
      gint64 nvmap = fixture_meminfo (name, "NvMapMemUsed");
      assert_number (f, "gpu_total_kib", (double) nvmap);
      assert_number (f, "mem_total_kib", (double) total);
      assert_number (f, "percent_of_mem_total", (double) (gint64) (nvmap * 1000.0 / total + 0.5) / 10.0);
    }
  else if (g_str_equal (c->rule, "swap-heavy"))
    {
      gint64 st = fixture_meminfo (name, "SwapTotal"), sf = fixture_meminfo (name, "SwapFree");
      assert_number (f, "swap_used_kib", (double) (st - sf));
      assert_number (f, "swap_total_kib", (double) st);
    }
  else if (g_str_equal (c->rule, "cma-exhausted"))
    {
      assert_number (f, "cma_free_kib", (double) fixture_meminfo (name, "CmaFree"));
      assert_number (f, "cma_total_kib", (double) fixture_meminfo (name, "CmaTotal"));
    }
  else if (g_str_equal (c->rule, "unexplained-large"))
    {
      /* the captured board leaves 180000 KiB unexplained; the fixture
       * 8 GiB less free (fixtures/triage/make-fixtures.py) */
      assert_number (f, "unexplained_kib", 180000.0 + 8 * 1024 * 1024);
      assert_number (f, "residual_kib", 180000.0 + 8 * 1024 * 1024);
      assert_number (f, "gpu_reported_kib", 0);
      assert_number (f, "mem_total_kib", (double) total);
      g_assert_cmpint (s->accounting->unexplained_kib, ==, 180000 + 8 * 1024 * 1024);
    }
  else if (g_str_equal (c->rule, "desktop-nvmap"))
    {
      guint64 sum = 0;

      for (guint i = 0; i < s->nvmap_clients->clients->len; i++)
        sum += ((JmemNvmapClient *) s->nvmap_clients->clients->pdata[i])->size_kib;
      assert_number (f, "desktop_gpu_kib", (double) sum);
      g_assert_nonnull (strstr (f->message, "gdm3.service"));
      g_assert_nonnull (strstr (f->message, "Xorg"));
    }
  else if (g_str_equal (c->rule, "single-process-dominates"))
    {
      const JmemNvmapClient *top = s->nvmap_clients->clients->pdata[0];

      assert_number (f, "pid", top->pid);
      assert_number (f, "gpu_kib", (double) top->size_kib);
      assert_number (f, "gpu_total_kib", (double) s->nvmap_clients->total_kib);
      /* named with its container */
      g_assert_nonnull (strstr (f->message, "container 3f4e8b2a9c1d"));
      g_assert_null (jmem_triage_find (s->findings, "nvmap-orphan"));
    }
  else if (g_str_equal (c->rule, "nvmap-orphan"))
    {
      guint64 sum = 0;

      for (guint i = 0; i < s->nvmap_clients->clients->len; i++)
        sum += ((JmemNvmapClient *) s->nvmap_clients->clients->pdata[i])->size_kib;
      assert_number (f, "orphan_kib", (double) sum);
      assert_number (f, "orphan_pids", 2);
      g_assert_nonnull (strstr (f->message, "zombie"));
      g_assert_nonnull (strstr (f->message, "no such process"));
      /* advice for both, and none for a stopped process it did not find */
      g_assert_nonnull (strstr (f->action, "Reap the zombie"));
      g_assert_nonnull (strstr (f->action, "reboot"));
      g_assert_null (strstr (f->action, "kill -CONT"));
    }
  else if (g_str_equal (c->rule, "cuda-pool-retained"))
    {
      assert_number (f, "l4t_major", 36);
      assert_number (f, "nvmap_unattributed_kib", (double) s->nvmap_unattributed_kib);
      assert_number (f, "retained_kib", (double) s->nvmap_unattributed_kib);
    }
  else if (g_str_equal (c->rule, "thermal-hot"))
    {
      double hottest = 0;

      for (guint i = 0; i < s->thermal->len; i++)
        hottest = MAX (hottest, ((JmemThermal *) s->thermal->pdata[i])->celsius);
      assert_number (f, "max_celsius", hottest);
      assert_number (f, "zones_over", 1);
    }
  else if (g_str_equal (c->rule, "headroom-low"))
    {
      /* MemFree - CmaFree + NvMap's pool, the page cache all mapped, half
       * the reclaimable slab, no swap (fixtures/triage/make-fixtures.py) */
      gint64 sreclaim = fixture_meminfo (name, "SReclaimable");
      gint64 misc = MAX (fixture_meminfo (name, "KReclaimable") - sreclaim, 0);
      gint64 now = fixture_meminfo (name, "MemFree") - fixture_meminfo (name, "CmaFree") +
                   fixture_meminfo (name, "NvMapMemFree");
      gint64 after = now + (sreclaim + misc) / 2;

      g_assert_cmpint (fixture_meminfo (name, "Active(file)") + fixture_meminfo (name, "Inactive(file)"),
                       <=, fixture_meminfo (name, "Mapped"));
      assert_number (f, "allocatable_now_kib", (double) now);
      assert_number (f, "allocatable_after_reclaim_kib", (double) after);
      assert_number (f, "mem_total_kib", (double) total);
      assert_number (f, "percent_of_mem_total", (double) (gint64) (after * 1000.0 / total + 0.5) / 10.0);
      g_assert_cmpint (s->headroom->allocatable_after_reclaim_kib, ==, after);
      g_assert_nonnull (strstr (f->action, "jmem headroom --need SIZE"));
      g_assert_nonnull (strstr (f->action, "enable zram"));
    }
  else if (g_str_equal (c->rule, "fragmented"))
    {
      g_autofree char *path = jmem_test_fixture ("triage", name, "proc", "buddyinfo", NULL);
      g_autofree char *text = NULL;
      g_autoptr(JmemBuddyinfo) b = NULL;
      guint64 pages = 0, largest = 0;
      gsize len;

      g_assert_true (g_file_get_contents (path, &text, &len, NULL));
      b = jmem_buddyinfo_parse (text, len, NULL);
      for (guint i = 0; i < b->zones->len; i++)
        {
          const JmemBuddyZone *z = g_ptr_array_index (b->zones, i);

          for (guint o = 0; o < MIN (z->n_orders, JMEM_BUDDY_MAX_ORDERS); o++)
            {
              pages += z->blocks[o] << o;
              if (o == 3)
                largest += z->blocks[o];
              else if (o > 3)
                g_assert_cmpuint (z->blocks[o], ==, 0);
            }
        }
      assert_number (f, "largest_free_block_kib", 32);
      assert_number (f, "largest_free_blocks", (double) largest);
      assert_number (f, "free_kib", (double) (pages * 4));
      assert_number (f, "huge_free_kib", 0);
      assert_number (f, "page_size_bytes", 4096);
    }
  else if (g_str_equal (c->rule, "lfb-fragmented"))
    {
      g_assert_nonnull (s->tegrastats);
      assert_number (f, "lfb_blocks", (double) s->tegrastats->lfb_blocks);
      assert_number (f, "lfb_block_kib", (double) s->tegrastats->lfb_block_kib);
      assert_number (f, "lfb_total_kib", (double) (s->tegrastats->lfb_blocks * s->tegrastats->lfb_block_kib));
    }
  else
    g_assert_not_reached ();
}

/* ---- boundaries, on snapshots built here ---- */

static JmemSnapshot *
with_meminfo (const char *text)
{
  JmemSnapshot *s = jmem_snapshot_new ();

  s->meminfo = jmem_meminfo_parse (text, strlen (text), NULL);
  g_assert_nonnull (s->meminfo);
  return s;
}

static gboolean
fires (JmemSnapshot *s, const char *id)
{
  g_clear_pointer (&s->findings, g_ptr_array_unref);
  s->findings = jmem_triage_run (s);
  return jmem_triage_find (s->findings, id) != NULL;
}

static void
meminfo_case (const char *id, const char *text, gboolean hit)
{
  g_autoptr(JmemSnapshot) s = with_meminfo (text);

  g_assert_cmpint (fires (s, id), ==, hit);
}

static void
test_boundary_meminfo (void)
{
  /* at least 50 % */
  meminfo_case ("gpu-dominates", "MemTotal: 1000000 kB\nNvMapMemUsed: 500000 kB\n", TRUE);
  meminfo_case ("gpu-dominates", "MemTotal: 1000000 kB\nNvMapMemUsed: 499999 kB\n", FALSE);
  /* more than 50 % */
  meminfo_case ("swap-heavy", "SwapTotal: 1000000 kB\nSwapFree: 500000 kB\n", FALSE);
  meminfo_case ("swap-heavy", "SwapTotal: 1000000 kB\nSwapFree: 499999 kB\n", TRUE);
  meminfo_case ("swap-heavy", "SwapTotal: 0 kB\nSwapFree: 0 kB\n", FALSE);
  /* under 5 % free */
  meminfo_case ("cma-exhausted", "CmaTotal: 1000000 kB\nCmaFree: 50000 kB\n", FALSE);
  meminfo_case ("cma-exhausted", "CmaTotal: 1000000 kB\nCmaFree: 49999 kB\n", TRUE);
  meminfo_case ("cma-exhausted", "CmaTotal: 0 kB\nCmaFree: 0 kB\n", FALSE);
}

static JmemProcess *
process (gint64 pid, const char *name, char state, gint64 rss, gint64 footprint)
{
  JmemProcess *p = g_new0 (JmemProcess, 1);

  p->pid = pid;
  p->name = g_strdup (name);
  p->state = state;
  p->rss_kib = rss;
  p->pss_kib = -1;
  p->nvmap_kib = p->gpu_kib = -1;
  p->footprint_kib = footprint;
  return p;
}

static void
add_nvmap (JmemSnapshot *s, gint64 pid, const char *name, guint64 kib, gboolean exists)
{
  JmemNvmapPidTotal *t = g_new0 (JmemNvmapPidTotal, 1);

  t->pid = pid;
  t->process = g_strdup (name);
  t->size_kib = kib;
  t->n_clients = 1;
  t->pid_exists = exists;
  g_ptr_array_add (s->nvmap_by_pid, t);
}

static void
test_boundary_unexplained (void)
{
  for (int extra = 0; extra <= 1; extra++)
    {
      /* nothing known but MemFree: 100000 + extra of 1000000 unexplained */
      g_autofree char *text = g_strdup_printf ("MemTotal: 1000000 kB\nMemFree: %d kB\n",
                                               900000 - extra);
      g_autoptr(JmemSnapshot) s = with_meminfo (text);

      g_assert_cmpint (fires (s, "unexplained-large"), ==, extra == 1);
      /* every bucket but free is unknown: their memory is in the remainder,
       * so it is no evidence of a leak */
      if (extra == 1)
        g_assert_cmpint (jmem_triage_find (s->findings, "unexplained-large")->severity, ==,
                         JMEM_SEVERITY_INFO);
    }
  /* on the unified stack the GPU memory the driver reports is the gpu
   * bucket, out of the remainder */
  for (int mib = 399; mib <= 400; mib++)
    {
      g_autoptr(JmemSnapshot) s = with_meminfo ("MemTotal: 1024000 kB\nMemFree: 512000 kB\n");
      JmemProcess *p = process (9, "python3", 'R', 1000, 1000);
      JmemNvsmiApp *a = g_new0 (JmemNvsmiApp, 1);

      s->gpu_stack = JMEM_GPU_STACK_UNIFIED;
      a->pid = 9;
      a->used_memory_mib = mib;
      a->pid_exists = TRUE;
      g_ptr_array_add (s->gpu_apps, a);
      p->gpu_kib = mib * 1024;
      g_ptr_array_add (s->processes, p);
      g_assert_cmpint (fires (s, "unexplained-large"), ==, mib == 399);
    }
}

/* gpu-managed-unreported: a listed GPU process whose RSS is above 1 GiB and
 * more than twice what NVML reports for it (managed memory lands in RSS);
 * twice exactly, or off the unified stack, says nothing. */
static void
test_boundary_gpu_managed (void)
{
  static const struct { gint64 rss_kib; gint64 gpu_mib; gboolean unified; gboolean fires; } cases[] = {
    { 6 << 20, 1024, TRUE, TRUE },
    { 2 << 20, 1024, TRUE, FALSE },           /* twice exactly */
    { (2 << 20) + 4, 1024, TRUE, TRUE },
    { (1 << 20) - 1, 0, TRUE, FALSE },        /* below 1 GiB */
    { 6 << 20, 1024, FALSE, FALSE },          /* NvMap's stack: NVML has no figure */
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(JmemSnapshot) s = with_meminfo ("MemTotal: 16777216 kB\nMemFree: 8388608 kB\n");
      JmemProcess *p = process (40, "python3", 'R', cases[i].rss_kib, cases[i].rss_kib);
      JmemNvsmiApp *a = g_new0 (JmemNvsmiApp, 1);

      s->gpu_stack = cases[i].unified ? JMEM_GPU_STACK_UNIFIED : JMEM_GPU_STACK_NVGPU;
      a->pid = 40;
      a->used_memory_mib = cases[i].gpu_mib;
      a->pid_exists = TRUE;
      g_ptr_array_add (s->gpu_apps, a);
      p->gpu_kib = cases[i].gpu_mib * 1024;
      g_ptr_array_add (s->processes, p);
      g_assert_cmpint (fires (s, "gpu-managed-unreported"), ==, cases[i].fires);
      if (cases[i].fires)
        g_assert_nonnull (strstr (jmem_triage_find (s->findings, "gpu-managed-unreported")->message,
                                  "PID 40 (python3)"));
    }
}

static void
test_boundary_desktop (void)
{
  for (int extra = 0; extra <= 1; extra++)
    {
      g_autoptr(JmemSnapshot) s = jmem_snapshot_new ();

      g_ptr_array_add (s->processes, process (10, "Xorg", 'S', 1, 1));
      add_nvmap (s, 10, "Xorg", JMEM_TRIAGE_DESKTOP_NVMAP_MIN_KIB - 1 + extra, TRUE);
      add_nvmap (s, 11, "python3", 1u << 20, TRUE);
      g_assert_cmpint (fires (s, "desktop-nvmap"), ==, extra == 1);
    }
  g_assert_true (jmem_process_is_desktop ("gnome-shell"));
  g_assert_true (jmem_process_is_desktop ("/usr/bin/Xwayland"));
  g_assert_false (jmem_process_is_desktop ("python3"));
}

static void
test_boundary_single (void)
{
  const guint64 gib = 1024 * 1024;

  for (int extra = 0; extra <= 1; extra++)
    {
      /* 3 GiB of 4 GiB is exactly 75 % */
      g_autoptr(JmemSnapshot) s = with_meminfo ("MemTotal: 100000000 kB\nNvMapMemUsed: 4194304 kB\n");

      add_nvmap (s, 20, "trtexec", 3 * gib - 1 + extra, TRUE);
      add_nvmap (s, 21, "other", gib + 1 - extra, TRUE);
      g_assert_cmpint (fires (s, "single-process-dominates"), ==, extra == 1);
    }
  for (int extra = 0; extra <= 1; extra++)
    {
      /* more than 60 % of RAM in footprint: a warning */
      g_autoptr(JmemSnapshot) s = with_meminfo ("MemTotal: 1000000 kB\n");

      g_ptr_array_add (s->processes, process (30, "llama-server", 'S', 1, 600000 + extra));
      g_assert_cmpint (fires (s, "single-process-dominates"), ==, extra == 1);
      if (extra)
        expect (s, "single-process-dominates", JMEM_SEVERITY_WARNING);
    }
}

/* Process @pid, holding 3 GiB of GPU memory by nvidia-smi's row. */
static JmemNvsmiApp *
add_gpu_app (JmemSnapshot *s, gint64 pid, const char *name)
{
  JmemNvsmiApp *a = g_new0 (JmemNvsmiApp, 1);

  a->gpu_uuid = g_strdup ("GPU-x");
  a->pid = pid;
  a->used_memory_mib = 3072;
  a->process_name = g_strdup (name);
  a->pid_exists = TRUE;
  g_ptr_array_add (s->gpu_apps, a);
  g_ptr_array_add (s->processes, process (pid, name, 'S', 1, 1));
  return a;
}

/* nvidia-smi rows that may be forged (after a name holding a newline) name
 * no process and add to no GPU total; the same rows trusted do both. */
static void
test_untrusted_gpu_apps (void)
{
  for (int trusted = 0; trusted <= 1; trusted++)
    {
      g_autoptr(JmemSnapshot) s = with_meminfo ("MemTotal: 4194304 kB\n");
      JmemNvsmiApp *a = add_gpu_app (s, 20, "trtexec");
      a->in_doubt = !trusted;
      s->gpu_apps_trusted = trusted;
      g_assert_cmpint (fires (s, "single-process-dominates"), ==, trusted);
      g_assert_cmpint (fires (s, "gpu-dominates"), ==, trusted);
      for (guint i = 0; i < s->findings->len; i++)
        {
          const JmemFinding *f = g_ptr_array_index (s->findings, i);

          g_assert_true (trusted || strstr (f->message, "PID 20") == NULL);
        }
    }
}

static void
test_orphan_states (void)
{
  g_autoptr(JmemSnapshot) s = jmem_snapshot_new ();
  const JmemFinding *f;

  g_ptr_array_add (s->processes, process (40, "stopped", 'T', 1, 1));
  g_ptr_array_add (s->processes, process (41, "running", 'R', 1, 1));
  add_nvmap (s, 40, "stopped", 100, TRUE);
  add_nvmap (s, 41, "running", 100, TRUE);
  add_nvmap (s, 0, "kernel", 100, TRUE);
  f = (fires (s, "nvmap-orphan"), expect (s, "nvmap-orphan", JMEM_SEVERITY_WARNING));
  assert_number (f, "orphan_kib", 100);
  assert_number (f, "orphan_pids", 1);
  g_assert_nonnull (strstr (f->message, "stopped"));
  g_assert_nonnull (strstr (f->action, "kill -CONT"));
  g_assert_null (strstr (f->action, "zombie"));
  g_assert_null (strstr (f->action, "reboot"));
}

/* A PID with no process: NvMap's PIDs were found to be this /proc's, so
 * no advice about zombies, stopped processes or another PID namespace. */
static void
test_orphan_gone (void)
{
  g_autoptr(JmemSnapshot) s = jmem_snapshot_new ();
  const JmemFinding *f;

  add_nvmap (s, 5120, "gst-launch-1.0", 20480, FALSE);
  f = (fires (s, "nvmap-orphan"), expect (s, "nvmap-orphan", JMEM_SEVERITY_WARNING));
  g_assert_nonnull (strstr (f->message, "no such process"));
  g_assert_nonnull (strstr (f->action, "reboot"));
  g_assert_null (strstr (f->action, "zombie"));
  g_assert_null (strstr (f->action, "kill -CONT"));
  g_assert_null (strstr (f->action, "on the host"));
}

/* On a GB10 (unified memory, no Jetson) the advice names what it has:
 * nvidia-smi's GPU-Util, not tegrastats' GR3D_FREQ, and no nvpmodel; on a
 * Jetson it keeps them. */
static void
test_advice_off_jetson (void)
{
  for (int unified = 0; unified <= 1; unified++)
    {
      g_autoptr(JmemSnapshot) s = with_meminfo ("MemTotal: 4194304 kB\n");
      g_autoptr(GPtrArray) gpus = g_ptr_array_new_with_free_func ((GDestroyNotify) jmem_nvsmi_gpu_free);
      JmemNvsmiGpu *gpu = g_new0 (JmemNvsmiGpu, 1);
      JmemPlatformEvidence e = { .tegra_release = !unified, .gpu_stack = JMEM_GPU_STACK_UNIFIED,
                                 .gpus = gpus };
      JmemThermal *z = g_new0 (JmemThermal, 1);
      const JmemFinding *f;

      gpu->name = g_strdup (unified ? "NVIDIA GB10" : "NVIDIA Thor");
      gpu->memory_total_mib = -1;
      g_ptr_array_add (gpus, gpu);
      s->platform = jmem_platform_recognise (&e);
      s->gpu_stack = JMEM_GPU_STACK_UNIFIED;
      add_gpu_app (s, 20, "llama-server");
      s->gpu_apps_trusted = TRUE;
      z->zone = g_strdup ("thermal_zone0");
      z->type = g_strdup ("acpitz");
      z->celsius = 95.0;
      g_ptr_array_add (s->thermal, z);

      g_assert_true (fires (s, "gpu-dominates"));
      f = jmem_triage_find (s->findings, "gpu-dominates");
      g_assert_cmpint (strstr (f->message, "tegrastats") == NULL, ==, unified);
      g_assert_cmpint (strstr (f->message, "GPU-Util in nvidia-smi") != NULL, ==, unified);
      g_assert_cmpint (strstr (f->action, "NvMap") == NULL, ==, unified);
      f = jmem_triage_find (s->findings, "thermal-hot");
      g_assert_nonnull (f);
      g_assert_cmpint (strstr (f->action, "nvpmodel") == NULL, ==, unified);
      assert_action_is_steps (f->action);
    }
}

static void
test_boundary_thermal_lfb (void)
{
  const struct { double c; gboolean hit; } temps[] = { { 90.0, FALSE }, { 90.1, TRUE }, { 151.0, FALSE } };
  const struct { gint64 blocks, kib; gboolean hit; } lfb[] = {
    { 16, 4096, FALSE }, { 15, 4096, TRUE }, { 64, 2048, FALSE }, { 63, 2048, TRUE }, { 0, 4096, TRUE },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (temps); i++)
    {
      g_autoptr(JmemSnapshot) s = jmem_snapshot_new ();
      JmemThermal *z = g_new0 (JmemThermal, 1);

      z->zone = g_strdup ("thermal_zone0");
      z->type = g_strdup ("tj-thermal");
      z->celsius = temps[i].c;
      g_ptr_array_add (s->thermal, z);
      g_assert_cmpint (fires (s, "thermal-hot"), ==, temps[i].hit);
    }
  for (gsize i = 0; i < G_N_ELEMENTS (lfb); i++)
    {
      g_autoptr(JmemSnapshot) s = jmem_snapshot_new ();

      s->tegrastats = g_new0 (JmemTegrastats, 1);
      s->tegrastats->lfb_blocks = lfb[i].blocks;
      s->tegrastats->lfb_block_kib = lfb[i].kib;
      s->tegrastats->gr3d_freq_percent = -1;
      g_assert_cmpint (fires (s, "lfb-fragmented"), ==, lfb[i].hit);
    }
}

/* headroom-low below a tenth of MemTotal after reclaim, critical below a
 * twentieth; here, with nothing to reclaim, after reclaim is MemFree. */
static void
test_boundary_headroom (void)
{
  const struct { gint64 free; gboolean hit; JmemSeverity severity; } cases[] = {
    { 100000, FALSE, 0 }, { 99999, TRUE, JMEM_SEVERITY_WARNING },
    { 50000, TRUE, JMEM_SEVERITY_WARNING }, { 49999, TRUE, JMEM_SEVERITY_CRITICAL },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *text = g_strdup_printf ("MemTotal: 1000000 kB\nMemFree: %" G_GINT64_FORMAT
                                               " kB\n", cases[i].free);
      g_autoptr(JmemSnapshot) s = with_meminfo (text);
      const JmemFinding *f;

      s->accounting = jmem_snapshot_accounting_new (s);
      s->headroom = jmem_snapshot_headroom_new (s, -1);
      g_assert_cmpint (s->headroom->allocatable_after_reclaim_kib, ==, cases[i].free);
      g_assert_cmpint (fires (s, "headroom-low"), ==, cases[i].hit);
      f = jmem_triage_find (s->findings, "headroom-low");
      if (f != NULL)
        g_assert_cmpint (f->severity, ==, cases[i].severity);
    }
}

/* With buddyinfo read, fragmented speaks for the free blocks; tegrastats'
 * lfb-fragmented no longer says the same again. */
static void
test_lfb_silent_beside_buddyinfo (void)
{
  g_autoptr(JmemSnapshot) s = with_meminfo ("MemTotal: 8000000 kB\nMemFree: 4000000 kB\n");
  static const char buddy[] = "Node 0, zone Normal 1000 0 0 0 0 0 0 0 0 0 900\n";

  s->tegrastats = g_new0 (JmemTegrastats, 1);
  s->tegrastats->lfb_blocks = 1;
  s->tegrastats->lfb_block_kib = 2048;
  s->tegrastats->gr3d_freq_percent = -1;
  g_assert_true (fires (s, "lfb-fragmented"));
  s->buddyinfo = jmem_buddyinfo_parse (buddy, strlen (buddy), NULL);
  s->page_size = 4096;
  s->accounting = jmem_snapshot_accounting_new (s);
  s->headroom = jmem_snapshot_headroom_new (s, -1);
  g_assert_false (fires (s, "lfb-fragmented"));
}

static void
test_cuda_release (void)
{
  const char *majors[] = { "38", "39", "garbage" };

  for (gsize i = 0; i < G_N_ELEMENTS (majors); i++)
    {
      g_autoptr(JmemSnapshot) s = with_meminfo ("MemTotal: 1000000 kB\nNvMapMemFree: 100000 kB\n");

      s->release = g_new0 (JmemTegraRelease, 1);
      s->release->major = g_strdup (majors[i]);
      /* without a per-process GPU source, "no live GPU process" is unknown */
      g_assert_false (fires (s, "cuda-pool-retained"));
      s->nvmap_readable = TRUE;
      g_assert_cmpint (fires (s, "cuda-pool-retained"), ==, i == 0);
      /* a live process holding GPU memory explains what is held */
      g_ptr_array_add (s->processes, process (50, "python3", 'R', 1, 1));
      add_nvmap (s, 50, "python3", JMEM_TRIAGE_CUDA_LIVE_MIN_KIB, TRUE);
      g_assert_false (fires (s, "cuda-pool-retained"));
    }
}

static void
test_hostile (void)
{
  g_autoptr(JmemSnapshot) s = with_meminfo ("MemTotal: 18446744073709551615 kB\n"
                                            "MemAvailable: 0 kB\nNvMapMemUsed: 18446744073709551615 kB\n"
                                            "SwapTotal: 18446744073709551615 kB\nSwapFree: 0 kB\n");
  g_autoptr(JsonNode) json = NULL;

  g_ptr_array_add (s->processes, process (7, "Xorg\n\x1b[31m", 'Z', G_MAXINT64, G_MAXINT64));

  add_nvmap (s, 7, "Xorg\n\x1b[31m", G_MAXUINT64, TRUE);
  add_nvmap (s, 8, "gone", G_MAXUINT64, FALSE);
  fires (s, "none");
  g_assert_cmpuint (s->findings->len, >, 0);
  for (guint i = 0; i < s->findings->len; i++)
    g_assert_true (g_utf8_validate (((JmemFinding *) s->findings->pdata[i])->message, -1, NULL));

  json = jmem_findings_to_json (s->findings);
  g_assert_nonnull (json);

  /* a container id whose 12th character is two bytes long is cut after it */
  {
    g_autoptr(JmemSnapshot) big = with_meminfo ("MemTotal: 1000000 kB\n");
    JmemProcess *p = process (9, "llm", 'R', 1, 900000);
    const JmemFinding *f;

    p->container_id = g_strdup ("abcdefghijk\xc3\xa9xyz");
    g_ptr_array_add (big->processes, p);
    g_assert_true (fires (big, "single-process-dominates"));
    f = jmem_triage_find (big->findings, "single-process-dominates");
    g_assert_true (g_utf8_validate (f->message, -1, NULL));
    g_assert_nonnull (strstr (f->message, "container abcdefghijk\xc3\xa9 "));
  }

  /* an empty snapshot finds nothing and does not crash */
  {
    g_autoptr(JmemSnapshot) empty = jmem_snapshot_new ();
    g_assert_false (fires (empty, "gpu-dominates"));
    g_assert_cmpuint (empty->findings->len, ==, 0);
  }
}

/* ---- the command ---- */

/* `jmem triage --sysroot FIXTURES/@tree [--json]`: its exit status, and its
 * stdout in @out. */
static int
run_triage (const char *tree, gboolean json, char **out)
{
  g_autofree char *root = jmem_test_fixture (tree, NULL);
  const char *args[] = { "triage", "--sysroot", root, json ? "--json" : NULL, NULL };
  g_auto(JmemTestRun) r = { 0 };

  jmem_test_run_jmem (&r, args);
  *out = g_steal_pointer (&r.out);
  return r.status;
}

static void
test_command_json (void)
{
  g_autofree char *hit = NULL, *miss = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  JsonObject *root;
  JsonArray *findings;
  JsonObject *f;

  /* exit 0 also when something was found */
  g_assert_cmpint (run_triage ("triage/nvmap-orphan-hit", TRUE, &hit), ==, 0);
  g_assert_true (json_parser_load_from_data (parser, hit, -1, &error));
  g_assert_no_error (error);
  root = json_node_get_object (json_parser_get_root (parser));
  g_assert_cmpstr (json_object_get_string_member (root, "schema"), ==, "jmem-triage");
  jmem_test_assert_valid (hit, "triage.schema.json");
  findings = json_object_get_array_member (root, "findings");
  g_assert_cmpuint (json_array_get_length (findings), ==, 1);
  f = json_array_get_object_element (findings, 0);
  g_assert_cmpstr (json_object_get_string_member (f, "id"), ==, "nvmap-orphan");
  g_assert_cmpstr (json_object_get_string_member (f, "severity"), ==, "warning");
  /* a reboot is for an administrator */
  g_assert_true (json_object_get_boolean_member (f, "admin"));
  g_assert_cmpint (json_object_get_int_member (
                     json_object_get_object_member (json_object_get_object_member (f, "numbers"),
                                                    "orphan_pids"), "value"), ==, 2);

  g_assert_cmpint (run_triage ("triage/nvmap-orphan-miss", TRUE, &miss), ==, 0);
  g_assert_true (json_parser_load_from_data (parser, miss, -1, &error));
  root = json_node_get_object (json_parser_get_root (parser));
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (root, "findings")), ==, 0);
  jmem_test_assert_valid (miss, "triage.schema.json");
}

static void
test_command_hostile (void)
{
  g_autofree char *out = NULL;

  /* attacker-shaped names reach the human view escaped */
  g_assert_cmpint (run_triage ("trees/hostile", FALSE, &out), ==, 0);
  g_assert_true (g_str_has_prefix (out, "Findings\n"));
  g_assert_true (g_utf8_validate (out, -1, NULL));
  g_assert_null (strchr (out, '\033'));
  g_clear_pointer (&out, g_free);

  /* names with escapes and invalid bytes: the finding names them, escaped */
  g_assert_cmpint (run_triage ("triage/hostile-names", FALSE, &out), ==, 0);
  g_assert_nonnull (strstr (out, "nvmap-orphan"));
  g_assert_nonnull (strstr (out, "PID 6100"));
  g_assert_nonnull (strstr (out, "PID 6101"));
  g_assert_nonnull (strstr (out, "\\x1b]0;pwn"));
  g_assert_true (g_utf8_validate (out, -1, NULL));
  g_assert_null (strchr (out, '\033'));
  g_assert_null (strchr (out, '\r'));
}

/* Every rule's finding, as `jmem snapshot --json` writes it, meets the schema. */
static void
test_command_schema (gconstpointer data)
{
  const Case *c = data;
  g_autofree char *hit = g_strdup_printf ("%s-hit", c->rule);
  g_autofree char *root = jmem_test_fixture ("triage", hit, NULL);
  const char *snapshot[] = { "snapshot", "--json", "--tegrastats", "1", "--sysroot", root, NULL };
  g_auto(JmemTestRun) r = { 0 };

  jmem_test_run_jmem (&r, snapshot);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, c->rule));

  jmem_test_assert_valid (r.out, "snapshot.schema.json");
}

int
main (int argc, char **argv)
{
  static const Case cases[] = {
    { "gpu-dominates", JMEM_SEVERITY_INFO },
    { "desktop-nvmap", JMEM_SEVERITY_INFO },
    { "single-process-dominates", JMEM_SEVERITY_INFO },
    { "nvmap-orphan", JMEM_SEVERITY_WARNING },
    { "unexplained-large", JMEM_SEVERITY_WARNING },
    { "cuda-pool-retained", JMEM_SEVERITY_WARNING },
    { "swap-heavy", JMEM_SEVERITY_WARNING },
    { "cma-exhausted", JMEM_SEVERITY_WARNING },
    { "thermal-hot", JMEM_SEVERITY_WARNING },
    { "lfb-fragmented", JMEM_SEVERITY_WARNING },
    { "headroom-low", JMEM_SEVERITY_CRITICAL },
    { "fragmented", JMEM_SEVERITY_WARNING },
  };

  g_test_init (&argc, &argv, NULL);

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *hit = g_strdup_printf ("/triage/fixture/%s/hit", cases[i].rule);
      g_autofree char *miss = g_strdup_printf ("/triage/fixture/%s/miss", cases[i].rule);

      g_test_add_data_func (hit, &cases[i], test_fixture_hit);
      g_test_add_data_func (miss, &cases[i], test_fixture_miss);
    }
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *schema = g_strdup_printf ("/triage/command/schema/%s", cases[i].rule);

      g_test_add_data_func (schema, &cases[i], test_command_schema);
    }
  g_test_add_func ("/triage/boundary/meminfo", test_boundary_meminfo);
  g_test_add_func ("/triage/boundary/unexplained", test_boundary_unexplained);
  g_test_add_func ("/triage/boundary/desktop", test_boundary_desktop);
  g_test_add_func ("/triage/boundary/single", test_boundary_single);
  g_test_add_func ("/triage/boundary/thermal-lfb", test_boundary_thermal_lfb);
  g_test_add_func ("/triage/boundary/headroom", test_boundary_headroom);
  g_test_add_func ("/triage/lfb-silent-beside-buddyinfo", test_lfb_silent_beside_buddyinfo);
  g_test_add_func ("/triage/orphan-states", test_orphan_states);
  g_test_add_func ("/triage/orphan-gone", test_orphan_gone);
  g_test_add_func ("/triage/untrusted-gpu-apps", test_untrusted_gpu_apps);
  g_test_add_func ("/triage/advice-off-jetson", test_advice_off_jetson);
  g_test_add_func ("/triage/boundary/gpu-managed", test_boundary_gpu_managed);
  g_test_add_func ("/triage/cuda-release", test_cuda_release);
  g_test_add_func ("/triage/hostile", test_hostile);
  g_test_add_func ("/triage/command/json", test_command_json);
  g_test_add_func ("/triage/command/hostile", test_command_hostile);
  return g_test_run ();
}
