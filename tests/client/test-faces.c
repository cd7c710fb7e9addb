/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The parts of jmem top and jmem plot that are arithmetic: the columns a
 * window keeps (the documented order), sparklines and growth, compact sizes,
 * the rows' order with unknown values, reading a sample document (with and
 * without the headroom and accounting sections, the accounting by its
 * schema only), the summary line, the accounting's bar, time and size
 * axes, --since/--until, and a long history thinned to the picture's width
 * (its spikes kept). The screens themselves are test-top.py's. */
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "jmem-frame.h"
#include "jmem-plot-axis.h"
#include "jmem-plot.h"
#include "jmem-plot-series.h"
#include "jmem-plot-thin.h"
#include "jmem-top-accounting.h"
#include "jmem-top-layout.h"
#include "jmem-top-trend.h"
#include "jmem-top-view.h"

static void
assert_columns (const JmemTopLayout *k, const char *want)
{
  g_autoptr(GString) got = g_string_new (NULL);

  for (guint c = 0; c < JMEM_TOP_N_COLS; c++)
    if (k->shown[c])
      g_string_append_printf (got, "%s%s", got->len > 0 ? " " : "", jmem_top_column_title (c));
  g_assert_cmpstr (got->str, ==, want);
}

static void
test_layout_order (void)
{
  JmemTopLayout k;

  jmem_top_layout (&k, 200, TRUE, TRUE);
  assert_columns (&k, "PID USER NAME FOOTPRINT PSS NVMAP GPU SWAP CONTAINER TREND");
  g_assert_cmpuint (k.spark_cells, ==, JMEM_TOP_TREND_SAMPLES);
  g_assert_cmpuint (k.total, <=, 200);
  /* an empty GPU column goes first, then SWAP and USER */
  jmem_top_layout (&k, 80, TRUE, FALSE);
  assert_columns (&k, "PID NAME FOOTPRINT PSS NVMAP CONTAINER TREND");
  g_assert_cmpuint (k.total, <=, 80);
  /* GPU with values goes after USER, before CONTAINER */
  jmem_top_layout (&k, 88, TRUE, TRUE);
  assert_columns (&k, "PID NAME FOOTPRINT PSS NVMAP GPU CONTAINER TREND");
  jmem_top_layout (&k, 80, TRUE, TRUE);
  assert_columns (&k, "PID NAME FOOTPRINT PSS NVMAP CONTAINER TREND");
  jmem_top_layout (&k, 80, FALSE, TRUE);
  assert_columns (&k, "PID NAME FOOTPRINT PSS GPU CONTAINER TREND");
  jmem_top_layout (&k, 60, TRUE, FALSE);
  assert_columns (&k, "PID NAME FOOTPRINT NVMAP TREND");
  jmem_top_layout (&k, 45, TRUE, FALSE);
  assert_columns (&k, "PID NAME FOOTPRINT NVMAP");
  jmem_top_layout (&k, 52, FALSE, TRUE);
  assert_columns (&k, "PID NAME FOOTPRINT GPU");
  jmem_top_layout (&k, 20, TRUE, TRUE);
  assert_columns (&k, "PID NAME FOOTPRINT");
  /* every width from 33 to 300: never wider than the window, columns in order */
  for (guint w = 33; w <= 300; w++)
    {
      guint x = 0;

      jmem_top_layout (&k, w, w % 2, w % 3);
      g_assert_cmpuint (k.total, <=, w);
      for (guint c = 0; c < JMEM_TOP_N_COLS; c++)
        if (k.shown[c])
          {
            g_assert_cmpuint (k.x[c], >=, x);
            x = k.x[c] + k.width[c];
          }
      g_assert_cmpuint (x, ==, k.total);
    }
}

static void
test_sparkline (void)
{
  JmemTopSeries s = { { { 0 } } };
  g_autofree char *empty = NULL;
  g_autofree char *flat = NULL;
  g_autofree char *rising = NULL;
  g_autofree char *ascii = NULL;
  g_autofree char *window = NULL;
  double growth = 0;

  empty = jmem_top_sparkline (&s, 4, TRUE);
  g_assert_cmpstr (empty, ==, "    ");
  g_assert_false (jmem_top_series_growth (&s, &growth));

  for (guint i = 0; i < 3; i++)
    jmem_top_series_push (&s, 1000 * i, 500);
  flat = jmem_top_sparkline (&s, 5, TRUE);
  g_assert_cmpstr (flat, ==, "  \u2581\u2581\u2581");
  g_assert_true (jmem_top_series_growth (&s, &growth));
  g_assert_cmpfloat (growth, ==, 0.0);

  /* 0 .. 7 over eight samples, one absent: every level once */
  memset (&s, 0, sizeof s);
  for (guint i = 0; i < 8; i++)
    jmem_top_series_push (&s, 60000 * i, i == 3 ? -1 : (gint64) i * 1024);
  rising = jmem_top_sparkline (&s, 8, TRUE);
  g_assert_cmpstr (rising, ==, "\u2581\u2582\u2583 \u2585\u2586\u2587\u2588");
  ascii = jmem_top_sparkline (&s, 8, FALSE);
  g_assert_cmpstr (ascii, ==, "_.- +*#@");
  /* 7 MiB over 7 minutes */
  g_assert_true (jmem_top_series_growth (&s, &growth));
  g_assert_cmpfloat_with_epsilon (growth, 1024.0, 1e-9);

  /* the window keeps the last 60 */
  memset (&s, 0, sizeof s);
  for (guint i = 0; i < 100; i++)
    jmem_top_series_push (&s, 1000 * i, i);
  g_assert_cmpuint (s.n, ==, JMEM_TOP_TREND_SAMPLES);
  g_assert_cmpint (s.points[0].kib, ==, 40);
  window = jmem_top_sparkline (&s, 3, FALSE);
  /* scaled over the cells shown: 97, 98, 99 */
  g_assert_cmpstr (window, ==, "_+@");
}

static void
test_sizes (void)
{
  static const struct {
    gint64      kib;
    const char *text;
  } sizes[] = {
    { -1, "-" }, { 0, "0K" }, { 512, "512K" }, { 1023, "1023K" }, { 1024, "1.0M" },
    { 12595, "12.3M" }, { 102400, "100M" }, { 1048575, "1.0G" }, { G_GINT64_CONSTANT (17179869184), "16.0T" },
    { G_MAXINT64, "8192E" },
  };
  static const struct {
    double      per_minute;
    const char *text;
  } growths[] = {
    { 0.2, "0/m" }, { -0.4, "0/m" }, { 65536, "+64.0M/m" }, { -512, "-512K/m" },
    { 1023.99 * 1024, "+1.0G/m" },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (sizes); i++)
    {
      g_autofree char *text = jmem_top_size (sizes[i].kib);

      g_assert_cmpstr (text, ==, sizes[i].text);
      g_assert_cmpuint (strlen (text), <=, 6);
    }
  for (gsize i = 0; i < G_N_ELEMENTS (growths); i++)
    {
      g_autofree char *text = jmem_top_growth_text (growths[i].per_minute);

      g_assert_cmpstr (text, ==, growths[i].text);
      g_assert_cmpuint (strlen (text), <=, JMEM_TOP_GROWTH_COLS);
    }
}

static JsonNode *
parse (const char *text)
{
  g_autoptr(GError) error = NULL;
  JsonNode *node = json_from_string (text, &error);

  g_assert_no_error (error);
  return node;
}

#define PROCS \
  "\"processes\":{\"total\":3,\"list\":[" \
  "{\"pid\":10,\"name\":\"b\",\"user\":\"u\",\"footprint_kib\":300,\"pss_kib\":null,\"nvmap_kib\":5," \
  "\"gpu_kib\":null,\"swap_kib\":0,\"container\":{\"runtime\":\"docker\",\"id\":\"0123456789abcdef\"}," \
  "\"start_time_ticks\":7,\"pss_age_samples\":3}," \
  "{\"pid\":11,\"name\":\"A\",\"user\":null,\"footprint_kib\":200,\"pss_kib\":100,\"nvmap_kib\":0," \
  "\"gpu_kib\":null,\"swap_kib\":0,\"container\":null}," \
  "{\"pid\":12,\"name\":\"c\",\"user\":\"a\",\"footprint_kib\":400,\"pss_kib\":90,\"nvmap_kib\":null," \
  "\"gpu_kib\":null,\"swap_kib\":null,\"container\":null}]}"

/* A bucket as docs/snapshot.schema.json writes it. */
#define BUCKET(name, label, kib) \
  "{\"name\":\"" name "\",\"label\":\"" label "\",\"kib\":" kib ",\"fields\":\"\"," \
  "\"source\":\"meminfo\",\"note\":null}"

static void
test_frame_sections (void)
{
  g_autoptr(JsonNode) bare = parse ("{\"collected\":{\"timestamp_unix\":100,\"uptime_s\":5}," PROCS "}");
  /* the shape jmem writes: name, label, kib (null unknown), the remainder
   * apart */
  g_autoptr(JsonNode) written = parse (
    "{\"headroom\":{\"allocatable_now_kib\":10,\"allocatable_after_reclaim_kib\":20,"
    "\"largest_free_block_kib\":null},"
    "\"accounting\":{\"buckets\":[" BUCKET ("page_cache", "page cache", "9") ","
    BUCKET ("zram", "zram store", "null") "],\"unexplained_kib\":4,\"accounted_kib\":9,"
    "\"overlap\":false}}");
  g_autoptr(JsonNode) overlap = parse (
    "{\"accounting\":{\"buckets\":[" BUCKET ("free", "free", "9") "],\"unexplained_kib\":-4,"
    "\"overlap\":true}}");
  /* what jmem never wrote: no guessing at other shapes */
  g_autoptr(JsonNode) by_object = parse (
    "{\"accounting\":{\"buckets\":{\"free\":7,\"cache\":{\"kib\":8}},\"unexplained_kib\":0}}");
  g_autoptr(JsonNode) other_members = parse (
    "{\"accounting\":{\"buckets\":[{\"label\":\"free\",\"size_kib\":5},{\"id\":\"slab\",\"kib\":6}],"
    "\"unexplained_kib\":0}}");
  g_autoptr(JsonNode) no_remainder = parse (
    "{\"accounting\":{\"buckets\":[" BUCKET ("free", "free", "9") "]}}");
  g_autoptr(JsonNode) none = parse ("{\"accounting\":null}");
  g_autoptr(JmemFrame) f1 = jmem_frame_from_json (bare);
  g_autoptr(JmemFrame) f2 = jmem_frame_from_json (written);
  g_autoptr(JmemFrame) f3 = jmem_frame_from_json (overlap);
  g_autoptr(JmemFrame) f4 = jmem_frame_from_json (by_object);
  g_autoptr(JmemFrame) f5 = jmem_frame_from_json (other_members);
  g_autoptr(JmemFrame) f6 = jmem_frame_from_json (no_remainder);
  g_autoptr(JmemFrame) f7 = jmem_frame_from_json (none);
  const JmemFrameProcess *p;
  const JmemFrameBucket *b;
  g_autofree char *short_id = NULL;

  g_assert_false (f1->has_headroom);
  g_assert_null (f1->buckets);
  g_assert_cmpint (f1->timestamp_unix, ==, 100);
  g_assert_cmpint (f1->uptime_s, ==, 5);
  g_assert_cmpuint (f1->processes->len, ==, 3);
  p = g_ptr_array_index (f1->processes, 0);
  g_assert_cmpint (p->pss_kib, ==, -1);
  g_assert_cmpint (p->gpu_kib, ==, -1);
  g_assert_cmpint (p->pss_age_samples, ==, 3);
  g_assert_cmpstr (p->container, ==, "docker/0123456789abcdef");
  short_id = jmem_frame_container_short (p->container);
  g_assert_cmpstr (short_id, ==, "0123456789ab");

  g_assert_true (f2->has_headroom);
  g_assert_cmpint (f2->allocatable_now_kib, ==, 10);
  g_assert_cmpint (f2->allocatable_after_reclaim_kib, ==, 20);
  g_assert_cmpint (f2->largest_free_block_kib, ==, -1);
  g_assert_cmpuint (f2->buckets->len, ==, 3);
  b = g_ptr_array_index (f2->buckets, 0);
  g_assert_cmpstr (b->name, ==, "page_cache");
  g_assert_cmpstr (b->label, ==, "page cache");
  g_assert_cmpint (b->kib, ==, 9);
  b = g_ptr_array_index (f2->buckets, 1);
  g_assert_cmpstr (b->name, ==, "zram");
  g_assert_cmpint (b->kib, ==, -1);
  b = g_ptr_array_index (f2->buckets, 2);
  g_assert_cmpstr (b->name, ==, "unexplained");
  g_assert_cmpint (b->kib, ==, 4);
  g_assert_cmpint (f2->overlap_kib, ==, 0);

  /* an overlap is no bucket */
  g_assert_cmpuint (f3->buckets->len, ==, 1);
  g_assert_cmpint (f3->overlap_kib, ==, 4);

  g_assert_null (f4->buckets);
  g_assert_cmpuint (f5->buckets->len, ==, 1);
  g_assert_cmpstr (((JmemFrameBucket *) g_ptr_array_index (f5->buckets, 0))->name, ==, "unexplained");
  g_assert_null (f6->buckets);
  g_assert_null (f7->buckets);
}

/* The summary line names the largest holder from any source, and the
 * largest bucket by its stable name. */
static void
test_summary_line (void)
{
  g_autoptr(JsonNode) listed = parse (
    "{\"nvmap\":{\"total_kib\":1000,\"via\":\"sysroot\",\"readable\":true,\"by_pid\":["
    "{\"pid\":12,\"process\":\"c\",\"size_kib\":350}]},"
    "\"accounting\":{\"buckets\":[" BUCKET ("free", "free", "900000") ","
    BUCKET ("page_cache", "page cache", "2048") "," BUCKET ("nvmap", "NvMap in use", "1024") "],"
    "\"unexplained_kib\":10}," PROCS "}");
  /* processes unreadable: NvMap names the holder */
  g_autoptr(JsonNode) unreadable = parse (
    "{\"nvmap\":{\"total_kib\":23068672,\"via\":\"helper\",\"readable\":true,\"by_pid\":["
    "{\"pid\":7,\"process\":\"small\",\"size_kib\":1024},"
    "{\"pid\":4242,\"process\":\"trt\\u001b[31m\",\"size_kib\":23068672}]},"
    "\"processes\":{\"total\":0,\"list\":[]}}");
  /* a process the list lacks holds more GPU memory than the top one */
  g_autoptr(JsonNode) gpu = parse (
    "{\"gpu\":{\"source\":\"nvidia-smi\",\"processes_trusted\":true,"
    "\"devices\":[{\"uuid\":\"GPU-1\",\"memory_used_kib\":null}],"
    "\"processes\":[{\"pid\":99,\"gpu_uuid\":\"GPU-1\",\"used_memory_kib\":2097152,"
    "\"process_name\":\"python3\"}]}," PROCS "}");
  g_autoptr(JmemFrame) f1 = jmem_frame_from_json (listed);
  g_autoptr(JmemFrame) f2 = jmem_frame_from_json (unreadable);
  g_autoptr(JmemFrame) f3 = jmem_frame_from_json (gpu);
  g_autofree char *l1 = jmem_frame_summary_line (f1);
  g_autofree char *l2 = jmem_frame_summary_line (f2);
  g_autofree char *l3 = jmem_frame_summary_line (f3);

  g_assert_cmpstr (l1, ==, "total n/a, available n/a, allocatable now n/a, NvMap 1000.0 KiB, GPU n/a, top PID 10 (b) "
                   "300.0 KiB, largest bucket: page_cache 2.0 MiB");
  g_assert_cmpstr (l2, ==, "total n/a, available n/a, allocatable now n/a, NvMap 22.0 GiB, GPU n/a, top PID 4242 "
                   "(trt\\x1b[31m) NvMap 22.0 GiB, largest bucket: n/a");
  g_assert_cmpstr (l3, ==, "total n/a, available n/a, allocatable now n/a, NvMap n/a, GPU 2.0 GiB, top PID 99 "
                   "(python3) GPU 2.0 GiB, largest bucket: n/a");
}

/* GPU memory from rows judged one by one: a row after one that may have
 * forged it counts for nobody, the rows before it count; a document that
 * judged its rows only as a whole (no "trusted" per row) counts none of
 * them when it distrusts them. */
static void
test_gpu_rows_trusted (void)
{
#define GPU_DOC(ROWS) \
  "{\"gpu\":{\"source\":\"nvidia-smi\",\"processes_trusted\":false," \
  "\"devices\":[{\"uuid\":\"GPU-1\",\"memory_used_kib\":null}],\"processes\":[" ROWS "]}," PROCS "}"
  g_autoptr(JsonNode) judged = parse (GPU_DOC (
    "{\"pid\":99,\"gpu_uuid\":\"GPU-1\",\"used_memory_kib\":2097152,\"process_name\":\"python3\",\"trusted\":true},"
    "{\"pid\":1,\"gpu_uuid\":\"GPU-1\",\"used_memory_kib\":1073741824,\"process_name\":\"init\",\"trusted\":false}"));
  g_autoptr(JsonNode) older = parse (GPU_DOC (
    "{\"pid\":99,\"gpu_uuid\":\"GPU-1\",\"used_memory_kib\":2097152,\"process_name\":\"python3\"}"));
#undef GPU_DOC
  g_autoptr(JmemFrame) f = jmem_frame_from_json (judged);
  g_autoptr(JmemFrame) o = jmem_frame_from_json (older);

  g_assert_cmpint (f->gpu_used_kib, ==, 2097152);
  g_assert_cmpuint (f->gpu_by_pid->len, ==, 1);
  g_assert_cmpint (((JmemFrameHolder *) g_ptr_array_index (f->gpu_by_pid, 0))->pid, ==, 99);
  g_assert_cmpint (o->gpu_used_kib, ==, -1);
  g_assert_cmpuint (o->gpu_by_pid->len, ==, 0);
}

/* The RAM bar: whole cells by share, the rest to the largest remainders,
 * free last; the legend largest first as far as it fits, the rest counted,
 * an overlap said. */
static void
test_accounting_bar (void)
{
  g_autoptr(JsonNode) doc = parse (
    "{\"accounting\":{\"buckets\":[" BUCKET ("free", "free", "500") ","
    BUCKET ("page_cache", "page cache", "240") "," BUCKET ("slab_reclaimable", "slab (reclaim)", "6") ","
    BUCKET ("zram", "zram store", "null") "," BUCKET ("nvmap", "NvMap in use", "250") ","
    BUCKET ("percpu", "per-CPU", "0") "],\"unexplained_kib\":4,\"overlap\":false}}");
  g_autoptr(JsonNode) overlap = parse (
    "{\"accounting\":{\"buckets\":[" BUCKET ("free", "free", "600") ","
    BUCKET ("anon", "anonymous", "500") "],\"unexplained_kib\":-100,\"overlap\":true}}");
  g_autoptr(JmemFrame) f = jmem_frame_from_json (doc);
  g_autoptr(JmemFrame) o = jmem_frame_from_json (overlap);
  g_autofree char *bar100 = jmem_top_accounting_bar (f, 100);
  g_autofree char *bar10 = jmem_top_accounting_bar (f, 10);
  g_autofree char *wide = jmem_top_accounting_legend (f, bar100, 132);
  g_autofree char *narrow = jmem_top_accounting_legend (f, bar10, 32);
  g_autofree char *bar_o = jmem_top_accounting_bar (o, 11);
  g_autofree char *legend_o = jmem_top_accounting_legend (o, bar_o, 80);

  /* 1000 KiB in 100 cells: slab 0.6 cells and the remainder 0.4, the
   * only fractions: slab takes the one cell left */
  g_assert_cmpstr (bar100, ==, "cccccccccccccccccccccccc" "s" "nnnnnnnnnnnnnnnnnnnnnnnnn"
                   "..................................................");
  g_assert_cmpstr (bar10, ==, "ccnnn.....");
  g_assert_cmpstr (wide, ==, "    n NvMap in use 250K  c page cache 240K  s slab (reclaim) 6K  . free 500K  +1 more");
  g_assert_cmpstr (narrow, ==, "    n NvMap in use 250K  +4 more");
  g_assert_cmpstr (bar_o, ==, "aaaaa......");
  g_assert_cmpstr (legend_o, ==, "    a anonymous 500K  . free 600K  overlap 100K");
  g_assert_cmpint (jmem_top_bucket_letter ("a_bucket_of_a_later_jmem"), ==, '*');
}

static GStrv
row_names (GPtrArray *rows)
{
  GStrv names = g_new0 (char *, rows->len + 1);

  for (guint i = 0; i < rows->len; i++)
    names[i] = g_strdup (((JmemTopRow *) g_ptr_array_index (rows, i))->name);
  return names;
}

static void
test_view_order (void)
{
  g_autoptr(JsonNode) doc = parse ("{" PROCS "}");
  g_autoptr(JmemFrame) f = jmem_frame_from_json (doc);
  g_autoptr(JmemTopTrends) trends = jmem_top_trends_new ();
  static const struct {
    JmemTopColumn sort;
    gboolean      reverse;
    const char   *order;
  } cases[] = {
    { JMEM_TOP_COL_FOOTPRINT, FALSE, "c b A" },
    { JMEM_TOP_COL_FOOTPRINT, TRUE, "A b c" },
    { JMEM_TOP_COL_PSS, FALSE, "A c b" },   /* b's PSS unknown: last */
    { JMEM_TOP_COL_PSS, TRUE, "c A b" },    /* and still last */
    { JMEM_TOP_COL_NAME, FALSE, "A b c" },
    { JMEM_TOP_COL_USER, FALSE, "c b A" },  /* A has no user */
    { JMEM_TOP_COL_CONTAINER, FALSE, "b c A" },
    { JMEM_TOP_COL_PID, TRUE, "c A b" },
  };

  jmem_top_trends_feed (trends, f);
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      JmemTopViewOptions o = { cases[i].sort, cases[i].reverse, FALSE, NULL };
      g_autoptr(GPtrArray) rows = jmem_top_view_rows (f, trends, &o);
      g_auto(GStrv) names = row_names (rows);
      g_autofree char *joined = g_strjoinv (" ", names);

      g_assert_cmpstr (joined, ==, cases[i].order);
    }
  {
    JmemTopViewOptions o = { JMEM_TOP_COL_FOOTPRINT, FALSE, FALSE, "DOCKER/0123" };
    g_autoptr(GPtrArray) rows = jmem_top_view_rows (f, trends, &o);

    g_assert_cmpuint (rows->len, ==, 1);
    g_assert_cmpstr (((JmemTopRow *) g_ptr_array_index (rows, 0))->name, ==, "b");
  }
  {
    JmemTopViewOptions o = { JMEM_TOP_COL_FOOTPRINT, FALSE, TRUE, NULL };
    g_autoptr(GPtrArray) rows = jmem_top_view_rows (f, trends, &o);
    const JmemTopRow *host = g_ptr_array_index (rows, 0);

    g_assert_cmpuint (rows->len, ==, 2);
    g_assert_null (host->container);
    g_assert_cmpuint (host->n_members, ==, 2);
    g_assert_cmpint (host->values[JMEM_TOP_COL_FOOTPRINT], ==, 600);
    g_assert_cmpint (host->values[JMEM_TOP_COL_PSS], ==, 190);
    g_assert_cmpint (host->values[JMEM_TOP_COL_GPU], ==, -1);
    g_assert_nonnull (host->series);
  }
}

static void
test_time_axis (void)
{
  JmemPlotTimeAxis axis = { 0 };

  g_setenv ("TZ", "UTC", TRUE);
  tzset ();
  /* 11 minutes: ticks every 2 minutes at whole minutes */
  jmem_plot_time_axis (&axis, 1765000000, 1765000660, 8);
  g_assert_cmpint (axis.step_s, ==, 120);
  g_assert_cmpstr (axis.format, ==, "%H:%M");
  g_assert_cmpuint (axis.n_ticks, >=, 5);
  for (guint i = 0; i < axis.n_ticks; i++)
    {
      g_assert_cmpint (axis.ticks[i] % 120, ==, 0);
      g_assert_cmpint (axis.ticks[i], >=, 1765000000);
      g_assert_cmpint (axis.ticks[i], <=, 1765000660);
    }
  jmem_plot_time_axis_clear (&axis);
  /* three days in 8 ticks: every 12 hours, dates with the time */
  jmem_plot_time_axis (&axis, 1765000000, 1765000000 + 3 * 86400, 8);
  g_assert_cmpint (axis.step_s, ==, 12 * 3600);
  g_assert_cmpstr (axis.format, ==, "%m-%d %H:%M");
  jmem_plot_time_axis_clear (&axis);
  /* in 5: whole days, dates */
  jmem_plot_time_axis (&axis, 1765000000, 1765000000 + 3 * 86400, 5);
  g_assert_cmpint (axis.step_s, ==, 86400);
  g_assert_cmpstr (axis.format, ==, "%Y-%m-%d");
  g_assert_cmpint (axis.ticks[0] % 86400, ==, 0);
  jmem_plot_time_axis_clear (&axis);
  /* 20 s */
  jmem_plot_time_axis (&axis, 1765000001, 1765000021, 8);
  g_assert_cmpint (axis.step_s, ==, 5);
  g_assert_cmpstr (axis.format, ==, "%H:%M:%S");
  jmem_plot_time_axis_clear (&axis);
}

static void
test_size_axis (void)
{
  JmemPlotSizeAxis axis;
  g_autofree char *label = NULL;
  g_autofree char *slope = NULL;

  jmem_plot_size_axis (&axis, 16.6 * 1024 * 1024, 8);
  g_assert_cmpstr (axis.unit, ==, "GiB");
  g_assert_cmpfloat (axis.top_kib, >=, 16.6 * 1024 * 1024);
  g_assert_cmpuint (axis.n_steps, <=, 8);
  label = jmem_plot_size_label (&axis, axis.step_kib);
  g_assert_cmpstr (label, ==, "2.5 GiB");
  jmem_plot_size_axis (&axis, 0, 8);
  g_assert_cmpfloat (axis.top_kib, >, 0);
  jmem_plot_size_axis (&axis, 700, 4);
  g_assert_cmpstr (axis.unit, ==, "KiB");
  g_assert_cmpfloat (axis.step_kib, ==, 200);
  slope = jmem_plot_slope_text (3.8 * 1024 * 1024);
  g_assert_cmpstr (slope, ==, "+3.8 GiB/h");
}

static void
test_parse_time (void)
{
  static const char * const bad[] = { "", "-", "-5", "-5x", "yesterday", "@", "@-1", "2025-13-01T00:00" };
  gint64 t;

  g_setenv ("TZ", "UTC", TRUE);
  tzset ();
  g_assert_true (jmem_plot_parse_time ("@1765000000", 0, &t, NULL));
  g_assert_cmpint (t, ==, 1765000000);
  g_assert_true (jmem_plot_parse_time ("-30m", 1765000660, &t, NULL));
  g_assert_cmpint (t, ==, 1765000660 - 1800);
  g_assert_true (jmem_plot_parse_time ("-2h", 10000, &t, NULL));
  g_assert_cmpint (t, ==, 10000 - 7200);
  g_assert_true (jmem_plot_parse_time ("2025-12-06T05:46:40", 0, &t, NULL));
  g_assert_cmpint (t, ==, 1765000000);
  g_assert_true (jmem_plot_parse_time ("2025-12-06 05:46", 0, &t, NULL));
  g_assert_cmpint (t, ==, 1765000000 - 40);
  g_assert_true (jmem_plot_parse_time ("2025-12-06T06:46:40+01:00", 0, &t, NULL));
  g_assert_cmpint (t, ==, 1765000000);
  for (gsize i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr(GError) error = NULL;

      if (jmem_plot_parse_time (bad[i], 0, &t, &error))
        g_error ("\"%s\" parsed", bad[i]);
      g_assert_nonnull (error);
    }
}

/* Adds @n samples, one a second from t = 1000: @value (i) where it is
 * not NAN; returns the points a line draws. */
static GArray *
thinned (guint max_slots, guint64 n, double (*value) (guint64 i), gboolean mean,
         JmemPlotClock *clock)
{
  JmemPlotTrack track = { 0 };
  GArray *points = g_array_new (FALSE, FALSE, sizeof (JmemPlotPoint));

  jmem_plot_clock_init (clock, max_slots);
  for (guint64 i = 0; i < n; i++)
    {
      gboolean merged;
      guint slot = jmem_plot_clock_add (clock, 1000 + (gint64) i, &merged);
      double v = value (i);

      if (merged)
        jmem_plot_track_halve (&track);
      if (!isnan (v))
        jmem_plot_track_add (&track, slot, v);
      g_assert_cmpuint (clock->spans->len, <=, max_slots);
      g_assert_true (track.slots == NULL || track.slots->len <= max_slots);
    }
  jmem_plot_track_points (&track, clock, mean, points);
  jmem_plot_track_clear (&track);
  return points;
}

static double
short_value (guint64 i)
{
  return i == 2 ? NAN : (double) (10 * i);
}

static double
spiky_value (guint64 i)
{
  /* flat at 100, one sample of 5000 and one of 1, absent before 37 */
  return i < 37 ? NAN : i == 54321 ? 5000 : i == 77777 ? 1 : 100;
}

static void
test_thin (void)
{
  JmemPlotClock clock;
  g_autoptr(GArray) few = thinned (8, 5, short_value, FALSE, &clock);
  g_autoptr(GArray) many = NULL;
  g_autoptr(GArray) stacked = NULL;
  double max = 0, min = G_MAXDOUBLE;
  gint64 max_t = 0;

  /* up to the width: the samples themselves, a gap where one is absent */
  g_assert_cmpuint (few->len, ==, 5);
  for (guint i = 0; i < few->len; i++)
    {
      const JmemPlotPoint *p = &g_array_index (few, JmemPlotPoint, i);

      g_assert_cmpint (p->t, ==, 1000 + i);
      if (i == 2)
        g_assert_true (isnan (p->kib));
      else
        g_assert_cmpfloat (p->kib, ==, 10.0 * i);
    }
  jmem_plot_clock_clear (&clock);

  /* 100,000 samples in 64 slots: the spike and the dip are still drawn */
  many = thinned (64, 100000, spiky_value, FALSE, &clock);
  g_assert_cmpuint (clock.spans->len, >=, 32);
  g_assert_cmpuint (many->len, <=, 2 * 64);
  for (guint i = 0; i < many->len; i++)
    {
      const JmemPlotPoint *p = &g_array_index (many, JmemPlotPoint, i);

      if (i > 0)
        g_assert_cmpint (p->t, >=, g_array_index (many, JmemPlotPoint, i - 1).t);
      if (isnan (p->kib))
        continue;
      if (p->kib > max)
        {
          max = p->kib;
          max_t = p->t;
        }
      min = MIN (min, p->kib);
    }
  g_assert_cmpfloat (max, ==, 5000);
  g_assert_cmpfloat (min, ==, 1);
  /* drawn in the slot of its time, within a slot's width of it */
  g_assert_cmpint (ABS (max_t - (1000 + 54321)), <=, 100000 / 32);
  /* absent before sample 37: the first slot holds it from there */
  g_assert_false (isnan (g_array_index (many, JmemPlotPoint, 0).kib));
  jmem_plot_clock_clear (&clock);

  /* stacked: one mean per slot, all slots, so that tracks align */
  stacked = thinned (64, 100000, spiky_value, TRUE, &clock);
  g_assert_cmpuint (stacked->len, ==, clock.spans->len);
  g_assert_cmpfloat (g_array_index (stacked, JmemPlotPoint, stacked->len - 1).kib, ==, 100);
  jmem_plot_clock_clear (&clock);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/faces/top/layout-order", test_layout_order);
  g_test_add_func ("/faces/top/sparkline", test_sparkline);
  g_test_add_func ("/faces/top/sizes", test_sizes);
  g_test_add_func ("/faces/top/view-order", test_view_order);
  g_test_add_func ("/faces/frame/sections", test_frame_sections);
  g_test_add_func ("/faces/frame/summary-line", test_summary_line);
  g_test_add_func ("/faces/top/accounting-bar", test_accounting_bar);
  g_test_add_func ("/faces/frame/gpu-rows-trusted", test_gpu_rows_trusted);
  g_test_add_func ("/faces/plot/time-axis", test_time_axis);
  g_test_add_func ("/faces/plot/size-axis", test_size_axis);
  g_test_add_func ("/faces/plot/parse-time", test_parse_time);
  g_test_add_func ("/faces/plot/thin", test_thin);
  return g_test_run ();
}
