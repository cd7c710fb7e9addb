/* The rules over time (nvmap-growing, pss-growing, nvmap-orphaned) on
 * synthetic histories built here: each rule on a series that must fire, at
 * its thresholds, and on noisy or short series that must not. Samples are a
 * real snapshot of a fixture tree with the timestamp, NvMap rows and
 * process rows replaced. */
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>
#include <sys/wait.h>

#include "jmem-collect.h"
#include "jmem-diff.h"
#include "jmem-history.h"
#include "jmem-snapshot-json.h"
#include "jmem-triage.h"
#include "jmem-triage-history.h"

#define MIB 1024
#define T0 G_GINT64_CONSTANT (1780000000)

static const char *fixtures;
static const char *jmem_exe;
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
 * in sample i, 60 s apart, next to a steady PID 100. */
static JmemTriageHistory *
history_of (const gint64 *kib, guint n)
{
  JmemTriageHistory *h = jmem_triage_history_new ();

  for (guint i = 0; i < n; i++)
    {
      Row rows[] = { { 4242, "gst-launch-1.0", kib[i], TRUE }, { 100, "Xorg", 40 * MIB, TRUE } };
      g_autoptr(JsonNode) s = sample (T0 + 60 * (gint64) i, rows, 2, rows, 2);

      jmem_triage_history_add (h, s);
    }
  return h;
}

static GPtrArray *
findings_of (const gint64 *kib, guint n)
{
  g_autoptr(JmemTriageHistory) h = history_of (kib, n);

  return jmem_triage_history_run (h);
}

static void
assert_number (const JmemFinding *f, const char *name, double value)
{
  double got = jmem_finding_get_number (f, name);

  g_assert_false (isnan (got));
  g_assert_cmpfloat_with_epsilon (got, value, 0.5);
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
  static const gint64 unexplained[] = { 180 * MIB, 280 * MIB, 380 * MIB, 480 * MIB, 580 * MIB };
  static const gint64 jitter[] = { 350 * MIB, 420 * MIB, 340 * MIB, 430 * MIB, 345 * MIB };
  g_autoptr(JmemTriageHistory) h = jmem_triage_history_new ();
  g_autoptr(JmemTriageHistory) leak = jmem_triage_history_new ();
  g_autoptr(GPtrArray) findings = NULL, leak_findings = NULL;
  const JmemFinding *f;

  for (guint i = 0; i < G_N_ELEMENTS (unexplained); i++)
    {
      g_autoptr(JsonNode) a = accounting_sample (T0 + 60 * (gint64) i, unexplained[i], jitter[i]);
      g_autoptr(JsonNode) b = accounting_sample (T0 + 60 * (gint64) i, 180 * MIB,
                                                 300 * MIB + 200 * MIB * (gint64) i);

      jmem_triage_history_add (h, a);
      jmem_triage_history_add (leak, b);
    }
  findings = jmem_triage_history_run (h);
  f = jmem_triage_find (findings, "unexplained-growing");
  g_assert_nonnull (f);
  assert_number (f, "first_kib", 180 * MIB);
  assert_number (f, "last_kib", 580 * MIB);
  assert_number (f, "growth_kib", 400 * MIB);
  assert_number (f, "samples", 5);
  g_assert_null (jmem_triage_find (findings, "slab-growing"));

  leak_findings = jmem_triage_history_run (leak);
  f = jmem_triage_find (leak_findings, "slab-growing");
  g_assert_nonnull (f);
  assert_number (f, "growth_kib", 800 * MIB);
  g_assert_null (jmem_triage_find (leak_findings, "unexplained-growing"));
}

/* Lines of version 1 have no accounting: nothing to follow, nothing fires. */
static void
test_board_growth_old_lines (void)
{
  g_autoptr(JmemTriageHistory) h = jmem_triage_history_new ();
  g_autoptr(GPtrArray) findings = NULL;

  for (guint i = 0; i < 5; i++)
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
      /* 192 MiB over 720 s = 960 MiB an hour */
      assert_number (n, "slope_kib_per_hour", 960.0 * MIB);
      assert_number (n, "window_seconds", 720);
      assert_number (n, "grew_percent", 100);
      g_assert_nonnull (strstr (n->message, "PID 4242 (gst-launch-1.0)"));
      g_assert_nonnull (strstr (n->action, "PID 4242 (gst-launch-1.0)"));
      g_assert_nonnull (strstr (n->action, ", restart it"));
      g_assert_null (strchr (n->message, '\n'));
    }
  /* the steady Xorg never fires, nor does anything orphaned */
  g_assert_cmpuint (f->len, ==, 2);
}

static void
test_noisy_no_fire (void)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (13);
  gint64 kib[200];
  g_autoptr(GPtrArray) f = NULL;
  gint64 base = 2048 * MIB;

  /* a pipeline's buffers coming and going: ±100 MiB of noise with a net
   * rise of 300 MiB over the window (> 64 MiB and > 10 %), yet it rises in
   * only about half of the intervals */
  for (guint i = 0; i < G_N_ELEMENTS (kib); i++)
    kib[i] = base + (gint64) i * 300 * MIB / 199 + g_rand_int_range (rand, -100, 101) * MIB;
  kib[199] = base + 300 * MIB;
  f = findings_of (kib, G_N_ELEMENTS (kib));
  g_assert_null (jmem_triage_find (f, "nvmap-growing"));
  g_assert_null (jmem_triage_find (f, "pss-growing"));
}

static void
test_thresholds (void)
{
  /* 10 intervals, 8 rising (80 %): fires; 7 rising: does not */
  gint64 eight[11], seven[11];
  g_autoptr(GPtrArray) f8 = NULL;
  g_autoptr(GPtrArray) f7 = NULL;

  for (guint i = 0; i < 11; i++)
    eight[i] = seven[i] = 512 * MIB + (gint64) i * 10 * MIB;
  eight[3] = eight[2];  /* two flat intervals */
  eight[7] = eight[6];
  seven[3] = seven[2];
  seven[5] = seven[4];
  seven[7] = seven[6];
  f8 = findings_of (eight, 11);
  f7 = findings_of (seven, 11);
  g_assert_nonnull (jmem_triage_find (f8, "nvmap-growing"));
  assert_number (jmem_triage_find (f8, "nvmap-growing"), "grew_percent", 80);
  g_assert_null (jmem_triage_find (f7, "nvmap-growing"));
}

static void
test_small_growth (void)
{
  /* +63 MiB on 100 MiB: below the absolute floor */
  const gint64 below_abs[] = { 100 * MIB, 121 * MIB, 142 * MIB, 163 * MIB };
  /* +64 MiB exactly on 100 MiB: fires */
  const gint64 at_abs[] = { 100 * MIB, 120 * MIB, 140 * MIB, 164 * MIB };
  /* +96 MiB on 1 GiB: 9.4 %, below the relative floor */
  const gint64 below_rel[] = { 1024 * MIB, 1056 * MIB, 1088 * MIB, 1120 * MIB };
  g_autoptr(GPtrArray) a = findings_of (below_abs, 4);
  g_autoptr(GPtrArray) b = findings_of (at_abs, 4);
  g_autoptr(GPtrArray) c = findings_of (below_rel, 4);

  g_assert_null (jmem_triage_find (a, "nvmap-growing"));
  g_assert_nonnull (jmem_triage_find (b, "nvmap-growing"));
  g_assert_null (jmem_triage_find (c, "nvmap-growing"));
}

static void
test_too_short (void)
{
  /* two samples are one step, not a trend */
  const gint64 kib[] = { 100 * MIB, 900 * MIB };
  g_autoptr(GPtrArray) f = findings_of (kib, 2);

  g_assert_cmpuint (f->len, ==, 0);
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
  g_assert_null (jmem_triage_find (f2, "nvmap-orphaned"));
  g_assert_null (jmem_triage_find (fb, "nvmap-orphaned"));
  g_assert_null (jmem_triage_find (fc, "nvmap-orphaned"));
}

/* The command: a generated history file through `jmem triage --history
 * --json`, and `jmem diff --history` over its first and last line. */
static void
test_command (void)
{
  g_autofree char *path = g_build_filename (tmpdir, "history.jsonl", NULL);
  g_autoptr(JmemHistoryWriter) w = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autoptr(JsonNode) doc = NULL;
  JsonArray *findings;
  int status = 0;
  gboolean saw_growing = FALSE;

  w = jmem_history_writer_open (path, JMEM_HISTORY_DEFAULT_MAX_BYTES, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < 6; i++)
    {
      Row rows[] = { { 4242, "gst-launch-1.0", 256 * MIB + (gint64) i * 32 * MIB, TRUE } };
      g_autoptr(JsonNode) s = sample (T0 + 5 * (gint64) i, rows, 1, rows, 1);
      g_autofree char *line = json_to_string (s, FALSE);

      g_assert_true (jmem_history_writer_append (w, line, &error));
      g_assert_no_error (error);
    }
  {
    const char *argv[] = { jmem_exe, "triage", "--history", path, "--json", NULL };

    g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err, &status, &error);
    g_assert_no_error (error);
    g_assert_true (WIFEXITED (status) && WEXITSTATUS (status) == 0);
  }
  doc = json_from_string (out, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (json_object_get_string_member (json_node_get_object (doc), "schema"), ==, "jmem-triage");
  findings = json_object_get_array_member (json_node_get_object (doc), "findings");
  for (guint i = 0; i < json_array_get_length (findings); i++)
    {
      JsonObject *f = json_array_get_object_element (findings, i);

      if (g_str_equal (json_object_get_string_member (f, "id"), "nvmap-growing"))
        {
          JsonObject *n = json_object_get_object_member (f, "numbers");

          saw_growing = TRUE;
          g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (n, "growth_kib"), "value"),
                           ==, 160 * MIB);
        }
    }
  g_assert_true (saw_growing);
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  {
    const char *argv[] = { jmem_exe, "diff", "--json", "--history", path, NULL };
    g_autoptr(JsonNode) diff = NULL;
    JsonArray *procs;
    gboolean found = FALSE;

    g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err, &status, &error);
    g_assert_no_error (error);
    g_assert_true (WIFEXITED (status) && WEXITSTATUS (status) == 0);
    diff = json_from_string (out, &error);
    g_assert_no_error (error);
    /* the first line and the last one, not two neighbours */
    g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (
                       json_node_get_object (diff), "before"), "timestamp_unix"), ==, T0);
    g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (
                       json_node_get_object (diff), "after"), "timestamp_unix"), ==, T0 + 25);
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
                             ==, 416 * MIB);
          }
      }
    g_assert_true (found);
  }
}

/* A damaged line is an error naming the line; a missing file and an empty
 * one have their own exit codes. */
static void
test_command_errors (void)
{
  g_autofree char *bad = g_build_filename (tmpdir, "bad.jsonl", NULL);
  g_autofree char *empty = g_build_filename (tmpdir, "empty.jsonl", NULL);
  g_autofree char *missing = g_build_filename (tmpdir, "missing.jsonl", NULL);
  g_autofree char *contents = g_strdup_printf ("%s\n{\"schema\": \"other\"}\n", template_json);
  struct { const char *path; int exit; const char *says; } cases[] = {
    { bad, 65, ":2:" }, { empty, 69, "holds no snapshot" }, { missing, 66, "cannot open" },
  };

  g_assert_true (g_file_set_contents (bad, contents, -1, NULL));
  g_assert_true (g_file_set_contents (empty, "", 0, NULL));
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      const char *argv[] = { jmem_exe, "triage", "--history", cases[i].path, NULL };
      g_autofree char *out = NULL;
      g_autofree char *err = NULL;
      g_autoptr(GError) error = NULL;
      int status = 0;

      g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err, &status, &error);
      g_assert_no_error (error);
      g_assert_true (WIFEXITED (status));
      g_assert_cmpint (WEXITSTATUS (status), ==, cases[i].exit);
      g_assert_nonnull (strstr (err, cases[i].says));
    }
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
  fixtures = g_getenv ("JMEM_FIXTURES");
  jmem_exe = g_getenv ("JMEM_EXE");
  g_assert_nonnull (fixtures);
  g_assert_nonnull (jmem_exe);
  root = g_build_filename (fixtures, "trees", "orin-agx-nvgpu", NULL);
  options.sysroot = root;
  s = jmem_collect_snapshot (&options, &error);
  g_assert_no_error (error);
  template_json = jmem_snapshot_to_json_string (s, FALSE);
  tmpdir = g_dir_make_tmp ("jmem-test-triage-history-XXXXXX", &error);
  g_assert_no_error (error);

  g_test_add_func ("/triage-history/steady-growth", test_steady_growth);
  g_test_add_func ("/triage-history/noisy-no-fire", test_noisy_no_fire);
  g_test_add_func ("/triage-history/thresholds", test_thresholds);
  g_test_add_func ("/triage-history/small-growth", test_small_growth);
  g_test_add_func ("/triage-history/too-short", test_too_short);
  g_test_add_func ("/triage-history/pid-reused", test_pid_reused);
  g_test_add_func ("/triage-history/renamed-same-start", test_renamed_same_start);
  g_test_add_func ("/triage-history/restarted-same-name", test_restarted_same_name);
  g_test_add_func ("/triage-history/orphaned", test_orphaned);
  g_test_add_func ("/triage-history/board-growth", test_board_growth);
  g_test_add_func ("/triage-history/board-growth-old-lines", test_board_growth_old_lines);
  g_test_add_func ("/triage-history/command", test_command);
  g_test_add_func ("/triage-history/command-errors", test_command_errors);
  rc = g_test_run ();

  {
    const char *argv_rm[] = { "rm", "-rf", tmpdir, NULL };
    g_spawn_sync (NULL, (char **) argv_rm, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL, NULL, NULL);
  }
  g_free (tmpdir);
  g_free (template_json);
  return rc;
}
