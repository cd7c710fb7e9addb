/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "jmem-output-diff.h"

#include "jmem-output-table.h"
#include "jmem-text.h"

/* A process row: PID, NAME, then five sizes of SIZE_COLS (a blank and
 * 9 columns: up to 999999.9 MiB, signed). NAME takes what the width
 * leaves, NAME_MIN_COLS to NAME_MAX_COLS columns; where fewer are left it
 * goes on a line of its own under the PID, indented. */
#define PID_COLS      8
#define NAME_MAX_COLS 20
#define NAME_MIN_COLS 10
#define SIZE_COLS     10
#define ROW_COLS(name) (PID_COLS + 2 + (name) + 5 * SIZE_COLS)

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

/* @text (escaped) as lines of at most @width columns (0: one line), the
 * further ones indented by @hang. */
static void
append_paragraph (GString *out, const char *text, guint width, guint hang)
{
  jmem_table_append_wrapped (out, text, width, 0, hang);
  g_string_append_c (out, '\n');
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

/* A process name escaped for a terminal and fitted to @cols columns. */
static char *
name_cell (JsonObject *p, guint cols)
{
  g_autofree char *escaped = jmem_text_for_terminal (json_object_get_string_member (p, "name"));

  return jmem_text_fit_width (escaped, cols, TRUE);
}

static const char *const process_columns[][2] = {
  { "rss_kib", "RSS" }, { "pss_kib", "PSS" }, { "swap_kib", "SWAP" },
  { "nvmap_kib", "NVMAP" }, { "gpu_kib", "GPU" },
};

static void
process_list (JsonObject *procs, const char *member, const char *title, const char *sizes,
              gboolean sign, int top, guint width, GString *out)
{
  JsonArray *list = json_object_get_array_member (procs, member);
  guint n = json_array_get_length (list), shown = n;
  /* 0: the name on a line of its own */
  guint name_cols = width == 0 ? NAME_MAX_COLS
                    : width >= ROW_COLS (NAME_MIN_COLS) ? MIN (width - ROW_COLS (0), NAME_MAX_COLS) : 0;

  if (n == 0)
    return;
  if (top >= 0 && (guint) top < n)
    shown = (guint) top;
  {
    g_autofree char *heading = shown < n
      ? g_strdup_printf ("%s: %u (the %u largest shown), in MiB", title, n, shown)
      : g_strdup_printf ("%s: %u, in MiB", title, n);

    g_string_append_c (out, '\n');
    append_paragraph (out, heading, width, 2);
  }
  g_string_append_printf (out, "%*s  %-*s", PID_COLS, "PID", (int) name_cols, name_cols > 0 ? "NAME" : "");
  for (gsize c = 0; c < G_N_ELEMENTS (process_columns); c++)
    g_string_append_printf (out, " %*s", SIZE_COLS - 1, process_columns[c][1]);
  jmem_table_end_line (out);
  if (name_cols == 0)
    g_string_append_printf (out, "%*sNAME\n", JMEM_TABLE_INDENT, "");
  for (guint i = 0; i < shown; i++)
    {
      JsonObject *p = json_array_get_object_element (list, i);
      JsonObject *s = json_object_get_object_member (p, sizes);
      g_autofree char *name = name_cell (p, name_cols > 0 ? name_cols : width - JMEM_TABLE_INDENT);

      g_string_append_printf (out, "%*" G_GINT64_FORMAT "  %s", PID_COLS, int_of (p, "pid"),
                              name_cols > 0 ? name : "");
      for (gsize c = 0; c < G_N_ELEMENTS (process_columns); c++)
        append_mib (out, s, process_columns[c][0], sign, SIZE_COLS - 1);
      jmem_table_end_line (out);
      if (name_cols == 0)
        {
          g_string_append_printf (out, "%*s%s", JMEM_TABLE_INDENT, "", name);
          jmem_table_end_line (out);
        }
    }
}

/* What the second snapshot has that the first had not. After a drop of
 * the caches it is what the drop gave back; without one (jmem diff, jmem
 * audit --no-drop) only a change, and nothing was reclaimed. */
static void
reclaim_lines (JsonObject *r, gboolean dropped, guint width, GString *out)
{
  gint64 gained = int_of (r, "available_gained_kib");
  gint64 released = int_of (r, "cache_released_kib");
  g_autoptr(GString) line = g_string_new (NULL);

  g_string_append_c (out, '\n');
  g_string_append (line, dropped ? "Reclaimed by the drop:" : "Between the snapshots (no caches dropped):");
  if (is_known (r, "available_gained_kib") && dropped && gained < 0)
    g_string_append_printf (line, " nothing in MemAvailable, which fell by %.1f MiB as memory "
                            "was taken meanwhile", (double) -gained / 1024.0);
  else if (is_known (r, "available_gained_kib") && gained == 0)
    g_string_append (line, " MemAvailable the same");
  else if (is_known (r, "available_gained_kib"))
    g_string_append_printf (line, " MemAvailable %s by %.1f MiB", gained >= 0 ? "rose" : "fell",
                            (double) ABS (gained) / 1024.0);
  else
    g_string_append (line, " MemAvailable unknown");
  if (is_known (r, "cache_released_kib") && released == 0)
    g_string_append (line, "; page cache, buffers and reclaimable slab the same");
  else if (is_known (r, "cache_released_kib"))
    g_string_append_printf (line, "; page cache, buffers and reclaimable slab %s %.1f MiB",
                            released >= 0 ? (dropped ? "gave back" : "shrank by") : "grew by",
                            (double) ABS (released) / 1024.0);
  g_string_append_c (line, '.');
  append_paragraph (out, line->str, width, 2);

  g_string_assign (line, dropped ? "Not reclaimed:" : "Held in the second snapshot:");
  if (is_known (r, "cache_remaining_kib"))
    g_string_append_printf (line, " %.1f MiB %s (in use, dirty or mapped)",
                            (double) int_of (r, "cache_remaining_kib") / 1024.0,
                            dropped ? "still cached" : "cached");
  if (is_known (r, "shmem_remaining_kib"))
    g_string_append_printf (line, ", of it %.1f MiB shared memory and tmpfs",
                            (double) int_of (r, "shmem_remaining_kib") / 1024.0);
  if (is_known (r, "unreclaimable_slab_kib"))
    g_string_append_printf (line, "; %.1f MiB unreclaimable slab",
                            (double) int_of (r, "unreclaimable_slab_kib") / 1024.0);
  if (is_known (r, "nvmap_remaining_kib"))
    g_string_append_printf (line, "; %.1f MiB NvMap (GPU, camera and codec buffers: "
                            "only their processes free them)",
                            (double) int_of (r, "nvmap_remaining_kib") / 1024.0);
  g_string_append_c (line, '.');
  append_paragraph (out, line->str, width, 2);
}

void
jmem_output_diff_human (JsonNode *diff,
                        int       top,
                        gboolean  dropped,
                        guint     width,
                        GString  *out)
{
  JsonObject *d = json_node_get_object (diff);
  JsonObject *before = json_object_get_object_member (d, "before");
  JsonObject *after = json_object_get_object_member (d, "after");
  JsonObject *procs = json_object_get_object_member (d, "processes");
  gint64 unchanged = int_of (procs, "unchanged");
  gint64 duplicates = int_of (procs, "duplicates");

  if (!json_object_get_boolean_member (d, "same_host"))
    {
      g_autofree char *host_b = jmem_text_for_terminal (json_object_get_string_member_with_default (before, "hostname", "(unknown)"));
      g_autofree char *host_a = jmem_text_for_terminal (json_object_get_string_member_with_default (after, "hostname", "(unknown)"));
      g_autofree char *note = g_strdup_printf ("Note: the snapshots come from different machines "
                                               "(%s and %s).", host_b, host_a);

      append_paragraph (out, note, width, 6);
    }
  if (is_known (d, "interval_s"))
    g_string_append_printf (out, "%" G_GINT64_FORMAT " s between the two snapshots.\n",
                            int_of (d, "interval_s"));
  g_string_append_c (out, '\n');
  jmem_output_diff_system (json_object_get_array_member (d, "system"), out);
  reclaim_lines (json_object_get_object_member (d, "reclaim"), dropped, width, out);

  process_list (procs, "changed", "Processes that changed (after minus before)", "delta", TRUE,
                top, width, out);
  process_list (procs, "appeared", "Processes that appeared", "after", FALSE, top, width, out);
  process_list (procs, "exited", "Processes that exited", "before", FALSE, top, width, out);
  g_string_append_printf (out, "\n%" G_GINT64_FORMAT " %s unchanged.\n", unchanged,
                          jmem_text_plural ((guint) CLAMP (unchanged, 0, G_MAXUINT), "process is",
                                            "processes are"));
  if (!json_object_get_boolean_member (procs, "complete"))
    append_paragraph (out, "Note: a snapshot lists only its largest processes, so one missing "
                      "from a list may only have fallen out of it (save snapshots with --all).",
                      width, 6);
  if (duplicates > 0)
    {
      g_autofree char *note = g_strdup_printf ("Note: %" G_GINT64_FORMAT " duplicated process "
                                               "%s ignored.", duplicates,
                                               duplicates == 1 ? "entry was" : "entries were");

      append_paragraph (out, note, width, 6);
    }
}
