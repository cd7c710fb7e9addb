/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "jmem-ops-headroom.h"
#include "jmem-ops-private.h"

#include "jmem-client-error.h"
#include "jmem-collect.h"
#include "jmem-error.h"
#include "jmem-ops-snapshot.h"
#include "jmem-snapshot-gates.h"
#include "jmem-snapshot-json.h"
#include "jmem-text.h"

/* What a drop frees, page cache and dentries and inodes both. */
#define DROP_LEVEL 3

void
jmem_ops_headroom_free (JmemOpsHeadroom *r)
{
  if (r == NULL)
    return;
  g_clear_pointer (&r->snapshot, jmem_snapshot_free);
  g_clear_pointer (&r->headroom, jmem_headroom_free);
  g_clear_pointer (&r->before, jmem_headroom_free);
  g_free (r->drop_reason);
  g_clear_pointer (&r->drop_result, g_variant_unref);
  g_free (r->container);
  g_clear_pointer (&r->gates, g_ptr_array_unref);
  g_free (r);
}

static JmemSnapshot *
take_snapshot (const JmemOpsHeadroomOptions *o, GError **error)
{
  JmemOpsSnapshotOptions options = {
    .sysroot = o->sysroot,
    .top = JMEM_COLLECT_DEFAULT_TOP,
    .allow_interactive = o->allow_interactive,
    .boot = o->boot,
  };

  return jmem_ops_snapshot (&options, error);
}

/* Drops caches only where the page cache, slab and GPU pool they free make the need
 * fit: not when it fits already, nor when even they would not do. */
static char *
drop_decision (const JmemHeadroom *h, gboolean *drop)
{
  g_autofree char *freed = jmem_text_size (h->drop_caches_kib);

  *drop = FALSE;
  switch (h->verdict)
    {
    case JMEM_HEADROOM_FITS_NOW:
      return g_strdup ("it fits now: nothing to drop");
    case JMEM_HEADROOM_DOES_NOT_FIT:
      return g_strdup ("it does not fit even after reclaim: dropping caches would not make it fit");
    case JMEM_HEADROOM_FITS_AFTER_RECLAIM:
      if (h->allocatable_now_kib + h->drop_caches_kib < h->need_kib)
        return g_strdup_printf ("the %s hold up to %s, not enough: the rest "
                                "would have to come from swap", jmem_headroom_drop_caches_what (h), freed);
      *drop = TRUE;
      return g_strdup_printf ("the %s held up to %s, enough to make it fit",
                              jmem_headroom_drop_caches_what (h), freed);
    case JMEM_HEADROOM_UNKNOWN:
    case JMEM_HEADROOM_NO_NEED:
      break;
    }
  return g_strdup ("the headroom is unknown: nothing to decide a drop by");
}

static JmemOpsHeadroom *read_headroom (const JmemOpsHeadroomOptions *o, GError **error);

JmemOpsHeadroom *
jmem_ops_headroom (const JmemOpsHeadroomOptions *o,
                   GError                      **error)
{
  JmemGateId gate = JMEM_GATE_N;
  JmemOpsHeadroom *r;

  if (o->framework != NULL && !jmem_gate_from_name (o->framework, &gate))
    {
      g_set_error (error, JMEM_ERROR, JMEM_ERROR_INVALID_ARGUMENT,
                   "no gate for \"%s\": the frameworks are %s", o->framework, jmem_gate_choices ());
      return NULL;
    }
  r = read_headroom (o, error);
  if (r == NULL)
    return NULL;
  /* of the reading the verdict is of: after a drop, the second */
  r->gate = gate;
  r->gates = jmem_snapshot_gates_new (r->snapshot, r->headroom, gate);
  return r;
}

static JmemOpsHeadroom *
read_headroom (const JmemOpsHeadroomOptions *o,
               GError                      **error)
{
  g_autoptr(JmemOpsHeadroom) r = g_new0 (JmemOpsHeadroom, 1);
  g_autoptr(GError) local = NULL;
  gboolean drop;

  if (o->drop && (o->need_kib < 0 || (o->sysroot != NULL && o->sysroot[0] != '\0' &&
                                      !g_str_equal (o->sysroot, "/"))))
    {
      g_set_error_literal (error, JMEM_ERROR, JMEM_ERROR_INVALID_ARGUMENT,
                           o->need_kib < 0 ? "a drop needs a need: it drops only what makes it fit"
                                           : "a capture's caches cannot be dropped");
      return NULL;
    }
  r->container = g_strdup (o->container);
  r->drop_asked = o->drop;
  /* a helper that cannot start fails the drop before any reading waits for it */
  if (o->drop && !jmem_ops_start_helper (error))
    return NULL;
  r->snapshot = take_snapshot (o, error);
  if (r->snapshot == NULL)
    return NULL;
  r->headroom = jmem_snapshot_headroom_new (r->snapshot, o->need_kib);
  if (!o->drop)
    return g_steal_pointer (&r);

  r->drop_reason = drop_decision (r->headroom, &drop);
  if (!drop)
    return g_steal_pointer (&r);
  if (!jmem_ops_call_drop_caches (DROP_LEVEL, FALSE, o->allow_interactive, &r->drop_result, error))
    return NULL;
  r->dropped = TRUE;
  r->before = g_steal_pointer (&r->headroom);
  g_clear_pointer (&r->snapshot, jmem_snapshot_free);
  r->snapshot = take_snapshot (o, &local);
  if (r->snapshot == NULL)
    {
      g_set_error (error, JMEM_CLIENT_ERROR, JMEM_CLIENT_ERROR_SNAPSHOT_FAILED,
                   "caches were dropped, but the reading after could not be taken: %s",
                   local->message);
      return NULL;
    }
  r->headroom = jmem_snapshot_headroom_new (r->snapshot, o->need_kib);
  return g_steal_pointer (&r);
}

int
jmem_ops_headroom_exit_status (const JmemOpsHeadroom *r)
{
  return jmem_headroom_exit_status (r->headroom->verdict);
}

JsonNode *
jmem_ops_headroom_json (const JmemOpsHeadroom *r)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  int status = jmem_ops_headroom_exit_status (r);

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "schema");
  json_builder_add_string_value (b, "jmem-headroom");
  json_builder_set_member_name (b, "schema_version");
  /* 2: each of headroom.actions is an object saying admin; 3: gates */
  json_builder_add_int_value (b, 3);
  json_builder_set_member_name (b, "exit_status");
  if (status >= 0)
    json_builder_add_int_value (b, status);
  else
    json_builder_add_null_value (b);
  json_builder_set_member_name (b, "headroom");
  json_builder_add_value (b, jmem_headroom_to_json (r->headroom));
  json_builder_set_member_name (b, "drop");
  if (!r->drop_asked)
    json_builder_add_null_value (b);
  else
    {
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "dropped");
      json_builder_add_boolean_value (b, r->dropped);
      json_builder_set_member_name (b, "reason");
      json_builder_add_string_value (b, r->drop_reason);
      if (r->dropped)
        jmem_ops_add_drop_json (b, DROP_LEVEL, FALSE, r->drop_result);
      json_builder_set_member_name (b, "before");
      json_builder_add_value (b, jmem_headroom_to_json (r->before));
      json_builder_end_object (b);
    }
  jmem_ops_add_container_json (b, r->drop_asked ? r->container : NULL);
  json_builder_set_member_name (b, "for");
  if (r->gate < JMEM_GATE_N)
    json_builder_add_string_value (b, jmem_gate_name (r->gate));
  else
    json_builder_add_null_value (b);
  json_builder_set_member_name (b, "gates");
  json_builder_add_value (b, jmem_gates_to_json (r->gates));
  json_builder_end_object (b);
  return json_builder_get_root (b);
}
