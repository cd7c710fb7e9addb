/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Thin history lines: a sample pruned to what is read over time. */
#include "jmem-history-thin.h"

#include "jmem-json-member.h"

/* Members a reader over time never reads: they are most of a snapshot's
 * bytes (thermal zones, disks, services, evidence, free text). */
static const char *const dropped_root[] = {
  "thermal", "power_mode", "disks", "services", "tegrastats", "warnings", "findings", "cut",
};

/* Explanations, the same in every sample: a thin line keeps the figures. */
static const char *const dropped_identity[] = { "l4t", "variant_source" };
/* What no reader over time reads of a process: how the footprint was made,
 * the state letter, the unit (the row's name and user say who it is). */
static const char *const dropped_row[] = {
  "uid", "state", "nvmap_mapped_kib", "nvmap_mapped_source", "footprint_base", "unit",
};
static const char *const dropped_accounting[] = { "notes", "terms", "physical_note" };
static const char *const dropped_bucket[] = { "fields", "source", "note" };
static const char *const dropped_headroom[] = {
  "terms", "zones", "holders", "services", "actions", "notes",
};

static void
remove_members (JsonObject *o, const char *const *names, guint n_names)
{
  for (guint i = 0; o != NULL && i < n_names; i++)
    json_object_remove_member (o, names[i]);
}

static void
thin_accounting (JsonObject *accounting)
{
  JsonArray *buckets = jmem_json_member_array (accounting, "buckets");

  remove_members (accounting, dropped_accounting, G_N_ELEMENTS (dropped_accounting));
  for (guint i = 0; buckets != NULL && i < json_array_get_length (buckets); i++)
    if (JSON_NODE_HOLDS_OBJECT (json_array_get_element (buckets, i)))
      remove_members (json_array_get_object_element (buckets, i), dropped_bucket,
                      G_N_ELEMENTS (dropped_bucket));
}

static gint
by_footprint_desc (gconstpointer a, gconstpointer b)
{
  gint64 fa = jmem_json_member_size (json_node_get_object (*(JsonNode *const *) a), "footprint_kib");
  gint64 fb = jmem_json_member_size (json_node_get_object (*(JsonNode *const *) b), "footprint_kib");

  return fa < fb ? 1 : fa > fb ? -1 : 0;
}

/* The @top largest rows and every row holding NvMap or GPU memory, in the
 * list's own order. */
static void
thin_processes (JsonObject *processes, guint top, gboolean cmdlines)
{
  JsonArray *list = jmem_json_member_array (processes, "list");
  g_autoptr(GPtrArray) ranked = g_ptr_array_new ();
  g_autoptr(GHashTable) largest = g_hash_table_new (NULL, NULL);
  g_autoptr(JsonArray) kept = json_array_new ();

  if (list == NULL)
    return;
  for (guint i = 0; i < json_array_get_length (list); i++)
    if (JSON_NODE_HOLDS_OBJECT (json_array_get_element (list, i)))
      g_ptr_array_add (ranked, json_array_get_element (list, i));
  g_ptr_array_sort (ranked, by_footprint_desc);
  for (guint i = 0; i < MIN (top, ranked->len); i++)
    g_hash_table_add (largest, g_ptr_array_index (ranked, i));
  for (guint i = 0; i < json_array_get_length (list); i++)
    {
      JsonNode *n = json_array_get_element (list, i);
      JsonObject *row;

      if (!JSON_NODE_HOLDS_OBJECT (n))
        continue;
      row = json_node_get_object (n);
      if (!g_hash_table_contains (largest, n) && jmem_json_member_size (row, "nvmap_kib") <= 0 &&
          jmem_json_member_size (row, "gpu_kib") <= 0)
        continue;
      remove_members (row, dropped_row, G_N_ELEMENTS (dropped_row));
      if (!cmdlines)
        {
          json_object_remove_member (row, "cmdline");
          json_object_remove_member (row, "cmdline_truncated");
        }
      json_array_add_element (kept, json_node_copy (n));
    }
  json_object_set_int_member (processes, "shown", json_array_get_length (kept));
  json_object_set_array_member (processes, "list", json_array_ref (kept));
}

void
jmem_history_thin (JsonNode *snapshot,
                   guint     top,
                   gboolean  cmdlines)
{
  JsonObject *root, *history, *o;

  g_return_if_fail (JSON_NODE_HOLDS_OBJECT (snapshot));
  root = json_node_get_object (snapshot);
  remove_members (root, dropped_root, G_N_ELEMENTS (dropped_root));
  remove_members (jmem_json_member_object (root, "identity"), dropped_identity,
                  G_N_ELEMENTS (dropped_identity));
  if ((o = jmem_json_member_object (root, "gpu")) != NULL)
    json_object_remove_member (o, "evidence");
  /* every client's row: by_pid already sums them per process */
  if ((o = jmem_json_member_object (root, "nvmap")) != NULL)
    json_object_remove_member (o, "clients");
  if ((o = jmem_json_member_object (root, "accounting")) != NULL)
    thin_accounting (o);
  remove_members (jmem_json_member_object (root, "headroom"), dropped_headroom,
                  G_N_ELEMENTS (dropped_headroom));
  if ((o = jmem_json_member_object (root, "processes")) != NULL)
    thin_processes (o, top, cmdlines);

  history = json_object_new ();
  json_object_set_int_member (history, "line_version", JMEM_HISTORY_LINE_VERSION);
  json_object_set_boolean_member (history, "thin", TRUE);
  json_object_set_object_member (root, "history", history);
}
