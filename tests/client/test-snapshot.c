/* SPDX-License-Identifier: GPL-2.0-or-later */
/* jmem snapshot end to end: the built client on captured trees, the
 * collector called directly, the live system as root and as a plain user,
 * and capture followed by --sysroot. Expected values are read from the
 * fixture files themselves, not restated here. */
#include <gio/gio.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <pwd.h>
#include <stdio.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "jmem-test.h"
#include "test-account.h"

#include "jmem-capture.h"
#include "jmem-collect.h"
#include "jmem-collect-private.h"
#include "jmem-text.h"

/* The prefix of this program's own account (named per run: test-account.h). */
#define TEST_USER "jmem-test-snapshot"

static const char *jmem_exe;

/* Runs argv (NULL-terminated) with exactly @envp (NULL: ours); parses
 * stdout as JSON when @json. */
static void
run_argv (const char * const *argv, const char * const *envp, gboolean json, JmemTestRun *r)
{
  g_autoptr(GSubprocessLauncher) launcher = jmem_test_launcher (NULL);

  if (envp != NULL)
    g_subprocess_launcher_set_environ (launcher, (char **) envp);
  jmem_test_run_spawn (r, launcher, argv);
  if (json && r->status == 0)
    jmem_test_run_parse_json (r);
}

static void
run_jmem (JmemTestRun *r, gboolean json, ...)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  const char *arg;
  va_list ap;

  g_ptr_array_add (argv, (char *) jmem_exe);
  va_start (ap, json);
  while ((arg = va_arg (ap, const char *)) != NULL)
    g_ptr_array_add (argv, (char *) arg);
  va_end (ap);
  g_ptr_array_add (argv, NULL);
  run_argv ((const char * const *) argv->pdata, NULL, json, r);
}

static char *
tree (const char *name)
{
  return jmem_test_fixture ("trees", name, NULL);
}

static JsonNode *
path1 (JsonNode *root, const char *expr)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) matches = json_path_query (expr, root, &error);
  JsonArray *a;

  g_assert_no_error (error);
  a = json_node_get_array (matches);
  if (json_array_get_length (a) == 0)
    return NULL;
  return json_node_copy (json_array_get_element (a, 0));
}

static char *
str_at (JsonNode *root, const char *expr)
{
  g_autoptr(JsonNode) n = path1 (root, expr);

  if (n == NULL || JSON_NODE_HOLDS_NULL (n))
    return NULL;
  return g_strdup (json_node_get_string (n));
}

static gint64
int_at (JsonNode *root, const char *expr)
{
  g_autoptr(JsonNode) n = path1 (root, expr);

  g_assert_nonnull (n);
  g_assert_true (JSON_NODE_HOLDS_VALUE (n));
  return json_node_get_int (n);
}

static gboolean
bool_at (JsonNode *root, const char *expr)
{
  g_autoptr(JsonNode) n = path1 (root, expr);

  g_assert_nonnull (n);
  return json_node_get_boolean (n);
}

/* Length of the array at @expr. */
static guint
len_at (JsonNode *root, const char *expr)
{
  g_autoptr(JsonNode) n = path1 (root, expr);

  g_assert_nonnull (n);
  return json_array_get_length (json_node_get_array (n));
}

/* The array at @expr, owned by @root. */
static JsonArray *
array_at (JsonNode *root, const char *expr)
{
  g_auto(GStrv) parts = g_strsplit (expr + 2, ".", -1);
  JsonObject *o = json_node_get_object (root);
  guint i;

  for (i = 0; parts[i + 1] != NULL; i++)
    o = json_object_get_object_member (o, parts[i]);
  return json_object_get_array_member (o, parts[i]);
}

static gboolean
is_null_at (JsonNode *root, const char *expr)
{
  g_autoptr(JsonNode) n = path1 (root, expr);

  return n != NULL && JSON_NODE_HOLDS_NULL (n);
}

static JsonObject *
process_by_pid (JsonNode *root, gint64 pid)
{
  JsonArray *list = json_object_get_array_member (
    json_object_get_object_member (json_node_get_object (root), "processes"), "list");

  for (guint i = 0; i < json_array_get_length (list); i++)
    {
      JsonObject *p = json_array_get_object_element (list, i);
      if (json_object_get_int_member (p, "pid") == pid)
        return p;
    }
  return NULL;
}

static gboolean
has_warning (JsonNode *root, const char *source, const char *needle)
{
  JsonArray *w = json_object_get_array_member (json_node_get_object (root), "warnings");

  for (guint i = 0; i < json_array_get_length (w); i++)
    {
      JsonObject *o = json_array_get_object_element (w, i);
      if (g_str_equal (json_object_get_string_member (o, "source"), source) &&
          (needle == NULL || strstr (json_object_get_string_member (o, "message"), needle)))
        return TRUE;
    }
  return FALSE;
}

/* The action of the first @source warning whose message holds @needle. */
static const char *
warning_action (JsonNode *root, const char *source, const char *needle)
{
  JsonArray *w = json_object_get_array_member (json_node_get_object (root), "warnings");

  for (guint i = 0; i < json_array_get_length (w); i++)
    {
      JsonObject *o = json_array_get_object_element (w, i);

      if (g_str_equal (json_object_get_string_member (o, "source"), source) &&
          strstr (json_object_get_string_member (o, "message"), needle))
        return json_object_get_null_member (o, "action") ? NULL
               : json_object_get_string_member (o, "action");
    }
  return NULL;
}

/* A "Key:   value kB" from a meminfo-like file. */
static gint64
file_kib (const char *path, const char *key)
{
  g_autofree char *data = NULL;
  g_autofree char *prefix = g_strconcat ("\n", key, ":", NULL);
  g_autofree char *text = NULL;
  const char *at;

  g_assert_true (g_file_get_contents (path, &data, NULL, NULL));
  text = g_strconcat ("\n", data, NULL);
  at = strstr (text, prefix);
  g_assert_nonnull (at);
  return g_ascii_strtoll (at + strlen (prefix), NULL, 10);
}

/* The test's own reading of an iovmm/clients file: sum of rows and total. */
static void
clients_sums (const char *path, gint64 *rows, gint64 *total, gint64 pid, gint64 *pid_sum)
{
  g_autofree char *data = NULL;
  g_auto(GStrv) lines = NULL;

  g_assert_true (g_file_get_contents (path, &data, NULL, NULL));
  lines = g_strsplit (data, "\n", -1);
  *rows = *total = *pid_sum = 0;
  for (guint i = 1; lines[i] != NULL; i++)
    {
      char client[64], process[64];
      long long row_pid, size;

      if (sscanf (lines[i], "total %lldK", &size) == 1)
        *total = size;
      else if (sscanf (lines[i], "%63s %63s %lld %lldK", client, process, &row_pid, &size) == 4)
        {
          *rows += size;
          if (row_pid == pid)
            *pid_sum += size;
        }
    }
}

static void
test_orin (void)
{
  g_autofree char *dir = tree ("orin-agx-nvgpu");
  g_autofree char *meminfo = g_build_filename (dir, "proc", "meminfo", NULL);
  g_autofree char *clients = g_build_filename (dir, "sys/kernel/debug/nvmap/iovmm/clients", NULL);
  g_autofree char *cgroup = NULL;
  g_autofree char *s = NULL;
  g_auto(JmemTestRun) r = { 0 };
  gint64 rows, total, vllm;
  JsonObject *p;

  run_jmem (&r, TRUE, "snapshot", "--json", "--all", "--sysroot", dir, NULL);
  g_assert_cmpint (r.status, ==, 0);
  jmem_test_assert_valid (r.out, "snapshot.schema.json");

  /* identity */
  s = str_at (r.json, "$.identity.sku"); g_assert_cmpstr (s, ==, "orin-agx"); g_clear_pointer (&s, g_free);
  s = str_at (r.json, "$.identity.variant"); g_assert_cmpstr (s, ==, "orin-agx-64gb"); g_clear_pointer (&s, g_free);
  s = str_at (r.json, "$.identity.variant_source"); g_assert_cmpstr (s, ==, "boot-control:TNSPEC"); g_clear_pointer (&s, g_free);
  s = str_at (r.json, "$.identity.l4t_version"); g_assert_cmpstr (s, ==, "36.4.0"); g_clear_pointer (&s, g_free);
  s = str_at (r.json, "$.identity.model"); g_assert_cmpstr (s, ==, "NVIDIA Jetson AGX Orin Developer Kit"); g_clear_pointer (&s, g_free);
  s = str_at (r.json, "$.identity.default_target"); g_assert_cmpstr (s, ==, "graphical.target"); g_clear_pointer (&s, g_free);
  s = str_at (r.json, "$.collected.hostname"); g_assert_cmpstr (s, ==, "orin-agx"); g_clear_pointer (&s, g_free);
  g_assert_true (bool_at (r.json, "$.collected.is_jetson"));

  /* meminfo, as the file says */
  g_assert_cmpint (int_at (r.json, "$.identity.mem_total_kib"), ==, file_kib (meminfo, "MemTotal"));
  g_assert_cmpint (int_at (r.json, "$.memory.fields_kib.MemAvailable"), ==, file_kib (meminfo, "MemAvailable"));
  g_assert_cmpint (int_at (r.json, "$.memory.fields_kib.CmaTotal"), ==, file_kib (meminfo, "CmaTotal"));
  g_assert_cmpint (int_at (r.json, "$.memory.fields_kib.NvMapMemUsed"), ==, file_kib (meminfo, "NvMapMemUsed"));

  /* GPU: nvgpu stack, memory from NvMap */
  s = str_at (r.json, "$.gpu.stack"); g_assert_cmpstr (s, ==, "nvgpu"); g_clear_pointer (&s, g_free);
  s = str_at (r.json, "$.gpu.source"); g_assert_cmpstr (s, ==, "nvmap"); g_clear_pointer (&s, g_free);
  g_assert_true (is_null_at (r.json, "$.gpu.devices[0].memory_used_kib"));

  /* NvMap: per PID, the orphan, the unattributed part */
  clients_sums (clients, &rows, &total, 1792595, &vllm);
  s = str_at (r.json, "$.nvmap.via"); g_assert_cmpstr (s, ==, "sysroot"); g_clear_pointer (&s, g_free);
  g_assert_cmpint (int_at (r.json, "$.nvmap.total_kib"), ==, total);
  g_assert_cmpint (int_at (r.json, "$.nvmap.unattributed_kib"), ==, total - rows);
  g_assert_cmpint (int_at (r.json, "$.nvmap.by_pid[0].pid"), ==, 1792595);
  g_assert_cmpint (int_at (r.json, "$.nvmap.by_pid[0].n_clients"), ==, 2);
  g_assert_cmpint (int_at (r.json, "$.nvmap.by_pid[0].size_kib"), ==, vllm);
  g_assert_cmpint (int_at (r.json, "$.nvmap.stats_total_bytes"), ==, total * 1024);
  {
    g_autoptr(JsonNode) by_pid = path1 (r.json, "$.nvmap.by_pid");
    JsonArray *a = json_node_get_array (by_pid);
    guint n_orphans = 0;

    for (guint i = 0; i < json_array_get_length (a); i++)
      {
        JsonObject *t = json_array_get_object_element (a, i);
        if (!json_object_get_boolean_member (t, "pid_exists"))
          {
            g_assert_cmpint (json_object_get_int_member (t, "pid"), ==, 5120);
            n_orphans++;
          }
      }
    g_assert_cmpuint (n_orphans, ==, 1);
  }
  g_assert_true (has_warning (r.json, "nvmap", "5120"));

  /* processes: order, joins, nulls, containers, users */
  g_assert_cmpint (int_at (r.json, "$.processes.total"), ==, 9);
  g_assert_cmpint (int_at (r.json, "$.processes.list[0].pid"), ==, 1792595);
  g_assert_cmpint (int_at (r.json, "$.processes.list[0].nvmap_kib"), ==, vllm);
  g_assert_cmpint (int_at (r.json, "$.processes.list[1].pid"), ==, 1792500);
  p = process_by_pid (r.json, 1792595);
  g_assert_cmpint (json_object_get_int_member (p, "footprint_kib"), ==,
                   json_object_get_int_member (p, "pss_kib") + vllm);
  /* a process with pages swapped out: they are its memory too */
  {
    JsonObject *swapped = process_by_pid (r.json, 2831);

    g_assert_cmpint (json_object_get_int_member (swapped, "swap_kib"), ==, 2048);
    g_assert_cmpint (json_object_get_int_member (swapped, "footprint_kib"), ==,
                     json_object_get_int_member (swapped, "pss_kib") + 2048 +
                     json_object_get_int_member (swapped, "nvmap_kib"));
  }
  {
    g_autofree char *cg_path = g_build_filename (dir, "proc/1792595/cgroup", NULL);
    JsonObject *container = json_object_get_object_member (p, "container");
    g_assert_true (g_file_get_contents (cg_path, &cgroup, NULL, NULL));
    g_assert_cmpstr (json_object_get_string_member (container, "runtime"), ==, "docker");
    g_assert_nonnull (strstr (cgroup, json_object_get_string_member (container, "id")));
    g_assert_cmpuint (strlen (json_object_get_string_member (container, "id")), ==, 64);
  }
  p = process_by_pid (r.json, 3105);  /* smaps_rollup absent: PSS unknown, never 0 */
  g_assert_nonnull (p);
  g_assert_true (json_object_get_null_member (p, "pss_kib"));
  g_assert_cmpstr (json_object_get_string_member (process_by_pid (r.json, 2831), "user"), ==, "nvidia");
  g_assert_cmpstr (json_object_get_string_member (process_by_pid (r.json, 1731), "user"), ==, "root");
  g_assert_null (process_by_pid (r.json, 5120));
  g_assert_true (has_warning (r.json, "processes", "PSS unknown for 1 "));

  /* host facts */
  s = str_at (r.json, "$.power_mode"); g_assert_cmpstr (s, ==, "MAXN"); g_clear_pointer (&s, g_free);
  g_assert_cmpint (len_at (r.json, "$.thermal"), ==, 5);
  g_assert_cmpint (len_at (r.json, "$.disks"), ==, 2);
}

static void
test_thor (void)
{
  g_autofree char *dir = tree ("thor-unified");
  g_autofree char *s = NULL;
  g_auto(JmemTestRun) r = { 0 };
  JsonObject *p;

  run_jmem (&r, TRUE, "snapshot", "--json", "--sysroot", dir, "--tegrastats", "1", NULL);
  g_assert_cmpint (r.status, ==, 0);
  jmem_test_assert_valid (r.out, "snapshot.schema.json");
  s = str_at (r.json, "$.identity.variant"); g_assert_cmpstr (s, ==, "thor-t5000"); g_clear_pointer (&s, g_free);
  s = str_at (r.json, "$.identity.l4t_version"); g_assert_cmpstr (s, ==, "38.4.0"); g_clear_pointer (&s, g_free);
  s = str_at (r.json, "$.identity.default_target"); g_assert_cmpstr (s, ==, "multi-user.target"); g_clear_pointer (&s, g_free);
  s = str_at (r.json, "$.gpu.stack"); g_assert_cmpstr (s, ==, "unified"); g_clear_pointer (&s, g_free);
  s = str_at (r.json, "$.gpu.source"); g_assert_cmpstr (s, ==, "nvidia-smi"); g_clear_pointer (&s, g_free);
  /* the name /proc gives the PID, not nvidia-smi's column */
  s = str_at (r.json, "$.gpu.processes[1].process_name");
  g_assert_cmpstr (s, ==, "run,with,commas"); g_clear_pointer (&s, g_free);
  g_assert_true (bool_at (r.json, "$.gpu.processes_trusted"));
  g_assert_true (bool_at (r.json, "$.gpu.processes[1].pid_exists"));
  g_assert_true (is_null_at (r.json, "$.gpu.processes[2].used_memory_kib"));

  /* NvMap absent: said so, with what it means */
  g_assert_false (bool_at (r.json, "$.nvmap.readable"));
  g_assert_true (has_warning (r.json, "nvmap", NULL));
  g_assert_true (has_warning (r.json, "services", NULL));

  p = process_by_pid (r.json, 4012);
  g_assert_cmpint (json_object_get_int_member (p, "gpu_kib"), ==,
                   int_at (r.json, "$.gpu.processes[0].used_memory_kib"));
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (p, "container"),
                                                  "runtime"), !=, NULL);
  g_assert_true (json_object_get_null_member (process_by_pid (r.json, 2450), "gpu_kib"));
  g_assert_cmpstr (json_object_get_string_member (process_by_pid (r.json, 5210), "name"), ==,
                   "run,with,commas");
  g_assert_cmpint (int_at (r.json, "$.processes.list[0].pid"), ==, 4012);
  /* tegrastats from the capture, parsed */
  g_assert_cmpint (int_at (r.json, "$.tegrastats.ram_total_kib"), ==, 125772 * 1024);
}

/* nvidia-smi's rows in a capture are judged as live ones are, from the
 * capture's proc/PID: a command line holding a newline (its name is clean)
 * leaves the rows after it untrusted, the rows up to it counted; a listed
 * PID the capture has no status for, last, leaves no row in doubt. */
static void
test_thor_untrusted (void)
{
  g_autofree char *base = jmem_test_make_tmp ("jmem-untrusted-XXXXXX", NULL);
  g_autofree char *copy = g_build_filename (base, "thor", NULL);
  g_autofree char *thor = tree ("thor-unified");
  g_autofree char *cmdline = g_build_filename (copy, "proc", "5210", "cmdline", NULL);
  g_autofree char *status = g_build_filename (copy, "proc", "2450", "status", NULL);
  const char *cp[] = { "cp", "-a", thor, copy, NULL };
  const char *rm[] = { "rm", "-rf", base, NULL };
  /* what a forger's command line makes nvidia-smi print, and the capture's own */
  static const char forged[] = "/opt/app/run\nGPU-6a1f0e3c-92b4-4d8e-b7a1-5c3d2e1f0a9b, 1, 61440, init";
  static const char captured[] = "/opt/app/run,with,commas\0--batch\0";
  g_auto(JmemTestRun) cp_run = { 0 }, rm_run = { 0 };
  g_auto(JmemTestRun) r = { 0 };
  g_auto(JmemTestRun) gone = { 0 };

  run_argv (cp, NULL, FALSE, &cp_run);
  g_assert_cmpint (cp_run.status, ==, 0);
  g_assert_true (g_file_set_contents (cmdline, forged, sizeof forged - 1, NULL));
  run_jmem (&r, TRUE, "snapshot", "--json", "--sysroot", copy, NULL);
  g_assert_cmpint (r.status, ==, 0);
  jmem_test_assert_valid (r.out, "snapshot.schema.json");
  g_assert_false (bool_at (r.json, "$.gpu.processes_trusted"));
  g_assert_true (has_warning (r.json, "gpu", "command line of PID 5210 holds a newline"));
  g_assert_cmpstr (warning_action (r.json, "gpu", "PID 5210"), ==,
                   "see which process it was: the capture's proc/5210/status and cmdline");
  g_assert_true (bool_at (r.json, "$.gpu.processes[0].trusted"));
  g_assert_true (bool_at (r.json, "$.gpu.processes[1].trusted"));
  g_assert_false (bool_at (r.json, "$.gpu.processes[2].trusted"));
  g_assert_cmpint (json_object_get_int_member (process_by_pid (r.json, 4012), "gpu_kib"), ==,
                   61440 * 1024);
  g_assert_cmpint (json_object_get_int_member (process_by_pid (r.json, 5210), "gpu_kib"), ==,
                   2048 * 1024);

  /* the command line put back, PID 2450's status gone from the capture */
  g_assert_true (g_file_set_contents (cmdline, captured, sizeof captured - 1, NULL));
  g_assert_cmpint (g_unlink (status), ==, 0);
  run_jmem (&gone, TRUE, "snapshot", "--json", "--sysroot", copy, NULL);
  g_assert_cmpint (gone.status, ==, 0);
  g_assert_true (bool_at (gone.json, "$.gpu.processes_trusted"));
  g_assert_false (has_warning (gone.json, "gpu", "untrusted"));
  g_assert_false (bool_at (gone.json, "$.gpu.processes[2].pid_exists"));
  g_assert_cmpint (json_object_get_int_member (process_by_pid (gone.json, 4012), "gpu_kib"), ==,
                   61440 * 1024);
  run_argv (rm, NULL, FALSE, &rm_run);
}

/* The Thor capture with churn: PID 7001 exited between nvidia-smi's answer
 * and the capture of /proc, and leads the answer. The capture holds the
 * second answer, without it, and every live process keeps its GPU memory:
 * the footprint ranking is the one the driver's figures give. PID 7002 is
 * gone, yet counted in both answers: shown as such, for no process. */
static void
test_thor_churn (void)
{
  g_autofree char *dir = tree ("thor-churn");
  g_auto(JmemTestRun) r = { 0 };
  g_auto(JmemTestRun) human = { 0 };
  const gint64 order[] = { 4012, 6100, 6200, 5210 };
  const gint64 gpu_mib[] = { 61440, 8192, 4096, 2048 };
  g_autofree char *gone = NULL;

  run_jmem (&r, TRUE, "snapshot", "--json", "--all", "--sysroot", dir, NULL);
  g_assert_cmpint (r.status, ==, 0);
  jmem_test_assert_valid (r.out, "snapshot.schema.json");
  g_assert_true (bool_at (r.json, "$.gpu.processes_trusted"));
  g_assert_false (has_warning (r.json, "gpu", "untrusted"));
  g_assert_true (jmem_test_has_gpu_evidence (r.json, "query-compute-apps: asked twice, PID 7001"));
  for (gsize i = 0; i < G_N_ELEMENTS (order); i++)
    {
      g_autofree char *at = g_strdup_printf ("$.processes.list[%" G_GSIZE_FORMAT "].pid", i);

      g_assert_cmpint (int_at (r.json, at), ==, order[i]);
      g_assert_cmpint (json_object_get_int_member (process_by_pid (r.json, order[i]), "gpu_kib"), ==,
                       gpu_mib[i] * 1024);
    }
  g_assert_cmpint (int_at (r.json, "$.gpu.processes[5].pid"), ==, 7002);
  g_assert_false (bool_at (r.json, "$.gpu.processes[5].pid_exists"));
  g_assert_true (bool_at (r.json, "$.gpu.processes[5].trusted"));
  g_assert_cmpint (int_at (r.json, "$.gpu.processes[5].used_memory_kib"), ==, 512 * 1024);
  g_assert_null (process_by_pid (r.json, 7001));

  run_jmem (&human, FALSE, "snapshot", "--all", "--width", "200", "--sysroot", dir, NULL);
  g_assert_cmpint (human.status, ==, 0);
  gone = g_strdup (strstr (human.out, "process    7002 512.0 MiB  python3 "));
  g_assert_nonnull (gone);
  *strchr (gone, '\n') = '\0';
  g_assert_true (g_str_has_suffix (gone, " (no such process)"));
  g_assert_null (strstr (human.out, "untrusted"));
}

/* identity.platform.not_applying of a snapshot document. */
static JsonArray *
not_applying_at (JsonNode *root)
{
  JsonObject *identity = json_object_get_object_member (json_node_get_object (root), "identity");

  return json_object_get_array_member (json_object_get_object_member (identity, "platform"),
                                       "not_applying");
}

/* A DGX Spark (GB10): no L4T release and no device tree, yet its GPU shares
 * the RAM. It is told from its evidence, its Jetson-only parts are reported
 * as not applying with why (never as missing: no warning names them, even
 * with tegrastats asked for), its processes keep their GPU memory, and its
 * headroom is a unified-memory system's, not a discrete GPU's. */
static void
test_gb10_spark (void)
{
  g_autofree char *dir = tree ("gb10-spark");
  g_auto(JmemTestRun) r = { 0 };
  g_auto(JmemTestRun) human = { 0 };
  static const char * const parts[] = { "l4t", "nvmap", "power-mode", "tegrastats" };
  JsonArray *not_applying;
  g_autofree char *kind = NULL;
  g_autofree char *product = NULL;

  run_jmem (&r, TRUE, "snapshot", "--json", "--all", "--tegrastats", "1", "--sysroot", dir, NULL);
  g_assert_cmpint (r.status, ==, 0);
  jmem_test_assert_valid (r.out, "snapshot.schema.json");
  kind = str_at (r.json, "$.identity.platform.kind");
  g_assert_cmpstr (kind, ==, "unified-memory");
  product = str_at (r.json, "$.identity.platform.dmi_product");
  g_assert_cmpstr (product, ==, "NVIDIA_DGX_Spark");
  not_applying = not_applying_at (r.json);
  g_assert_cmpuint (json_array_get_length (not_applying), ==, G_N_ELEMENTS (parts));
  for (guint i = 0; i < G_N_ELEMENTS (parts); i++)
    {
      JsonObject *o = json_array_get_object_element (not_applying, i);

      g_assert_cmpstr (json_object_get_string_member (o, "part"), ==, parts[i]);
      g_assert_cmpuint (strlen (json_object_get_string_member (o, "why")), >, 0);
    }
  for (guint i = 0; i < G_N_ELEMENTS (parts); i++)
    g_assert_false (has_warning (r.json, parts[i], NULL));
  g_assert_false (has_warning (r.json, "identity", NULL));
  g_assert_false (has_warning (r.json, "power-mode", NULL));
  g_assert_true (g_str_has_prefix (json_object_get_string_member (
    json_object_get_object_member (json_node_get_object (r.json), "nvmap"), "error"),
    "does not apply on this system"));
  g_assert_cmpint (int_at (r.json, "$.processes.list[0].pid"), ==, 121004);
  g_assert_cmpint (int_at (r.json, "$.processes.list[0].gpu_kib"), ==, 38554 * 1024);
  g_assert_cmpint (int_at (r.json, "$.processes.list[1].pid"), ==, 114687);
  g_assert_cmpint (int_at (r.json, "$.processes.list[1].gpu_kib"), ==, 19135 * 1024);
  g_assert_null (strstr (r.out, "discrete GPU"));

  run_jmem (&human, FALSE, "snapshot", "--width", "200", "--sysroot", dir, NULL);
  g_assert_cmpint (human.status, ==, 0);
  g_assert_true (g_str_has_prefix (human.out, "NVIDIA_DGX_Spark\n"));
  g_assert_nonnull (strstr (human.out, "unified-memory NVIDIA system, not a Jetson"));
  g_assert_nonnull (strstr (human.out, "\nNvMap\n  does not apply on this system: "));
  g_assert_nonnull (strstr (human.out, "Power mode: does not apply here (nvpmodel is a Jetson's)"));
  g_assert_null (strstr (human.out, "not readable"));
  g_assert_null (strstr (human.out, "run jmem on the Jetson"));
}

/* Thor on JetPack 7.2: the R39.2 release, a Jetson with its parts. */
static void
test_thor_r39 (void)
{
  g_autofree char *dir = tree ("thor-r39");
  g_auto(JmemTestRun) r = { 0 };
  g_autofree char *l4t = NULL, *sku = NULL, *kind = NULL;

  run_jmem (&r, TRUE, "snapshot", "--json", "--all", "--sysroot", dir, NULL);
  g_assert_cmpint (r.status, ==, 0);
  jmem_test_assert_valid (r.out, "snapshot.schema.json");
  g_assert_false (has_warning (r.json, "identity", NULL));
  l4t = str_at (r.json, "$.identity.l4t_version");
  g_assert_cmpstr (l4t, ==, "39.2.0");
  sku = str_at (r.json, "$.identity.sku");
  g_assert_cmpstr (sku, ==, "thor");
  kind = str_at (r.json, "$.identity.platform.kind");
  g_assert_cmpstr (kind, ==, "jetson");
  g_assert_cmpint (json_array_get_length (not_applying_at (r.json)), ==, 0);
  g_assert_cmpint (json_object_get_int_member (process_by_pid (r.json, 4012), "gpu_kib"), ==,
                   61440 * 1024);
}

/* A capture whose first answer lists an exited PID first, in the middle or
 * last: with the second answer recorded, every live process keeps its GPU
 * memory; without it, the rows up to the exited one still count and only
 * those after it are in doubt. */
static void
test_thor_churn_positions (void)
{
  static const char uuid[] = "GPU-6a1f0e3c-92b4-4d8e-b7a1-5c3d2e1f0a9b";
  const gint64 live[] = { 4012, 5210, 1 };
  const gint64 mib[] = { 61440, 2048, 300 };
  g_autofree char *thor = tree ("thor-unified");

  for (guint at = 0; at <= G_N_ELEMENTS (live); at++)
    for (int recorded = 0; recorded <= 1; recorded++)
      {
        g_autofree char *base = g_dir_make_tmp ("jmem-churn-XXXXXX", NULL);
        g_autofree char *copy = g_build_filename (base, "thor", NULL);
        g_autofree char *apps = g_build_filename (copy, "nvidia-smi", "query-compute-apps.csv", NULL);
        g_autofree char *again_path = g_build_filename (copy, "nvidia-smi",
                                                        "query-compute-apps.again.csv", NULL);
        const char *cp[] = { "cp", "-a", thor, copy, NULL };
        const char *rm[] = { "rm", "-rf", base, NULL };
        g_autoptr(GString) first = g_string_new (NULL);
        g_autoptr(GString) again = g_string_new (NULL);
        g_auto(JmemTestRun) cp_run = { 0 }, rm_run = { 0 };
        g_auto(JmemTestRun) r = { 0 };

        for (guint i = 0; i <= G_N_ELEMENTS (live); i++)
          {
            if (i == at)
              g_string_append_printf (first, "%s, 7001, 2048, python3\n", uuid);
            if (i < G_N_ELEMENTS (live))
              {
                g_autofree char *row = g_strdup_printf ("%s, %" G_GINT64_FORMAT ", %" G_GINT64_FORMAT
                                                        ", x\n", uuid, live[i], mib[i]);

                g_string_append (first, row);
                g_string_append (again, row);
              }
          }
        run_argv (cp, NULL, FALSE, &cp_run);
        g_assert_cmpint (cp_run.status, ==, 0);
        g_assert_true (g_file_set_contents (apps, first->str, -1, NULL));
        if (recorded)
          g_assert_true (g_file_set_contents (again_path, again->str, -1, NULL));
        run_jmem (&r, TRUE, "snapshot", "--json", "--all", "--sysroot", copy, NULL);
        g_assert_cmpint (r.status, ==, 0);
        g_assert_cmpint (jmem_test_has_gpu_evidence (r.json, "asked twice"), ==, recorded);
        g_assert_cmpint (bool_at (r.json, "$.gpu.processes_trusted"), ==,
                         recorded || at == G_N_ELEMENTS (live));
        for (guint i = 0; i < G_N_ELEMENTS (live); i++)
          {
            JsonObject *p = process_by_pid (r.json, live[i]);

            if (recorded || i < at)
              g_assert_cmpint (json_object_get_int_member (p, "gpu_kib"), ==, mib[i] * 1024);
            else
              g_assert_true (json_object_get_null_member (p, "gpu_kib"));
          }
        run_argv (rm, NULL, FALSE, &rm_run);
      }
}

static void
test_hostile (void)
{
  g_autofree char *dir = tree ("hostile");
  g_auto(JmemTestRun) r = { 0 };
  g_auto(JmemTestRun) human = { 0 };
  JsonObject *p;

  run_jmem (&r, TRUE, "snapshot", "--json", "--all", "--sysroot", dir, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_utf8_validate (r.out, -1, NULL));
  jmem_test_assert_valid (r.out, "snapshot.schema.json");
  /* The forged row inside a name never becomes a process. */
  g_assert_null (process_by_pid (r.json, 200));
  p = process_by_pid (r.json, 100);
  g_assert_nonnull (strstr (json_object_get_string_member (p, "name"), "evil\n"));
  /* and its nvidia-smi rows are shown but give no process GPU memory */
  g_assert_false (bool_at (r.json, "$.gpu.processes_trusted"));
  g_assert_true (json_object_get_null_member (p, "gpu_kib"));
  /* A status file naming PID 1731 stays PID 103's. */
  g_assert_nonnull (process_by_pid (r.json, 103));
  g_assert_null (process_by_pid (r.json, 1731));
  g_assert_null (process_by_pid (r.json, 104));
  g_assert_null (process_by_pid (r.json, 105));
  g_assert_cmpint (int_at (r.json, "$.processes.vanished"), ==, 1);
  p = process_by_pid (r.json, 102);
  g_assert_cmpint (json_object_get_int_member (p, "footprint_kib"), >, 0);
  g_assert_true (has_warning (r.json, "processes", "damaged"));
  g_assert_true (has_warning (r.json, "meminfo", "malformed"));
  g_assert_true (has_warning (r.json, "nvmap", "malformed"));

  run_jmem (&human, FALSE, "snapshot", "--all", "--sysroot", dir, NULL);
  g_assert_cmpint (human.status, ==, 0);
  g_assert_true (g_utf8_validate (human.out, -1, NULL));
  g_assert_null (strchr (human.out, '\x1b'));  /* no raw escape reaches the terminal */
}

static void
test_top_and_human (void)
{
  g_autofree char *dir = tree ("orin-agx-nvgpu");
  g_auto(JmemTestRun) top = { 0 };
  g_auto(JmemTestRun) human = { 0 };
  g_auto(JmemTestRun) bad = { 0 };
  g_auto(JmemTestRun) both = { 0 };

  run_jmem (&top, TRUE, "snapshot", "--json", "--top", "2", "--sysroot", dir, NULL);
  g_assert_cmpint (top.status, ==, 0);
  g_assert_cmpint (int_at (top.json, "$.processes.total"), ==, 9);
  g_assert_cmpint (len_at (top.json, "$.processes.list"), ==, 2);

  run_jmem (&human, FALSE, "snapshot", "--sysroot", dir, NULL);
  g_assert_cmpint (human.status, ==, 0);
  g_assert_nonnull (strstr (human.out, "VLLM::EngineCor"));
  g_assert_nonnull (strstr (human.out, "gst-launch-1.0"));
  g_assert_nonnull (strstr (human.out, "orin-agx-64gb"));
  g_assert_nonnull (strstr (human.out, "gnome-shell"));

  run_jmem (&bad, FALSE, "snapshot", "--top", "-1", "--sysroot", dir, NULL);
  g_assert_cmpint (bad.status, ==, 64);
  run_jmem (&both, FALSE, "snapshot", "--top", "3", "--all", "--sysroot", dir, NULL);
  g_assert_cmpint (both.status, ==, 64);
}

/* --top reads name, owner, container and command line only for the rows it
 * shows: they must be exactly the first rows of --all. */
static void
test_top_matches_all (void)
{
  const char *trees[] = { "shared-pages", "orin-agx-nvgpu", "thor-unified", "thor-churn", "hostile" };

  for (gsize t = 0; t < G_N_ELEMENTS (trees); t++)
    {
      g_autofree char *dir = tree (trees[t]);
      g_auto(JmemTestRun) all = { 0 };
      JsonArray *every;

      run_jmem (&all, TRUE, "snapshot", "--json", "--all", "--sysroot", dir, NULL);
      g_assert_cmpint (all.status, ==, 0);
      every = json_node_get_array (json_object_get_member (
        json_object_get_object_member (json_node_get_object (all.json), "processes"), "list"));

      for (guint n = 1; n <= json_array_get_length (every); n++)
        {
          g_autofree char *top_arg = g_strdup_printf ("%u", n);
          g_auto(JmemTestRun) top = { 0 };
          JsonArray *shown;

          run_jmem (&top, TRUE, "snapshot", "--json", "--top", top_arg, "--sysroot", dir, NULL);
          g_assert_cmpint (top.status, ==, 0);
          shown = json_node_get_array (json_object_get_member (
            json_object_get_object_member (json_node_get_object (top.json), "processes"), "list"));
          g_assert_cmpuint (json_array_get_length (shown), ==, n);
          for (guint i = 0; i < n; i++)
            g_assert_true (json_node_equal (json_array_get_element (shown, i),
                                            json_array_get_element (every, i)));
        }
    }
}

/* A process that exits after its memory was read but before its name was
 * (status gone, smaps_rollup still there) is counted as vanished, and the
 * next one takes its row. */
static void
test_exit_between_passes (void)
{
  g_autofree char *base = jmem_test_make_tmp ("jmem-exit-XXXXXX", NULL);
  g_autofree char *copy = g_build_filename (base, "orin", NULL);
  g_autofree char *orin = tree ("orin-agx-nvgpu");
  g_autofree char *status = g_build_filename (copy, "proc", "1792595", "status", NULL);
  g_auto(JmemTestRun) r = { 0 };
  const char *cp[] = { "cp", "-a", orin, copy, NULL };
  const char *rm[] = { "rm", "-rf", base, NULL };
  g_auto(JmemTestRun) cp_run = { 0 }, rm_run = { 0 };

  run_argv (cp, NULL, FALSE, &cp_run);
  g_assert_cmpint (cp_run.status, ==, 0);
  g_assert_cmpint (g_unlink (status), ==, 0);

  run_jmem (&r, TRUE, "snapshot", "--json", "--top", "1", "--sysroot", copy, NULL);
  g_assert_cmpint (r.status, ==, 0);
  jmem_test_assert_valid (r.out, "snapshot.schema.json");
  g_assert_cmpint (int_at (r.json, "$.processes.vanished"), ==, 1);
  g_assert_cmpint (int_at (r.json, "$.processes.total"), ==, 8);
  g_assert_cmpint (len_at (r.json, "$.processes.list"), ==, 1);
  g_assert_cmpint (int_at (r.json, "$.processes.list[0].pid"), ==, 1792500);
  g_assert_nonnull (json_object_get_string_member (process_by_pid (r.json, 1792500), "name"));
  run_argv (rm, NULL, FALSE, &rm_run);
}

static void
test_exit_codes (void)
{
  g_autofree char *empty = jmem_test_make_tmp ("jmem-empty-XXXXXX", NULL);
  g_autofree char *orin = tree ("orin-agx-nvgpu");
  g_auto(JmemTestRun) missing = { 0 }, none = { 0 }, unknown = { 0 }, opt = { 0 };
  g_auto(JmemTestRun) capture = { 0 }, version = { 0 }, alloc = { 0 }, alloc_none = { 0 };

  run_jmem (&missing, FALSE, "snapshot", "--sysroot", "/nonexistent/jmem", NULL);
  g_assert_cmpint (missing.status, ==, 69);
  g_assert_nonnull (strstr (missing.err, "/nonexistent/jmem"));
  run_jmem (&none, FALSE, "snapshot", "--sysroot", empty, NULL);
  g_assert_cmpint (none.status, ==, 69);
  run_jmem (&unknown, FALSE, "frobnicate", NULL);
  g_assert_cmpint (unknown.status, ==, 64);
  run_jmem (&opt, FALSE, "snapshot", "--no-such-option", NULL);
  g_assert_cmpint (opt.status, ==, 64);
  run_jmem (&capture, FALSE, "capture", orin, NULL);  /* not empty: refused */
  g_assert_cmpint (capture.status, ==, 73);
  run_jmem (&version, FALSE, "--version", NULL);
  g_assert_cmpint (version.status, ==, 0);
  g_assert_true (g_str_has_prefix (version.out, "jmem "));

  run_jmem (&alloc, TRUE, "allocations", "--json", "--pid", "1731", "--sysroot", orin, NULL);
  g_assert_cmpint (alloc.status, ==, 0);
  g_assert_cmpint (int_at (alloc.json, "$.clients[0].pid"), ==, 1731);
  g_assert_cmpint (len_at (alloc.json, "$.clients"), ==, 1);
  g_assert_cmpint (len_at (alloc.json, "$.clients[0].handles"), ==, 2);
  {
    g_autofree char *thor = tree ("thor-unified");
    run_jmem (&alloc_none, FALSE, "allocations", "--sysroot", thor, NULL);
    g_assert_cmpint (alloc_none.status, ==, 69);
    /* Thor is a Jetson: the message says what the capture lacks, and no
     * "To fix" line guesses at why */
    g_assert_nonnull (strstr (alloc_none.err, "the capture holds no NvMap data"));
    g_assert_null (strstr (alloc_none.err, "To fix"));
  }
  {
    /* a GB10 is no Jetson: NvMap does not apply there, and the message says
     * what reports its GPU memory instead of calling the capture short */
    g_autofree char *gb10 = tree ("gb10-spark");
    g_auto(JmemTestRun) alloc_gb10 = { 0 };

    run_jmem (&alloc_gb10, FALSE, "allocations", "--sysroot", gb10, NULL);
    g_assert_cmpint (alloc_gb10.status, ==, 69);
    g_assert_nonnull (strstr (alloc_gb10.err, "NvMap does not apply on the captured system"));
    g_assert_nonnull (strstr (alloc_gb10.err, "NVML or nvidia-smi reports it per process"));
    g_assert_null (strstr (alloc_gb10.err, "holds no NvMap data"));
  }
  g_rmdir (empty);
}

/* allocations --pid of a process that holds no NvMap: the answer says so
 * and is no failure (jmem(1): exit 0), where the header alone looked like
 * an empty read. */
static void
test_allocations_no_such_client (void)
{
  g_autofree char *orin = tree ("orin-agx-nvgpu");
  g_auto(JmemTestRun) text = { 0 }, json = { 0 }, found = { 0 };

  run_jmem (&text, FALSE, "allocations", "--pid", "999999", "--sysroot", orin, NULL);
  g_assert_cmpint (text.status, ==, 0);
  g_assert_nonnull (strstr (text.out, "No NvMap client has PID 999999"));
  g_assert_nonnull (strstr (text.out, "jmem allocations lists every client"));
  run_jmem (&json, TRUE, "allocations", "--json", "--pid", "999999", "--sysroot", orin, NULL);
  g_assert_cmpint (json.status, ==, 0);
  g_assert_cmpint (len_at (json.json, "$.clients"), ==, 0);
  /* a process that holds some gets its table and no such line */
  run_jmem (&found, FALSE, "allocations", "--pid", "1731", "--sysroot", orin, NULL);
  g_assert_cmpint (found.status, ==, 0);
  g_assert_nonnull (strstr (found.out, "PID 1731"));
  g_assert_null (strstr (found.out, "No NvMap client"));
}

/* --tegrastats takes 1 to 3600 seconds wherever it is offered: 0 is no
 * "off" switch (leaving the option out is), and a refusal is a usage error. */
static void
test_tegrastats_range (void)
{
  static const char *const commands[] = { "snapshot", "triage", "metrics", "capture" };
  static const char *const refused[] = { "0", "-1", "3601" };
  g_autofree char *orin = tree ("orin-agx-nvgpu");
  g_autofree char *dir = jmem_test_make_tmp ("jmem-tegrastats-XXXXXX", NULL);
  g_autofree char *target = g_build_filename (dir, "capture", NULL);

  for (gsize c = 0; c < G_N_ELEMENTS (commands); c++)
    for (gsize v = 0; v < G_N_ELEMENTS (refused); v++)
      {
        g_auto(JmemTestRun) r = { 0 };
        g_autofree char *arg = g_strconcat ("--tegrastats=", refused[v], NULL);
        gboolean capture = g_str_equal (commands[c], "capture");

        run_jmem (&r, FALSE, commands[c], arg, capture ? target : "--sysroot",
                  capture ? NULL : orin, NULL);
        g_assert_cmpint (r.status, ==, 64);
        g_assert_nonnull (strstr (r.err, "--tegrastats takes 1 to 3600 seconds"));
        g_assert_cmpstr (r.out, ==, "");
      }
  /* nothing was written for the refused captures */
  g_assert_false (g_file_test (target, G_FILE_TEST_EXISTS));
  {
    g_auto(JmemTestRun) ok = { 0 };

    /* a capture's recorded line: the bounds themselves are accepted */
    run_jmem (&ok, FALSE, "snapshot", "--tegrastats", "1", "--sysroot", orin, NULL);
    g_assert_cmpint (ok.status, ==, 0);
  }
  g_rmdir (dir);
}

/* The line of @text that holds @needle, or NULL. */
static char *
line_with (const char *text, const char *needle)
{
  g_auto(GStrv) lines = g_strsplit (text, "\n", -1);

  for (guint i = 0; lines[i] != NULL; i++)
    if (strstr (lines[i], needle) != NULL)
      return g_strdup (lines[i]);
  return NULL;
}

/* The human view of the recorded Orin speaks as a person would: counts
 * agree with their nouns, every size is in the units the findings use, the
 * nvgpu GPU line says where GPU memory is read, a powered-off sensor is
 * not a temperature. Expected figures come from the same run's JSON. */
static void
test_human_wording (void)
{
  g_autofree char *orin = tree ("orin-agx-nvgpu");
  g_auto(JmemTestRun) json = { 0 }, human = { 0 }, alloc = { 0 };
  JsonArray *by_pid, *list, *thermal;
  guint n_no_pss = 0, n_gone = 0;

  run_jmem (&json, TRUE, "snapshot", "--json", "--all", "--sysroot", orin, NULL);
  run_jmem (&human, FALSE, "snapshot", "--all", "--sysroot", orin, NULL);
  g_assert_cmpint (json.status, ==, 0);
  g_assert_cmpint (human.status, ==, 0);

  /* plurals: the PSS count as the JSON has it, with its own noun */
  list = array_at (json.json, "$.processes.list");
  for (guint i = 0; i < json_array_get_length (list); i++)
    {
      JsonObject *p = json_array_get_object_element (list, i);

      if (json_object_get_null_member (p, "pss_kib") && !json_object_get_null_member (p, "rss_kib"))
        n_no_pss++;
    }
  g_assert_cmpuint (n_no_pss, ==, 1);  /* the fixture's point: one process */
  g_assert_nonnull (strstr (human.out, "PSS unknown for 1 process ("));
  g_assert_null (strstr (human.out, "1 processes"));
  g_assert_null (strstr (human.out, "(es)"));
  g_assert_null (strstr (human.out, "(s)"));

  /* sizes: a warning names the same text as the findings' formatter */
  by_pid = array_at (json.json, "$.nvmap.by_pid");
  for (guint i = 0; i < json_array_get_length (by_pid); i++)
    {
      JsonObject *t = json_array_get_object_element (by_pid, i);
      g_autofree char *size = NULL;
      g_autofree char *want = NULL;

      if (json_object_get_boolean_member (t, "pid_exists"))
        continue;
      size = jmem_text_size (json_object_get_int_member (t, "size_kib"));
      want = g_strdup_printf ("NvMap holds %s for PID %" G_GINT64_FORMAT " (",
                              size, json_object_get_int_member (t, "pid"));
      g_assert_nonnull (strstr (human.out, want));
      g_assert_nonnull (strstr (human.out, size));
      n_gone++;
    }
  g_assert_cmpuint (n_gone, >, 0);
  {
    g_autofree char *warnings = g_strdup (strstr (human.out, "\nWarnings\n"));

    g_assert_nonnull (warnings);
    *strstr (warnings, "\nFindings\n") = '\0';
    /* every size in a warning is in human units: no bare four-digit KiB */
    for (const char *at = warnings; (at = strstr (at, " KiB")) != NULL; at++)
      {
        const char *digits = at;

        while (digits > warnings && g_ascii_isdigit (digits[-1]))
          digits--;
        g_assert_cmpint (at - digits, <=, 4);
        g_assert_cmpint (g_ascii_strtoll (digits, NULL, 10), <, 1024);
      }
  }

  /* nvgpu: nvidia-smi has no memory figures there; the line says so */
  {
    g_autofree char *stack = str_at (json.json, "$.gpu.stack");

    g_assert_cmpstr (stack, ==, "nvgpu");
  }
  g_assert_null (strstr (human.out, "used - of -"));
  g_assert_nonnull (strstr (human.out, "nvidia-smi does not report memory on nvgpu"));
  g_assert_nonnull (strstr (human.out, "NvMap (below) is the source"));

  /* thermal: the zones the JSON says read -256 °C are shown as off */
  thermal = array_at (json.json, "$.thermal");
  {
    guint n_off = 0;

    for (guint i = 0; i < json_array_get_length (thermal); i++)
      {
        JsonObject *z = json_array_get_object_element (thermal, i);
        g_autofree char *line = line_with (human.out, json_object_get_string_member (z, "type"));

        g_assert_nonnull (line);
        if (json_object_get_double_member (z, "celsius") == -256.0)
          {
            g_assert_nonnull (strstr (line, "sensor off"));
            n_off++;
          }
        else
          {
            g_assert_null (strstr (line, "sensor off"));
            g_assert_nonnull (strstr (line, "°C"));
          }
      }
    g_assert_cmpuint (n_off, ==, 1);
    g_assert_null (strstr (human.out, "-256"));
  }

  /* jmem allocations: "1 handle", sizes as the snapshot writes them */
  run_jmem (&alloc, FALSE, "allocations", "--sysroot", orin, NULL);
  g_assert_cmpint (alloc.status, ==, 0);
  g_assert_nonnull (strstr (alloc.out, " 1 handle\n"));
  g_assert_nonnull (strstr (alloc.out, " 2 handles\n"));
  g_assert_null (strstr (alloc.out, " 1 handles"));
  {
    g_autofree char *total = jmem_text_size (int_at (json.json, "$.nvmap.total_kib"));
    g_autofree char *want = g_strdup_printf ("\ntotal %s\n", total);

    g_assert_nonnull (strstr (alloc.out, want));
  }
}

static void
test_library (void)
{
  g_autofree char *dir = tree ("orin-agx-nvgpu");
  JmemCollectOptions options = { .sysroot = dir, .top = 3 };
  g_autoptr(GError) error = NULL;
  g_autoptr(JmemSnapshot) s = jmem_collect_snapshot (&options, &error);
  JmemProcess *first;

  g_assert_no_error (error);
  g_assert_cmpuint (s->n_processes_total, ==, 9);
  g_assert_cmpuint (s->processes->len, ==, 3);
  g_assert_true (s->nvmap_readable);
  g_assert_cmpstr (s->nvmap_via, ==, "sysroot");
  g_assert_cmpint (s->gpu_stack, ==, JMEM_GPU_STACK_NVGPU);
  first = g_ptr_array_index (s->processes, 0);
  g_assert_cmpint (first->pid, ==, 1792595);
  g_assert_cmpstr (first->container_runtime, ==, "docker");
  g_assert_null (s->tegrastats);
  g_assert_nonnull (s->services);
}

/* Every row shown carries its name and owner, and rows come largest first. */
static void
check_rows_named (JsonNode *root)
{
  JsonArray *list = array_at (root, "$.processes.list");
  gint64 previous = G_MAXINT64;

  for (guint i = 0; i < json_array_get_length (list); i++)
    {
      JsonObject *p = json_array_get_object_element (list, i);
      gint64 footprint = json_object_get_int_member (p, "footprint_kib");

      g_assert_nonnull (json_object_get_string_member (p, "name"));
      g_assert_false (json_object_get_null_member (p, "uid"));
      g_assert_cmpint (footprint, <=, previous);
      previous = footprint;
    }
}

/* The live system: exits 0, reports this machine's MemTotal and jmem's own
 * PID (setpriv execs jmem, so the PID is the one spawned). */
static void
check_live (const char * const *argv)
{
  g_auto(JmemTestRun) r = { 0 };
  gint64 mem_total = file_kib ("/proc/meminfo", "MemTotal");
  JsonObject *self;

  run_argv (argv, NULL, TRUE, &r);
  if (r.status != 0)
    g_printerr ("%s", r.err);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpint (int_at (r.json, "$.identity.mem_total_kib"), ==, mem_total);
  jmem_test_assert_valid (r.out, "snapshot.schema.json");
  /* off a Jetson it still works, and says so */
  if (!g_file_test ("/etc/nv_tegra_release", G_FILE_TEST_EXISTS) &&
      !g_file_test ("/proc/device-tree/model", G_FILE_TEST_EXISTS))
    {
      g_assert_false (bool_at (r.json, "$.collected.is_jetson"));
      g_assert_true (has_warning (r.json, "identity", "not a Jetson"));
    }
  {
    g_autofree char *smi = g_find_program_in_path ("nvidia-smi");
    g_autofree char *evidence = str_at (r.json, "$.gpu.evidence[0]");

    if (smi == NULL)
      g_assert_true (g_str_has_suffix (evidence, ": not installed"));
  }
  g_assert_cmpint (r.pid, >, 0);
  self = process_by_pid (r.json, r.pid);
  g_assert_nonnull (self);
  g_assert_cmpstr (json_object_get_string_member (self, "name"), ==, "jmem");
  g_assert_nonnull (strstr (json_object_get_string_member (self, "cmdline"), "snapshot --json --all"));
  /* its own smaps_rollup is readable to every user */
  g_assert_cmpint (json_object_get_int_member (self, "pss_kib"), >, 0);
  /* root is never told to run as root: it is told which PIDs and why */
  if (argv[0] == jmem_exe && has_warning (r.json, "processes", "PSS unknown"))
    {
      g_assert_true (has_warning (r.json, "processes", "PSS unknown for 1 process: PID ") ||
                     has_warning (r.json, "processes", " processes: PIDs "));
      g_assert_null (warning_action (r.json, "processes", "PSS unknown"));
    }
  check_rows_named (r.json);
}

/* A capture is analysed already: no hint read from one sends the user to
 * --sysroot, and none calls the captured system "this machine". */
static void
test_sysroot_hints (void)
{
  g_autofree char *trees = jmem_test_fixture ("trees", NULL);
  g_autoptr(GDir) dir = g_dir_open (trees, 0, NULL);
  const char *name;
  guint n_trees = 0;

  g_assert_nonnull (dir);
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *root = tree (name);
      g_auto(JmemTestRun) human = { 0 }, json = { 0 };

      if (!g_file_test (root, G_FILE_TEST_IS_DIR))
        continue;
      n_trees++;
      run_jmem (&human, FALSE, "snapshot", "--all", "--sysroot", root, NULL);
      run_jmem (&json, TRUE, "snapshot", "--json", "--sysroot", root, NULL);
      g_assert_cmpint (human.status, ==, 0);
      g_assert_cmpint (json.status, ==, 0);
      g_assert_null (strstr (human.out, "--sysroot"));
      g_assert_null (strstr (human.err, "--sysroot"));
      g_assert_null (strstr (human.out, "this machine"));
      g_assert_null (strstr (human.out, "ps -o pid,user,args"));
      g_assert_null (strstr (json.out, "--sysroot"));
      /* a system whose GPU shares its RAM (a GB10) is no Jetson and no
       * stranger: nothing to capture elsewhere */
      {
        g_autofree char *kind = str_at (json.json, "$.identity.platform.kind");

        if (g_strcmp0 (kind, "unified-memory") == 0)
          g_assert_false (has_warning (json.json, "identity", NULL));
        else if (!bool_at (json.json, "$.collected.is_jetson"))
          g_assert_nonnull (strstr (warning_action (json.json, "identity", "not a Jetson"),
                                    "jmem capture DIR"));
      }
      /* installing a tool here changes nothing in the capture */
      {
        JsonArray *w = json_object_get_array_member (json_node_get_object (json.json), "warnings");

        for (guint i = 0; i < json_array_get_length (w); i++)
          {
            JsonObject *o = json_array_get_object_element (w, i);
            const char *action = json_object_get_null_member (o, "action") ? NULL
                                 : json_object_get_string_member (o, "action");

            if (action != NULL && g_str_has_prefix (action, "install "))
              g_assert_nonnull (strstr (action, "next capture"));
          }
      }
    }
  g_assert_cmpuint (n_trees, >=, 4);

  /* a Jetson's capture without NvMap: the GPU warning points at no advice
   * that the nvmap warning does not give */
  {
    g_autofree char *base = jmem_test_make_tmp ("jmem-no-nvmap-XXXXXX", NULL);
    g_autofree char *copy = g_build_filename (base, "orin", NULL);
    g_autofree char *orin = tree ("orin-agx-nvgpu");
    g_autofree char *clients = g_build_filename (copy, "sys", "kernel", "debug", "nvmap", "iovmm",
                                                 "clients", NULL);
    const char *cp[] = { "cp", "-a", orin, copy, NULL };
    const char *rm[] = { "rm", "-rf", base, NULL };
    g_auto(JmemTestRun) cp_run = { 0 }, rm_run = { 0 }, r = { 0 };

    run_argv (cp, NULL, FALSE, &cp_run);
    g_assert_cmpint (cp_run.status, ==, 0);
    g_assert_cmpint (g_unlink (clients), ==, 0);
    run_jmem (&r, TRUE, "snapshot", "--json", "--sysroot", copy, NULL);
    g_assert_cmpint (r.status, ==, 0);
    g_assert_true (has_warning (r.json, "gpu", "no source of GPU memory per process"));
    g_assert_null (warning_action (r.json, "gpu", "no source of GPU memory per process"));
    g_assert_null (warning_action (r.json, "nvmap", "the capture holds no NvMap data"));
    run_argv (rm, NULL, FALSE, &rm_run);
  }
}

/* What root reads about processes without PSS: up to five PIDs, each with
 * the reason, and how many more. */
static void
test_pss_unknown_text (void)
{
  const JmemPssGap gaps[] = {
    { 2, JMEM_PSS_UNKNOWN_KERNEL_THREAD },
    { 117, JMEM_PSS_UNKNOWN_EXITED },
    { 5012, JMEM_PSS_UNKNOWN_PID_NAMESPACE },
    { 6001, JMEM_PSS_UNKNOWN_REFUSED },
    { 6002, JMEM_PSS_UNKNOWN_REFUSED },
  };
  g_autofree char *one = jmem_collect_pss_unknown_text (1, gaps + 3, 1);
  g_autofree char *three = jmem_collect_pss_unknown_text (3, gaps, 3);
  g_autofree char *many = jmem_collect_pss_unknown_text (8, gaps, 5);

  g_assert_cmpstr (one, ==, "PSS unknown for 1 process: PID 6001 (refused); "
                   "its pss_kib is null and RSS stands in for the footprint");
  g_assert_cmpstr (three, ==, "PSS unknown for 3 processes: PIDs 2 (kernel thread), "
                   "117 (exited while read), 5012 (another PID namespace); "
                   "their pss_kib is null and RSS stands in for the footprint");
  g_assert_cmpstr (many, ==, "PSS unknown for 8 processes: PIDs 2 (kernel thread), "
                   "117 (exited while read), 5012 (another PID namespace), 6001 (refused), "
                   "6002 (refused) and 3 more; "
                   "their pss_kib is null and RSS stands in for the footprint");
}

/* The default view on the live system: --top rows are named and in order. */
static void
check_live_top (const char * const *argv)
{
  g_auto(JmemTestRun) r = { 0 };

  run_argv (argv, NULL, TRUE, &r);
  g_assert_cmpint (r.status, ==, 0);
  jmem_test_assert_valid (r.out, "snapshot.schema.json");
  g_assert_cmpint (len_at (r.json, "$.processes.list"), ==, 3);
  g_assert_cmpint (int_at (r.json, "$.processes.total"), >=, 3);
  check_rows_named (r.json);
}

static void
test_live_root (void)
{
  const char *argv[] = { jmem_exe, "snapshot", "--json", "--all", "--no-ask-password", NULL };

  if (geteuid () != 0)
    {
      g_test_skip ("needs root");
      return;
    }
  check_live (argv);
  {
    const char *top[] = { jmem_exe, "snapshot", "--json", "--top", "3", "--no-ask-password", NULL };
    check_live_top (top);
  }
}

static void
test_live_user (void)
{
  g_autofree char *uid = NULL, *gid = NULL;
  uid_t account_uid;
  gid_t account_gid;

  if (geteuid () != 0)
    {
      g_test_skip ("needs root to create and switch to " TEST_USER);
      return;
    }
  if (!test_account_get (TEST_USER, NULL, &account_uid, &account_gid))
    {
      g_test_skip ("cannot create " TEST_USER);
      return;
    }
  uid = g_strdup_printf ("--reuid=%u", (guint) account_uid);
  gid = g_strdup_printf ("--regid=%u", (guint) account_gid);
  {
    const char *argv[] = { "setpriv", uid, gid, "--clear-groups", jmem_exe,
                           "snapshot", "--json", "--all", "--no-ask-password", NULL };
    const char *top[] = { "setpriv", uid, gid, "--clear-groups", jmem_exe,
                          "snapshot", "--json", "--top", "3", "--no-ask-password", NULL };
    check_live (argv);
    check_live_top (top);
  }
}

static void
collect_pids (const char *proc, GHashTable *pids)
{
  g_autoptr(GDir) dir = g_dir_open (proc, 0, NULL);
  const char *name;

  g_assert_nonnull (dir);
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *status = g_build_filename (proc, name, "status", NULL);
      if (g_ascii_isdigit (name[0]) && g_file_test (status, G_FILE_TEST_EXISTS))
        g_hash_table_add (pids, g_strdup (name));
    }
}

static void
test_capture_roundtrip (void)
{
  g_autofree char *base = jmem_test_make_tmp ("jmem-capture-XXXXXX", NULL);
  g_autofree char *dir = g_build_filename (base, "cap", NULL);
  g_autofree char *proc = g_build_filename (dir, "proc", NULL);
  g_autofree char *meminfo = g_build_filename (dir, "proc", "meminfo", NULL);
  g_autoptr(GHashTable) captured = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_auto(JmemTestRun) cap = { 0 }, again = { 0 }, snap = { 0 };
  JsonArray *list;

  run_jmem (&cap, FALSE, "capture", "--no-ask-password", dir, NULL);
  g_assert_cmpint (cap.status, ==, 0);
  run_jmem (&again, FALSE, "capture", dir, NULL);
  g_assert_cmpint (again.status, ==, 73);

  run_jmem (&snap, TRUE, "snapshot", "--json", "--all", "--sysroot", dir, NULL);
  g_assert_cmpint (snap.status, ==, 0);
  g_assert_cmpint (int_at (snap.json, "$.identity.mem_total_kib"), ==, file_kib (meminfo, "MemTotal"));
  g_assert_cmpint (int_at (snap.json, "$.identity.mem_total_kib"), ==, file_kib ("/proc/meminfo", "MemTotal"));
  g_assert_cmpint (int_at (snap.json, "$.memory.fields_kib.MemFree"), ==, file_kib (meminfo, "MemFree"));

  /* the page size the page pool is counted in, and an accounting that adds up */
  {
    g_autofree char *page = g_build_filename (dir, "jmem", "page-size", NULL);
    g_autofree char *text = NULL;
    JsonArray *buckets = array_at (snap.json, "$.accounting.buckets");
    gint64 sum = int_at (snap.json, "$.accounting.unexplained_kib");

    g_assert_true (g_file_get_contents (page, &text, NULL, NULL));
    g_assert_cmpint (g_ascii_strtoll (text, NULL, 10), ==, sysconf (_SC_PAGESIZE));
    for (guint i = 0; i < json_array_get_length (buckets); i++)
      {
        JsonObject *b = json_array_get_object_element (buckets, i);

        if (!json_object_get_null_member (b, "kib"))
          sum += json_object_get_int_member (b, "kib");
        /* the capture lists its zram devices, so zram is known from it:
         * 0 where there are none, their stores where mm_stat was recorded */
        if (g_str_equal (json_object_get_string_member (b, "name"), "zram"))
          {
            g_autofree char *zram = g_build_filename (dir, "jmem", "zram-devices", NULL);
            g_autofree char *listed = NULL;

            g_assert_true (g_file_get_contents (zram, &listed, NULL, NULL));
            if (listed[0] == '\0')
              g_assert_cmpint (json_object_get_int_member (b, "kib"), ==, 0);
            else
              g_assert_false (json_object_get_null_member (b, "kib"));
          }
      }
    g_assert_cmpint (sum, ==, file_kib (meminfo, "MemTotal"));
  }

  /* the headroom's inputs, recorded in the capture's host step: the free
   * blocks in the page size of the system copied, the kernel's reserve */
  {
    g_autofree char *buddyinfo = g_build_filename (dir, "proc", "buddyinfo", NULL);
    g_autofree char *swaps = g_build_filename (dir, "proc", "swaps", NULL);
    g_autofree char *reserve = g_build_filename (dir, "proc", "sys", "vm", "min_free_kbytes", NULL);
    g_autofree char *text = NULL;

    g_assert_true (g_file_test (buddyinfo, G_FILE_TEST_IS_REGULAR));
    g_assert_true (g_file_test (swaps, G_FILE_TEST_IS_REGULAR));
    g_assert_true (g_file_get_contents (reserve, &text, NULL, NULL));
    g_assert_cmpint (int_at (snap.json, "$.headroom.page_size_bytes"), ==, sysconf (_SC_PAGESIZE));
    g_assert_cmpint (int_at (snap.json, "$.headroom.terms[2].kib"), ==, g_ascii_strtoll (text, NULL, 10));
    g_assert_cmpint (int_at (snap.json, "$.headroom.largest_free_block_kib"), >=, sysconf (_SC_PAGESIZE) / 1024);
    g_assert_cmpint (int_at (snap.json, "$.headroom.terms[0].kib"), ==, file_kib (meminfo, "MemFree"));
  }

  /* the same process set as captured, nothing lost, nothing invented */
  collect_pids (proc, captured);
  list = array_at (snap.json, "$.processes.list");
  g_assert_cmpuint (json_array_get_length (list), ==, g_hash_table_size (captured));
  for (guint i = 0; i < json_array_get_length (list); i++)
    {
      g_autofree char *pid = g_strdup_printf ("%" G_GINT64_FORMAT,
        json_object_get_int_member (json_array_get_object_element (list, i), "pid"));
      g_assert_true (g_hash_table_contains (captured, pid));
    }
  {
    g_autofree char *host = NULL;
    g_autofree char *s = str_at (snap.json, "$.collected.hostname");
    g_file_get_contents ("/proc/sys/kernel/hostname", &host, NULL, NULL);
    g_assert_cmpstr (s, ==, g_strchomp (host));
  }
  {
    const char *rm[] = { "rm", "-rf", base, NULL };
    g_auto(JmemTestRun) r = { 0 };
    run_argv (rm, NULL, FALSE, &r);
  }
}

/* ---- a stand-in systemd on a private bus, for the services source ---- */

static const char mock_systemd_xml[] =
  "<node><interface name='org.freedesktop.systemd1.Manager'>"
  "<method name='ListUnitsByNames'><arg type='as' direction='in'/>"
  "<arg type='a(ssssssouso)' direction='out'/></method>"
  "<method name='ListUnitFilesByPatterns'><arg type='as' direction='in'/>"
  "<arg type='as' direction='in'/><arg type='a(ss)' direction='out'/></method>"
  "</interface></node>";

typedef struct {
  char         *address;
  GMainContext *context;
  GMainLoop    *loop;
  GThread      *thread;
  GMutex        lock;
  GCond         cond;
  gboolean      ready;
  guint         n_names_asked;  /* units in the last ListUnitsByNames */
  guint         n_calls;
} MockSystemd;

static void
mock_method (GDBusConnection *connection, const char *sender, const char *path,
             const char *iface, const char *method, GVariant *params,
             GDBusMethodInvocation *invocation, gpointer user_data)
{
  MockSystemd *m = user_data;
  GVariantBuilder b;

  g_atomic_int_inc (&m->n_calls);
  if (g_str_equal (method, "ListUnitsByNames"))
    {
      g_autoptr(GVariant) names = g_variant_get_child_value (params, 0);
      GVariantIter iter;
      const char *name;

      m->n_names_asked = (guint) g_variant_n_children (names);
      g_variant_builder_init (&b, G_VARIANT_TYPE ("a(ssssssouso)"));
      g_variant_iter_init (&iter, names);
      while (g_variant_iter_next (&iter, "&s", &name))
        {
          gboolean gdm = g_str_equal (name, "gdm3.service");
          gboolean docker = g_str_equal (name, "docker.service");

          g_variant_builder_add (&b, "(ssssssouso)", name, "",
                                 gdm || docker ? "loaded" : "not-found",
                                 gdm ? "active" : "inactive", gdm ? "running" : "dead", "",
                                 "/org/freedesktop/systemd1/unit/x", 0, "", "/");
        }
      g_dbus_method_invocation_return_value (invocation, g_variant_new ("(a(ssssssouso))", &b));
    }
  else
    {
      g_variant_builder_init (&b, G_VARIANT_TYPE ("a(ss)"));
      g_variant_builder_add (&b, "(ss)", "/lib/systemd/system/gdm3.service", "enabled");
      g_variant_builder_add (&b, "(ss)", "/lib/systemd/system/docker.service", "masked");
      g_dbus_method_invocation_return_value (invocation, g_variant_new ("(a(ss))", &b));
    }
}

static gpointer
mock_thread (gpointer data)
{
  MockSystemd *m = data;
  static const GDBusInterfaceVTable vtable = { mock_method, NULL, NULL, { 0 } };
  g_autoptr(GDBusNodeInfo) info = g_dbus_node_info_new_for_xml (mock_systemd_xml, NULL);
  g_autoptr(GDBusConnection) bus = NULL;
  g_autoptr(GVariant) reply = NULL;
  g_autoptr(GError) error = NULL;

  g_main_context_push_thread_default (m->context);
  bus = g_dbus_connection_new_for_address_sync (m->address,
          G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT |
          G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION, NULL, NULL, &error);
  g_assert_no_error (error);
  g_dbus_connection_register_object (bus, "/org/freedesktop/systemd1", info->interfaces[0],
                                     &vtable, m, NULL, &error);
  g_assert_no_error (error);
  reply = g_dbus_connection_call_sync (bus, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                       "org.freedesktop.DBus", "RequestName",
                                       g_variant_new ("(su)", "org.freedesktop.systemd1", 4),
                                       G_VARIANT_TYPE ("(u)"), G_DBUS_CALL_FLAGS_NONE, -1,
                                       NULL, &error);
  g_assert_no_error (error);
  g_mutex_lock (&m->lock);
  m->ready = TRUE;
  g_cond_signal (&m->cond);
  g_mutex_unlock (&m->lock);
  g_main_loop_run (m->loop);
  g_dbus_connection_close_sync (bus, NULL, NULL);
  g_main_context_pop_thread_default (m->context);
  return NULL;
}

static void
test_services_dbus (void)
{
  g_autoptr(GSubprocess) daemon = NULL;
  g_autoptr(GDataInputStream) in = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *base = jmem_test_make_tmp ("jmem-units-XXXXXX", NULL);
  g_autofree char *cap = g_build_filename (base, "cap", NULL);
  /* the bus's socket in this test's folder, not a /tmp/dbus-* of its own
   * that would outlive a killed bus */
  g_autofree char *listen = g_strdup_printf ("--address=unix:path=%s/bus", base);
  const char *daemon_argv[] = { "dbus-daemon", "--session", "--nofork", "--print-address=1",
                                listen, NULL };
  g_auto(GStrv) envp = NULL;
  g_auto(JmemTestRun) r = { 0 };
  g_auto(JmemTestRun) c = { 0 };
  g_auto(JmemTestRun) back = { 0 };
  MockSystemd m = { 0 };
  JsonArray *services;
  guint n_names = 0;

  g_autofree char *dbus_daemon = g_find_program_in_path ("dbus-daemon");

  if (dbus_daemon == NULL)
    {
      g_test_skip ("dbus-daemon is not installed");
      return;
    }
  daemon = g_subprocess_newv (daemon_argv, G_SUBPROCESS_FLAGS_STDOUT_PIPE, &error);
  g_assert_no_error (error);
  in = g_data_input_stream_new (g_subprocess_get_stdout_pipe (daemon));
  m.address = g_data_input_stream_read_line (in, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (m.address);

  m.context = g_main_context_new ();
  m.loop = g_main_loop_new (m.context, FALSE);
  g_mutex_init (&m.lock);
  g_cond_init (&m.cond);
  m.thread = g_thread_new ("mock-systemd", mock_thread, &m);
  g_mutex_lock (&m.lock);
  while (!m.ready)
    g_cond_wait (&m.cond, &m.lock);
  g_mutex_unlock (&m.lock);

  envp = g_environ_setenv (g_get_environ (), "DBUS_SYSTEM_BUS_ADDRESS", m.address, TRUE);
  {
    const char *argv[] = { jmem_exe, "snapshot", "--json", "--top", "1", "--no-ask-password", NULL };
    run_argv (argv, (const char * const *) envp, TRUE, &r);
  }
  {
    const char *argv[] = { jmem_exe, "capture", "--no-ask-password", cap, NULL };
    run_argv (argv, (const char * const *) envp, FALSE, &c);
  }
  g_main_loop_quit (m.loop);
  g_thread_join (m.thread);
  n_names = m.n_names_asked;
  /* SIGTERM: the bus removes its socket as it exits */
  g_subprocess_send_signal (daemon, SIGTERM);
  g_subprocess_wait (daemon, NULL, NULL);

  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpuint (n_names, ==, 19);
  g_assert_false (has_warning (r.json, "services", NULL));
  services = array_at (r.json, "$.services");
  g_assert_cmpuint (json_array_get_length (services), ==, 19);
  for (guint i = 0; i < json_array_get_length (services); i++)
    {
      JsonObject *svc = json_array_get_object_element (services, i);
      const char *name = json_object_get_string_member (svc, "name");

      if (g_str_equal (name, "gdm3.service"))
        {
          g_assert_cmpstr (json_object_get_string_member (svc, "active_state"), ==, "active");
          g_assert_cmpstr (json_object_get_string_member (svc, "unit_file_state"), ==, "enabled");
        }
      else if (g_str_equal (name, "docker.service"))
        g_assert_cmpstr (json_object_get_string_member (svc, "unit_file_state"), ==, "masked");
      else
        g_assert_cmpstr (json_object_get_string_member (svc, "load_state"), ==, "not-found");
    }

  /* the capture keeps the answers; --sysroot reads them back */
  g_assert_cmpint (c.status, ==, 0);
  {
    const char *argv[] = { jmem_exe, "snapshot", "--json", "--top", "0", "--sysroot", cap, NULL };
    g_autoptr(JsonNode) a = NULL, b = NULL;
    g_autoptr(JsonGenerator) gen = json_generator_new ();
    g_autofree char *sa = NULL, *sb = NULL;

    run_argv (argv, NULL, TRUE, &back);
    g_assert_cmpint (back.status, ==, 0);
    a = path1 (r.json, "$.services");
    b = path1 (back.json, "$.services");
    json_generator_set_root (gen, a);
    sa = json_generator_to_data (gen, NULL);
    json_generator_set_root (gen, b);
    sb = json_generator_to_data (gen, NULL);
    g_assert_cmpstr (sa, ==, sb);
  }
  {
    const char *rm[] = { "rm", "-rf", base, NULL };
    g_auto(JmemTestRun) rr = { 0 };
    run_argv (rm, NULL, FALSE, &rr);
  }
  g_main_loop_unref (m.loop);
  g_main_context_unref (m.context);
  g_mutex_clear (&m.lock);
  g_cond_clear (&m.cond);
  g_free (m.address);
}

/* What the helper returns, written for a capture, parses back to the same rows. */
static void
test_render_clients (void)
{
  g_autofree char *dir = tree ("orin-agx-nvgpu");
  g_autofree char *path = g_build_filename (dir, "sys/kernel/debug/nvmap/iovmm/clients", NULL);
  g_autofree char *data = NULL;
  g_autofree char *text = NULL;
  g_autoptr(JmemNvmapClients) orig = NULL;
  g_autoptr(JmemNvmapClients) back = NULL;
  g_autoptr(GError) error = NULL;
  JmemNvmapClient *odd;
  gsize len;

  g_assert_true (g_file_get_contents (path, &data, &len, NULL));
  orig = jmem_nvmap_clients_parse (data, len, &error);
  g_assert_no_error (error);
  /* a comm with a space and a line break, as a task may name itself */
  odd = g_new0 (JmemNvmapClient, 1);
  odd->client = g_strdup ("user");
  odd->process = g_strdup ("my app\nx");
  odd->pid = 4321;
  odd->size_kib = 777;
  g_ptr_array_add (orig->clients, odd);

  text = jmem_capture_render_clients (orig);
  back = jmem_nvmap_clients_parse (text, strlen (text), &error);
  g_assert_no_error (error);
  g_assert_cmpuint (back->n_malformed, ==, 0);
  g_assert_cmpuint (back->clients->len, ==, orig->clients->len);
  g_assert_true (back->has_total);
  g_assert_cmpuint (back->total_kib, ==, orig->total_kib);
  for (guint i = 0; i < orig->clients->len; i++)
    {
      JmemNvmapClient *a = g_ptr_array_index (orig->clients, i);
      JmemNvmapClient *b = g_ptr_array_index (back->clients, i);

      g_assert_cmpuint (a->pid, ==, b->pid);
      g_assert_cmpuint (a->size_kib, ==, b->size_kib);
      g_assert_cmpstr (a->client, ==, b->client);
    }
  g_assert_cmpstr (((JmemNvmapClient *) g_ptr_array_index (back->clients, 7))->process, ==, "my app?x");
}

int
main (int argc, char **argv)
{
  int rc;

  g_test_init (&argc, &argv, NULL);
  jmem_exe = g_getenv ("JMEM_EXE");
  g_assert_nonnull (jmem_exe);

  g_test_add_func ("/snapshot/orin", test_orin);
  g_test_add_func ("/snapshot/thor", test_thor);
  g_test_add_func ("/snapshot/thor-untrusted", test_thor_untrusted);
  g_test_add_func ("/snapshot/thor-churn", test_thor_churn);
  g_test_add_func ("/snapshot/gb10-spark", test_gb10_spark);
  g_test_add_func ("/snapshot/thor-r39", test_thor_r39);
  g_test_add_func ("/snapshot/thor-churn-positions", test_thor_churn_positions);
  g_test_add_func ("/snapshot/hostile", test_hostile);
  g_test_add_func ("/snapshot/top-and-human", test_top_and_human);
  g_test_add_func ("/snapshot/top-matches-all", test_top_matches_all);
  g_test_add_func ("/snapshot/exit-between-passes", test_exit_between_passes);
  g_test_add_func ("/snapshot/exit-codes", test_exit_codes);
  g_test_add_func ("/snapshot/allocations-no-such-client", test_allocations_no_such_client);
  g_test_add_func ("/snapshot/tegrastats-range", test_tegrastats_range);
  g_test_add_func ("/snapshot/human-wording", test_human_wording);
  g_test_add_func ("/snapshot/library", test_library);
  g_test_add_func ("/snapshot/live-root", test_live_root);
  g_test_add_func ("/snapshot/pss-unknown-text", test_pss_unknown_text);
  g_test_add_func ("/snapshot/sysroot-hints", test_sysroot_hints);
  g_test_add_func ("/snapshot/live-user", test_live_user);
  g_test_add_func ("/snapshot/capture-roundtrip", test_capture_roundtrip);
  g_test_add_func ("/snapshot/services-dbus", test_services_dbus);
  g_test_add_func ("/snapshot/render-clients", test_render_clients);
  rc = g_test_run ();
  test_account_remove_created ();
  return rc;
}
