/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "jmem-ops-audit.h"
#include "jmem-ops-private.h"

#include "jmem-client-error.h"
#include "jmem-ops-snapshot.h"
#include "jmem-snapshot-json.h"

static JsonNode *
collect_json (const char *when, gboolean interactive, JmemCollectBoot *boot, JmemSnapshot **out,
              GError **error)
{
  JmemOpsSnapshotOptions options = { .top = -1, .allow_interactive = interactive, .boot = boot };
  g_autoptr(GError) local = NULL;
  JmemSnapshot *s = jmem_ops_snapshot (&options, &local);

  if (s == NULL)
    {
      /* its own code: a refused drop keeps the helper's */
      g_set_error (error, JMEM_CLIENT_ERROR, JMEM_CLIENT_ERROR_SNAPSHOT_FAILED,
                   "the snapshot %s could not be taken: %s", when, local->message);
      return NULL;
    }
  *out = s;
  return jmem_snapshot_to_json (s);
}

/* Keeps the @top largest processes of @s for output (the diff saw them all). */
static JsonNode *
trimmed_json (JmemSnapshot *s, int top)
{
  if (top >= 0 && s->processes != NULL && s->processes->len > (guint) top)
    g_ptr_array_remove_range (s->processes, (guint) top, s->processes->len - (guint) top);
  return jmem_snapshot_to_json (s);
}

/* Sleeps @seconds, or less when @cancellable is cancelled: FALSE then. */
static gboolean
wait_cancellable (guint seconds, GCancellable *cancellable, GError **error)
{
  gint64 end = g_get_monotonic_time () + (gint64) seconds * G_USEC_PER_SEC;
  GPollFD poll_fd = { 0 };
  gboolean pollable = cancellable != NULL && g_cancellable_make_pollfd (cancellable, &poll_fd);

  for (;;)
    {
      gint64 left = end - g_get_monotonic_time ();

      if (left <= 0 || g_cancellable_is_cancelled (cancellable))
        break;
      if (pollable)
        g_poll (&poll_fd, 1, (gint) MIN ((left + 999) / 1000, G_MAXINT));
      else
        g_usleep ((gulong) left);
    }
  if (pollable)
    g_cancellable_release_fd (cancellable);
  return !g_cancellable_set_error_if_cancelled (cancellable, error);
}

JsonNode *
jmem_ops_audit (const JmemOpsAuditOptions *options,
                GError                   **error)
{
  g_autoptr(JmemSnapshot) sb = NULL;
  g_autoptr(JmemSnapshot) sa = NULL;
  g_autoptr(JsonNode) before = NULL;
  g_autoptr(JsonNode) after = NULL;
  g_autoptr(GVariant) result = NULL;
  g_autoptr(JsonBuilder) b = json_builder_new ();

  if (!options->no_drop && !jmem_ops_start_helper (error))
    return NULL;
  before = collect_json ("before", options->allow_interactive, options->boot, &sb, error);
  if (before == NULL)
    return NULL;
  if (options->no_drop)
    {
      if (!wait_cancellable (options->wait_seconds, options->cancellable, error))
        return NULL;
    }
  else if (g_cancellable_set_error_if_cancelled (options->cancellable, error) ||
           !jmem_ops_call_drop_caches (options->level, options->compact, options->allow_interactive,
                                       &result, error))
    return NULL;
  if (g_cancellable_set_error_if_cancelled (options->cancellable, error))
    return NULL;
  after = collect_json ("after", options->allow_interactive, options->boot, &sa, error);
  if (after == NULL)
    return NULL;

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "schema");
  json_builder_add_string_value (b, "jmem-audit");
  json_builder_set_member_name (b, "schema_version");
  /* 2: its snapshots are of version 3 (every action says admin) */
  json_builder_add_int_value (b, 2);
  jmem_ops_add_container_json (b, options->container);
  json_builder_set_member_name (b, "before");
  json_builder_add_value (b, trimmed_json (sb, options->top));
  json_builder_set_member_name (b, "after");
  json_builder_add_value (b, trimmed_json (sa, options->top));
  json_builder_set_member_name (b, "drop");
  if (options->no_drop)
    json_builder_add_null_value (b);
  else
    {
      json_builder_begin_object (b);
      jmem_ops_add_drop_json (b, (int) options->level, options->compact, result);
      json_builder_end_object (b);
    }
  json_builder_set_member_name (b, "diff");
  json_builder_add_value (b, jmem_diff_snapshots (before, after, options->diff_flags));
  json_builder_end_object (b);
  return json_builder_get_root (b);
}

