/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "jmem-nvml-record.h"

#include "jmem-error.h"
#include "jmem-json-member.h"
#include "jmem-json-reader.h"
#include "jmem-json-writer.h"
#include "jmem-nvsmi.h"

#include <json-glib/json-glib.h>
#include <stdarg.h>

char *
jmem_nvml_record_render (const GPtrArray *gpus,
                         const GPtrArray *apps)
{
  JmemJsonWriter *w = jmem_json_writer_new (TRUE);

  jmem_json_writer_begin_object (w);
  jmem_json_writer_set_member_name (w, "version");
  jmem_json_writer_add_int_value (w, JMEM_NVML_RECORD_VERSION);
  jmem_json_writer_set_member_name (w, "gpus");
  jmem_json_writer_begin_array (w);
  for (guint i = 0; i < gpus->len; i++)
    {
      const JmemNvsmiGpu *g = g_ptr_array_index ((GPtrArray *) gpus, i);

      jmem_json_writer_begin_object (w);
      jmem_json_writer_add_size_member (w, "index", g->index);
      jmem_json_writer_set_member_name (w, "uuid");
      jmem_json_writer_add_string_value (w, g->uuid);
      jmem_json_writer_set_member_name (w, "name");
      if (g->name != NULL)
        jmem_json_writer_add_string_value (w, g->name);
      else
        jmem_json_writer_add_null_value (w);
      jmem_json_writer_add_size_member (w, "memory_total_mib", g->memory_total_mib);
      jmem_json_writer_add_size_member (w, "memory_used_mib", g->memory_used_mib);
      jmem_json_writer_add_size_member (w, "memory_free_mib", g->memory_free_mib);
      jmem_json_writer_end_object (w);
    }
  jmem_json_writer_end_array (w);
  jmem_json_writer_set_member_name (w, "processes");
  jmem_json_writer_begin_array (w);
  for (guint i = 0; i < apps->len; i++)
    {
      const JmemNvsmiApp *a = g_ptr_array_index ((GPtrArray *) apps, i);

      jmem_json_writer_begin_object (w);
      jmem_json_writer_set_member_name (w, "gpu_uuid");
      jmem_json_writer_add_string_value (w, a->gpu_uuid);
      jmem_json_writer_add_size_member (w, "pid", a->pid);
      jmem_json_writer_add_size_member (w, "used_memory_mib", a->used_memory_mib);
      jmem_json_writer_set_member_name (w, "lists");
      jmem_json_writer_begin_array (w);
      if (a->nvml_lists & JMEM_NVML_LIST_COMPUTE)
        jmem_json_writer_add_string_value (w, "compute");
      if (a->nvml_lists & JMEM_NVML_LIST_GRAPHICS)
        jmem_json_writer_add_string_value (w, "graphics");
      jmem_json_writer_end_array (w);
      jmem_json_writer_end_object (w);
    }
  jmem_json_writer_end_array (w);
  jmem_json_writer_end_object (w);
  return jmem_json_writer_free_to_string (w);
}

static gboolean G_GNUC_PRINTF (2, 3)
refuse (GError **error, const char *format, ...)
{
  g_autofree char *why = NULL;
  va_list ap;

  va_start (ap, format);
  why = g_strdup_vprintf (format, ap);
  va_end (ap);
  g_set_error (error, JMEM_ERROR, JMEM_ERROR_INVALID_ARGUMENT, "not an NVML record: %s", why);
  return FALSE;
}

/* PIDs above the kernel's PID_MAX_LIMIT name no process. */
#define PID_MAX_LIMIT G_GINT64_CONSTANT (4194304)

gboolean
jmem_nvml_record_parse (const char  *data,
                        gsize        len,
                        GPtrArray  **gpus_out,
                        GPtrArray  **apps_out,
                        GError     **error)
{
  g_autoptr(JsonNode) root = jmem_json_read (data, len, len, error);
  g_autoptr(GPtrArray) gpus = g_ptr_array_new_with_free_func ((GDestroyNotify) jmem_nvsmi_gpu_free);
  g_autoptr(GPtrArray) apps = g_ptr_array_new_with_free_func ((GDestroyNotify) jmem_nvsmi_app_free);
  JsonObject *o;
  JsonArray *list;

  if (root == NULL)
    return FALSE;
  o = JSON_NODE_HOLDS_OBJECT (root) ? json_node_get_object (root) : NULL;
  if (o == NULL || jmem_json_member_size (o, "version") != JMEM_NVML_RECORD_VERSION)
    return refuse (error, "no \"version\": %d", JMEM_NVML_RECORD_VERSION);
  list = jmem_json_member_array (o, "gpus");
  if (list == NULL)
    return refuse (error, "no \"gpus\" array");
  for (guint i = 0; i < json_array_get_length (list); i++)
    {
      JsonNode *node = json_array_get_element (list, i);
      JsonObject *g = JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
      g_autoptr(JmemNvsmiGpu) gpu = g_new0 (JmemNvsmiGpu, 1);

      gpu->uuid = g != NULL ? jmem_json_member_string (g, "uuid") : NULL;
      if (gpu->uuid == NULL)
        return refuse (error, "gpus[%u] has no \"uuid\"", i);
      gpu->index = jmem_json_member_size (g, "index");
      gpu->name = jmem_json_member_string (g, "name");
      gpu->memory_total_mib = jmem_json_member_size (g, "memory_total_mib");
      gpu->memory_used_mib = jmem_json_member_size (g, "memory_used_mib");
      gpu->memory_free_mib = jmem_json_member_size (g, "memory_free_mib");
      g_ptr_array_add (gpus, g_steal_pointer (&gpu));
    }
  list = jmem_json_member_array (o, "processes");
  if (list == NULL)
    return refuse (error, "no \"processes\" array");
  for (guint i = 0; i < json_array_get_length (list); i++)
    {
      JsonNode *node = json_array_get_element (list, i);
      JsonObject *p = JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
      g_autoptr(JmemNvsmiApp) app = g_new0 (JmemNvsmiApp, 1);
      JsonArray *lists;

      app->pid = p != NULL ? jmem_json_member_size (p, "pid") : -1;
      if (app->pid <= 0 || app->pid > PID_MAX_LIMIT)
        return refuse (error, "processes[%u] has no \"pid\" a process can have", i);
      app->gpu_uuid = jmem_json_member_string (p, "gpu_uuid");
      app->used_memory_mib = jmem_json_member_size (p, "used_memory_mib");
      app->pid_exists = TRUE;
      lists = jmem_json_member_array (p, "lists");
      for (guint l = 0; lists != NULL && l < json_array_get_length (lists); l++)
        {
          const char *name = JSON_NODE_HOLDS_VALUE (json_array_get_element (lists, l)) &&
                             json_node_get_value_type (json_array_get_element (lists, l)) == G_TYPE_STRING
                             ? json_array_get_string_element (lists, l) : "";

          if (g_str_equal (name, "compute"))
            app->nvml_lists |= JMEM_NVML_LIST_COMPUTE;
          else if (g_str_equal (name, "graphics"))
            app->nvml_lists |= JMEM_NVML_LIST_GRAPHICS;
        }
      g_ptr_array_add (apps, g_steal_pointer (&app));
    }
  *gpus_out = g_steal_pointer (&gpus);
  *apps_out = g_steal_pointer (&apps);
  return TRUE;
}
