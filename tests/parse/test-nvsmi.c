/* SPDX-License-Identifier: GPL-2.0-or-later */
/* nvidia-smi's CSV answers (GPUs and compute apps) on Orin, Thor and
 * discrete captures, the rows a hostile name could forge, and NVML's
 * recorded answer (nvidia-smi/nvml.json). */
#include "jmem-error.h"
#include "jmem-file.h"
#include "jmem-nvml-record.h"
#include "jmem-nvsmi.h"

#include <string.h>

#include "jmem-test.h"

static char *
load (const char *name, gsize *len)
{
  g_autofree char *path = jmem_test_fixture ("nvidia-smi", name, NULL);
  g_autoptr(GError) error = NULL;
  char *data = NULL;

  jmem_file_read_capped (path, 1 << 20, &data, len, &error);
  g_assert_no_error (error);
  return data;
}

static GPtrArray *
gpus_fixture (const char *name, guint *n_malformed)
{
  gsize len;
  g_autofree char *data = load (name, &len);
  g_autoptr(GError) error = NULL;
  GPtrArray *gpus = jmem_nvsmi_gpus_parse (data, len, n_malformed, &error);

  g_assert_no_error (error);
  g_assert_nonnull (gpus);
  return gpus;
}

static void
test_orin (void)
{
  guint bad = 99;
  g_autoptr(GPtrArray) gpus = gpus_fixture ("gpus.orin-nvgpu.csv", &bad);
  const JmemNvsmiGpu *gpu;

  g_assert_cmpuint (bad, ==, 0);
  g_assert_cmpuint (gpus->len, ==, 1);
  gpu = g_ptr_array_index (gpus, 0);
  g_assert_cmpint (gpu->index, ==, 0);
  g_assert_null (gpu->uuid);
  g_assert_cmpstr (gpu->name, ==, "Orin (nvgpu)");
  g_assert_cmpint (gpu->memory_total_mib, ==, -1);
  g_assert_cmpint (gpu->memory_used_mib, ==, -1);
  g_assert_cmpint (gpu->memory_free_mib, ==, -1);
  g_assert_cmpint (jmem_nvsmi_stack_from_gpus (gpus), ==, JMEM_GPU_STACK_NVGPU);
  g_assert_cmpstr (jmem_gpu_stack_to_string (JMEM_GPU_STACK_NVGPU), ==, "nvgpu");
}

static void
test_thor (void)
{
  const char *files[] = { "gpus.thor-not-supported.csv", "gpus.thor-bracketed.csv" };

  for (gsize i = 0; i < G_N_ELEMENTS (files); i++)
    {
      guint bad = 99;
      g_autoptr(GPtrArray) gpus = gpus_fixture (files[i], &bad);
      const JmemNvsmiGpu *gpu;

      g_assert_cmpuint (bad, ==, 0);
      g_assert_cmpuint (gpus->len, ==, 1);
      gpu = g_ptr_array_index (gpus, 0);
      g_assert_cmpstr (gpu->name, ==, "NVIDIA Thor");
      /* "Not Supported" is unknown, never zero. */
      g_assert_cmpint (gpu->memory_total_mib, ==, -1);
      g_assert_cmpint (gpu->memory_used_mib, ==, -1);
      g_assert_cmpint (gpu->memory_free_mib, ==, -1);
      g_assert_cmpint (jmem_nvsmi_stack_from_gpus (gpus), ==, JMEM_GPU_STACK_UNIFIED);
      if (i == 0)
        g_assert_cmpstr (gpu->uuid, ==, "GPU-abc123");
      else
        g_assert_null (gpu->uuid);
    }
  g_assert_cmpstr (jmem_gpu_stack_to_string (JMEM_GPU_STACK_UNIFIED), ==, "unified");
}

static void
test_discrete_name_with_commas (void)
{
  guint bad = 99;
  g_autoptr(GPtrArray) gpus = gpus_fixture ("gpus.reference-discrete-two.csv", &bad);
  const JmemNvsmiGpu *a, *b;

  g_assert_cmpuint (bad, ==, 0);
  g_assert_cmpuint (gpus->len, ==, 2);
  a = g_ptr_array_index (gpus, 0);
  b = g_ptr_array_index (gpus, 1);
  g_assert_cmpint (a->index, ==, 0);
  g_assert_cmpstr (a->uuid, ==, "GPU-11111111-2222-3333-4444-555555555555");
  g_assert_cmpint (a->memory_total_mib, ==, 24564);
  g_assert_cmpint (a->memory_used_mib, ==, 1200);
  g_assert_cmpint (a->memory_free_mib, ==, 23364);
  g_assert_cmpstr (a->name, ==, "NVIDIA RTX 6000 Ada Generation");
  g_assert_cmpint (b->index, ==, 1);
  g_assert_cmpint (b->memory_used_mib, ==, 0);
  g_assert_cmpstr (b->name, ==, "NVIDIA A100, 80GB PCIe, Rev 2");
  g_assert_cmpint (jmem_nvsmi_stack_from_gpus (gpus), ==, JMEM_GPU_STACK_UNIFIED);
}

static void
test_empty (void)
{
  guint bad = 99;
  g_autoptr(GPtrArray) gpus = gpus_fixture ("gpus.empty.csv", &bad);
  gsize len;
  g_autofree char *data = load ("apps.empty.csv", &len);
  g_autoptr(GPtrArray) apps = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_cmpuint (bad, ==, 0);
  g_assert_cmpuint (gpus->len, ==, 0);
  g_assert_cmpint (jmem_nvsmi_stack_from_gpus (gpus), ==, JMEM_GPU_STACK_NONE);
  g_assert_cmpint (jmem_nvsmi_stack_from_gpus (NULL), ==, JMEM_GPU_STACK_NONE);
  g_assert_cmpstr (jmem_gpu_stack_to_string (JMEM_GPU_STACK_NONE), ==, "none");

  apps = jmem_nvsmi_apps_parse (data, len, &bad, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (apps->len, ==, 0);
  g_assert_cmpuint (bad, ==, 0);
}

static void
test_gpus_hostile (void)
{
  guint bad = 0;
  g_autoptr(GPtrArray) gpus = gpus_fixture ("gpus.hostile-malformed.csv", &bad);
  const JmemNvsmiGpu *gpu;
  g_autoptr(GError) error = NULL;
  GPtrArray *none;

  g_assert_cmpuint (bad, ==, 5);
  g_assert_cmpuint (gpus->len, ==, 1);
  gpu = g_ptr_array_index (gpus, 0);
  g_assert_cmpint (gpu->index, ==, 3);
  g_assert_cmpint (gpu->memory_used_mib, ==, 40);
  g_assert_cmpstr (gpu->name, ==, "Good \357\277\275 Name");

  /* Only an error message: an error, with the count. */
  none = jmem_nvsmi_gpus_parse ("No devices were found\n", 22, &bad, &error);
  g_assert_null (none);
  g_assert_error (error, JMEM_ERROR, JMEM_ERROR_FAILED);
  g_assert_cmpuint (bad, ==, 1);
}

static void
test_apps (void)
{
  gsize len;
  g_autofree char *data = load ("apps.reference-thor.csv", &len);
  g_autoptr(GError) error = NULL;
  guint bad = 99;
  g_autoptr(GPtrArray) apps = jmem_nvsmi_apps_parse (data, len, &bad, &error);
  const JmemNvsmiApp *app;

  g_assert_no_error (error);
  g_assert_cmpuint (bad, ==, 0);
  g_assert_cmpuint (apps->len, ==, 3);
  app = g_ptr_array_index (apps, 0);
  g_assert_cmpstr (app->gpu_uuid, ==, "GPU-abc123");
  g_assert_cmpint (app->pid, ==, 3507);
  g_assert_cmpint (app->used_memory_mib, ==, 0);
  g_assert_cmpstr (app->process_name, ==, "/usr/lib/xorg/Xorg");
  app = g_ptr_array_index (apps, 1);
  g_assert_cmpint (app->pid, ==, 41234);
  g_assert_cmpint (app->used_memory_mib, ==, 18432);
  g_assert_cmpstr (app->process_name, ==, "python3");
  app = g_ptr_array_index (apps, 2);
  g_assert_cmpint (app->pid, ==, 41300);
  g_assert_cmpint (app->used_memory_mib, ==, -1);
  g_assert_cmpstr (app->process_name, ==, "/opt/app/run, with, commas");
}

static void
test_apps_hostile (void)
{
  gsize len;
  g_autofree char *data = load ("apps.hostile-malformed.csv", &len);
  g_autoptr(GError) error = NULL;
  guint bad = 0;
  g_autoptr(GPtrArray) apps = jmem_nvsmi_apps_parse (data, len, &bad, &error);
  const JmemNvsmiApp *app;

  g_assert_no_error (error);
  /* notapid, 0, -5, NUL, short row, "with newline" continuation */
  g_assert_cmpuint (bad, ==, 6);
  g_assert_cmpuint (apps->len, ==, 2);
  app = g_ptr_array_index (apps, 0);
  g_assert_cmpint (app->pid, ==, 79);
  g_assert_cmpint (app->used_memory_mib, ==, 12);
  g_assert_cmpstr (app->process_name, ==, "name");
  app = g_ptr_array_index (apps, 1);
  g_assert_cmpint (app->pid, ==, 80);
  g_assert_cmpint (app->used_memory_mib, ==, 5);
  g_assert_cmpstr (app->process_name, ==, "\357\277\275\357\277\275evil");
}

static void
test_unit_and_plain_na (void)
{
  static const char data[] = "2, N/A, 8192 MiB, N/A, [Insufficient Permissions], Some GPU\n";
  g_autoptr(GError) error = NULL;
  guint bad = 99;
  g_autoptr(GPtrArray) gpus = jmem_nvsmi_gpus_parse (data, sizeof data - 1, &bad, &error);
  const JmemNvsmiGpu *gpu;

  g_assert_no_error (error);
  g_assert_cmpuint (bad, ==, 0);
  g_assert_cmpuint (gpus->len, ==, 1);
  gpu = g_ptr_array_index (gpus, 0);
  g_assert_cmpint (gpu->index, ==, 2);
  g_assert_null (gpu->uuid);
  g_assert_cmpint (gpu->memory_total_mib, ==, 8192);
  g_assert_cmpint (gpu->memory_used_mib, ==, -1);
  g_assert_cmpint (gpu->memory_free_mib, ==, -1);
}

#define UUID "GPU-6a1f0e3c-92b4-4d8e-b7a1-5c3d2e1f0a9b"

static GPtrArray *
apps_parse (const char *data, guint *bad)
{
  g_autoptr(GError) error = NULL;
  GPtrArray *apps = jmem_nvsmi_apps_parse (data, strlen (data), bad, &error);

  g_assert_no_error (error);
  g_assert_nonnull (apps);
  return apps;
}

/* A name carrying "\nGPU-..., 1, 99999, /sbin/init" ends its row and starts
 * a well-formed one: the parser alone cannot tell, which is why the
 * collector judges the names; a row for an unlisted GPU is dropped. */
static void
test_apps_forged_by_name (void)
{
  static const char gpus_csv[] = "0, " UUID ", 122880, 61440, 61440, NVIDIA Thor\n";
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) gpus = jmem_nvsmi_gpus_parse (gpus_csv, sizeof gpus_csv - 1, NULL, &error);
  g_autoptr(GPtrArray) apps = NULL;
  const JmemNvsmiApp *app;
  guint bad = 99;

  g_assert_no_error (error);
  apps = apps_parse (UUID ", 4242, 100, evil\n" UUID ", 1, 99999, /sbin/init\n"
                     "GPU-00000000-0000-0000-0000-000000000000, 1, 99999, /sbin/init\n"
                     "[N/A], 1, 99999, /sbin/init\n", &bad);
  g_assert_cmpuint (bad, ==, 0);
  g_assert_cmpuint (apps->len, ==, 4);
  for (guint i = 0; i < apps->len; i++)
    g_assert_true (((JmemNvsmiApp *) g_ptr_array_index (apps, i))->pid_exists);

  g_assert_cmpuint (jmem_nvsmi_apps_keep_listed (apps, gpus), ==, 2);
  g_assert_cmpuint (apps->len, ==, 2);
  app = g_ptr_array_index (apps, 0);
  g_assert_cmpint (app->pid, ==, 4242);
  app = g_ptr_array_index (apps, 1);
  g_assert_cmpint (app->pid, ==, 1);
  g_assert_cmpstr (app->gpu_uuid, ==, UUID);
}

/* Without a UUID from --query-gpu no row can be matched, so none counts. */
static void
test_apps_no_listed_uuid (void)
{
  static const char gpus_csv[] = "0, [N/A], 122880, 61440, 61440, NVIDIA Thor\n";
  g_autoptr(GPtrArray) gpus = jmem_nvsmi_gpus_parse (gpus_csv, sizeof gpus_csv - 1, NULL, NULL);
  g_autoptr(GPtrArray) apps = apps_parse (UUID ", 4242, 100, x\n[N/A], 4243, 100, y\n", NULL);
  g_autoptr(GPtrArray) none = g_ptr_array_new ();

  g_assert_nonnull (gpus);
  g_assert_cmpuint (jmem_nvsmi_apps_keep_listed (apps, gpus), ==, 2);
  g_assert_cmpuint (apps->len, ==, 0);
  g_clear_pointer (&apps, g_ptr_array_unref);
  apps = apps_parse (UUID ", 4242, 100, x\n", NULL);
  g_assert_cmpuint (jmem_nvsmi_apps_keep_listed (apps, none), ==, 1);
  g_assert_cmpuint (apps->len, ==, 0);
}

/* NVML's answer written as a capture records it reads back the same:
 * GPUs, PIDs, used memory (null where NVML had none) and the lists; and
 * the reference record in fixtures/ is one. */
static void
test_nvml_record_round_trip (void)
{
  g_autoptr(GPtrArray) gpus = g_ptr_array_new_with_free_func ((GDestroyNotify) jmem_nvsmi_gpu_free);
  g_autoptr(GPtrArray) apps = g_ptr_array_new_with_free_func ((GDestroyNotify) jmem_nvsmi_app_free);
  g_autoptr(GPtrArray) gpus2 = NULL;
  g_autoptr(GPtrArray) apps2 = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  JmemNvsmiGpu *g = g_new0 (JmemNvsmiGpu, 1);
  JmemNvsmiApp *a = g_new0 (JmemNvsmiApp, 1);
  JmemNvsmiApp *b = g_new0 (JmemNvsmiApp, 1);
  const JmemNvsmiApp *a2, *b2;

  *g = (JmemNvsmiGpu) { 0, g_strdup ("GPU-1"), g_strdup ("NVIDIA Thor"), -1, -1, -1 };
  g_ptr_array_add (gpus, g);
  a->gpu_uuid = g_strdup ("GPU-1");
  a->pid = 4012;
  a->used_memory_mib = 8192;
  a->nvml_lists = JMEM_NVML_LIST_COMPUTE | JMEM_NVML_LIST_GRAPHICS;
  g_ptr_array_add (apps, a);
  b->gpu_uuid = g_strdup ("GPU-1");
  b->pid = 2450;
  b->used_memory_mib = -1;
  b->nvml_lists = JMEM_NVML_LIST_GRAPHICS;
  g_ptr_array_add (apps, b);

  text = jmem_nvml_record_render (gpus, apps);
  g_assert_true (jmem_nvml_record_parse (text, strlen (text), &gpus2, &apps2, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (gpus2->len, ==, 1);
  g = g_ptr_array_index (gpus2, 0);
  g_assert_cmpstr (g->uuid, ==, "GPU-1");
  g_assert_cmpstr (g->name, ==, "NVIDIA Thor");
  g_assert_cmpint (g->memory_used_mib, ==, -1);
  g_assert_cmpuint (apps2->len, ==, 2);
  a2 = g_ptr_array_index (apps2, 0);
  b2 = g_ptr_array_index (apps2, 1);
  g_assert_cmpint (a2->pid, ==, 4012);
  g_assert_cmpint (a2->used_memory_mib, ==, 8192);
  g_assert_cmpuint (a2->nvml_lists, ==, JMEM_NVML_LIST_COMPUTE | JMEM_NVML_LIST_GRAPHICS);
  g_assert_null (a2->process_name);
  g_assert_true (a2->pid_exists);
  g_assert_false (a2->in_doubt);
  g_assert_cmpint (b2->used_memory_mib, ==, -1);
  g_assert_cmpuint (b2->nvml_lists, ==, JMEM_NVML_LIST_GRAPHICS);

  {
    g_autofree char *path = jmem_test_fixture ("nvidia-smi", "nvml.reference-thor.json", NULL);
    g_autofree char *seed = NULL;
    gsize len = 0;

    g_clear_pointer (&gpus2, g_ptr_array_unref);
    g_clear_pointer (&apps2, g_ptr_array_unref);
    g_assert_true (g_file_get_contents (path, &seed, &len, NULL));
    g_assert_true (jmem_nvml_record_parse (seed, len, &gpus2, &apps2, &error));
    g_assert_cmpuint (apps2->len, ==, 2);
    g_assert_cmpint (((JmemNvsmiApp *) g_ptr_array_index (apps2, 0))->used_memory_mib, ==, 18432);
    g_assert_cmpuint (((JmemNvsmiApp *) g_ptr_array_index (apps2, 1))->nvml_lists, ==,
                      JMEM_NVML_LIST_GRAPHICS);
  }
}

/* A damaged or edited record is refused whole, with a reason: nvidia-smi's
 * recorded text is read instead. */
static void
test_nvml_record_hostile (void)
{
  static const struct {
    const char *text;
    const char *why;
  } cases[] = {
    { "", "" },
    { "{\"version\":1,\"gpus\":[],\"processes\":[]} {}", "" },
    { "{\"version\":2,\"gpus\":[],\"processes\":[]}", "version" },
    { "{\"version\":1,\"processes\":[]}", "no \"gpus\"" },
    { "{\"version\":1,\"gpus\":[{\"index\":0}],\"processes\":[]}", "gpus[0] has no \"uuid\"" },
    { "{\"version\":1,\"gpus\":[7],\"processes\":[]}", "gpus[0] has no \"uuid\"" },
    { "{\"version\":1,\"gpus\":[],\"processes\":{}}", "no \"processes\"" },
    { "{\"version\":1,\"gpus\":[],\"processes\":[{\"pid\":0}]}", "processes[0]" },
    { "{\"version\":1,\"gpus\":[],\"processes\":[{\"pid\":-5}]}", "processes[0]" },
    { "{\"version\":1,\"gpus\":[],\"processes\":[{\"pid\":\"1\"}]}", "processes[0]" },
    { "{\"version\":1,\"gpus\":[],\"processes\":[{\"pid\":1},{\"pid\":4194305}]}", "processes[1]" },
    { "{\"version\":1,\"gpus\":[],\"processes\":[{\"pid\":1e3}]}", "processes[0]" },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GPtrArray) gpus = NULL;
      g_autoptr(GPtrArray) apps = NULL;
      g_autoptr(GError) error = NULL;

      g_assert_false (jmem_nvml_record_parse (cases[i].text, strlen (cases[i].text), &gpus, &apps, &error));
      g_assert_nonnull (error);
      g_assert_null (gpus);
      g_assert_null (apps);
      if (strstr (error->message, cases[i].why) == NULL)
        g_printerr ("case %" G_GSIZE_FORMAT ": %s\n", i, error->message);
      g_assert_nonnull (strstr (error->message, cases[i].why));
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/nvsmi/gpus/orin-nvgpu", test_orin);
  g_test_add_func ("/nvsmi/gpus/thor-unified", test_thor);
  g_test_add_func ("/nvsmi/gpus/name-with-commas", test_discrete_name_with_commas);
  g_test_add_func ("/nvsmi/empty", test_empty);
  g_test_add_func ("/nvsmi/gpus/hostile", test_gpus_hostile);
  g_test_add_func ("/nvsmi/apps/thor", test_apps);
  g_test_add_func ("/nvsmi/apps/hostile", test_apps_hostile);
  g_test_add_func ("/nvsmi/gpus/unit-and-plain-na", test_unit_and_plain_na);
  g_test_add_func ("/nvsmi/apps/forged-by-name", test_apps_forged_by_name);
  g_test_add_func ("/nvsmi/apps/no-listed-uuid", test_apps_no_listed_uuid);
  g_test_add_func ("/nvml-record/round-trip", test_nvml_record_round_trip);
  g_test_add_func ("/nvml-record/hostile", test_nvml_record_hostile);
  return g_test_run ();
}
