/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "jmem-snapshot-gates.h"

#include "jmem-action.h"

GPtrArray *
jmem_snapshot_gates_new (const JmemSnapshot *s,
                         const JmemHeadroom *headroom,
                         JmemGateId          only)
{
  JmemGatesInput in = {
    .headroom = headroom,
    .meminfo = s->meminfo,
    .generation = s->is_jetson && s->identity != NULL ? s->identity->generation : NULL,
    /* as the headroom judges it (jmem-snapshot-headroom.c) */
    .discrete_gpu = !s->is_jetson && s->gpus != NULL && s->gpus->len > 0,
  };

  return jmem_gates_compute (&in, only);
}

static void
add_string_or_null (JsonBuilder *b, const char *name, const char *value)
{
  json_builder_set_member_name (b, name);
  if (value != NULL)
    json_builder_add_string_value (b, value);
  else
    json_builder_add_null_value (b);
}

/* 1 true, 0 false, else null */
static void
add_tristate (JsonBuilder *b, const char *name, int value)
{
  json_builder_set_member_name (b, name);
  if (value >= 0)
    json_builder_add_boolean_value (b, value > 0);
  else
    json_builder_add_null_value (b);
}

JsonNode *
jmem_gates_to_json (GPtrArray *gates)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();

  json_builder_begin_array (b);
  for (guint i = 0; i < gates->len; i++)
    {
      const JmemGate *g = g_ptr_array_index (gates, i);

      json_builder_begin_object (b);
      add_string_or_null (b, "framework", g->framework);
      add_string_or_null (b, "reads", g->reads);
      json_builder_set_member_name (b, "kib");
      if (g->kib >= 0)
        json_builder_add_int_value (b, g->kib);
      else
        json_builder_add_null_value (b);
      add_string_or_null (b, "fields", g->fields);
      add_string_or_null (b, "note", g->note);
      json_builder_set_member_name (b, "approximated");
      json_builder_add_boolean_value (b, g->approximated);
      add_tristate (b, "fits", g->fits);
      add_tristate (b, "agrees", g->agrees);
      add_string_or_null (b, "source", g->source);
      json_builder_set_member_name (b, "actions");
      json_builder_begin_array (b);
      for (guint a = 0; a < g->actions->len; a++)
        {
          const char *action = g_ptr_array_index (g->actions, a);

          json_builder_begin_object (b);
          add_string_or_null (b, "action", action);
          json_builder_set_member_name (b, "admin");
          json_builder_add_boolean_value (b, jmem_action_is_admin (action));
          json_builder_end_object (b);
        }
      json_builder_end_array (b);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  return json_builder_get_root (b);
}
