/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "jmem-mcp-brief.h"

#include "jmem-json-member.h"
#include "jmem-text.h"

#include <string.h>

/* The entries of a list the text names: the rest are in structuredContent. */
#define BRIEF_ENTRIES 5
/* A message or action in the text is cut here: the whole one is in the
 * document. */
#define BRIEF_MESSAGE_BYTES 240

typedef char *(*BriefFunc) (JsonObject *doc);

/* A size for the text; "n/a" where the document has none. */
static char *
size_of (JsonObject *o, const char *name)
{
  gint64 kib = jmem_json_member_size (o, name);

  return kib >= 0 ? jmem_text_size (kib) : g_strdup ("n/a");
}

/* A signed change, "+1.2 GiB" or "-512 KiB"; "n/a" where there is none. */
static char *
delta_of (JsonObject *o, const char *name)
{
  JsonNode *n = o != NULL ? json_object_get_member (o, name) : NULL;
  gint64 kib;
  g_autofree char *size = NULL;

  if (!jmem_json_node_is_int (n))
    return g_strdup ("n/a");
  kib = json_node_get_int (n);
  size = jmem_text_size (kib < 0 ? -kib : kib);
  return g_strdup_printf ("%s%s", kib < 0 ? "-" : "+", size);
}

static JsonObject *
entry (JsonArray *a, guint i)
{
  JsonNode *n = json_array_get_element (a, i);

  return JSON_NODE_HOLDS_OBJECT (n) ? json_node_get_object (n) : NULL;
}

static guint
length (JsonArray *a)
{
  return a != NULL ? json_array_get_length (a) : 0;
}

/* "name (PID n) size" for an entry of a process list. */
static void
append_process (GString *out, JsonObject *p, const char *size_member)
{
  g_autofree char *name = jmem_json_member_string (p, "name");
  g_autofree char *size = size_of (p, size_member);

  if (name == NULL)
    name = jmem_json_member_string (p, "process");
  g_string_append_printf (out, "%s (PID %" G_GINT64_FORMAT ") %s", name != NULL ? name : "?",
                          jmem_json_member_size (p, "pid"), size);
}

/* "\n@label name (PID n) size, ..." for the first BRIEF_ENTRIES of @list;
 * nothing for an empty one. */
static void
append_processes (GString *out, const char *label, JsonArray *list, const char *size_member)
{
  if (length (list) > 0)
    g_string_append_printf (out, "\n%s:", label);
  for (guint i = 0; i < MIN (length (list), BRIEF_ENTRIES); i++)
    {
      g_string_append (out, i > 0 ? ", " : " ");
      append_process (out, entry (list, i), size_member);
    }
}

/* A message for one line of the text, cut at BRIEF_MESSAGE_BYTES. */
static char *
message_of (JsonObject *o, const char *name)
{
  g_autofree char *whole = jmem_json_member_string (o, name);
  gboolean cut = FALSE;
  g_autofree char *capped = NULL;

  if (whole == NULL)
    return NULL;
  capped = jmem_text_cap_bytes (whole, BRIEF_MESSAGE_BYTES, &cut);
  return cut ? g_strconcat (capped, "…", NULL) : g_steal_pointer (&capped);
}

/* "2 findings (1 warning, 1 info)", or "no findings". */
static void
append_findings_count (GString *out, JsonArray *findings)
{
  static const char * const severities[] = { "critical", "warning", "info" };
  guint n = length (findings);
  gboolean first = TRUE;

  if (n == 0)
    {
      g_string_append (out, "no findings");
      return;
    }
  g_string_append_printf (out, "%u finding%s (", n, n == 1 ? "" : "s");
  for (gsize s = 0; s < G_N_ELEMENTS (severities); s++)
    {
      guint count = 0;

      for (guint i = 0; i < n; i++)
        {
          g_autofree char *severity = jmem_json_member_string (entry (findings, i), "severity");

          count += g_strcmp0 (severity, severities[s]) == 0;
        }
      if (count > 0)
        g_string_append_printf (out, "%s%u %s", first ? "" : ", ", count, severities[s]);
      first = first && count == 0;
    }
  g_string_append_c (out, ')');
}

/* One line per finding: "- severity id: message To do: action (an
 * administrator's step)". */
static void
append_findings (GString *out, JsonArray *findings)
{
  for (guint i = 0; i < length (findings); i++)
    {
      JsonObject *f = entry (findings, i);
      g_autofree char *severity = jmem_json_member_string (f, "severity");
      g_autofree char *id = jmem_json_member_string (f, "id");
      g_autofree char *message = message_of (f, "message");
      g_autofree char *action = message_of (f, "action");

      g_string_append_printf (out, "\n- %s %s: %s", severity, id, message != NULL ? message : "");
      if (action != NULL)
        g_string_append_printf (out, " To do%s: %s", jmem_json_member_true (f, "admin") ?
                                " (an administrator's step)" : "", action);
    }
}

/* The GPU memory used by every device, -1 where none says. */
static gint64
gpu_used_kib (JsonObject *gpu)
{
  JsonArray *devices = jmem_json_member_array (gpu, "devices");
  gint64 used = -1;

  for (guint i = 0; i < length (devices); i++)
    {
      gint64 kib = jmem_json_member_size (entry (devices, i), "memory_used_kib");

      if (kib >= 0)
        used = MAX (used, 0) + kib;
    }
  return used;
}

static char *
snapshot_summary (JsonObject *doc)
{
  JsonObject *memory = jmem_json_member_object (jmem_json_member_object (doc, "memory"), "summary");
  JsonObject *nvmap = jmem_json_member_object (doc, "nvmap");
  JsonArray *processes = jmem_json_member_array (jmem_json_member_object (doc, "processes"), "list");
  g_autofree char *total = size_of (memory, "mem_total_kib");
  g_autofree char *available = size_of (memory, "mem_available_kib");
  g_autofree char *nvmap_total = size_of (nvmap, "total_kib");
  gint64 gpu_kib = gpu_used_kib (jmem_json_member_object (doc, "gpu"));
  g_autofree char *gpu = gpu_kib >= 0 ? jmem_text_size (gpu_kib) : g_strdup ("n/a");
  GString *out = g_string_new (NULL);

  g_string_append_printf (out, "RAM %s, available %s; NvMap %s; GPU %s; ", total, available,
                          nvmap_total, gpu);
  if (length (processes) > 0)
    {
      g_string_append (out, "largest ");
      append_process (out, entry (processes, 0), "footprint_kib");
      g_string_append (out, "; ");
    }
  append_findings_count (out, jmem_json_member_array (doc, "findings"));
  g_string_append_c (out, '.');
  return g_string_free (out, FALSE);
}

/* The figures of a headroom object, on one line. */
static void
append_headroom (GString *out, JsonObject *h)
{
  g_autofree char *now = size_of (h, "allocatable_now_kib");
  g_autofree char *after = size_of (h, "allocatable_after_reclaim_kib");
  g_autofree char *block = size_of (h, "largest_free_block_kib");

  g_string_append_printf (out, "a GPU allocation can get %s now, %s after reclaim; largest free "
                          "block %s", now, after, block);
}

static char *
snapshot_text (JsonObject *doc)
{
  JsonObject *memory = jmem_json_member_object (jmem_json_member_object (doc, "memory"), "summary");
  JsonObject *nvmap = jmem_json_member_object (doc, "nvmap");
  JsonObject *headroom = jmem_json_member_object (doc, "headroom");
  JsonObject *accounting = jmem_json_member_object (doc, "accounting");
  JsonObject *processes = jmem_json_member_object (doc, "processes");
  JsonArray *list = jmem_json_member_array (processes, "list");
  g_autofree char *used = size_of (memory, "used_kib");
  g_autofree char *cached = size_of (memory, "cached_kib");
  g_autofree char *swap = size_of (memory, "swap_used_kib");
  g_autofree char *unattributed = size_of (nvmap, "unattributed_kib");
  g_autofree char *unexplained = size_of (accounting, "unexplained_kib");
  g_autofree char *nvmap_error = jmem_json_member_string (nvmap, "error");
  g_autofree char *label = NULL;
  GString *out = g_string_new (NULL);

  g_string_append_printf (out, "\nmemory: used %s, page cache %s, swap used %s; unexplained by the "
                          "accounting %s", used, cached, swap, unexplained);
  if (nvmap_error != NULL)
    g_string_append_printf (out, "\nNvMap: not read: %s", nvmap_error);
  else
    g_string_append_printf (out, "\nNvMap: %u clients; held by no process %s",
                            length (jmem_json_member_array (nvmap, "clients")), unattributed);
  if (headroom != NULL)
    {
      g_string_append (out, "\nheadroom: ");
      append_headroom (out, headroom);
    }
  label = g_strdup_printf ("largest of %" G_GINT64_FORMAT " processes (footprint)",
                           jmem_json_member_size (processes, "total"));
  append_processes (out, label, list, "footprint_kib");
  append_findings (out, jmem_json_member_array (doc, "findings"));
  g_string_append_printf (out, "\nwarnings (sources not read): %u",
                          length (jmem_json_member_array (doc, "warnings")));
  return g_string_free (out, FALSE);
}

static char *
triage_summary (JsonObject *doc)
{
  JsonArray *findings = jmem_json_member_array (doc, "findings");
  GString *out = g_string_new (NULL);

  append_findings_count (out, findings);
  out->str[0] = g_ascii_toupper (out->str[0]);
  for (guint i = 0; i < length (findings); i++)
    {
      g_autofree char *id = jmem_json_member_string (entry (findings, i), "id");

      g_string_append_printf (out, "%s%s", i == 0 ? ": " : ", ", id);
    }
  g_string_append_c (out, '.');
  return g_string_free (out, FALSE);
}

static char *
triage_text (JsonObject *doc)
{
  GString *out = g_string_new (NULL);

  append_findings (out, jmem_json_member_array (doc, "findings"));
  return g_string_free (out, FALSE);
}

static char *
headroom_summary (JsonObject *doc)
{
  JsonObject *h = jmem_json_member_object (doc, "headroom");
  g_autofree char *verdict = jmem_json_member_string (h, "verdict");
  g_autofree char *need = size_of (h, "need_kib");
  GString *out = g_string_new (NULL);

  if (verdict != NULL)
    g_string_append_printf (out, "%s for %s: ", verdict, need);
  append_headroom (out, h);
  g_string_append_c (out, '.');
  out->str[0] = g_ascii_toupper (out->str[0]);
  return g_string_free (out, FALSE);
}

static char *
headroom_text (JsonObject *doc)
{
  JsonObject *h = jmem_json_member_object (doc, "headroom");
  JsonArray *actions = jmem_json_member_array (h, "actions");
  JsonArray *holders = jmem_json_member_array (h, "holders");
  JsonArray *notes = jmem_json_member_array (h, "notes");
  g_autofree char *shortfall = size_of (h, "shortfall_kib");
  g_autofree char *drop = size_of (h, "drop_caches_kib");
  GString *out = g_string_new (NULL);

  g_string_append_printf (out, "\nshortfall %s; dropping caches would give %s", shortfall, drop);
  for (guint i = 0; i < length (actions); i++)
    {
      g_autofree char *action = message_of (entry (actions, i), "action");

      g_string_append_printf (out, "\n- to do%s: %s", jmem_json_member_true (entry (actions, i), "admin") ?
                              " (an administrator's step)" : "", action);
    }
  append_processes (out, "largest holders (footprint)", holders, "footprint_kib");
  for (guint i = 0; i < length (notes); i++)
    {
      JsonNode *n = json_array_get_element (notes, i);

      if (JSON_NODE_HOLDS_VALUE (n) && json_node_get_value_type (n) == G_TYPE_STRING)
        g_string_append_printf (out, "\nnote: %s", json_node_get_string (n));
    }
  return g_string_free (out, FALSE);
}

static char *
allocations_summary (JsonObject *doc)
{
  JsonObject *totals = jmem_json_member_object (doc, "totals");
  JsonArray *by_process = jmem_json_member_array (totals, "by_process");
  JsonArray *by_tag = jmem_json_member_array (totals, "by_tag");
  g_autofree char *size = size_of (totals, "size_kib");
  GString *out = g_string_new (NULL);

  g_string_append_printf (out, "%" G_GINT64_FORMAT " NvMap handles, %s",
                          jmem_json_member_size (totals, "handles"), size);
  if (length (by_process) > 0)
    {
      JsonObject *p = entry (by_process, 0);

      g_string_append (out, "; largest holder ");
      append_process (out, p, "size_kib");
      g_string_append_printf (out, " in %" G_GINT64_FORMAT " handles",
                              jmem_json_member_size (p, "handles"));
    }
  if (length (by_tag) > 0)
    {
      g_autofree char *tag = jmem_json_member_string (entry (by_tag, 0), "tag");
      g_autofree char *tag_size = size_of (entry (by_tag, 0), "size_kib");

      g_string_append_printf (out, "; largest tag %s %s", tag != NULL ? tag : "(none)", tag_size);
    }
  g_string_append_c (out, '.');
  return g_string_free (out, FALSE);
}

static char *
allocations_text (JsonObject *doc)
{
  JsonObject *totals = jmem_json_member_object (doc, "totals");
  JsonArray *by_process = jmem_json_member_array (totals, "by_process");
  JsonArray *by_tag = jmem_json_member_array (totals, "by_tag");
  JsonArray *clients = jmem_json_member_array (doc, "clients");
  guint shown = 0;
  GString *out = g_string_new (NULL);

  for (guint i = 0; i < length (clients); i++)
    shown += length (jmem_json_member_array (entry (clients, i), "handles"));
  append_processes (out, "by process", by_process, "size_kib");
  g_string_append_printf (out, "\nby tag:");
  for (guint i = 0; i < MIN (length (by_tag), BRIEF_ENTRIES); i++)
    {
      g_autofree char *tag = jmem_json_member_string (entry (by_tag, i), "tag");
      g_autofree char *size = size_of (entry (by_tag, i), "size_kib");

      g_string_append_printf (out, "%s%s %s", i > 0 ? ", " : " ", tag != NULL ? tag : "(none)", size);
    }
  g_string_append_printf (out, "\nhandles listed: %u, the largest; not listed: %" G_GINT64_FORMAT,
                          shown, jmem_json_member_size (jmem_json_member_object (doc, "omitted"),
                                                        "handles"));
  return g_string_free (out, FALSE);
}

/* The row of @field in a diff's "system" list. */
static JsonObject *
system_row (JsonArray *system, const char *field)
{
  for (guint i = 0; i < length (system); i++)
    {
      g_autofree char *name = jmem_json_member_string (entry (system, i), "field");

      if (g_strcmp0 (name, field) == 0)
        return entry (system, i);
    }
  return NULL;
}

/* "MemAvailable 40.3 GiB -> 52.0 GiB (+11.7 GiB)" for the rows of @system. */
static void
append_system (GString *out, JsonArray *system, const char * const *fields)
{
  for (gsize i = 0; fields[i] != NULL; i++)
    {
      JsonObject *row = system_row (system, fields[i]);
      g_autofree char *before = size_of (row, "before_kib");
      g_autofree char *after = size_of (row, "after_kib");
      g_autofree char *delta = delta_of (row, "delta_kib");

      if (row != NULL)
        g_string_append_printf (out, "\n%s %s -> %s (%s)", fields[i], before, after, delta);
    }
}

static char *
drop_caches_summary (JsonObject *doc)
{
  JsonObject *available = system_row (jmem_json_member_array (doc, "system"), "MemAvailable");
  g_autofree char *delta = delta_of (available, "delta_kib");
  g_autofree char *after = size_of (available, "after_kib");

  return g_strdup_printf ("Caches dropped at level %" G_GINT64_FORMAT "%s: MemAvailable %s, now %s.",
                          jmem_json_member_size (doc, "level"),
                          jmem_json_member_true (doc, "compact") ? " and memory compacted" : "",
                          delta, after);
}

static char *
drop_caches_text (JsonObject *doc)
{
  static const char * const fields[] = { "MemFree", "MemAvailable", "Cached", "NvMapTotal", NULL };
  GString *out = g_string_new (NULL);

  append_system (out, jmem_json_member_array (doc, "system"), fields);
  return g_string_free (out, FALSE);
}

static char *
audit_summary (JsonObject *doc)
{
  JsonObject *diff = jmem_json_member_object (doc, "diff");
  JsonObject *reclaim = jmem_json_member_object (diff, "reclaim");
  JsonObject *processes = jmem_json_member_object (diff, "processes");
  JsonObject *drop = jmem_json_member_object (doc, "drop");
  g_autofree char *gained = delta_of (reclaim, "available_gained_kib");
  g_autofree char *released = size_of (reclaim, "cache_released_kib");
  g_autofree char *nvmap = size_of (reclaim, "nvmap_released_kib");
  g_autofree char *how = drop != NULL ?
    g_strdup_printf ("caches dropped at level %" G_GINT64_FORMAT, jmem_json_member_size (drop, "level")) :
    g_strdup_printf ("%" G_GINT64_FORMAT " s apart, nothing dropped",
                     jmem_json_member_size (diff, "interval_s"));

  return g_strdup_printf ("Audit, %s: MemAvailable %s, cache released %s, NvMap released %s; %u "
                          "processes changed, %u appeared, %u exited.", how, gained, released, nvmap,
                          length (jmem_json_member_array (processes, "changed")),
                          length (jmem_json_member_array (processes, "appeared")),
                          length (jmem_json_member_array (processes, "exited")));
}

static char *
audit_text (JsonObject *doc)
{
  static const char * const fields[] = { "MemAvailable", "Cached", "NvMapTotal", "GpuUsed", NULL };
  JsonObject *diff = jmem_json_member_object (doc, "diff");
  JsonArray *changed = jmem_json_member_array (jmem_json_member_object (diff, "processes"), "changed");
  GString *out = g_string_new (NULL);

  append_system (out, jmem_json_member_array (diff, "system"), fields);
  if (length (changed) > 0)
    g_string_append (out, "\nlargest changes:");
  for (guint i = 0; i < MIN (length (changed), BRIEF_ENTRIES); i++)
    {
      JsonObject *c = entry (changed, i);
      g_autofree char *name = jmem_json_member_string (c, "name");
      g_autofree char *delta = delta_of (c, "change_kib");

      g_string_append_printf (out, "%s%s (PID %" G_GINT64_FORMAT ") %s", i > 0 ? ", " : " ",
                              name, jmem_json_member_size (c, "pid"), delta);
    }
  return g_string_free (out, FALSE);
}

static const struct {
  const char *tool;
  BriefFunc   summary, text;
} briefs[] = {
  { "snapshot", snapshot_summary, snapshot_text },
  { "triage", triage_summary, triage_text },
  { "headroom", headroom_summary, headroom_text },
  { "allocations", allocations_summary, allocations_text },
  { "drop_caches", drop_caches_summary, drop_caches_text },
  { "audit", audit_summary, audit_text },
};

char *
jmem_mcp_brief_summary (const char *tool,
                        JsonObject *doc)
{
  for (gsize i = 0; i < G_N_ELEMENTS (briefs); i++)
    if (g_str_equal (briefs[i].tool, tool))
      return briefs[i].summary (doc);
  g_return_val_if_reached (NULL);
}

/* What "cut" says was shortened, on one line. */
static void
append_cut (GString *out, JsonObject *cut)
{
  JsonArray *lists = jmem_json_member_array (cut, "lists");
  gint64 strings = jmem_json_member_size (cut, "strings");

  if (cut == NULL)
    return;
  g_string_append_printf (out, "\nshortened to %" G_GINT64_FORMAT " bytes (cut):",
                          jmem_json_member_size (cut, "limit_bytes"));
  for (guint i = 0; i < length (lists); i++)
    {
      JsonObject *l = entry (lists, i);
      g_autofree char *name = jmem_json_member_string (l, "list");

      g_string_append_printf (out, "%s%s %" G_GINT64_FORMAT " of %" G_GINT64_FORMAT,
                              i > 0 ? ", " : " ", name, jmem_json_member_size (l, "kept"),
                              jmem_json_member_size (l, "total"));
    }
  if (strings > 0)
    g_string_append_printf (out, "%s%" G_GINT64_FORMAT " strings", length (lists) > 0 ? "; " : " ",
                            strings);
}

char *
jmem_mcp_brief_figures (const char *tool,
                        JsonObject *doc)
{
  for (gsize i = 0; i < G_N_ELEMENTS (briefs); i++)
    if (g_str_equal (briefs[i].tool, tool))
      return briefs[i].text (doc);
  g_return_val_if_reached (NULL);
}

char *
jmem_mcp_brief_text (JsonObject *doc,
                     const char *figures)
{
  g_autofree char *summary = jmem_json_member_string (doc, "summary");
  GString *out = g_string_new (summary);

  if (figures != NULL)
    g_string_append (out, figures);
  append_cut (out, jmem_json_member_object (doc, "cut"));
  return g_string_free (out, FALSE);
}
