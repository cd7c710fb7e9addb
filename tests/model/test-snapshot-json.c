/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The snapshot's two outputs: JSON (exact values, null for unknown, valid
 * against docs/snapshot.schema.json) and the human view (hostile names
 * escaped, the numbers a person looks for present). */
#include <math.h>
#include <string.h>

#include <json-glib/json-glib.h>

#include "jmem-config.h"
#include "jmem-json-reader.h"
#include "jmem-json-writer.h"
#include "jmem-output-human.h"
#include "jmem-snapshot-json.h"
#include "jmem-snapshot.h"
#include "jmem-test.h"
#include "jmem-text.h"
#include "jmem-triage.h"

#define TEGRASTATS_ORIN \
  "07-25-2026 09:08:28 RAM 20642/62817MB (lfb 1x2MB) CPU [23%@2201,off,4%@2201] " \
  "EMC_FREQ 3%@3199 GR3D_FREQ 12%@[1300,1300] cpu@52.968C gpu@47.625C " \
  "VDD_GPU_SOC 5139mW/5139mW VIN_SYS_5V0 5500mW/5500mW"

#define MEMINFO \
  "MemTotal:        7620600 kB\n" \
  "MemFree:          402012 kB\n" \
  "MemAvailable:    3510200 kB\n" \
  "Cached:          2900000 kB\n" \
  "SwapTotal:       3810300 kB\n" \
  "SwapFree:        3800300 kB\n" \
  "Active(anon):     120000 kB\n" \
  "HugePages_Total:       4\n" \
  "CmaTotal:         524288 kB\n" \
  "CmaFree:          500000 kB\n" \
  "NvMapMemUsed:     123456 kB\n"

/* Names a hostile process can give itself (comm is any bytes but NUL). */
#define NAME_NEWLINE "evil\n    4242 root    9.9 GiB"
#define NAME_ESC     "x\033[2J\033[1;1Hforged"
#define NAME_QUOTES  "a\"b'c\\d"
#define NAME_FFFD    "bad\357\277\275utf8"
#define NAME_COMMAS  "python3,--flag,x"
#define NAME_INVALID "raw\377\376bytes"  /* breaks the parsers' promise on purpose */

/* ------------------------------------------------------------------ */
/* building snapshots                                                  */

static JmemProcess *
make_process (gint64      pid,
              const char *name,
              gint64      pss_kib,
              gint64      nvmap_kib,
              gint64      gpu_kib)
{
  JmemProcess *p = g_new0 (JmemProcess, 1);

  p->pid = pid;
  p->name = g_strdup (name);
  p->user = g_strdup ("nvidia");
  p->uid = 1000;
  p->state = 'S';
  p->rss_kib = 204800;
  p->pss_kib = pss_kib;
  p->swap_kib = 0;
  p->nvmap_kib = nvmap_kib;
  p->gpu_kib = gpu_kib;
  p->footprint_kib = (pss_kib >= 0 ? pss_kib : p->rss_kib) + p->swap_kib + MAX (MAX (nvmap_kib, gpu_kib), 0);
  p->cmdline = g_strdup_printf ("/usr/bin/%s --serve", name);
  return p;
}


static JmemSnapshot *
make_full_snapshot (void)
{
  JmemSnapshot *s = jmem_snapshot_new ();
  g_autoptr(GError) error = NULL;
  JmemNvsmiGpu *gpu;
  JmemNvsmiApp *app;
  JmemNvmapPidTotal *by_pid;
  JmemThermal *thermal;
  JmemDisk *disk;
  JmemService *svc;
  JmemProcess *p;

  s->hostname = g_strdup ("orin-lab");
  s->timestamp_unix = 1785000000;
  s->sysroot = g_strdup ("/captures/orin");
  s->is_jetson = TRUE;

  s->identity = g_new0 (JmemIdentity, 1);
  s->identity->model = g_strdup ("NVIDIA Jetson AGX Orin Developer Kit");
  s->identity->sku = g_strdup ("orin-agx");
  s->identity->generation = g_strdup ("orin");
  s->identity->product_line = g_strdup ("Jetson AGX Orin");
  s->identity->variant = g_strdup ("orin-agx-64gb");
  s->identity->variant_source = g_strdup ("boot-control:TNSPEC");
  s->release = g_new0 (JmemTegraRelease, 1);
  s->release->major = g_strdup ("36");
  s->release->revision = g_strdup ("4.0");
  s->release->version = g_strdup ("36.4.0");
  s->release->gcid = g_strdup ("36191598");
  s->release->board = g_strdup ("generic");
  s->release->date = g_strdup ("Mon Jul 15 22:11:57 UTC 2024");
  s->release->kernel_variant = g_strdup ("oot");
  s->mem_total_kib = 7620600;
  s->default_target = g_strdup ("graphical.target");
  s->kernel_release = g_strdup ("5.15.148-tegra");

  s->meminfo = jmem_meminfo_parse (MEMINFO, strlen (MEMINFO), &error);
  g_assert_no_error (error);

  s->gpu_stack = JMEM_GPU_STACK_NVGPU;
  s->gpu_source = g_strdup ("nvmap");
  g_ptr_array_add (s->gpu_evidence, g_strdup ("nvidia-smi: Orin (nvgpu), memory.used [N/A]"));
  gpu = g_new0 (JmemNvsmiGpu, 1);
  gpu->index = 0;
  gpu->uuid = g_strdup ("GPU-4e1f");
  gpu->name = g_strdup ("Orin (nvgpu)");
  gpu->memory_total_mib = 62817;
  gpu->memory_used_mib = -1;
  gpu->memory_free_mib = -1;
  g_ptr_array_add (s->gpus, gpu);
  app = g_new0 (JmemNvsmiApp, 1);
  app->gpu_uuid = g_strdup ("GPU-4e1f");
  app->pid = 4100;
  app->used_memory_mib = 1500;
  app->process_name = g_strdup (NAME_COMMAS);
  g_ptr_array_add (s->gpu_apps, app);
  app = g_new0 (JmemNvsmiApp, 1);
  app->gpu_uuid = g_strdup ("GPU-4e1f");
  app->pid = 4101;
  app->used_memory_mib = -1;
  app->process_name = g_strdup ("Xorg");
  g_ptr_array_add (s->gpu_apps, app);

  s->nvmap_readable = TRUE;
  s->nvmap_via = g_strdup ("helper");
  s->nvmap_clients = g_new0 (JmemNvmapClients, 1);
  s->nvmap_clients->clients = g_ptr_array_new_with_free_func ((GDestroyNotify) jmem_nvmap_client_free);
  g_ptr_array_add (s->nvmap_clients->clients, jmem_nvmap_client_new ("user", "python3", 4100, 1048576));
  g_ptr_array_add (s->nvmap_clients->clients, jmem_nvmap_client_new ("user", "python3", 4100, 2048));
  g_ptr_array_add (s->nvmap_clients->clients, jmem_nvmap_client_new ("user", NAME_NEWLINE, 4200, 300));
  g_ptr_array_add (s->nvmap_clients->clients, jmem_nvmap_client_new ("nvhost", "kernel", 0, 512));
  s->nvmap_clients->has_total = TRUE;
  s->nvmap_clients->total_kib = 1040000;  /* rows are shares: they may exceed it */
  s->nvmap_clients->n_malformed = 1;
  s->nvmap_clients->layout = JMEM_NVMAP_LAYOUT_KERNEL;
  s->nvmap_stats_total_bytes = 1064960000;
  by_pid = g_new0 (JmemNvmapPidTotal, 1);
  by_pid->pid = 4100;
  by_pid->process = g_strdup ("python3");
  by_pid->n_clients = 2;
  by_pid->size_kib = 1050624;
  by_pid->pid_exists = TRUE;
  g_ptr_array_add (s->nvmap_by_pid, by_pid);
  by_pid = g_new0 (JmemNvmapPidTotal, 1);
  by_pid->pid = 4200;
  by_pid->process = g_strdup (NAME_NEWLINE);
  by_pid->n_clients = 1;
  by_pid->size_kib = 300;
  by_pid->pid_exists = FALSE;
  g_ptr_array_add (s->nvmap_by_pid, by_pid);
  s->nvmap_unattributed_kib = -11436;

  p = make_process (4100, "python3", 150000, 1050624, 1536000);
  p->container_runtime = g_strdup ("docker");
  p->container_id = g_strdup ("0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef");
  g_ptr_array_add (s->processes, p);
  g_ptr_array_add (s->processes, make_process (4200, NAME_NEWLINE, -1, 300, -1));
  g_ptr_array_add (s->processes, make_process (4300, NAME_ESC, 1000, -1, -1));
  g_ptr_array_add (s->processes, make_process (4400, NAME_QUOTES, 900, -1, -1));
  g_ptr_array_add (s->processes, make_process (4500, NAME_FFFD, 800, -1, -1));
  s->n_processes_total = 312;
  s->n_processes_vanished = 3;

  thermal = g_new0 (JmemThermal, 1);
  thermal->zone = g_strdup ("thermal_zone0");
  thermal->type = g_strdup ("cpu-thermal");
  thermal->celsius = 52.5;
  g_ptr_array_add (s->thermal, thermal);
  thermal = g_new0 (JmemThermal, 1);
  thermal->zone = g_strdup ("thermal_zone9");
  thermal->type = g_strdup ("tj-thermal");
  thermal->celsius = NAN;
  g_ptr_array_add (s->thermal, thermal);
  s->power_mode = g_strdup ("MAXN");
  disk = g_new0 (JmemDisk, 1);
  disk->mount_point = g_strdup ("/");
  disk->device = g_strdup ("/dev/nvme0n1p1");
  disk->fs_type = g_strdup ("ext4");
  disk->size_kib = 61255492;
  disk->used_kib = 20000000;
  disk->available_kib = 38000000;
  g_ptr_array_add (s->disks, disk);
  s->services = g_ptr_array_new_with_free_func ((GDestroyNotify) jmem_service_free);
  svc = g_new0 (JmemService, 1);
  svc->name = g_strdup ("gdm3.service");
  svc->load_state = g_strdup ("loaded");
  svc->active_state = g_strdup ("active");
  svc->unit_file_state = g_strdup ("enabled");
  g_ptr_array_add (s->services, svc);
  svc = g_new0 (JmemService, 1);
  svc->name = g_strdup ("cups.service");
  svc->load_state = g_strdup ("not-found");
  svc->active_state = g_strdup ("inactive");
  g_ptr_array_add (s->services, svc);

  s->tegrastats = jmem_tegrastats_parse (TEGRASTATS_ORIN, strlen (TEGRASTATS_ORIN), &error);
  g_assert_no_error (error);

  jmem_snapshot_add_warning (s, "processes", NULL, "%u processes exited while being read", 3u);
  jmem_snapshot_add_warning (s, "nvmap", "sudo usermod -aG jmem $USER",
                             "NvMap row for %s skipped", NAME_ESC);
  return s;
}

/* ------------------------------------------------------------------ */
/* checking                                                            */

/* Serialises like the client does, asserts it is one valid UTF-8 JSON
 * document, and parses it back. */
static JsonNode *
round_trip (const JmemSnapshot *s,
            char              **text_out)
{
  g_autofree char *text = jmem_snapshot_to_json_string (s, FALSE);
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;

  g_assert_nonnull (text);
  g_assert_true (g_utf8_validate (text, -1, NULL));
  /* Compact output: any byte below 0x20 would be a raw control character. */
  for (const char *c = text; *c != '\0'; c++)
    g_assert_cmpint ((guchar) *c, >=, 0x20);
  json_parser_load_from_data (parser, text, -1, &error);
  g_assert_no_error (error);
  if (text_out != NULL)
    *text_out = g_steal_pointer (&text);
  return json_node_copy (json_parser_get_root (parser));
}

static JsonNode *
at (JsonNode   *root,
    const char *path)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) matches = json_path_query (path, root, &error);
  JsonArray *array;

  g_assert_no_error (error);
  array = json_node_get_array (matches);
  if (json_array_get_length (array) != 1)
    g_error ("%s: %u matches", path, json_array_get_length (array));
  return json_node_copy (json_array_get_element (array, 0));
}

static void
assert_null (JsonNode   *root,
             const char *path)
{
  g_autoptr(JsonNode) n = at (root, path);

  if (!JSON_NODE_HOLDS_NULL (n))
    g_error ("%s is not null", path);
}

static void
assert_int (JsonNode   *root,
            const char *path,
            gint64      expected)
{
  g_autoptr(JsonNode) n = at (root, path);

  if (json_node_get_value_type (n) != G_TYPE_INT64)
    g_error ("%s is not an integer", path);
  g_assert_cmpint (json_node_get_int (n), ==, expected);
}

static void
assert_str (JsonNode   *root,
            const char *path,
            const char *expected)
{
  g_autoptr(JsonNode) n = at (root, path);

  if (json_node_get_value_type (n) != G_TYPE_STRING)
    g_error ("%s is not a string", path);
  g_assert_cmpstr (json_node_get_string (n), ==, expected);
}

static void
assert_bool (JsonNode   *root,
             const char *path,
             gboolean    expected)
{
  g_autoptr(JsonNode) n = at (root, path);

  g_assert_true (json_node_get_value_type (n) == G_TYPE_BOOLEAN);
  g_assert_cmpint (json_node_get_boolean (n), ==, expected);
}

static guint
array_length (JsonNode   *root,
              const char *path)
{
  g_autoptr(JsonNode) n = at (root, path);

  g_assert_true (JSON_NODE_HOLDS_ARRAY (n));
  return json_array_get_length (json_node_get_array (n));
}

static gboolean
have_validator (void)
{
  g_autofree char *python = g_find_program_in_path ("python3");

  if (python == NULL)
    {
      g_test_skip ("python3 is not installed");
      return FALSE;
    }
  return TRUE;
}

/* ------------------------------------------------------------------ */
/* JSON tests                                                          */

static void
test_json_empty (void)
{
  g_autoptr(JmemSnapshot) s = jmem_snapshot_new ();
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *text = NULL;

  root = round_trip (s, &text);
  assert_str (root, "$.schema", "jmem-snapshot");
  assert_int (root, "$.schema_version", JMEM_SNAPSHOT_SCHEMA_VERSION);
  assert_str (root, "$.jmem_version", JMEM_VERSION);
  assert_null (root, "$.collected.hostname");
  assert_null (root, "$.collected.timestamp");
  assert_null (root, "$.collected.timestamp_unix");
  assert_null (root, "$.collected.sysroot");
  assert_bool (root, "$.collected.is_jetson", FALSE);
  assert_null (root, "$.identity.sku");
  assert_null (root, "$.identity.mem_total_kib");
  assert_null (root, "$.identity.l4t");
  assert_null (root, "$.identity.l4t_version");
  assert_bool (root, "$.memory.readable", FALSE);
  assert_null (root, "$.memory.summary.mem_total_kib");
  assert_null (root, "$.memory.summary.used_kib");
  assert_null (root, "$.memory.malformed_lines");
  assert_str (root, "$.gpu.stack", "none");
  assert_null (root, "$.gpu.source");
  g_assert_cmpuint (array_length (root, "$.gpu.devices"), ==, 0);
  assert_bool (root, "$.nvmap.readable", FALSE);
  assert_null (root, "$.nvmap.total_kib");
  assert_null (root, "$.nvmap.stats_total_bytes");
  assert_null (root, "$.nvmap.unattributed_kib");
  assert_null (root, "$.nvmap.layout");
  g_assert_cmpuint (array_length (root, "$.nvmap.clients"), ==, 0);
  assert_int (root, "$.processes.total", 0);
  assert_int (root, "$.processes.shown", 0);
  g_assert_cmpuint (array_length (root, "$.processes.list"), ==, 0);
  g_assert_cmpuint (array_length (root, "$.thermal"), ==, 0);
  assert_null (root, "$.power_mode");
  assert_null (root, "$.services");
  assert_null (root, "$.tegrastats");
  g_assert_cmpuint (array_length (root, "$.warnings"), ==, 0);
  assert_null (root, "$.findings");  /* triage did not run */

  if (have_validator ())
    jmem_test_assert_valid (text, "snapshot.schema.json");
}

static void
test_json_full (void)
{
  g_autoptr(JmemSnapshot) s = make_full_snapshot ();
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *text = NULL;
  const JmemTegrastats *t = s->tegrastats;

  root = round_trip (s, &text);

  assert_str (root, "$.collected.hostname", "orin-lab");
  assert_int (root, "$.collected.timestamp_unix", 1785000000);
  assert_str (root, "$.collected.timestamp", "2026-07-25T17:20:00Z");
  assert_str (root, "$.collected.sysroot", "/captures/orin");
  assert_bool (root, "$.collected.is_jetson", TRUE);

  assert_str (root, "$.identity.sku", "orin-agx");
  assert_str (root, "$.identity.generation", "orin");
  assert_str (root, "$.identity.product_line", "Jetson AGX Orin");
  assert_str (root, "$.identity.variant", "orin-agx-64gb");
  assert_str (root, "$.identity.variant_source", "boot-control:TNSPEC");
  assert_str (root, "$.identity.model", "NVIDIA Jetson AGX Orin Developer Kit");
  assert_int (root, "$.identity.mem_total_kib", 7620600);
  assert_str (root, "$.identity.l4t_version", "36.4.0");
  assert_str (root, "$.identity.l4t.major", "36");
  assert_str (root, "$.identity.l4t.revision", "4.0");
  assert_str (root, "$.identity.l4t.gcid", "36191598");
  assert_str (root, "$.identity.l4t.board", "generic");
  assert_str (root, "$.identity.l4t.date", "Mon Jul 15 22:11:57 UTC 2024");
  assert_str (root, "$.identity.l4t.kernel_variant", "oot");
  assert_str (root, "$.identity.default_target", "graphical.target");
  assert_str (root, "$.identity.kernel_release", "5.15.148-tegra");

  /* meminfo: kB lines under their kernel names, counts apart */
  assert_bool (root, "$.memory.readable", TRUE);
  assert_int (root, "$.memory.malformed_lines", 0);
  assert_int (root, "$.memory.fields_kib.MemTotal", 7620600);
  assert_int (root, "$.memory.fields_kib['Active(anon)']", 120000);
  assert_int (root, "$.memory.fields_kib.NvMapMemUsed", 123456);
  assert_int (root, "$.memory.counts.HugePages_Total", 4);
  assert_int (root, "$.memory.summary.mem_total_kib", 7620600);
  assert_int (root, "$.memory.summary.mem_available_kib", 3510200);
  assert_int (root, "$.memory.summary.used_kib", 7620600 - 3510200);
  assert_int (root, "$.memory.summary.cached_kib", 2900000);
  assert_int (root, "$.memory.summary.swap_total_kib", 3810300);
  assert_int (root, "$.memory.summary.swap_used_kib", 3810300 - 3800300);
  assert_int (root, "$.memory.summary.cma_total_kib", 524288);
  assert_int (root, "$.memory.summary.cma_free_kib", 500000);
  assert_int (root, "$.memory.summary.nvmap_mem_used_kib", 123456);

  /* nvidia-smi MiB become KiB; [N/A] (-1) becomes null, never 0 */
  assert_str (root, "$.gpu.stack", "nvgpu");
  assert_str (root, "$.gpu.source", "nvmap");
  assert_str (root, "$.gpu.evidence[0]", "nvidia-smi: Orin (nvgpu), memory.used [N/A]");
  assert_int (root, "$.gpu.devices[0].index", 0);
  assert_str (root, "$.gpu.devices[0].uuid", "GPU-4e1f");
  assert_str (root, "$.gpu.devices[0].name", "Orin (nvgpu)");
  assert_int (root, "$.gpu.devices[0].memory_total_kib", (gint64) 62817 * 1024);
  assert_null (root, "$.gpu.devices[0].memory_used_kib");
  assert_null (root, "$.gpu.devices[0].memory_free_kib");
  assert_int (root, "$.gpu.processes[0].pid", 4100);
  assert_str (root, "$.gpu.processes[0].gpu_uuid", "GPU-4e1f");
  assert_int (root, "$.gpu.processes[0].used_memory_kib", 1500 * 1024);
  assert_str (root, "$.gpu.processes[0].process_name", NAME_COMMAS);
  assert_null (root, "$.gpu.processes[1].used_memory_kib");

  assert_bool (root, "$.nvmap.readable", TRUE);
  assert_str (root, "$.nvmap.via", "helper");
  assert_null (root, "$.nvmap.error");
  assert_int (root, "$.nvmap.total_kib", 1040000);
  assert_int (root, "$.nvmap.stats_total_bytes", 1064960000);
  g_assert_cmpuint (array_length (root, "$.nvmap.clients"), ==, 4);
  assert_str (root, "$.nvmap.clients[2].process", NAME_NEWLINE);
  assert_int (root, "$.nvmap.clients[2].pid", 4200);
  assert_int (root, "$.nvmap.clients[2].size_kib", 300);
  assert_str (root, "$.nvmap.clients[3].client", "nvhost");
  assert_int (root, "$.nvmap.clients[3].pid", 0);
  assert_int (root, "$.nvmap.by_pid[0].pid", 4100);
  assert_int (root, "$.nvmap.by_pid[0].n_clients", 2);
  assert_int (root, "$.nvmap.by_pid[0].size_kib", 1050624);
  assert_bool (root, "$.nvmap.by_pid[0].pid_exists", TRUE);
  assert_bool (root, "$.nvmap.by_pid[1].pid_exists", FALSE);
  assert_int (root, "$.nvmap.unattributed_kib", -11436);  /* negative survives */
  assert_int (root, "$.nvmap.malformed_lines", 1);
  assert_str (root, "$.nvmap.layout", "kernel");

  assert_int (root, "$.processes.total", 312);
  assert_int (root, "$.processes.shown", 5);
  assert_int (root, "$.processes.vanished", 3);
  assert_int (root, "$.processes.list[0].pid", 4100);
  assert_str (root, "$.processes.list[0].name", "python3");
  assert_str (root, "$.processes.list[0].user", "nvidia");
  assert_int (root, "$.processes.list[0].uid", 1000);
  assert_str (root, "$.processes.list[0].state", "S");
  assert_int (root, "$.processes.list[0].rss_kib", 204800);
  assert_int (root, "$.processes.list[0].pss_kib", 150000);
  assert_int (root, "$.processes.list[0].swap_kib", 0);
  assert_int (root, "$.processes.list[0].nvmap_kib", 1050624);
  assert_int (root, "$.processes.list[0].gpu_kib", 1536000);
  assert_int (root, "$.processes.list[0].footprint_kib", 150000 + 1536000);
  assert_str (root, "$.processes.list[0].container.runtime", "docker");
  assert_str (root, "$.processes.list[0].container.id", s->processes->len ?
              ((JmemProcess *) s->processes->pdata[0])->container_id : NULL);
  assert_str (root, "$.processes.list[0].cmdline", "/usr/bin/python3 --serve");
  assert_null (root, "$.processes.list[1].pss_kib");   /* unreadable smaps_rollup */
  assert_null (root, "$.processes.list[1].gpu_kib");
  assert_null (root, "$.processes.list[1].container");
  assert_null (root, "$.processes.list[2].nvmap_kib");

  assert_str (root, "$.thermal[0].zone", "thermal_zone0");
  assert_str (root, "$.thermal[0].type", "cpu-thermal");
  {
    g_autoptr(JsonNode) c = at (root, "$.thermal[0].celsius");
    g_assert_cmpfloat_with_epsilon (json_node_get_double (c), 52.5, 1e-9);
  }
  assert_null (root, "$.thermal[1].celsius");
  assert_str (root, "$.power_mode", "MAXN");
  assert_str (root, "$.disks[0].mount_point", "/");
  assert_str (root, "$.disks[0].device", "/dev/nvme0n1p1");
  assert_str (root, "$.disks[0].fs_type", "ext4");
  assert_int (root, "$.disks[0].size_kib", 61255492);
  assert_int (root, "$.disks[0].used_kib", 20000000);
  assert_int (root, "$.disks[0].available_kib", 38000000);
  assert_str (root, "$.services[0].name", "gdm3.service");
  assert_str (root, "$.services[0].load_state", "loaded");
  assert_str (root, "$.services[0].active_state", "active");
  assert_str (root, "$.services[0].unit_file_state", "enabled");
  assert_null (root, "$.services[1].unit_file_state");

  /* tegrastats: whatever the parser read, MiB as KiB, "off" as null */
  g_assert_nonnull (t);
  assert_int (root, "$.tegrastats.ram_used_kib", t->ram_used_mib * 1024);
  assert_int (root, "$.tegrastats.ram_total_kib", t->ram_total_mib * 1024);
  g_assert_cmpint (t->ram_total_mib, ==, 62817);
  assert_int (root, "$.tegrastats.lfb_blocks", t->lfb_blocks);
  assert_int (root, "$.tegrastats.lfb_block_kib", t->lfb_block_kib);
  assert_int (root, "$.tegrastats.gr3d_freq_percent", t->gr3d_freq_percent);
  g_assert_cmpuint (array_length (root, "$.tegrastats.cpu_percent"), ==, t->cpu_percent->len);
  g_assert_cmpuint (t->cpu_percent->len, ==, 3);
  assert_null (root, "$.tegrastats.cpu_percent[1]");
  assert_int (root, "$.tegrastats.cpu_percent[0]", 23);
  g_assert_cmpuint (array_length (root, "$.tegrastats.rails"), ==, t->rails->len);
  g_assert_cmpuint (array_length (root, "$.tegrastats.temps"), ==, t->temps->len);

  g_assert_cmpuint (array_length (root, "$.warnings"), ==, 2);
  assert_str (root, "$.warnings[0].source", "processes");
  assert_str (root, "$.warnings[0].message", "3 processes exited while being read");
  assert_null (root, "$.warnings[0].action");
  assert_str (root, "$.warnings[1].action", "sudo usermod -aG jmem $USER");
  assert_null (root, "$.findings");

  if (have_validator ())
    jmem_test_assert_valid (text, "snapshot.schema.json");
}

/* With triage run, its findings are part of the document and of the schema. */
static void
test_json_findings (void)
{
  g_autoptr(JmemSnapshot) s = make_full_snapshot ();
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *text = NULL;

  /* A hot sensor the thermal rule cannot miss. */
  ((JmemThermal *) g_ptr_array_index (s->thermal, 0))->celsius = 97.0;
  s->findings = jmem_triage_run (s);
  g_assert_nonnull (s->findings);
  g_assert_cmpuint (s->findings->len, >, 0);

  root = round_trip (s, &text);
  g_assert_cmpuint (array_length (root, "$.findings"), ==, s->findings->len);
  assert_str (root, "$.findings[0].id", ((JmemFinding *) g_ptr_array_index (s->findings, 0))->id);

  if (have_validator ())
    jmem_test_assert_valid (text, "snapshot.schema.json");
}

/* --json and a pretty-printed dump are the same document. */
static void
test_json_pretty_same_document (void)
{
  g_autoptr(JmemSnapshot) s = make_full_snapshot ();
  g_autofree char *compact = jmem_snapshot_to_json_string (s, FALSE);
  g_autofree char *pretty = jmem_snapshot_to_json_string (s, TRUE);
  g_autoptr(JsonParser) a = json_parser_new ();
  g_autoptr(JsonParser) b = json_parser_new ();

  g_assert_true (json_parser_load_from_data (a, compact, -1, NULL));
  g_assert_true (json_parser_load_from_data (b, pretty, -1, NULL));
  g_assert_true (strchr (pretty, '\n') != NULL);
  g_assert_true (json_node_equal (json_parser_get_root (a), json_parser_get_root (b)));
}

/* The text is JsonGenerator's for the same tree, byte for byte, compact and
 * pretty: scripts that read jmem's output see no change of format. */
static void
test_json_generator_format (void)
{
  g_autoptr(JmemSnapshot) full = make_full_snapshot ();
  g_autoptr(JmemSnapshot) empty = jmem_snapshot_new ();
  JmemSnapshot *snapshots[] = { full, empty };

  for (guint i = 0; i < G_N_ELEMENTS (snapshots); i++)
    for (int pretty = 0; pretty <= 1; pretty++)
      {
        g_autofree char *text = jmem_snapshot_to_json_string (snapshots[i], pretty);
        g_autoptr(JsonNode) root = json_from_string (text, NULL);
        g_autoptr(JsonGenerator) gen = json_generator_new ();
        g_autofree char *expected = NULL;

        g_assert_nonnull (root);
        json_generator_set_root (gen, root);
        json_generator_set_pretty (gen, pretty);
        json_generator_set_indent (gen, 2);
        expected = json_generator_to_data (gen, NULL);
        g_assert_cmpstr (text, ==, expected);
      }
}

/* Every control character is escaped, U+001F too (which json-glib 1.6
 * leaves raw, and strict readers such as Python's json refuse). */
static void
test_json_control_characters (void)
{
  g_autoptr(JmemSnapshot) s = jmem_snapshot_new ();
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *text = NULL;
  char name[40];
  guint n = 0;

  for (int c = 1; c < 0x20; c++)
    name[n++] = (char) c;
  name[n++] = 0x7f;
  name[n] = '\0';
  g_ptr_array_add (s->processes, make_process (100, name, 10, -1, -1));
  s->n_processes_total = 1;

  root = round_trip (s, &text);
  assert_str (root, "$.processes.list[0].name", name);
  for (const char *c = text; *c != '\0'; c++)
    g_assert_true ((guchar) *c >= 0x20 && *c != 0x7f);
  g_assert_nonnull (strstr (text, "\\u001f"));
}

/* Whatever bytes a caller passes (a string, a member name, a tree from
 * elsewhere), the writer's document is valid UTF-8, read back by the
 * strict reader; the bad bytes become U+FFFD. */
static void
test_json_writer_invalid_utf8 (void)
{
  g_autoptr(JmemJsonWriter) w = jmem_json_writer_new (FALSE);
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_VALUE);
  g_autoptr(JsonNode) back = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;

  /* json-glib makes these bytes of "\ud800" */
  json_node_set_string (node, "x\xed\xa0\x80y");
  jmem_json_writer_begin_object (w);
  jmem_json_writer_set_member_name (w, "name\xff");
  jmem_json_writer_add_string_value (w, "a\xc3(b");
  jmem_json_writer_set_member_name (w, "node");
  jmem_json_writer_add_node (w, node);
  jmem_json_writer_end_object (w);
  text = jmem_json_writer_free_to_string (g_steal_pointer (&w));

  g_assert_true (g_utf8_validate (text, -1, NULL));
  back = jmem_json_read (text, strlen (text), 1 << 20, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (json_object_get_string_member (json_node_get_object (back), "name\xef\xbf\xbd"),
                   ==, "a\xef\xbf\xbd(b");
  g_assert_cmpstr (json_object_get_string_member (json_node_get_object (back), "node"),
                   ==, "x\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbdy");
}

static void
test_json_hostile_strings (void)
{
  g_autoptr(JmemSnapshot) s = jmem_snapshot_new ();
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *text = NULL;
  const char *names[] = { NAME_NEWLINE, NAME_ESC, NAME_QUOTES, NAME_FFFD, NAME_COMMAS };
  g_autoptr(JsonNode) bad = NULL;
  const char *bad_str;

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    g_ptr_array_add (s->processes, make_process (100 + i, names[i], 10, -1, -1));
  g_ptr_array_add (s->processes, make_process (200, NAME_INVALID, 10, -1, -1));
  s->n_processes_total = s->processes->len;
  s->hostname = g_strdup (NAME_INVALID);

  root = round_trip (s, &text);
  /* Valid names come back byte for byte, each at its own PID. */
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *name_path = g_strdup_printf ("$.processes.list[%u].name", i);
      g_autofree char *pid_path = g_strdup_printf ("$.processes.list[%u].pid", i);

      assert_str (root, name_path, names[i]);
      assert_int (root, pid_path, 100 + i);
    }
  /* Invalid bytes become U+FFFD rather than invalid output. */
  bad = at (root, "$.processes.list[5].name");
  bad_str = json_node_get_string (bad);
  g_assert_true (g_str_has_prefix (bad_str, "raw"));
  g_assert_true (g_str_has_suffix (bad_str, "bytes"));
  g_assert_nonnull (strstr (bad_str, "\357\277\275"));
  assert_int (root, "$.processes.list[5].pid", 200);
  {
    g_autoptr(JsonNode) host = at (root, "$.collected.hostname");
    g_assert_true (g_str_has_prefix (json_node_get_string (host), "raw\357\277\275"));
  }
  /* The newline in a name never reaches the document as a raw line break. */
  g_assert_null (strstr (text, "\n"));

  if (have_validator ())
    jmem_test_assert_valid (text, "snapshot.schema.json");
}

/* cmdline stops at 4096 bytes on a character boundary and says so; other
 * strings stop at 4096 bytes with a "…". */
static void
test_json_caps (void)
{
  g_autoptr(JmemSnapshot) s = jmem_snapshot_new ();
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(JsonNode) whole = NULL;
  g_autoptr(JsonNode) cut = NULL;
  g_autoptr(JsonNode) host = NULL;
  g_autofree char *text = NULL;
  JmemProcess *p;

  /* exactly at the cap: whole */
  p = make_process (100, "exact", 10, -1, -1);
  g_free (p->cmdline);
  p->cmdline = g_strnfill (JMEM_TEXT_MAX_CMDLINE_BYTES, 'x');
  g_ptr_array_add (s->processes, p);
  /* one "€" (3 bytes) across the cap: it goes whole */
  p = make_process (101, "over", 10, -1, -1);
  g_free (p->cmdline);
  {
    g_autofree char *head = g_strnfill (JMEM_TEXT_MAX_CMDLINE_BYTES - 1, 'y');
    p->cmdline = g_strconcat (head, "\xe2\x82\xac", "tail", NULL);
  }
  g_ptr_array_add (s->processes, p);
  s->n_processes_total = s->processes->len;
  s->hostname = g_strnfill (100000, 'h');

  root = round_trip (s, &text);
  assert_bool (root, "$.processes.list[0].cmdline_truncated", FALSE);
  whole = at (root, "$.processes.list[0].cmdline");
  g_assert_cmpuint (strlen (json_node_get_string (whole)), ==, JMEM_TEXT_MAX_CMDLINE_BYTES);
  cut = at (root, "$.processes.list[1].cmdline");
  g_assert_cmpuint (strlen (json_node_get_string (cut)), ==, JMEM_TEXT_MAX_CMDLINE_BYTES - 1);
  assert_bool (root, "$.processes.list[1].cmdline_truncated", TRUE);
  host = at (root, "$.collected.hostname");
  g_assert_cmpuint (strlen (json_node_get_string (host)), ==, JMEM_TEXT_MAX_FIELD_BYTES + strlen ("…"));
  g_assert_true (g_str_has_suffix (json_node_get_string (host), "h…"));

  if (have_validator ())
    jmem_test_assert_valid (text, "snapshot.schema.json");
}

/* Values the model cannot hold as JSON integers, and odd states. */
static void
test_json_huge_values (void)
{
  g_autoptr(JmemSnapshot) s = jmem_snapshot_new ();
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *text = NULL;
  JmemNvsmiGpu *gpu = g_new0 (JmemNvsmiGpu, 1);
  JmemDisk *disk = g_new0 (JmemDisk, 1);
  JmemProcess *p = make_process (1, "init", 5, -1, -1);

  gpu->index = 0;
  gpu->name = g_strdup ("NVIDIA Thor");
  gpu->memory_total_mib = G_MAXINT64 / 512;  /* *1024 overflows */
  gpu->memory_used_mib = 0;
  gpu->memory_free_mib = -1;
  g_ptr_array_add (s->gpus, gpu);
  s->gpu_stack = JMEM_GPU_STACK_UNIFIED;
  disk->mount_point = g_strdup ("/");
  disk->size_kib = G_MAXUINT64;
  disk->used_kib = (guint64) G_MAXINT64;
  g_ptr_array_add (s->disks, disk);
  p->state = '\n';
  g_ptr_array_add (s->processes, p);
  s->nvmap_clients = g_new0 (JmemNvmapClients, 1);
  s->nvmap_clients->clients = g_ptr_array_new_with_free_func ((GDestroyNotify) jmem_nvmap_client_free);
  g_ptr_array_add (s->nvmap_clients->clients, jmem_nvmap_client_new ("user", "x", G_MAXUINT32, G_MAXUINT64));
  s->nvmap_clients->has_total = FALSE;

  root = round_trip (s, &text);
  assert_str (root, "$.gpu.stack", "unified");
  assert_null (root, "$.gpu.devices[0].memory_total_kib");
  assert_int (root, "$.gpu.devices[0].memory_used_kib", 0);  /* 0 stays 0 */
  assert_null (root, "$.disks[0].size_kib");
  assert_int (root, "$.disks[0].used_kib", G_MAXINT64);
  assert_null (root, "$.processes.list[0].state");
  assert_int (root, "$.nvmap.clients[0].pid", G_MAXUINT32);
  assert_null (root, "$.nvmap.clients[0].size_kib");
  assert_null (root, "$.nvmap.total_kib");
  assert_int (root, "$.processes.total", 1);  /* never fewer than shown */

  if (have_validator ())
    jmem_test_assert_valid (text, "snapshot.schema.json");
}

/* The schema is strict: a document off the contract fails. */
static void
test_schema_rejects (void)
{
  g_autoptr(JmemSnapshot) s = make_full_snapshot ();
  g_autoptr(JsonNode) root = NULL;
  JsonObject *proc;
  g_autofree char *bad = NULL;

  if (!have_validator ())
    return;
  root = jmem_snapshot_to_json (s);
  proc = json_array_get_object_element (
      json_object_get_array_member (json_object_get_object_member (json_node_get_object (root), "processes"), "list"), 0);

  /* -1 is the model's unknown; it must never leak into the output. */
  json_object_set_int_member (proc, "pss_kib", -1);
  bad = json_to_string (root, FALSE);
  g_assert_cmpint (jmem_test_validate (bad, "snapshot.schema.json", NULL), ==, 1);

  json_object_set_null_member (proc, "pss_kib");
  json_object_set_string_member (proc, "surprise", "x");
  g_clear_pointer (&bad, g_free);
  bad = json_to_string (root, FALSE);
  g_assert_cmpint (jmem_test_validate (bad, "snapshot.schema.json", NULL), ==, 1);

  json_object_remove_member (proc, "surprise");
  json_object_remove_member (proc, "footprint_kib");
  g_clear_pointer (&bad, g_free);
  bad = json_to_string (root, FALSE);
  g_assert_cmpint (jmem_test_validate (bad, "snapshot.schema.json", NULL), ==, 1);
}

/* ------------------------------------------------------------------ */
/* human view                                                          */

static char *
render (const JmemSnapshot *s,
        gboolean            color,
        guint               width)
{
  g_autoptr(GString) out = g_string_new (NULL);

  jmem_output_human_snapshot_width (s, out, color, width);
  g_assert_true (g_utf8_validate (out->str, -1, NULL));
  return g_string_free (g_steal_pointer (&out), FALSE);
}

/* An AGX Orin whose MemTotal fits no module: the header says the variant
 * is unknown and why, rather than naming none silently. */
static void
test_human_variant_unknown (void)
{
  g_autoptr(JmemSnapshot) s = make_full_snapshot ();
  g_autofree char *text = NULL;

  g_clear_pointer (&s->identity->variant, g_free);
  g_clear_pointer (&s->identity->variant_source, g_free);
  s->mem_total_kib = 7620600;
  text = render (s, FALSE, 120);
  g_assert_nonnull (strstr (text, "variant unknown (MemTotal 7.3 GiB fits no known module)"));
  g_assert_null (strstr (text, "orin-agx-"));
}

static void
test_human_full (void)
{
  g_autoptr(JmemSnapshot) s = make_full_snapshot ();
  g_autofree char *text = render (s, FALSE, 120);
  g_auto(GStrv) lines = g_strsplit (text, "\n", -1);

  g_test_message ("%s", text);
  /* header */
  g_assert_nonnull (strstr (text, "NVIDIA Jetson AGX Orin Developer Kit"));
  g_assert_nonnull (strstr (text, "orin-lab"));
  g_assert_nonnull (strstr (text, "orin-agx-64gb"));
  g_assert_nonnull (strstr (text, "36.4.0"));
  /* memory summary: 7620600 KiB = 7.3 GiB, used 4110400 KiB = 3.9 GiB */
  g_assert_nonnull (strstr (text, "MemTotal 7.3 GiB"));
  g_assert_nonnull (strstr (text, "MemAvailable 3.3 GiB"));
  g_assert_nonnull (strstr (text, "used 3.9 GiB"));
  g_assert_nonnull (strstr (text, "swap used 9.8 MiB"));
  g_assert_nonnull (strstr (text, "NvMap 1015.6 MiB"));   /* the total line, not NvMapMemUsed */
  /* GPU source and its evidence */
  g_assert_nonnull (strstr (text, "source nvmap"));
  g_assert_nonnull (strstr (text, "evidence: nvidia-smi: Orin (nvgpu)"));
  /* NvMap: the unattributed part keeps its sign */
  g_assert_nonnull (strstr (text, "unattributed (total minus rows): -11.2 MiB"));
  /* processes: unreadable PSS shows "-", the container's short id */
  g_assert_nonnull (strstr (text, " 0123456789ab "));
  g_assert_nonnull (strstr (text, "of 312"));
  g_assert_nonnull (strstr (text, "MAXN"));
  g_assert_nonnull (strstr (text, "gdm3.service"));
  g_assert_null (strstr (text, "cups.service"));  /* inactive services stay out */
  /* a sudo step is marked as the JSON's admin marks it */
  g_assert_nonnull (strstr (text, "→ (as administrator) sudo usermod -aG jmem $USER"));

  /* No colour unless asked: not one ESC byte, the hostile one included. */
  g_assert_null (strchr (text, '\033'));
  g_assert_nonnull (strstr (text, "x\\x1b[2J\\x1b[1;1Hforged"));
  /* The newline in a name is shown as \n and forges no row of its own. */
  g_assert_nonnull (strstr (text, "evil\\n"));
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_autofree char *stripped = g_strstrip (g_strdup (lines[i]));

      g_assert_false (g_str_has_prefix (stripped, "4242 root"));
      g_assert_cmpuint (g_utf8_strlen (lines[i], -1), <=, 120);
    }
}

static void
test_human_process_row (void)
{
  g_autoptr(JmemSnapshot) s = make_full_snapshot ();
  g_autofree char *text = render (s, FALSE, 100);
  g_auto(GStrv) lines = g_strsplit (text, "\n", -1);
  guint n_rows = 0;
  gboolean in_table = FALSE;

  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_autofree char *stripped = g_strstrip (g_strdup (lines[i]));

      g_assert_cmpuint (g_utf8_strlen (lines[i], -1), <=, 100);
      if (g_str_has_prefix (stripped, "Processes by footprint"))
        in_table = TRUE;
      else if (*stripped == '\0')
        in_table = FALSE;
      if (!in_table)
        continue;
      if (g_str_has_prefix (stripped, "4200 "))
        {
          /* PSS unreadable: "-", not 0; the NvMap share in GPU/NVMAP */
          g_assert_nonnull (strstr (stripped, "200.0 MiB         - "));
          g_assert_nonnull (strstr (stripped, "300 KiB"));
          n_rows++;
        }
      if (g_str_has_prefix (stripped, "4100 "))
        {
          g_assert_nonnull (strstr (stripped, "146.5 MiB"));  /* PSS */
          g_assert_nonnull (strstr (stripped, "1.5 GiB"));    /* max(gpu, nvmap) */
          n_rows++;
        }
    }
  g_assert_cmpuint (n_rows, ==, 2);
}

static void
test_human_color (void)
{
  g_autoptr(JmemSnapshot) s = make_full_snapshot ();
  g_autofree char *text = render (s, TRUE, 120);

  g_assert_nonnull (strstr (text, "\033[1mMemory\033[0m"));
  /* colour codes are ours only: the hostile ESC is still escaped */
  g_assert_null (strstr (text, "\033[2J"));
}

static void
test_human_empty (void)
{
  g_autoptr(JmemSnapshot) s = jmem_snapshot_new ();
  g_autofree char *text = render (s, FALSE, 80);

  g_assert_nonnull (strstr (text, "not a Jetson"));
  g_assert_nonnull (strstr (text, "/proc/meminfo was not readable"));
  g_assert_nonnull (strstr (text, "NvMap"));
  g_assert_nonnull (strstr (text, "systemd was not reachable"));
}

/* A huge size keeps its column; an unknown user shows "-". */
static void
test_human_huge_values (void)
{
  g_autoptr(JmemSnapshot) s = jmem_snapshot_new ();
  JmemProcess *p = make_process (77, "huge", -1, -1, -1);
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;
  gboolean found = FALSE;

  p->rss_kib = G_MAXINT64;
  p->uid = -1;
  g_clear_pointer (&p->user, g_free);
  g_ptr_array_add (s->processes, p);
  text = render (s, FALSE, 80);
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_autofree char *stripped = g_strstrip (g_strdup (lines[i]));

      g_assert_cmpuint (g_utf8_strlen (lines[i], -1), <=, 80);
      if (g_str_has_prefix (stripped, "77 "))
        {
          /* PID, user "-", then RSS whole */
          g_assert_true (g_str_has_prefix (stripped, "77 -"));
          g_assert_nonnull (strstr (stripped, " 8.0 ZiB "));
          found = TRUE;
        }
    }
  g_assert_true (found);
}

/* Blanks left out: what a wrapped text says whatever its line breaks. */
static char *
without_blanks (const char *text)
{
  GString *out = g_string_new (NULL);

  for (const char *p = text; *p != '\0'; p++)
    if (*p != ' ')
      g_string_append_c (out, *p);
  return g_string_free (out, FALSE);
}

/* A warning longer than the line wraps at the width, further lines indented,
 * nothing lost: a word wider than the line (a path) is broken, wide
 * characters count two columns; a pipe (width 0) keeps it on one line. */
static void
test_human_wrap (void)
{
  g_autoptr(JmemSnapshot) s = jmem_snapshot_new ();
  g_autofree char *path = g_strnfill (90, 'p');
  g_autofree char *want = NULL;
  g_autofree char *narrow = NULL;
  g_autofree char *whole = NULL;
  g_autofree char *got = NULL;
  g_autofree char *expected = NULL;
  g_auto(GStrv) lines = NULL;
  g_autoptr(GString) joined = g_string_new (NULL);
  guint n_lines = 0;
  gboolean inside = FALSE;

  jmem_snapshot_add_warning (s, "sysroot", NULL,
                             "cannot read /%s: 显存不足显存不足显存不足显存不足 and more words", path);
  want = g_strdup_printf ("sysroot: cannot read /%s: 显存不足显存不足显存不足显存不足 and more words",
                          path);
  narrow = render (s, FALSE, 60);
  lines = g_strsplit (narrow, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_assert_cmpuint (jmem_text_width (lines[i]), <=, 60);
      if (g_str_equal (lines[i], "Warnings"))
        inside = TRUE;
      else if (inside && lines[i][0] != '\0')
        {
          /* the first line at 2 blanks, the further ones at 4 */
          g_assert_true (g_str_has_prefix (lines[i], n_lines == 0 ? "  sysroot" : "    "));
          g_string_append (joined, lines[i]);
          n_lines++;
        }
      else
        inside = FALSE;
    }
  g_assert_cmpuint (n_lines, >=, 3);
  got = without_blanks (joined->str);
  expected = without_blanks (want);
  g_assert_cmpstr (got, ==, expected);

  whole = render (s, FALSE, 0);
  g_assert_nonnull (strstr (whole, want));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/snapshot-json/empty", test_json_empty);
  g_test_add_func ("/snapshot-json/full", test_json_full);
  g_test_add_func ("/snapshot-json/findings", test_json_findings);
  g_test_add_func ("/snapshot-json/pretty", test_json_pretty_same_document);
  g_test_add_func ("/snapshot-json/generator-format", test_json_generator_format);
  g_test_add_func ("/snapshot-json/control-characters", test_json_control_characters);
  g_test_add_func ("/snapshot-json/hostile-strings", test_json_hostile_strings);
  g_test_add_func ("/json-writer/invalid-utf8", test_json_writer_invalid_utf8);
  g_test_add_func ("/snapshot-json/huge-values", test_json_huge_values);
  g_test_add_func ("/snapshot-json/caps", test_json_caps);
  g_test_add_func ("/snapshot-json/schema-rejects", test_schema_rejects);
  g_test_add_func ("/output-human/full", test_human_full);
  g_test_add_func ("/output-human/process-row", test_human_process_row);
  g_test_add_func ("/output-human/color", test_human_color);
  g_test_add_func ("/output-human/empty", test_human_empty);
  g_test_add_func ("/output-human/variant-unknown", test_human_variant_unknown);
  g_test_add_func ("/output-human/huge-values", test_human_huge_values);
  g_test_add_func ("/output-human/wrap", test_human_wrap);

  return g_test_run ();
}
