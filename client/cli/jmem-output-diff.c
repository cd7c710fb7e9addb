#include "jmem-output-diff.h"

#include "jmem-text.h"

#define NAME_WIDTH 20

/* -1 when null or absent. */
static gint64
int_of (JsonObject *o, const char *name)
{
  JsonNode *n = o != NULL ? json_object_get_member (o, name) : NULL;

  return n != NULL && JSON_NODE_HOLDS_VALUE (n) && json_node_get_value_type (n) == G_TYPE_INT64 ?
           json_node_get_int (n) : -1;
}

static gboolean
is_known (JsonObject *o, const char *name)
{
  JsonNode *n = o != NULL ? json_object_get_member (o, name) : NULL;

  return n != NULL && JSON_NODE_HOLDS_VALUE (n) && json_node_get_value_type (n) == G_TYPE_INT64;
}

static void
append_mib (GString *out, JsonObject *o, const char *name, gboolean sign, int width)
{
  if (!is_known (o, name))
    g_string_append_printf (out, " %*s", width, "n/a");
  else if (sign)
    g_string_append_printf (out, " %+*.1f", width, (double) int_of (o, name) / 1024.0);
  else
    g_string_append_printf (out, " %*.1f", width, (double) int_of (o, name) / 1024.0);
}

static const char *
field_label (const char *field)
{
  if (g_str_equal (field, "NvMapTotal"))
    return "NvMap total";
  if (g_str_equal (field, "GpuUsed"))
    return "GPU used";
  return field;
}

void
jmem_output_diff_system (JsonArray *rows,
                         GString   *out)
{
  g_string_append_printf (out, "%-14s %12s %12s %12s\n", "MiB", "before", "after", "change");
  for (guint i = 0; i < json_array_get_length (rows); i++)
    {
      JsonObject *row = json_array_get_object_element (rows, i);

      g_string_append_printf (out, "%-14s", field_label (json_object_get_string_member (row, "field")));
      append_mib (out, row, "before_kib", FALSE, 12);
      append_mib (out, row, "after_kib", FALSE, 12);
      append_mib (out, row, "delta_kib", TRUE, 12);
      g_string_append_c (out, '\n');
    }
}

/* A process name escaped for a terminal and fitted to NAME_WIDTH columns. */
static char *
name_cell (JsonObject *p)
{
  g_autofree char *escaped = jmem_text_for_terminal (json_object_get_string_member (p, "name"));

  return jmem_text_fit_width (escaped, NAME_WIDTH, TRUE);
}

static const char *const process_columns[][2] = {
  { "rss_kib", "RSS" }, { "pss_kib", "PSS" }, { "swap_kib", "SWAP" },
  { "nvmap_kib", "NVMAP" }, { "gpu_kib", "GPU" },
};

static void
process_list (JsonObject *procs, const char *member, const char *title, const char *sizes,
              gboolean sign, int top, GString *out)
{
  JsonArray *list = json_object_get_array_member (procs, member);
  guint n = json_array_get_length (list), shown = n;

  if (n == 0)
    return;
  if (top >= 0 && (guint) top < n)
    shown = (guint) top;
  g_string_append_printf (out, "\n%s: %u", title, n);
  if (shown < n)
    g_string_append_printf (out, " (the %u largest shown)", shown);
  g_string_append_c (out, '\n');
  g_string_append_printf (out, "%8s  %-*s", "PID", NAME_WIDTH, "NAME");
  for (gsize c = 0; c < G_N_ELEMENTS (process_columns); c++)
    g_string_append_printf (out, " %10s", process_columns[c][1]);
  g_string_append_printf (out, "   (MiB)\n");
  for (guint i = 0; i < shown; i++)
    {
      JsonObject *p = json_array_get_object_element (list, i);
      JsonObject *s = json_object_get_object_member (p, sizes);
      g_autofree char *name = name_cell (p);

      g_string_append_printf (out, "%8" G_GINT64_FORMAT "  %s", int_of (p, "pid"), name);
      for (gsize c = 0; c < G_N_ELEMENTS (process_columns); c++)
        append_mib (out, s, process_columns[c][0], sign, 10);
      g_string_append_c (out, '\n');
    }
}

static void
reclaim_lines (JsonObject *r, GString *out)
{
  gint64 gained = int_of (r, "available_gained_kib");
  gint64 released = int_of (r, "cache_released_kib");

  g_string_append_c (out, '\n');
  if (is_known (r, "available_gained_kib"))
    g_string_append_printf (out, "Reclaimed: MemAvailable %s by %.1f MiB", gained >= 0 ? "rose" : "fell",
                            (double) ABS (gained) / 1024.0);
  else
    g_string_append (out, "Reclaimed: MemAvailable unknown");
  if (is_known (r, "cache_released_kib"))
    g_string_append_printf (out, "; page cache, buffers and reclaimable slab %s %.1f MiB",
                            released >= 0 ? "gave back" : "grew by",
                            (double) ABS (released) / 1024.0);
  g_string_append (out, ".\nNot reclaimed:");
  if (is_known (r, "cache_remaining_kib"))
    g_string_append_printf (out, " %.1f MiB still cached (in use, dirty or mapped)",
                            (double) int_of (r, "cache_remaining_kib") / 1024.0);
  if (is_known (r, "shmem_remaining_kib"))
    g_string_append_printf (out, ", of it %.1f MiB shared memory and tmpfs",
                            (double) int_of (r, "shmem_remaining_kib") / 1024.0);
  if (is_known (r, "unreclaimable_slab_kib"))
    g_string_append_printf (out, "; %.1f MiB unreclaimable slab",
                            (double) int_of (r, "unreclaimable_slab_kib") / 1024.0);
  if (is_known (r, "nvmap_remaining_kib"))
    g_string_append_printf (out, "; %.1f MiB NvMap (GPU, camera and codec buffers: "
                            "only their processes free them)",
                            (double) int_of (r, "nvmap_remaining_kib") / 1024.0);
  g_string_append (out, ".\n");
}

void
jmem_output_diff_human (JsonNode *diff,
                        int       top,
                        GString  *out)
{
  JsonObject *d = json_node_get_object (diff);
  JsonObject *before = json_object_get_object_member (d, "before");
  JsonObject *after = json_object_get_object_member (d, "after");
  JsonObject *procs = json_object_get_object_member (d, "processes");
  g_autofree char *host_b = NULL;
  g_autofree char *host_a = NULL;

  if (!json_object_get_boolean_member (d, "same_host"))
    {
      host_b = jmem_text_for_terminal (json_object_get_string_member_with_default (before, "hostname", "(unknown)"));
      host_a = jmem_text_for_terminal (json_object_get_string_member_with_default (after, "hostname", "(unknown)"));
      g_string_append_printf (out, "Note: the snapshots come from different machines (%s and %s).\n",
                              host_b, host_a);
    }
  if (is_known (d, "interval_s"))
    g_string_append_printf (out, "%" G_GINT64_FORMAT " s between the two snapshots.\n",
                            int_of (d, "interval_s"));
  g_string_append_c (out, '\n');
  jmem_output_diff_system (json_object_get_array_member (d, "system"), out);
  reclaim_lines (json_object_get_object_member (d, "reclaim"), out);

  process_list (procs, "changed", "Processes that changed (after minus before)", "delta", TRUE, top, out);
  process_list (procs, "appeared", "Processes that appeared", "after", FALSE, top, out);
  process_list (procs, "exited", "Processes that exited", "before", FALSE, top, out);
  g_string_append_printf (out, "\n%" G_GINT64_FORMAT " processes unchanged.\n", int_of (procs, "unchanged"));
  if (!json_object_get_boolean_member (procs, "complete"))
    g_string_append (out, "Note: a snapshot lists only its largest processes, so one missing from "
                          "a list may only have fallen out of it (save snapshots with --all).\n");
  if (int_of (procs, "duplicates") > 0)
    g_string_append_printf (out, "Note: %" G_GINT64_FORMAT " duplicated process entries were ignored.\n",
                            int_of (procs, "duplicates"));
}
