/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The rules over time (nvmap-growing, gpu-growing, pss-growing,
 * nvmap-orphaned, the board's series and the projection) on synthetic
 * histories built here: each rule on a series that must fire, at its
 * thresholds, and on noisy, stepped or short series that must not. Samples
 * are a real snapshot of a fixture tree with the timestamp, NvMap rows,
 * process rows, GPU rows and allocatable memory replaced. */
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>
#include <stdio.h>
#include <sys/stat.h>

#include "jmem-test.h"

#include "jmem-collect.h"
#include "jmem-diff.h"
#include "jmem-history.h"
#include "jmem-history-writer.h"
#include "jmem-snapshot-json.h"
#include "jmem-triage.h"
#include "jmem-triage-history.h"

#define MIB 1024
#define GIB (1024 * MIB)
#define T0 G_GINT64_CONSTANT (1780000000)

static char *template_json;  /* a snapshot of trees/orin-agx-nvgpu */
static char *tmpdir;

typedef struct {
  gint64      pid;
  const char *name;
  gint64      kib;
  gboolean    exists;
  gint64      start;  /* start_time_ticks of a process row; 0: null */
} Row;

/* One sample at @t: @nvmap as nvmap.by_pid, @procs (kib = PSS) as the
 * process list. */
static JsonNode *
sample (gint64 t, const Row *nvmap, guint n_nvmap, const Row *procs, guint n_procs)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonObject *root, *proto;
  JsonArray *by_pid, *list;
  g_autoptr(JsonNode) proto_node = NULL;

  g_assert_true (json_parser_load_from_data (parser, template_json, -1, NULL));
  root = json_node_get_object (json_parser_get_root (parser));
  json_object_set_int_member (json_object_get_object_member (root, "collected"), "timestamp_unix", t);

  by_pid = json_array_new ();
  for (guint i = 0; i < n_nvmap; i++)
    {
      JsonObject *o = json_object_new ();

      json_object_set_int_member (o, "pid", nvmap[i].pid);
      json_object_set_string_member (o, "process", nvmap[i].name);
      json_object_set_int_member (o, "n_clients", 1);
      json_object_set_int_member (o, "size_kib", nvmap[i].kib);
      json_object_set_boolean_member (o, "pid_exists", nvmap[i].exists);
      json_array_add_object_element (by_pid, o);
    }
  json_object_set_array_member (json_object_get_object_member (root, "nvmap"), "by_pid", by_pid);

  list = json_object_get_array_member (json_object_get_object_member (root, "processes"), "list");
  proto_node = json_node_copy (json_array_get_element (list, 0));
  list = json_array_new ();
  for (guint i = 0; i < n_procs; i++)
    {
      g_autofree char *text = json_to_string (proto_node, FALSE);
      JsonNode *p = json_from_string (text, NULL);

      proto = json_node_get_object (p);
      json_object_set_int_member (proto, "pid", procs[i].pid);
      json_object_set_string_member (proto, "name", procs[i].name);
      json_object_set_int_member (proto, "pss_kib", procs[i].kib);
      if (procs[i].start > 0)
        json_object_set_int_member (proto, "start_time_ticks", procs[i].start);
      else
        json_object_set_null_member (proto, "start_time_ticks");
      json_array_add_element (list, p);
    }
  json_object_set_array_member (json_object_get_object_member (root, "processes"), "list", list);
  return json_node_copy (json_parser_get_root (parser));
}

/* A history where PID 4242 (gst-launch-1.0) holds @kib[i] of NvMap and PSS
 * in sample i, @interval s apart, next to a steady PID 100. */
static JmemTriageHistory *
history_every (const gint64 *kib, guint n, gint64 interval)
{
  JmemTriageHistory *h = jmem_triage_history_new ();

  for (guint i = 0; i < n; i++)
    {
      Row rows[] = { { 4242, "gst-launch-1.0", kib[i], TRUE }, { 100, "Xorg", 40 * MIB, TRUE } };
      g_autoptr(JsonNode) s = sample (T0 + interval * (gint64) i, rows, 2, rows, 2);

      jmem_triage_history_add (h, s);
    }
  return h;
}

static GPtrArray *
findings_every (const gint64 *kib, guint n, gint64 interval)
{
  g_autoptr(JmemTriageHistory) h = history_every (kib, n, interval);

  return jmem_triage_history_run (h);
}

static GPtrArray *
findings_of (const gint64 *kib, guint n)
{
  return findings_every (kib, n, 60);
}

static void
assert_number (const JmemFinding *f, const char *name, double value)
{
  double got = jmem_finding_get_number (f, name);

  g_assert_false (isnan (got));
  g_assert_cmpfloat_with_epsilon (got, value, 0.5);
}

static void
assert_near (const JmemFinding *f, const char *name, double value, double within)
{
  double got = jmem_finding_get_number (f, name);

  g_assert_false (isnan (got));
  g_assert_cmpfloat_with_epsilon (got, value, within);
}

/* A sample whose accounting holds @unexplained and @slab KiB of
 * unreclaimable slab (the template's other numbers unchanged). */
static JsonNode *
accounting_sample (gint64 t, gint64 unexplained, gint64 slab)
{
  JsonNode *node = sample (t, NULL, 0, NULL, 0);
  JsonObject *a = json_object_get_object_member (json_node_get_object (node), "accounting");
  JsonArray *buckets = json_object_get_array_member (a, "buckets");

  json_object_set_int_member (a, "unexplained_kib", unexplained);
  for (guint i = 0; i < json_array_get_length (buckets); i++)
    {
      JsonObject *b = json_array_get_object_element (buckets, i);

      if (g_str_equal (json_object_get_string_member (b, "name"), "slab_unreclaimable"))
        json_object_set_int_member (b, "kib", slab);
    }
  return node;
}

/* unexplained-growing and slab-growing: the board's own series, under the
 * growth test of nvmap-growing. */
static void
test_board_growth (void)
{
  /* unexplained grows 100 MiB per sample; slab jitters around 350 MiB */
  static const gint64 jitter[] = { 350, 420, 340, 430, 345, 400, 360, 425, 338, 410, 352, 415 };
  gint64 unexplained[G_N_ELEMENTS (jitter)];
  g_autoptr(JmemTriageHistory) h = jmem_triage_history_new ();
  g_autoptr(JmemTriageHistory) leak = jmem_triage_history_new ();
  g_autoptr(GPtrArray) findings = NULL, leak_findings = NULL;
  const JmemFinding *f;

  for (guint i = 0; i < G_N_ELEMENTS (unexplained); i++)
    {
      g_autoptr(JsonNode) a = NULL;
      g_autoptr(JsonNode) b = NULL;

      unexplained[i] = 180 * MIB + 100 * MIB * (gint64) i;
      a = accounting_sample (T0 + 60 * (gint64) i, unexplained[i], jitter[i] * MIB);
      b = accounting_sample (T0 + 60 * (gint64) i, 180 * MIB, 300 * MIB + 200 * MIB * (gint64) i);

      jmem_triage_history_add (h, a);
      jmem_triage_history_add (leak, b);
    }
  findings = jmem_triage_history_run (h);
  f = jmem_triage_find (findings, "unexplained-growing");
  g_assert_nonnull (f);
  assert_number (f, "first_kib", 180 * MIB);
  assert_number (f, "last_kib", 1280 * MIB);
  assert_number (f, "growth_kib", 1100 * MIB);
  assert_number (f, "slope_kib_per_hour", 6000 * MIB);
  assert_number (f, "samples", 12);
  g_assert_null (jmem_triage_find (findings, "slab-growing"));

  leak_findings = jmem_triage_history_run (leak);
  f = jmem_triage_find (leak_findings, "slab-growing");
  g_assert_nonnull (f);
  assert_number (f, "growth_kib", 2200 * MIB);
  g_assert_null (jmem_triage_find (leak_findings, "unexplained-growing"));
}

/* A sample at @t whose headroom gives @allocatable KiB after reclaim, and
 * whose GPU rows from @gpu_source give PID 4242 @gpu_kib (no row when
 * negative), @trusted or not. */
static JsonNode *
board_sample (gint64 t, gint64 allocatable, const char *gpu_source, gint64 gpu_kib, gboolean trusted)
{
  JsonNode *node = sample (t, NULL, 0, NULL, 0);
  JsonObject *root = json_node_get_object (node);
  JsonObject *gpu = json_object_get_object_member (root, "gpu");
  JsonArray *rows = json_array_new ();

  json_object_set_int_member (json_object_get_object_member (root, "headroom"),
                              "allocatable_after_reclaim_kib", allocatable);
  json_object_set_string_member (gpu, "source", gpu_source);
  if (gpu_kib >= 0)
    {
      JsonObject *o = json_object_new ();

      json_object_set_int_member (o, "pid", 4242);
      json_object_set_string_member (o, "gpu_uuid", "GPU-0");
      json_object_set_int_member (o, "used_memory_kib", gpu_kib);
      json_object_set_string_member (o, "process_name", "trtexec");
      json_object_set_boolean_member (o, "pid_exists", TRUE);
      json_object_set_boolean_member (o, "trusted", trusted);
      json_array_add_object_element (rows, o);
    }
  json_object_set_array_member (gpu, "processes", rows);
  return node;
}

/* gpu-growing: nvidia-smi's rows of a process (Thor), 16 MiB a minute; not
 * from a row that may be forged, nor from the nvgpu stack's rows, which are
 * NvMap's again. */
static void
test_gpu_growth (void)
{
  struct { const char *source; gboolean trusted, fires; } cases[] = {
    { "nvidia-smi", TRUE, TRUE },
    { "nvidia-smi", FALSE, FALSE },
    { "nvmap", TRUE, FALSE },
  };

  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      g_autoptr(JmemTriageHistory) h = jmem_triage_history_new ();
      g_autoptr(GPtrArray) f = NULL;
      const JmemFinding *n;

      for (guint i = 0; i < 13; i++)
        {
          g_autoptr(JsonNode) s = board_sample (T0 + 60 * (gint64) i, 8192 * MIB, cases[c].source,
                                                1024 * MIB + 16 * MIB * (gint64) i, cases[c].trusted);

          jmem_triage_history_add (h, s);
        }
      f = jmem_triage_history_run (h);
      n = jmem_triage_find (f, "gpu-growing");
      g_assert_cmpint (n != NULL, ==, cases[c].fires);
      if (n == NULL)
        continue;
      assert_number (n, "pid", 4242);
      assert_number (n, "slope_kib_per_hour", 960.0 * MIB);
      g_assert_nonnull (strstr (n->message, "GPU memory of PID 4242 (trtexec) grew"));
      /* 8 GiB allocatable at 960 MiB an hour: 8.5 h */
      assert_number (n, "alone_exhausts_seconds", 8192.0 / 960 * 3600);
    }
}

/* The allocatable memory after reclaim falling @mib_per_hour from 4 GiB,
 * under uniform noise of ±40 MiB, @n samples @interval s apart; PID 4242's
 * GPU memory rising as fast. */
static JmemTriageHistory *
falling_history (double mib_per_hour, guint n, gint64 interval)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (11);
  JmemTriageHistory *h = jmem_triage_history_new ();

  for (guint i = 0; i < n; i++)
    {
      double hours = (double) interval * i / 3600;
      gint64 fall = (gint64) (mib_per_hour * MIB * hours);
      g_autoptr(JsonNode) s = board_sample (T0 + interval * (gint64) i,
                                            4096 * MIB - fall + g_rand_int_range (rand, -40 * MIB, 40 * MIB + 1),
                                            "nvidia-smi", 512 * MIB + fall, TRUE);

      jmem_triage_history_add (h, s);
    }
  return h;
}

/* memory-exhaustion-projected: 4 GiB falling 10 MiB an hour, sampled every
 * half hour for two days, reaches zero 361.6 h after the last sample
 * (within 10 %, inside its range), on the date it gives; with a need of 1 GiB, 102.4 h
 * sooner. Too short a history falls without a projection, saying why. */
static void
test_projection (void)
{
  g_autoptr(JmemTriageHistory) h = falling_history (10, 97, 1800);
  g_autoptr(JmemTriageHistory) short_h = falling_history (200, 12, 300);
  g_autoptr(GPtrArray) f = jmem_triage_history_run (h);
  g_autoptr(GPtrArray) f_need = NULL;
  g_autoptr(GPtrArray) f_short = jmem_triage_history_run (short_h);
  const JmemFinding *p = jmem_triage_find (f, "memory-exhaustion-projected");
  const JmemFinding *falling;
  double truth = 361.6 * 3600, seconds;
  g_autoptr(GDateTime) date = NULL;
  g_autofree char *day = NULL;

  g_assert_nonnull (p);
  /* the projection comes first: the growing holders are its causes */
  g_assert_true (g_ptr_array_index (f, 0) == p);
  g_assert_cmpint (p->severity, ==, JMEM_SEVERITY_WARNING);
  seconds = jmem_finding_get_number (p, "exhaustion_seconds");
  g_assert_cmpfloat_with_epsilon (seconds, truth, truth * 0.1);
  g_assert_cmpfloat (jmem_finding_get_number (p, "exhaustion_low_seconds"), <, seconds);
  g_assert_cmpfloat (jmem_finding_get_number (p, "exhaustion_high_seconds"), >, seconds);
  assert_number (p, "exhaustion_unix", (double) (T0 + 48 * 3600) + seconds);
  assert_number (p, "window_seconds", 48 * 3600);
  assert_number (p, "samples", 97);
  assert_near (p, "slope_kib_per_hour", -10 * MIB, MIB);
  date = g_date_time_new_from_unix_utc ((gint64) jmem_finding_get_number (p, "exhaustion_unix"));
  day = g_date_time_format (date, "about %Y-%m-%d %H:%M UTC (95 %% range ");
  if (!g_str_has_prefix (p->message, "Projection: at the trend of the last 2.0 days, the memory "
                                     "allocatable after reclaim (") ||
      strstr (p->message, day) == NULL)
    g_error ("%s lacks %s", p->message, day);
  /* the holder that takes it says how long it alone would take */
  g_assert_nonnull (jmem_triage_find (f, "gpu-growing"));

  jmem_triage_history_set_need (h, 1024 * MIB);
  f_need = jmem_triage_history_run (h);
  p = jmem_triage_find (f_need, "memory-exhaustion-projected");
  g_assert_nonnull (p);
  assert_near (p, "exhaustion_seconds", truth - 102.4 * 3600, truth * 0.1);
  assert_number (p, "need_kib", 1024 * MIB);
  g_assert_nonnull (strstr (p->message, "reaches 1.0 GiB (--need) in "));

  g_assert_null (jmem_triage_find (f_short, "memory-exhaustion-projected"));
  falling = jmem_triage_find (f_short, "allocatable-falling");
  g_assert_nonnull (falling);
  g_assert_cmpint (falling->severity, ==, JMEM_SEVERITY_INFO);
  g_assert_nonnull (strstr (falling->message, "no projection is given: the history has 12 samples, "
                                              "where a projection needs 24 at least"));
}

/* Lines of version 1 have no accounting: nothing to follow, nothing fires. */
static void
test_board_growth_old_lines (void)
{
  g_autoptr(JmemTriageHistory) h = jmem_triage_history_new ();
  g_autoptr(GPtrArray) findings = NULL;

  for (guint i = 0; i < 12; i++)
    {
      g_autoptr(JsonNode) s = accounting_sample (T0 + 60 * (gint64) i, 100 * MIB * (i + 1), 1);

      json_object_remove_member (json_node_get_object (s), "accounting");
      jmem_triage_history_add (h, s);
    }
  findings = jmem_triage_history_run (h);
  g_assert_null (jmem_triage_find (findings, "unexplained-growing"));
}

static void
test_steady_growth (void)
{
  gint64 kib[13];
  g_autoptr(GPtrArray) f = NULL;

  /* 1 GiB growing 16 MiB a minute for 12 minutes: +192 MiB, 18.75 % */
  for (guint i = 0; i < G_N_ELEMENTS (kib); i++)
    kib[i] = 1024 * MIB + (gint64) i * 16 * MIB;
  f = findings_of (kib, G_N_ELEMENTS (kib));
  for (guint i = 0; i < 2; i++)
    {
      const char *id = i == 0 ? "nvmap-growing" : "pss-growing";
      const JmemFinding *n = jmem_triage_find (f, id);

      g_assert_nonnull (n);
      g_assert_cmpint (n->severity, ==, JMEM_SEVERITY_WARNING);
      assert_number (n, "pid", 4242);
      assert_number (n, "first_kib", (double) kib[0]);
      assert_number (n, "last_kib", (double) kib[12]);
      assert_number (n, "growth_kib", 192.0 * MIB);
      /* 192 MiB over 720 s = 960 MiB an hour, exactly: no noise */
      assert_number (n, "slope_kib_per_hour", 960.0 * MIB);
      assert_number (n, "slope_low_kib_per_hour", 960.0 * MIB);
      assert_number (n, "slope_high_kib_per_hour", 960.0 * MIB);
      assert_number (n, "confidence_percent", 95);
      assert_number (n, "noise_kib", 0);
      assert_number (n, "window_seconds", 720);
      assert_number (n, "window_start_unix", (double) T0);
      if (strstr (n->message, "over 12 min: 960.0 MiB per hour (95 % interval 960.0 MiB to 960.0 MiB)") == NULL)
        g_error ("%s", n->message);
      g_assert_nonnull (strstr (n->message, "PID 4242 (gst-launch-1.0)"));
      g_assert_nonnull (strstr (n->action, "PID 4242 (gst-launch-1.0)"));
      g_assert_nonnull (strstr (n->action, ", restart it"));
      /* restarting its service is for an administrator */
      g_assert_true (n->admin);
      g_assert_null (strchr (n->message, '\n'));
    }
  /* the steady Xorg never fires, nor does anything orphaned */
  g_assert_cmpuint (f->len, ==, 2);
}

/* The leak: 10 MiB an hour from 1 GiB under uniform noise of
 * ±@noise_mib MiB (a seeded GRand), a sample every half hour for 48 hours;
 * @mib_per_hour 0 is the same noise alone. */
static GPtrArray *
noisy_findings (double mib_per_hour, gint64 noise_mib, guint32 seed)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (seed);
  gint64 kib[97];

  for (guint i = 0; i < G_N_ELEMENTS (kib); i++)
    kib[i] = 1024 * MIB + (gint64) (mib_per_hour * MIB * i / 2) +
             g_rand_int_range (rand, (gint32) -noise_mib * MIB, (gint32) noise_mib * MIB + 1);
  return findings_every (kib, G_N_ELEMENTS (kib), 1800);
}

/* About half of such a leak's intervals fall: counting rising intervals
 * never saw it. The trend does, with the true slope in its interval. */
static void
test_leak_under_noise (void)
{
  for (guint32 seed = 1; seed <= 5; seed++)
    {
      g_autoptr(GPtrArray) f = noisy_findings (10, 40, seed);

      for (guint i = 0; i < 2; i++)
        {
          const JmemFinding *n = jmem_triage_find (f, i == 0 ? "nvmap-growing" : "pss-growing");

          g_assert_nonnull (n);
          assert_number (n, "window_seconds", 48 * 3600);
          assert_number (n, "samples", 97);
          /* near the truth (test-trend checks how often the interval holds it) */
          assert_near (n, "slope_kib_per_hour", 10 * MIB, 2 * MIB);
          g_assert_cmpfloat (jmem_finding_get_number (n, "slope_low_kib_per_hour"), <,
                             jmem_finding_get_number (n, "slope_high_kib_per_hour"));
          g_assert_nonnull (strstr (n->message, "over 2.0 days: "));
        }
    }
}

/* The same noise with no leak, a model loaded once (a step of 512 MiB) and
 * a cache that fills by 300 MiB over 6 hours and is dropped: nothing. */
static void
test_noise_step_sawtooth (void)
{
  for (guint32 seed = 1; seed <= 5; seed++)
    {
      g_autoptr(GPtrArray) flat = noisy_findings (0, 40, seed);
      g_autoptr(GRand) rand = g_rand_new_with_seed (seed);
      gint64 step[97], saw[97];
      g_autoptr(GPtrArray) fs = NULL;
      g_autoptr(GPtrArray) fw = NULL;

      for (guint i = 0; i < G_N_ELEMENTS (step); i++)
        {
          step[i] = 1024 * MIB + (i >= 20 + 10 * seed ? 512 * MIB : 0) +
                    g_rand_int_range (rand, -40 * MIB, 40 * MIB + 1);
          saw[i] = 1024 * MIB + 300 * MIB * (gint64) (i % 12) / 12 +
                   g_rand_int_range (rand, -20 * MIB, 20 * MIB + 1);
        }
      fs = findings_every (step, G_N_ELEMENTS (step), 1800);
      fw = findings_every (saw, G_N_ELEMENTS (saw), 1800);
      g_assert_cmpuint (flat->len, ==, 0);
      g_assert_cmpuint (fs->len, ==, 0);
      g_assert_cmpuint (fw->len, ==, 0);
    }
}

static void
test_small_growth (void)
{
  /* 12 samples: +55 MiB on 100 MiB is below the absolute floor, +66 MiB
   * fires; on 2 GiB, +99 MiB (4.8 %) is below the relative one, +110 MiB
   * (5.4 %) fires */
  struct { gint64 base, step; gboolean fires; } cases[] = {
    { 100 * MIB, 5 * MIB, FALSE },
    { 100 * MIB, 6 * MIB, TRUE },
    { 2048 * MIB, 9 * MIB, FALSE },
    { 2048 * MIB, 10 * MIB, TRUE },
  };

  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      gint64 kib[12];
      g_autoptr(GPtrArray) f = NULL;

      for (guint i = 0; i < G_N_ELEMENTS (kib); i++)
        kib[i] = cases[c].base + (gint64) i * cases[c].step;
      f = findings_of (kib, G_N_ELEMENTS (kib));
      g_assert_cmpint (jmem_triage_find (f, "nvmap-growing") != NULL, ==, cases[c].fires);
    }
}

static void
test_too_short (void)
{
  /* two samples are one step, not a trend; nine are too few for an
   * interval in each half, ten are enough */
  const gint64 two[] = { 100 * MIB, 900 * MIB };
  gint64 line[10];
  g_autoptr(GPtrArray) f = findings_of (two, 2);
  g_autoptr(GPtrArray) f9 = NULL;
  g_autoptr(GPtrArray) f10 = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (line); i++)
    line[i] = 100 * MIB + (gint64) i * 100 * MIB;
  f9 = findings_of (line, 9);
  f10 = findings_of (line, 10);
  g_assert_cmpuint (f->len, ==, 0);
  g_assert_cmpuint (f9->len, ==, 0);
  g_assert_nonnull (jmem_triage_find (f10, "nvmap-growing"));
}

static void
test_pid_reused (void)
{
  g_autoptr(JmemTriageHistory) h = jmem_triage_history_new ();
  g_autoptr(GPtrArray) f = NULL;

  /* the same PID under three programs in turn: three series of one sample */
  for (guint i = 0; i < 3; i++)
    {
      const char *names[] = { "a", "b", "c" };
      Row rows[] = { { 4242, names[i], (gint64) (i + 1) * 512 * MIB, TRUE } };
      g_autoptr(JsonNode) s = sample (T0 + 60 * (gint64) i, rows, 1, rows, 1);

      jmem_triage_history_add (h, s);
    }
  f = jmem_triage_history_run (h);
  g_assert_cmpuint (f->len, ==, 0);
}

/* 16 MiB a minute from 1 GiB over 13 samples (+192 MiB, 18.75 %) for PID
 * 4242, as NvMap and PSS, named and started as @name_of and @start_of say
 * for each sample. */
static GPtrArray *
growth_with_identity (const char *(*name_of) (guint), gint64 (*start_of) (guint))
{
  g_autoptr(JmemTriageHistory) h = jmem_triage_history_new ();

  for (guint i = 0; i < 13; i++)
    {
      Row rows[] = { { 4242, name_of (i), 1024 * MIB + (gint64) i * 16 * MIB, TRUE, start_of (i) } };
      g_autoptr(JsonNode) s = sample (T0 + 60 * (gint64) i, rows, 1, rows, 1);

      jmem_triage_history_add (h, s);
    }
  return jmem_triage_history_run (h);
}

static const char *
renamed_halfway (guint i)
{
  return i < 6 ? "python3" : "pt_main_thread";
}

static gint64
started_once (guint i)
{
  return 5000;
}

static const char *
same_name (guint i)
{
  return "worker";
}

static gint64
restarted_halfway (guint i)
{
  return i < 7 ? 1000 : 2000;
}

/* A process that renames itself is one series while its start time stays:
 * both rules fire, naming it by its latest name. */
static void
test_renamed_same_start (void)
{
  g_autoptr(GPtrArray) f = growth_with_identity (renamed_halfway, started_once);

  for (guint i = 0; i < 2; i++)
    {
      const JmemFinding *n = jmem_triage_find (f, i == 0 ? "nvmap-growing" : "pss-growing");

      g_assert_nonnull (n);
      assert_number (n, "growth_kib", 192.0 * MIB);
      g_assert_nonnull (strstr (n->message, "PID 4242 (pt_main_thread)"));
    }
}

/* The same PID and name under a new start time is another process: two
 * series, neither of which grew 10 %, where one series of both would have. */
static void
test_restarted_same_name (void)
{
  g_autoptr(GPtrArray) f = growth_with_identity (same_name, restarted_halfway);

  g_assert_null (jmem_triage_find (f, "nvmap-growing"));
  g_assert_null (jmem_triage_find (f, "pss-growing"));
}

/* PID 777 holds 300 MiB with no /proc entry in @gone[i] of the samples. */
static GPtrArray *
orphan_findings (const gboolean *gone, guint n)
{
  g_autoptr(JmemTriageHistory) h = jmem_triage_history_new ();

  for (guint i = 0; i < n; i++)
    {
      Row rows[] = { { 777, "deepstream-app", 300 * MIB, !gone[i] } };
      g_autoptr(JsonNode) s = sample (T0 + 30 * (gint64) i, rows, 1, NULL, 0);

      jmem_triage_history_add (h, s);
    }
  return jmem_triage_history_run (h);
}

static void
test_orphaned (void)
{
  const gboolean three[] = { FALSE, FALSE, TRUE, TRUE, TRUE };
  const gboolean two[] = { FALSE, FALSE, FALSE, TRUE, TRUE };
  const gboolean broken[] = { TRUE, TRUE, FALSE, TRUE, TRUE };   /* not consecutive */
  const gboolean came_back[] = { TRUE, TRUE, TRUE, TRUE, FALSE }; /* a PID namespace race */
  g_autoptr(GPtrArray) f3 = orphan_findings (three, 5);
  g_autoptr(GPtrArray) f2 = orphan_findings (two, 5);
  g_autoptr(GPtrArray) fb = orphan_findings (broken, 5);
  g_autoptr(GPtrArray) fc = orphan_findings (came_back, 5);
  const JmemFinding *o = jmem_triage_find (f3, "nvmap-orphaned");

  g_assert_nonnull (o);
  assert_number (o, "pid", 777);
  assert_number (o, "size_kib", 300.0 * MIB);
  assert_number (o, "samples", 3);
  assert_number (o, "window_seconds", 60);
  g_assert_nonnull (strstr (o->message, "PID 777 (deepstream-app)"));
  /* why nothing frees it is the message's; the action is the steps */
  g_assert_nonnull (strstr (o->message, "nothing will free it"));
  g_assert_true (g_str_has_prefix (o->action, "If jmem runs in a container"));
  g_assert_true (o->admin);  /* a reboot */
  g_assert_null (jmem_triage_find (f2, "nvmap-orphaned"));
  g_assert_null (jmem_triage_find (fb, "nvmap-orphaned"));
  g_assert_null (jmem_triage_find (fc, "nvmap-orphaned"));
}

/* Number @name of the first finding @id in a `triage --json` document;
 * -1 when no such finding fired. */
static gint64
finding_number (JsonNode *doc, const char *id, const char *name)
{
  JsonArray *findings = json_object_get_array_member (json_node_get_object (doc), "findings");

  for (guint i = 0; i < json_array_get_length (findings); i++)
    {
      JsonObject *f = json_array_get_object_element (findings, i);

      if (g_str_equal (json_object_get_string_member (f, "id"), id))
        return json_object_get_int_member (
          json_object_get_object_member (json_object_get_object_member (f, "numbers"), name), "value");
    }
  return -1;
}

/* The command: a generated history file through `jmem triage --history
 * --json`, and `jmem diff --history` over its first and last line. */
static void
test_command (void)
{
  g_autofree char *path = g_build_filename (tmpdir, "history.jsonl", NULL);
  g_autoptr(JmemHistoryWriter) w = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(JmemTestRun) r = { 0 };
  g_autoptr(JsonNode) doc = NULL;

  w = jmem_history_writer_open (path, JMEM_HISTORY_DEFAULT_MAX_BYTES, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < 12; i++)
    {
      Row rows[] = { { 4242, "gst-launch-1.0", 256 * MIB + (gint64) i * 32 * MIB, TRUE } };
      g_autoptr(JsonNode) s = sample (T0 + 5 * (gint64) i, rows, 1, rows, 1);
      g_autofree char *line = json_to_string (s, FALSE);

      g_assert_true (jmem_history_writer_append (w, line, &error));
      g_assert_no_error (error);
    }
  {
    const char *args[] = { "triage", "--history", path, "--json", NULL };

    jmem_test_run_jmem (&r, args);
    g_assert_cmpint (r.status, ==, 0);
  }
  doc = json_from_string (r.out, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (json_object_get_string_member (json_node_get_object (doc), "schema"), ==, "jmem-triage");
  g_assert_cmpint (finding_number (doc, "nvmap-growing", "growth_kib"), ==, 352 * MIB);
  jmem_test_run_clear (&r);

  {
    const char *args[] = { "diff", "--json", "--history", path, NULL };
    g_autoptr(JsonNode) diff = NULL;
    JsonArray *procs;
    gboolean found = FALSE;

    jmem_test_run_jmem (&r, args);
    g_assert_cmpint (r.status, ==, 0);
    diff = json_from_string (r.out, &error);
    g_assert_no_error (error);
    /* the first line and the last one, not two neighbours */
    g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (
                       json_node_get_object (diff), "before"), "timestamp_unix"), ==, T0);
    g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (
                       json_node_get_object (diff), "after"), "timestamp_unix"), ==, T0 + 55);
    procs = json_object_get_array_member (json_object_get_object_member (json_node_get_object (diff),
                                                                          "processes"), "changed");
    for (guint i = 0; i < json_array_get_length (procs); i++)
      {
        JsonObject *p = json_array_get_object_element (procs, i);

        if (json_object_get_int_member (p, "pid") == 4242)
          {
            found = TRUE;
            g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (p, "before"), "pss_kib"),
                             ==, 256 * MIB);
            g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (p, "after"), "pss_kib"),
                             ==, 608 * MIB);
          }
      }
    g_assert_true (found);
  }
}

/* A history at @path: 4 GiB allocatable after reclaim falling 20 MiB an
 * hour, exactly, sampled hourly for 24 h. */
static void
write_falling (const char *path)
{
  g_autoptr(JmemHistoryWriter) w = NULL;
  g_autoptr(GError) error = NULL;

  g_unlink (path);
  w = jmem_history_writer_open (path, JMEM_HISTORY_DEFAULT_MAX_BYTES, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < 25; i++)
    {
      g_autoptr(JsonNode) s = board_sample (T0 + 3600 * (gint64) i, 4096 * MIB - 20 * MIB * (gint64) i,
                                            "nvmap", -1, TRUE);
      g_autofree char *line = json_to_string (s, FALSE);

      g_assert_true (jmem_history_writer_append (w, line, &error));
      g_assert_no_error (error);
    }
}

/* Every face of a history gives the one projection (triage --history,
 * summary --history, top --replay, plot, metrics --history, the MCP triage
 * tool of jmem mcp --history): 3,616 MiB left at 20 MiB an hour, 180.8 h (7.5 days) after
 * the last sample. */
static void
test_faces_agree (void)
{
  g_autofree char *path = g_build_filename (tmpdir, "faces.jsonl", NULL);
  g_autofree char *svg = g_build_filename (tmpdir, "faces.svg", NULL);
  const char *triage[] = { "triage", "--history", path, "--json", NULL };
  const char *summary[] = { "summary", "--history", path, NULL };
  const char *top[] = { "top", "--replay", path, NULL };
  const char *plot[] = { "plot", path, "-o", svg, NULL };
  const char *dumb[] = { "TERM=dumb", NULL };
  g_autoptr(JsonNode) doc = NULL;
  g_autofree char *picture = NULL;
  JmemTestRun r = { 0 };

  write_falling (path);
  jmem_test_run_jmem_within (&r, 60, NULL, triage);
  g_assert_cmpint (r.status, ==, 0);
  doc = json_from_string (r.out, NULL);
  g_assert_nonnull (doc);
  g_assert_cmpint (finding_number (doc, "memory-exhaustion-projected", "exhaustion_seconds"), ==,
                   180.8 * 3600);
  jmem_test_run_clear (&r);

  jmem_test_run_jmem_within (&r, 60, NULL, summary);
  g_assert_cmpint (r.status, ==, 0);
  if (strstr (r.out, "\nProjection: out of memory in 7.5 days (95 % range 7.5 to 7.5), about ") == NULL)
    g_error ("summary: %s", r.out);
  jmem_test_run_clear (&r);
  /* a history that is not there: the status of the other faces */
  {
    g_autofree char *missing = g_build_filename (tmpdir, "missing-faces.jsonl", NULL);
    const char *args[] = { "summary", "--history", missing, NULL };

    jmem_test_run_jmem_within (&r, 60, NULL, args);
    g_assert_cmpint (r.status, ==, 66);
    g_assert_nonnull (strstr (r.err, "jmem summary: "));
    jmem_test_run_clear (&r);
  }

  /* no terminal: a line a sample, then the projection */
  jmem_test_run_jmem_within (&r, 60, dumb, top);
  g_assert_cmpint (r.status, ==, 0);
  if (!g_str_has_suffix (r.out, "\nout of memory in 7.5 d (7.5-7.5, projected)\n"))
    g_error ("top: %s", r.out);
  jmem_test_run_clear (&r);

  jmem_test_run_jmem_within (&r, 60, NULL, plot);
  g_assert_cmpint (r.status, ==, 0);
  if (strstr (r.out, "Projection: out of memory in 7.5 days") == NULL ||
      strstr (r.out, "drawn red, dashed past the last sample") == NULL)
    g_error ("plot: %s", r.out);
  g_assert_true (g_file_get_contents (svg, &picture, NULL, NULL));
  /* the fitted line and its projection, in their red */
  g_assert_nonnull (strstr (picture, "rgb(84%,15%,16%)"));
  jmem_test_run_clear (&r);

  /* jmem metrics --history: the same projection as a timestamp */
  {
    g_autofree char *tree = jmem_test_fixture ("trees", "orin-agx-nvgpu", NULL);
    g_autofree char *history_arg = g_strconcat ("--history=", path, NULL);
    const char *metrics[] = { "metrics", "--series=board", "--sysroot", tree, history_arg, NULL };
    const char *at;

    jmem_test_run_jmem_within (&r, 60, NULL, metrics);
    g_assert_cmpint (r.status, ==, 0);
    at = strstr (r.out, "\njmem_projection_exhaustion_timestamp_seconds{bound=\"estimate\"} ");
    if (at == NULL || strstr (r.out, "\njmem_projection_up{reason=\"ok\"} 1\n") == NULL)
      g_error ("metrics: %s", r.out);
    at = strchr (at + 1, '}') + 2;
    g_assert_cmpfloat_with_epsilon (g_ascii_strtod (at, NULL), (double) (T0 + 24 * 3600) + 180.8 * 3600,
                                    1.0);
    jmem_test_run_clear (&r);
  }

  /* the MCP triage tool of a server given the history */
  {
    g_autofree char *tree = jmem_test_fixture ("trees", "orin-agx-nvgpu", NULL);
    const char *argv[] = {
      "sh", "-c",
      "printf '%s\\n' "
      "'{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
      "\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}' "
      "'{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}' "
      "'{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"triage\","
      "\"arguments\":{}}}' | \"$JMEM_EXE\" mcp --sysroot \"$0\" --history \"$1\"",
      tree, path, NULL,
    };
    g_auto(GStrv) lines = NULL;
    g_autoptr(JsonNode) reply = NULL;
    JsonNode *content;
    guint n;

    jmem_test_run_spawn (&r, NULL, argv);
    g_assert_cmpint (r.status, ==, 0);
    lines = g_strsplit (r.out, "\n", -1);
    n = g_strv_length (lines);
    g_assert_cmpuint (n, >=, 3);
    reply = json_from_string (lines[n - 2], NULL);
    g_assert_nonnull (reply);
    content = json_object_get_member (json_object_get_object_member (json_node_get_object (reply), "result"),
                                      "structuredContent");
    g_assert_cmpint (finding_number (content, "memory-exhaustion-projected", "exhaustion_seconds"), ==,
                     180.8 * 3600);
    jmem_test_run_clear (&r);
  }
}

/* The projection through the command, to a --need, in JSON that passes the
 * schema; --need without --history is a usage error. */
static void
test_command_need (void)
{
  g_autofree char *path = g_build_filename (tmpdir, "falling.jsonl", NULL);
  g_autoptr(GError) error = NULL;
  g_auto(JmemTestRun) r = { 0 };
  g_autoptr(JsonNode) doc = NULL;
  const char *args[] = { "triage", "--history", path, "--json", "--need", "1G", NULL };
  const char *no_history[] = { "triage", "--need", "1G", NULL };
  gint64 seconds;

  /* 3,616 MiB left, 1 GiB of which is left 129.6 h later */
  write_falling (path);
  jmem_test_run_jmem (&r, args);
  g_assert_cmpint (r.status, ==, 0);
  jmem_test_assert_valid (r.out, "triage.schema.json");
  doc = json_from_string (r.out, &error);
  g_assert_no_error (error);
  seconds = finding_number (doc, "memory-exhaustion-projected", "exhaustion_seconds");
  g_assert_cmpint (seconds, ==, 466560);
  g_assert_cmpint (finding_number (doc, "memory-exhaustion-projected", "need_kib"), ==, 1024 * MIB);
  jmem_test_run_clear (&r);

  jmem_test_run_jmem (&r, no_history);
  g_assert_cmpint (r.status, ==, 64);
  g_assert_nonnull (strstr (r.err, "--need is for the projection of a --history"));
  jmem_test_run_clear (&r);

  /* nine samples: too few for a trend, and it is said */
  {
    g_autofree char *text = NULL;
    char *end;

    g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
    end = text;
    for (guint i = 0; i < 9; i++)
      end = strchr (end, '\n') + 1;
    g_assert_true (g_file_set_contents (path, text, end - text, NULL));
    jmem_test_run_jmem (&r, args);
    g_assert_cmpint (r.status, ==, 0);
    g_assert_nonnull (strstr (r.err, "the history holds 9 samples; a trend needs 10 at least "
                                     "(nvmap-orphaned 3)"));
  }
}

/* Rows no check has seen (the rules are also fuzzed alone): rows that are
 * no objects are passed over without a critical warning, which the test
 * makes fatal, and a size no machine has grows nothing. */
static void
test_unchecked_rows (void)
{
  g_autoptr(JmemTriageHistory) h = jmem_triage_history_new ();
  g_autoptr(GPtrArray) f = NULL;

  for (guint i = 0; i < 12; i++)
    {
      g_autofree char *text = g_strdup_printf (
        "{\"collected\": {\"timestamp_unix\": %u}, \"nvmap\": {\"by_pid\": [1, \"x\", null, []"
        ", {\"pid\": 7, \"process\": \"big\", \"size_kib\": %" G_GINT64_FORMAT "}]},"
        " \"processes\": {\"list\": [2, {\"pid\": 8, \"name\": \"p\", \"pss_kib\": %" G_GINT64_FORMAT "}]}}",
        1000 + i * 60, G_MAXINT64 / 12 * i, G_MAXINT64 / 12 * i);
      g_autoptr(JsonNode) node = json_from_string (text, NULL);

      g_assert_nonnull (node);
      jmem_triage_history_add (h, node);
    }
  g_assert_cmpuint (jmem_triage_history_get_n_samples (h), ==, 12);
  f = jmem_triage_history_run (h);
  for (guint i = 0; i < f->len; i++)
    g_error ("%s fired: %s", ((JmemFinding *) g_ptr_array_index (f, i))->id,
             ((JmemFinding *) g_ptr_array_index (f, i))->message);
}

/* Damaged lines that match nothing (one good line, one of another schema)
 * and files that are no history have their own exit codes. */
static void
test_command_errors (void)
{
  g_autofree char *bad = g_build_filename (tmpdir, "bad.jsonl", NULL);
  g_autofree char *all_bad = g_build_filename (tmpdir, "all-bad.jsonl", NULL);
  g_autofree char *empty = g_build_filename (tmpdir, "empty.jsonl", NULL);
  g_autofree char *missing = g_build_filename (tmpdir, "missing.jsonl", NULL);
  g_autofree char *fifo = g_build_filename (tmpdir, "fifo.jsonl", NULL);
  g_autofree char *contents = g_strdup_printf ("%s\n{\"schema\": \"other\"}\n", template_json);
  struct { const char *path; int exit; const char *says; } cases[] = {
    { bad, 0, "bad.jsonl:2: not a jmem snapshot (schema is \"other\"" },
    { all_bad, 65, "all-bad.jsonl holds no jmem snapshot: " },
    { empty, 69, "holds no snapshot" },
    { missing, 66, "Cannot open" },
    /* refused at once, never waited on for a writer */
    { fifo, 66, "fifo.jsonl is a FIFO or pipe, not a regular file" },
  };

  g_assert_true (g_file_set_contents (bad, contents, -1, NULL));
  g_assert_true (g_file_set_contents (all_bad, "{\"schema\": \"other\"}\n// x\n", -1, NULL));
  g_assert_true (g_file_set_contents (empty, "", 0, NULL));
  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      const char *args[] = { "triage", "--history", cases[i].path, NULL };
      JmemTestRun r = { 0 };

      jmem_test_run_jmem_within (&r, 60, NULL, args);
      g_assert_cmpint (r.status, ==, cases[i].exit);
      if (strstr (r.err, cases[i].says) == NULL)
        g_error ("%s: \"%s\" lacks \"%s\"", cases[i].path, r.err, cases[i].says);
      jmem_test_run_clear (&r);
    }
  g_unlink (fifo);
}

/* What the rules read, damaged in one line each among good ones: every
 * damaged line is skipped with a warning naming it, and the rules still run
 * on the rest (the growth is found from the good lines). Values json-glib
 * would mishandle are among them: rows that are no objects (a Json-CRITICAL
 * each), a size near 2^63 (an out-of-range conversion in the slope), an
 * integer past 64 bits (wrapped). */
static void
test_damaged_lines (void)
{
  g_autofree char *path = g_build_filename (tmpdir, "damaged.jsonl", NULL);
  g_autoptr(GString) history = g_string_new (NULL);
  const char *args[] = { "triage", "--history", path, "--json", NULL };
  const char *diff[] = { "diff", "--json", "--history", path, NULL };
  struct { const char *from, *to, *says; } damage[] = {
    { "\"by_pid\":[{", "\"by_pid\":[1,{", "nvmap.by_pid[0] is not an object" },
    { "\"size_kib\":262144,\"pid_exists\"", "\"size_kib\":9223372036854775000,\"pid_exists\"", "nvmap.by_pid[0].size_kib = 9223372036854775000 is not a possible size" },
    { "\"size_kib\":262144,\"pid_exists\"", "\"size_kib\":18446744073709551616,\"pid_exists\"", "outside the 64-bit integer range" },
    { "\"pid\":4242,\"process\"", "\"pid\":-4242,\"process\"", "nvmap.by_pid[0].pid is not a PID" },
    { "\"pid_exists\":true", "\"pid_exists\":\"yes\"", "nvmap.by_pid[0].pid_exists is not true, false or null" },
    { "\"pid\":4242,\"process\":\"gst-launch-1.0\"", "\"pid\":4242,\"process\":7", "nvmap.by_pid[0].process is not a string" },
    { "\"timestamp_unix\":", "\"timestamp_unix\":-", "collected.timestamp_unix is not a time in seconds" },
    { "\"by_pid\":[", "\"by_pid\":\"rows\",\"rows\":[", "nvmap.by_pid is not an array" },
  };
  JmemTestRun r = { 0 };
  g_autoptr(JsonNode) doc = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (damage) + 12; i++)
    {
      Row rows[] = { { 4242, "gst-launch-1.0", 256 * MIB + (gint64) MIN (i, 11) * 32 * MIB, TRUE } };
      g_autoptr(JsonNode) s = sample (T0 + 5 * (gint64) MIN (i, 11), rows, 1, rows, 1);
      g_autofree char *text = json_to_string (s, FALSE);

      if (i >= 12)
        {
          g_auto(GStrv) parts = NULL;
          guint d = i - 12;

          /* the first growth sample, damaged one field at a time */
          g_clear_pointer (&text, g_free);
          {
            Row first[] = { { 4242, "gst-launch-1.0", 256 * MIB, TRUE } };
            g_autoptr(JsonNode) s0 = sample (T0, first, 1, first, 1);

            text = json_to_string (s0, FALSE);
          }
          g_assert_nonnull (strstr (text, damage[d].from));
          parts = g_strsplit (text, damage[d].from, 2);
          g_clear_pointer (&text, g_free);
          text = g_strconcat (parts[0], damage[d].to, parts[1], NULL);
        }
      g_string_append_printf (history, "%s\n", text);
      /* a line cut short by a full disk, followed by the next sample */
      if (i == 2)
        {
          g_string_append_len (history, text, 100);
          g_string_append_c (history, '\n');
        }
    }
  g_assert_true (g_file_set_contents (path, history->str, (gssize) history->len, NULL));

  jmem_test_run_jmem_within (&r, 60, NULL, args);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_null (strstr (r.err, "CRITICAL"));
  g_assert_null (strstr (r.err, "WARNING"));
  /* the cut line is line 4; the damaged ones follow the twelve good samples */
  if (strstr (r.err, "damaged.jsonl:4: not valid JSON (column ") == NULL)
    g_error ("the cut line is not named: %s", r.err);
  for (guint d = 0; d < G_N_ELEMENTS (damage); d++)
    {
      g_autofree char *expected = g_strdup_printf ("damaged.jsonl:%u: ", 14 + d);
      const char *at = strstr (r.err, expected);

      if (at == NULL || strstr (at, damage[d].says) == NULL ||
          strstr (at, "; the line was skipped\n") == NULL)
        g_error ("line %u: \"%s\" lacks \"%s\" with \"%s\"", 14 + d, r.err, expected, damage[d].says);
    }
  doc = json_from_string (r.out, NULL);
  g_assert_nonnull (doc);
  g_assert_cmpint (finding_number (doc, "nvmap-growing", "growth_kib"), ==, 352 * MIB);
  g_assert_cmpint (finding_number (doc, "nvmap-growing", "samples"), ==, 12);
  jmem_test_run_clear (&r);

  /* diff --history skips them too, with the same warnings */
  jmem_test_run_jmem_within (&r, 60, NULL, diff);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.err, "jmem diff: "));
  g_assert_nonnull (strstr (r.err, "damaged.jsonl:14: "));
  jmem_test_run_clear (&r);
}

/* Damage in members the check reads and the rules do not (memory fields,
 * a process's other sizes, the GPU's used memory): jmem triage --history,
 * which builds only what the rules read, skips those lines with the same
 * warnings, and a member named twice is judged by its last value. */
static void
test_damaged_unread_members (void)
{
  g_autofree char *path = g_build_filename (tmpdir, "damaged-unread.jsonl", NULL);
  g_autoptr(GString) history = g_string_new (NULL);
  const char *args[] = { "triage", "--history", path, "--json", NULL };
  struct { const char *from, *to, *says; } damage[] = {
    { "\"MemFree\":", "\"MemFree\":-", "memory.fields_kib.MemFree = -" },
    { "\"Cached\":", "\"Cached\":\"many\",\"x\":", "memory.fields_kib.Cached is not an integer" },
    { "\"rss_kib\":", "\"rss_kib\":1.5,\"x\":", "processes.list[0].rss_kib is not an integer" },
    { "\"kernel_thread\":false", "\"kernel_thread\":1", "processes.list[0].kernel_thread is not true, false or null" },
    { "\"memory_used_kib\":null", "\"memory_used_kib\":-5", "gpu.devices[].memory_used_kib = -5" },
    { "\"total_kib\":", "\"total_kib\":-", "nvmap.total_kib = -" },
    /* the first value bad, the last good: not damaged */
    { "\"MemFree\":", "\"MemFree\":-1,\"MemFree\":", NULL },
    /* the first good, the last bad: damaged */
    { "\"SwapFree\":", "\"SwapFree\":1,\"SwapFree\":-", "memory.fields_kib.SwapFree = -" },
  };
  JmemTestRun r = { 0 };
  g_autoptr(JsonNode) doc = NULL;

  /* twelve good samples, the damaged ones, twelve more */
  for (guint i = 0; i < 24 + G_N_ELEMENTS (damage); i++)
    {
      Row rows[] = { { 4242, "gst-launch-1.0", 256 * MIB + (gint64) i * 32 * MIB, TRUE } };
      g_autoptr(JsonNode) s = sample (T0 + 5 * (gint64) i, rows, 1, rows, 1);
      g_autofree char *text = json_to_string (s, FALSE);

      if (i >= 12 && i < 12 + G_N_ELEMENTS (damage))
        {
          g_auto(GStrv) parts = NULL;
          guint d = i - 12;

          g_assert_nonnull (strstr (text, damage[d].from));
          parts = g_strsplit (text, damage[d].from, 2);
          g_clear_pointer (&text, g_free);
          text = g_strconcat (parts[0], damage[d].to, parts[1], NULL);
        }
      g_string_append_printf (history, "%s\n", text);
    }
  g_assert_true (g_file_set_contents (path, history->str, (gssize) history->len, NULL));

  jmem_test_run_jmem_within (&r, 60, NULL, args);
  g_assert_cmpint (r.status, ==, 0);
  for (guint d = 0; d < G_N_ELEMENTS (damage); d++)
    {
      g_autofree char *expected = g_strdup_printf ("damaged-unread.jsonl:%u: ", 13 + d);
      const char *at = strstr (r.err, expected);

      if (damage[d].says == NULL ? at != NULL
                                 : at == NULL || strstr (at, damage[d].says) == NULL)
        g_error ("line %u: \"%s\" and \"%s\" with \"%s\"", 13 + d, r.err, expected,
                 damage[d].says ? damage[d].says : "(no warning)");
    }
  doc = json_from_string (r.out, NULL);
  g_assert_nonnull (doc);
  /* the good samples and the line whose last value is good */
  if (finding_number (doc, "nvmap-growing", "samples") != 25)
    g_error ("not 25 samples: %s\n%s", r.out, r.err);
  jmem_test_run_clear (&r);
}

/* A line larger than any snapshot jmem reads (65 MiB: a full disk's debris,
 * a file that is not a history) is skipped with a warning, the rest of it
 * dropped as it is read, and the lines after it are read. */
static void
test_huge_line (void)
{
  g_autofree char *path = g_build_filename (tmpdir, "huge.jsonl", NULL);
  const char *args[] = { "triage", "--history", path, NULL };
  gsize huge = 65 * 1024 * 1024;
  g_autofree char *block = g_malloc (1024 * 1024);
  JmemTestRun r = { 0 };
  FILE *f;

  memset (block, 'x', 1024 * 1024);
  f = fopen (path, "w");
  g_assert_nonnull (f);
  fprintf (f, "%s\n", template_json);
  for (gsize done = 0; done < huge; done += 1024 * 1024)
    g_assert_cmpuint (fwrite (block, 1, 1024 * 1024, f), ==, 1024 * 1024);
  fprintf (f, "\n%s\n", template_json);
  g_assert_cmpint (fclose (f), ==, 0);

  jmem_test_run_jmem_within (&r, 60, NULL, args);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.err, "huge.jsonl:2: larger than 64 MiB, not a snapshot jmem wrote; "
                                   "the line was skipped\n"));
  g_assert_nonnull (strstr (r.err, "the history holds 2 samples"));
  jmem_test_run_clear (&r);
  g_unlink (path);
}

/* Past JMEM_HISTORY_MAX_NAMED_DAMAGE damaged lines the rest are counted in
 * one line, not printed one by one. */
static void
test_many_damaged (void)
{
  g_autofree char *path = g_build_filename (tmpdir, "many.jsonl", NULL);
  g_autoptr(GString) history = g_string_new (NULL);
  const char *args[] = { "triage", "--history", path, NULL };
  JmemTestRun r = { 0 };

  g_string_append_printf (history, "%s\n", template_json);
  for (guint i = 0; i < 1000; i++)
    g_string_append (history, "{'not': json}\n");
  g_assert_true (g_file_set_contents (path, history->str, (gssize) history->len, NULL));
  jmem_test_run_jmem_within (&r, 60, NULL, args);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.err, "many.jsonl:11: not valid JSON (column 2: a single quote"));
  g_assert_null (strstr (r.err, "many.jsonl:12:"));
  g_assert_nonnull (strstr (r.err, "many.jsonl: 990 more damaged lines skipped\n"));
  jmem_test_run_clear (&r);
}

static gboolean
add_full (JsonNode *snapshot, guint line_number, gpointer data)
{
  jmem_triage_history_add (data, snapshot);
  return TRUE;
}

/* The findings and warnings of @path's rules over time, read whole or
 * building only the members the rules read, as JSON text. */
static char *
rule_findings (const char *path, gboolean members_only)
{
  g_autoptr(JmemTriageHistory) h = NULL;
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) findings = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) json = NULL;
  g_autofree char *text = NULL, *said = NULL;

  if (members_only)
    h = jmem_triage_history_read (path, warnings, &error);
  else
    {
      h = jmem_triage_history_new ();
      if (!jmem_history_read (path, add_full, h, warnings, &error))
        g_clear_pointer (&h, jmem_triage_history_free);
    }
  g_ptr_array_add (warnings, NULL);
  said = g_strjoinv ("\n", (char **) warnings->pdata);
  if (h == NULL)
    return g_strdup_printf ("error: %s\n%s", error->message, said);
  findings = jmem_triage_history_run (h);
  json = jmem_findings_to_json (findings);
  text = json_to_string (json, TRUE);
  return g_strdup_printf ("%u samples\n%s\n%s", jmem_triage_history_get_n_samples (h), text, said);
}

/* One sample of a history that fires every rule over time: PID 4242 leaks
 * NvMap and PSS (a process row with its start time), PID 4343 grows on the
 * GPU (a trusted nvidia-smi row) beside an untrusted row, PID 5120's NvMap
 * outlives it, the remainder and the unreclaimable slab grow, and the
 * memory allocatable after reclaim falls. */
static JsonNode *
every_rule_sample (guint i)
{
  gint64 t = T0 + 1200 * (gint64) i, step = (gint64) i;
  Row nvmap[] = { { 4242, "gst-launch-1.0", 256 * MIB + step * 64 * MIB, TRUE },
                  { 5120, "gone", 20 * MIB, FALSE }, { 100, "Xorg", 40 * MIB, TRUE } };
  Row procs[] = { { 4242, "gst-launch-1.0", 512 * MIB + step * 64 * MIB, TRUE, 9000 },
                  { 100, "Xorg", 80 * MIB, TRUE, 100 } };
  JsonNode *node = sample (t, nvmap, G_N_ELEMENTS (nvmap), procs, G_N_ELEMENTS (procs));
  g_autoptr(JsonNode) board = board_sample (t, 40 * GIB - step * 512 * MIB, "nvidia-smi",
                                            1 * GIB + step * 128 * MIB, TRUE);
  g_autoptr(JsonNode) accounting = accounting_sample (t, 180 * MIB + step * 100 * MIB,
                                                      300 * MIB + step * 200 * MIB);
  JsonObject *root = json_node_get_object (node);
  JsonObject *gpu;
  JsonObject *untrusted = json_object_new ();

  json_object_set_member (root, "headroom",
                          json_object_dup_member (json_node_get_object (board), "headroom"));
  json_object_set_member (root, "gpu", json_object_dup_member (json_node_get_object (board), "gpu"));
  json_object_set_member (root, "accounting",
                          json_object_dup_member (json_node_get_object (accounting), "accounting"));
  gpu = json_object_get_object_member (root, "gpu");
  json_object_set_int_member (untrusted, "pid", 4444);
  json_object_set_int_member (untrusted, "used_memory_kib", 1 * GIB + step * 256 * MIB);
  json_object_set_string_member (untrusted, "process_name", "forged");
  json_object_set_boolean_member (untrusted, "trusted", FALSE);
  json_array_add_object_element (json_object_get_array_member (gpu, "processes"), untrusted);
  return node;
}

static void
write_every_rule (const char *path)
{
  g_autoptr(GString) text = g_string_new (NULL);

  for (guint i = 0; i < 24; i++)
    {
      g_autoptr(JsonNode) s = every_rule_sample (i);
      g_autofree char *line = json_to_string (s, FALSE);

      g_string_append_printf (text, "%s\n", line);
    }
  g_assert_true (g_file_set_contents (path, text->str, (gssize) text->len, NULL));
}

/* jmem triage --history builds only the members its rules read
 * (jmem_triage_history_members): on a history that fires every rule, on
 * those the tests above wrote (damaged and hostile lines among them) and on
 * the recorded ones, the samples, warnings and findings are those of
 * reading each line whole. A member the rules read and the list leaves out
 * changes a finding here. */
static void
test_members_only (void)
{
  g_autofree char *recorded = jmem_test_fixture ("history", NULL);
  g_autofree char *every = g_build_filename (tmpdir, "every-rule.jsonl", NULL);
  const char *dirs[] = { tmpdir, recorded };
  const char *rules[] = { "memory-exhaustion-projected", "nvmap-growing", "pss-growing",
                          "gpu-growing", "unexplained-growing", "slab-growing", "nvmap-orphaned" };
  g_autofree char *fired = NULL;
  guint compared = 0;

  write_every_rule (every);
  fired = rule_findings (every, TRUE);
  for (guint i = 0; i < G_N_ELEMENTS (rules); i++)
    if (strstr (fired, rules[i]) == NULL)
      g_error ("%s did not fire:\n%s", rules[i], fired);
  g_assert_null (strstr (fired, "forged"));

  for (guint d = 0; d < G_N_ELEMENTS (dirs); d++)
    {
      g_autoptr(GDir) dir = g_dir_open (dirs[d], 0, NULL);
      const char *name;

      g_assert_nonnull (dir);
      while ((name = g_dir_read_name (dir)) != NULL)
        {
          g_autofree char *path = g_build_filename (dirs[d], name, NULL);
          g_autofree char *whole = NULL, *members = NULL;

          if (!g_str_has_suffix (name, ".jsonl") || !g_file_test (path, G_FILE_TEST_IS_REGULAR))
            continue;
          whole = rule_findings (path, FALSE);
          members = rule_findings (path, TRUE);
          if (g_strcmp0 (whole, members) != 0)
            g_error ("%s: read whole:\n%s\nread for the rules:\n%s", path, whole, members);
          compared++;
        }
    }
  g_test_message ("%u histories read both ways", compared);
  g_assert_cmpuint (compared, >=, 10);
}

int
main (int argc, char **argv)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *root = NULL;
  g_autoptr(JmemSnapshot) s = NULL;
  JmemCollectOptions options = { .top = 3 };
  int rc;

  g_test_init (&argc, &argv, NULL);
  g_assert_nonnull (g_getenv ("JMEM_EXE"));
  root = jmem_test_fixture ("trees", "orin-agx-nvgpu", NULL);
  options.sysroot = root;
  s = jmem_collect_snapshot (&options, &error);
  g_assert_no_error (error);
  template_json = jmem_snapshot_to_json_string (s, FALSE);
  tmpdir = jmem_test_make_tmp ("jmem-test-triage-history-XXXXXX", &error);
  g_assert_no_error (error);

  g_test_add_func ("/triage-history/steady-growth", test_steady_growth);
  g_test_add_func ("/triage-history/leak-under-noise", test_leak_under_noise);
  g_test_add_func ("/triage-history/noise-step-sawtooth", test_noise_step_sawtooth);
  g_test_add_func ("/triage-history/small-growth", test_small_growth);
  g_test_add_func ("/triage-history/too-short", test_too_short);
  g_test_add_func ("/triage-history/pid-reused", test_pid_reused);
  g_test_add_func ("/triage-history/renamed-same-start", test_renamed_same_start);
  g_test_add_func ("/triage-history/restarted-same-name", test_restarted_same_name);
  g_test_add_func ("/triage-history/orphaned", test_orphaned);
  g_test_add_func ("/triage-history/board-growth", test_board_growth);
  g_test_add_func ("/triage-history/board-growth-old-lines", test_board_growth_old_lines);
  g_test_add_func ("/triage-history/gpu-growth", test_gpu_growth);
  g_test_add_func ("/triage-history/projection", test_projection);
  g_test_add_func ("/triage-history/command", test_command);
  g_test_add_func ("/triage-history/command-need", test_command_need);
  g_test_add_func ("/triage-history/faces-agree", test_faces_agree);
  g_test_add_func ("/triage-history/unchecked-rows", test_unchecked_rows);
  g_test_add_func ("/triage-history/command-errors", test_command_errors);
  g_test_add_func ("/triage-history/damaged-lines", test_damaged_lines);
  g_test_add_func ("/triage-history/many-damaged", test_many_damaged);
  g_test_add_func ("/triage-history/damaged-unread-members", test_damaged_unread_members);
  g_test_add_func ("/triage-history/huge-line", test_huge_line);
  /* last: it reads back every history the tests above wrote */
  g_test_add_func ("/triage-history/members-only", test_members_only);
  rc = g_test_run ();

  {
    const char *argv_rm[] = { "rm", "-rf", tmpdir, NULL };
    g_spawn_sync (NULL, (char **) argv_rm, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL, NULL, NULL);
  }
  g_free (tmpdir);
  g_free (template_json);
  return rc;
}
