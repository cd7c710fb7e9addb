/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "jmem-nvsmi.h"

#include "jmem-error.h"
#include "jmem-text.h"

#include <string.h>

/* nvidia-smi --format=csv,noheader,nounits separates fields with ", " and
 * does not quote them; our queries put the one free-text column last so a
 * name holding ", " stays in one piece. */

const char *
jmem_gpu_stack_to_string (JmemGpuStack stack)
{
  switch (stack)
    {
    case JMEM_GPU_STACK_NVGPU:
      return "nvgpu";
    case JMEM_GPU_STACK_UNIFIED:
      return "unified";
    case JMEM_GPU_STACK_NONE:
    default:
      return "none";
    }
}

void
jmem_nvsmi_gpu_free (JmemNvsmiGpu *gpu)
{
  if (gpu == NULL)
    return;
  g_free (gpu->uuid);
  g_free (gpu->name);
  g_free (gpu);
}

void
jmem_nvsmi_app_free (JmemNvsmiApp *app)
{
  if (app == NULL)
    return;
  g_free (app->gpu_uuid);
  g_free (app->process_name);
  g_free (app);
}

/* What nvidia-smi prints in place of a value it does not have. */
static gboolean
is_not_reported (const char *s)
{
  static const char *const words[] = {
    "[N/A]", "N/A", "[Not Supported]", "Not Supported", "[Unknown Error]",
    "Unknown Error", "[Insufficient Permissions]", "[GPU requires reset]",
  };

  for (gsize i = 0; i < G_N_ELEMENTS (words); i++)
    if (g_str_equal (s, words[i]))
      return TRUE;
  return FALSE;
}

/* A non-negative integer (an optional " MiB" tolerated when "nounits" was
 * lost), -1 when not reported; FALSE for anything else. */
static gboolean
parse_int (const char *s, gint64 *out)
{
  guint64 v;
  g_autofree char *copy = NULL;

  if (is_not_reported (s))
    {
      *out = -1;
      return TRUE;
    }
  if (g_str_has_suffix (s, " MiB"))
    s = copy = g_strndup (s, strlen (s) - 4);
  if (!g_ascii_string_to_unsigned (s, 10, 0, G_MAXINT64, &v, NULL))
    return FALSE;
  *out = (gint64) v;
  return TRUE;
}

static char *
parse_text (const char *s)
{
  if (s[0] == '\0' || is_not_reported (s))
    return NULL;
  return jmem_text_make_valid (s, -1);
}

/* Calls @row for each non-blank line split into @n_fields; counts the lines
 * it rejects. Fields are the raw bytes; @row validates them. */
typedef gpointer (*RowFunc) (char **fields);

static GPtrArray *
parse_rows (const char *data, gsize len, guint n_fields, RowFunc row,
            GDestroyNotify free_func, const char *what,
            guint *n_malformed, GError **error)
{
  g_autoptr(GPtrArray) rows = g_ptr_array_new_with_free_func (free_func);
  const char *p = data, *end = data + len;
  guint bad = 0;

  g_return_val_if_fail (data != NULL || len == 0, NULL);

  while (p < end)
    {
      const char *nl = memchr (p, '\n', (gsize) (end - p));
      const char *line_end = nl != NULL ? nl : end;
      g_autofree char *line = NULL;
      g_auto(GStrv) fields = NULL;
      gpointer item = NULL;

      if (line_end > p && line_end[-1] == '\r')
        line_end--;
      /* nvidia-smi never prints NUL; a line holding one is not its output. */
      if (memchr (p, '\0', (gsize) (line_end - p)) != NULL)
        {
          bad++;
          p = nl != NULL ? nl + 1 : end;
          continue;
        }
      line = g_strndup (p, (gsize) (line_end - p));
      p = nl != NULL ? nl + 1 : end;
      if (g_strstrip (line)[0] == '\0')
        continue;
      fields = g_strsplit (line, ", ", (gint) n_fields);
      if (g_strv_length (fields) == n_fields)
        {
          for (guint i = 0; i < n_fields; i++)
            g_strstrip (fields[i]);
          item = row (fields);
        }
      if (item != NULL)
        g_ptr_array_add (rows, item);
      else
        bad++;
    }

  if (n_malformed != NULL)
    *n_malformed = bad;
  if (rows->len == 0 && bad > 0)
    {
      g_set_error (error, JMEM_ERROR, JMEM_ERROR_FAILED,
                   "nvidia-smi printed no readable %s (%u unreadable lines)",
                   what, bad);
      return NULL;
    }
  return g_steal_pointer (&rows);
}

static gpointer
gpu_row (char **f)
{
  g_autoptr(JmemNvsmiGpu) gpu = g_new0 (JmemNvsmiGpu, 1);

  if (!parse_int (f[0], &gpu->index) ||
      !parse_int (f[2], &gpu->memory_total_mib) ||
      !parse_int (f[3], &gpu->memory_used_mib) ||
      !parse_int (f[4], &gpu->memory_free_mib))
    return NULL;
  gpu->uuid = parse_text (f[1]);
  gpu->name = parse_text (f[5]);
  if (gpu->name == NULL)
    return NULL;
  return g_steal_pointer (&gpu);
}

static gpointer
app_row (char **f)
{
  g_autoptr(JmemNvsmiApp) app = g_new0 (JmemNvsmiApp, 1);

  /* A row without a real PID would pin memory on the wrong process. */
  if (!parse_int (f[1], &app->pid) || app->pid <= 0 ||
      !parse_int (f[2], &app->used_memory_mib))
    return NULL;
  app->gpu_uuid = parse_text (f[0]);
  app->pid_exists = TRUE;
  app->process_name = parse_text (f[3]);
  if (app->process_name == NULL)
    app->process_name = g_strdup ("");
  return g_steal_pointer (&app);
}

GPtrArray *
jmem_nvsmi_gpus_parse (const char *data, gsize len,
                       guint *n_malformed, GError **error)
{
  return parse_rows (data, len, 6, gpu_row,
                     (GDestroyNotify) jmem_nvsmi_gpu_free, "GPU",
                     n_malformed, error);
}

GPtrArray *
jmem_nvsmi_apps_parse (const char *data, gsize len,
                       guint *n_malformed, GError **error)
{
  return parse_rows (data, len, 4, app_row,
                     (GDestroyNotify) jmem_nvsmi_app_free, "compute app",
                     n_malformed, error);
}

static gboolean
is_listed (const GPtrArray *gpus, const char *uuid)
{
  for (guint i = 0; uuid != NULL && gpus != NULL && i < gpus->len; i++)
    {
      const JmemNvsmiGpu *gpu = g_ptr_array_index ((GPtrArray *) gpus, i);

      if (gpu->uuid != NULL && g_str_equal (gpu->uuid, uuid))
        return TRUE;
    }
  return FALSE;
}

/* Fields are not quoted, so a process name holding a newline can end its
 * row and start another: a row for a GPU nvidia-smi never listed is one. */
guint
jmem_nvsmi_apps_keep_listed (GPtrArray *apps, const GPtrArray *gpus)
{
  guint removed = 0;

  g_return_val_if_fail (apps != NULL, 0);

  for (guint i = 0; i < apps->len;)
    {
      const JmemNvsmiApp *app = g_ptr_array_index (apps, i);

      if (is_listed (gpus, app->gpu_uuid))
        i++;
      else
        {
          g_ptr_array_remove_index (apps, i);
          removed++;
        }
    }
  return removed;
}

/* An nvgpu GPU anywhere means its memory is in NvMap and must be read there;
 * otherwise any named GPU is on the unified stack. */
JmemGpuStack
jmem_nvsmi_stack_from_gpus (GPtrArray *gpus)
{
  gboolean named = FALSE;

  if (gpus == NULL)
    return JMEM_GPU_STACK_NONE;
  for (guint i = 0; i < gpus->len; i++)
    {
      const JmemNvsmiGpu *gpu = g_ptr_array_index (gpus, i);

      if (gpu->name == NULL || gpu->name[0] == '\0')
        continue;
      if (strstr (gpu->name, "(nvgpu)") != NULL)
        return JMEM_GPU_STACK_NVGPU;
      named = TRUE;
    }
  return named ? JMEM_GPU_STACK_UNIFIED : JMEM_GPU_STACK_NONE;
}
