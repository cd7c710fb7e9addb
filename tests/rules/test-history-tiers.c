/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Histories that keep weeks: `jmem watch --thin` lines (the board's figures
 * and the processes that hold memory, no command lines unless asked), the
 * tiers a rewrite at the cap thins old samples into (mean, range, every
 * process seen), and the commands that read the flight recorder's history
 * when given none. */
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <string.h>
#include <sys/stat.h>

#include "jmem-test.h"

#include "jmem-history.h"
#include "jmem-history-writer.h"
#include "jmem-history-thin.h"
#include "jmem-history-tiers.h"
#include "jmem-json-member.h"

#define T0 G_GINT64_CONSTANT (1780000000)

static char *tmpdir;
static char *orin;

static char *
temp_path (const char *name)
{
  return g_build_filename (tmpdir, name, NULL);
}

static JsonNode *
parse (const char *text)
{
  g_autoptr(GError) error = NULL;
  JsonNode *node = json_from_string (text, &error);

  g_assert_no_error (error);
  return node;
}

static JsonObject *
row_of (JsonObject *root, const char *section, const char *array, gint64 pid)
{
  JsonArray *a = jmem_json_member_array (jmem_json_member_object (root, section), array);

  for (guint i = 0; a != NULL && i < json_array_get_length (a); i++)
    if (json_object_get_int_member (json_array_get_object_element (a, i), "pid") == pid)
      return json_array_get_object_element (a, i);
  return NULL;
}

/* A small sample: @t, a remainder, one NvMap row and two processes, the
 * second only when @with_second. */
static char *
small_sample (gint64 t, gint64 unexplained, gint64 nvmap, gboolean with_second)
{
  return g_strdup_printf (
    "{\"schema\":\"jmem-snapshot\",\"schema_version\":3,"
    "\"collected\":{\"timestamp\":\"x\",\"timestamp_unix\":%" G_GINT64_FORMAT "},"
    "\"accounting\":{\"unexplained_kib\":%" G_GINT64_FORMAT "},"
    "\"nvmap\":{\"total_kib\":%" G_GINT64_FORMAT ",\"by_pid\":[{\"pid\":7,\"process\":\"cam\","
    "\"size_kib\":%" G_GINT64_FORMAT ",\"pid_exists\":true}]},"
    "\"processes\":{\"total\":2,\"list\":[{\"pid\":7,\"name\":\"cam\",\"start_time_ticks\":50,"
    "\"pss_kib\":100,\"nvmap_kib\":%" G_GINT64_FORMAT "}%s]}}",
    t, unexplained, nvmap, nvmap, nvmap,
    with_second ? ",{\"pid\":9,\"name\":\"once\",\"start_time_ticks\":60,\"pss_kib\":40}" : "");
}

/* A thinned sample keeps the mean (weighted by what each stands for), the
 * range of the figures drawn, the window and every process seen. */
static void
test_merge (void)
{
  g_autofree char *a = small_sample (T0, 100, 1000, TRUE);
  g_autofree char *b = small_sample (T0 + 10, 300, 2000, FALSE);
  g_autofree char *c = small_sample (T0 + 20, 500, 6000, FALSE);
  JsonNode *ab[2], *abc[2];
  g_autoptr(JsonNode) merged = NULL, again = NULL;
  JsonObject *root, *history, *cam;
  gint64 lo, hi;

  ab[0] = parse (a);
  ab[1] = parse (b);
  merged = jmem_history_merge (ab, 2);
  root = json_node_get_object (merged);
  history = jmem_json_member_object (root, "history");
  g_assert_cmpint (json_object_get_int_member (history, "samples"), ==, 2);
  g_assert_cmpint (json_object_get_int_member (history, "from_unix"), ==, T0);
  g_assert_cmpint (json_object_get_int_member (history, "to_unix"), ==, T0 + 10);
  g_assert_cmpint (json_object_get_int_member (jmem_json_member_object (root, "collected"),
                                               "timestamp_unix"), ==, T0 + 5);
  g_assert_cmpint (json_object_get_int_member (jmem_json_member_object (root, "accounting"),
                                               "unexplained_kib"), ==, 200);
  jmem_history_figure_range (jmem_json_member_object (root, "accounting"), "unexplained_kib",
                             200, &lo, &hi);
  g_assert_cmpint (lo, ==, 100);
  g_assert_cmpint (hi, ==, 300);
  cam = row_of (root, "nvmap", "by_pid", 7);
  g_assert_cmpint (json_object_get_int_member (cam, "size_kib"), ==, 1500);
  /* a process seen in the first sample only is still there */
  g_assert_nonnull (row_of (root, "processes", "list", 9));
  /* identities are not averaged */
  g_assert_cmpint (json_object_get_int_member (row_of (root, "processes", "list", 7),
                                               "start_time_ticks"), ==, 50);
  /* a figure that did not move carries no range */
  g_assert_false (json_object_has_member (row_of (root, "processes", "list", 7), "min_max") &&
                  json_object_has_member (jmem_json_member_object (row_of (root, "processes", "list", 7),
                                                                   "min_max"), "pss_kib"));
  g_assert_cmpuint (jmem_history_sample_count (merged), ==, 2);

  /* merged again with a third: weighted 2 to 1, the range kept */
  abc[0] = merged;
  abc[1] = parse (c);
  again = jmem_history_merge (abc, 2);
  root = json_node_get_object (again);
  g_assert_cmpuint (jmem_history_sample_count (again), ==, 3);
  g_assert_cmpint (json_object_get_int_member (jmem_json_member_object (root, "accounting"),
                                               "unexplained_kib"), ==, 300);
  cam = row_of (root, "nvmap", "by_pid", 7);
  g_assert_cmpint (json_object_get_int_member (cam, "size_kib"), ==, 3000);
  jmem_history_figure_range (cam, "size_kib", 3000, &lo, &hi);
  g_assert_cmpint (lo, ==, 1000);
  g_assert_cmpint (hi, ==, 6000);
  g_assert_nonnull (row_of (root, "processes", "list", 9));
  json_node_unref (ab[0]);
  json_node_unref (ab[1]);
  json_node_unref (abc[1]);
}

/* Every sample of the last hour, one a minute for a day, one per quarter
 * of an hour beyond; a damaged line goes. */
static void
test_tiers (void)
{
  gint64 now = T0 + 3 * 86400;
  g_autoptr(GString) in = g_string_new (NULL);
  g_autoptr(GString) out = NULL;
  g_auto(GStrv) lines = NULL;
  guint raw = 0, minute = 0, old = 0;

  /* two days and a half ago to now, every 5 s */
  for (gint64 t = now - 60 * 3600; t <= now; t += 5)
    {
      g_autofree char *s = small_sample (t, 100 + t % 7, 1000, FALSE);

      g_string_append_printf (in, "%s\n", s);
      /* damaged, among the samples of its slot: dropped as they merge */
      if (t == now - 30 * 3600)
        g_string_append_printf (in, "{\"timestamp_unix\":%" G_GINT64_FORMAT ", not json\n", t);
    }
  out = jmem_history_tiers_apply (in->str, in->len, now);
  lines = g_strsplit (out->str, "\n", -1);
  for (guint i = 0; lines[i] != NULL && *lines[i] != '\0'; i++)
    {
      g_autoptr(JsonNode) node = parse (lines[i]);
      JsonObject *root = json_node_get_object (node);
      gint64 t = json_object_get_int_member (jmem_json_member_object (root, "collected"),
                                             "timestamp_unix");
      guint n = jmem_history_sample_count (node);

      if (now - t < 3600)
        {
          g_assert_cmpuint (n, ==, 1);
          raw++;
        }
      /* a slot cut by a tier's edge or the history's start holds fewer */
      else if (now - t < 86400)
        {
          g_assert_cmpuint (n, <=, 12);
          minute += n == 12;
        }
      else
        {
          g_assert_cmpuint (n, <=, 180);
          old += n == 180;
        }
    }
  g_assert_cmpuint (raw, >=, 719);
  g_assert_cmpuint (minute, >=, 23 * 60 - 2);
  g_assert_cmpuint (old, >=, 36 * 4 - 3);
  /* a shorter history, applied again, stays as it is */
  {
    g_autoptr(GString) twice = jmem_history_tiers_apply (out->str, out->len, now);

    g_assert_cmpstr (twice->str, ==, out->str);
  }
}

/* A capped history with tiers keeps its first sample where one without
 * drops it; --tiers keeps days where raw samples keep hours. */
static void
test_writer_tiers (void)
{
  g_autofree char *with = temp_path ("tiers.jsonl");
  g_autofree char *without = temp_path ("raw.jsonl");
  guint64 cap = 2 * 1024 * 1024;
  g_autoptr(GError) error = NULL;
  g_autoptr(JmemHistoryWriter) tw = jmem_history_writer_open (with, cap, &error);
  g_autoptr(JmemHistoryWriter) rw = jmem_history_writer_open (without, cap, &error);
  g_autofree char *first_with = NULL, *first_without = NULL;
  g_autofree char *data = NULL;
  gsize len;
  struct stat st;

  g_assert_no_error (error);
  jmem_history_writer_set_tiers (tw, TRUE);
  /* four days at 30 s: 11,520 lines of about 330 bytes, 3.8 MB raw */
  for (gint64 t = T0; t < T0 + 4 * 86400; t += 30)
    {
      g_autofree char *s = small_sample (t, 100, 1000 + (t - T0) / 60, FALSE);

      g_assert_true (jmem_history_writer_append (tw, s, &error));
      g_assert_true (jmem_history_writer_append (rw, s, &error));
      g_assert_no_error (error);
    }
  g_assert_cmpint (g_stat (with, &st), ==, 0);
  g_assert_cmpint (st.st_size, <=, (gint64) cap);
  g_assert_true (g_file_get_contents (with, &data, &len, NULL));
  first_with = g_strndup (data, strcspn (data, "\n"));
  g_free (data);
  g_assert_true (g_file_get_contents (without, &data, &len, NULL));
  first_without = g_strndup (data, strcspn (data, "\n"));
  {
    g_autoptr(JsonNode) a = parse (first_with);
    g_autoptr(JsonNode) b = parse (first_without);
    JsonObject *history = jmem_json_member_object (json_node_get_object (a), "history");

    g_assert_nonnull (history);
    /* the first quarter of an hour, thinned, is still there */
    g_assert_cmpint (json_object_get_int_member (history, "from_unix"), ==, T0);
    g_assert_cmpuint (jmem_history_sample_count (a), >, 1);
    /* without tiers, only the last days are */
    g_assert_cmpint (json_object_get_int_member (jmem_json_member_object (json_node_get_object (b),
                                                                          "collected"),
                                                 "timestamp_unix"), >, T0 + 86400);
  }
}

/* Thin lines: the holders that matter, no command lines unless asked. */
static void
test_thin_command (void)
{
  const char *full_args[] = { "watch", "--sysroot", orin, "--count", "1", NULL };
  const char *thin_args[] = { "watch", "--sysroot", orin, "--count", "1", "--thin", "--top", "1", NULL };
  const char *cmd_args[] = { "watch", "--sysroot", orin, "--count", "1", "--thin", "--cmdlines", NULL };
  const char *bad_args[] = { "watch", "--sysroot", orin, "--count", "1", "--cmdlines", NULL };
  g_auto(JmemTestRun) full = { 0 };
  g_auto(JmemTestRun) thin = { 0 };
  g_auto(JmemTestRun) cmd = { 0 };
  g_auto(JmemTestRun) bad = { 0 };
  JsonObject *root;
  JsonArray *list;
  gboolean nvmap_holder_beyond_top = FALSE;

  jmem_test_run_jmem (&full, full_args);
  jmem_test_run_jmem (&thin, thin_args);
  g_assert_cmpint (full.status, ==, 0);
  g_assert_cmpint (thin.status, ==, 0);
  g_test_message ("bytes per line: full %zu, thin %zu", strlen (full.out), strlen (thin.out));
  g_assert_cmpuint (strlen (thin.out) * 3, <, strlen (full.out) * 2);
  jmem_test_run_parse_json (&thin);
  root = json_node_get_object (thin.json);
  g_assert_cmpint (json_object_get_int_member (jmem_json_member_object (root, "history"),
                                               "line_version"), ==, 2);
  g_assert_false (json_object_has_member (root, "thermal"));
  g_assert_false (json_object_has_member (root, "services"));
  g_assert_nonnull (jmem_json_member_object (root, "accounting"));
  list = jmem_json_member_array (jmem_json_member_object (root, "processes"), "list");
  /* the largest, and every holder of NvMap though --top 1 */
  g_assert_cmpuint (json_array_get_length (list), >, 1);
  for (guint i = 0; i < json_array_get_length (list); i++)
    {
      JsonObject *row = json_array_get_object_element (list, i);

      g_assert_false (json_object_has_member (row, "cmdline"));
      if (i > 0)
        {
          g_assert_cmpint (jmem_json_member_size (row, "nvmap_kib") > 0 ||
                           jmem_json_member_size (row, "gpu_kib") > 0, ==, TRUE);
          nvmap_holder_beyond_top = TRUE;
        }
    }
  g_assert_true (nvmap_holder_beyond_top);

  jmem_test_run_jmem (&cmd, cmd_args);
  g_assert_cmpint (cmd.status, ==, 0);
  g_assert_nonnull (strstr (cmd.out, "\"cmdline\""));
  jmem_test_run_jmem (&bad, bad_args);
  g_assert_cmpint (bad.status, ==, 64);
}

/* --group-readable: the recorder's history is the jmem group's to read. */
static void
test_group_readable (void)
{
  g_autofree char *path = temp_path ("group.jsonl");
  const char *args[] = { "watch", "--sysroot", orin, "--count", "1", "--thin", "--tiers",
                         "--group-readable", "--output", path, NULL };
  g_auto(JmemTestRun) r = { 0 };
  struct stat st;

  jmem_test_run_jmem (&r, args);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpint (g_stat (path, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 0777, ==, 0640);
}

/* With no file, triage --history and plot read $JMEM_HISTORY (else the
 * recorder's); a missing one says how to start the recorder. */
static void
test_default_history (void)
{
  g_autofree char *path = temp_path ("default.jsonl");
  g_autofree char *png = temp_path ("default.png");
  g_autofree char *env_path = g_strdup_printf ("JMEM_HISTORY=%s", path);
  g_autofree char *missing = g_strdup_printf ("JMEM_HISTORY=%s/none.jsonl", tmpdir);
  const char *env[] = { env_path, NULL };
  const char *env_missing[] = { missing, NULL };
  const char *record[] = { "watch", "--sysroot", orin, "--count", "3", "--interval", "1",
                           "--thin", "--output", path, NULL };
  const char *triage[] = { "triage", "--history", "--json", NULL };
  const char *triage_file[] = { "triage", "--history", path, "--json", NULL };
  const char *plot[] = { "plot", "-o", png, NULL };
  g_auto(JmemTestRun) r = { 0 };

  jmem_test_run_jmem (&r, record);
  g_assert_cmpint (r.status, ==, 0);
  jmem_test_run_clear (&r);
  jmem_test_run_jmem_within (&r, 60, env, triage);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "\"jmem-triage\""));
  /* --history FILE, as before */
  jmem_test_run_clear (&r);
  jmem_test_run_jmem (&r, triage_file);
  g_assert_cmpint (r.status, ==, 0);
  jmem_test_run_clear (&r);
  jmem_test_run_jmem_within (&r, 60, env, plot);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_file_test (png, G_FILE_TEST_IS_REGULAR));
  jmem_test_run_clear (&r);
  jmem_test_run_jmem_within (&r, 60, env_missing, triage);
  g_assert_cmpint (r.status, ==, 66);
  g_assert_nonnull (strstr (r.err, "none.jsonl"));
}

int
main (int argc, char **argv)
{
  g_autoptr(GError) error = NULL;
  int rc;

  g_test_init (&argc, &argv, NULL);
  orin = jmem_test_fixture ("trees", "orin-agx-nvgpu", NULL);
  tmpdir = jmem_test_make_tmp ("jmem-test-history-tiers-XXXXXX", &error);
  g_assert_no_error (error);

  g_test_add_func ("/history/merge", test_merge);
  g_test_add_func ("/history/tiers", test_tiers);
  g_test_add_func ("/history/writer-tiers", test_writer_tiers);
  g_test_add_func ("/history/thin-command", test_thin_command);
  g_test_add_func ("/history/group-readable", test_group_readable);
  g_test_add_func ("/history/default-history", test_default_history);
  rc = g_test_run ();

  {
    const char *argv_rm[] = { "rm", "-rf", tmpdir, NULL };
    g_spawn_sync (NULL, (char **) argv_rm, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL, NULL, NULL);
  }
  g_free (tmpdir);
  g_free (orin);
  return rc;
}
