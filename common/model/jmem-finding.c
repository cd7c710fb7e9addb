/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Findings as data: made by the rules, carried by the snapshot, written as
 * JSON for every face. */
#include "jmem-finding.h"

#include <math.h>

const char *
jmem_severity_to_string (JmemSeverity severity)
{
  switch (severity)
    {
    case JMEM_SEVERITY_INFO:
      return "info";
    case JMEM_SEVERITY_WARNING:
      return "warning";
    case JMEM_SEVERITY_CRITICAL:
      return "critical";
    default:
      return "unknown";
    }
}

static void
number_free (JmemFindingNumber *n)
{
  g_free (n->name);
  g_free (n->unit);
  g_free (n);
}

JmemFinding *
jmem_finding_new (const char  *id,
                  JmemSeverity severity,
                  JmemActionBy by,
                  const char  *action,
                  const char  *message)
{
  JmemFinding *f = g_new0 (JmemFinding, 1);

  f->id = g_strdup (id);
  f->severity = severity;
  f->message = g_strdup (message);
  f->action = g_strdup (action);
  f->admin = by == JMEM_ACTION_ADMIN;
  f->numbers = g_ptr_array_new_with_free_func ((GDestroyNotify) number_free);
  return f;
}

void
jmem_finding_free (JmemFinding *f)
{
  if (f == NULL)
    return;
  g_free (f->id);
  g_free (f->message);
  g_free (f->action);
  g_clear_pointer (&f->numbers, g_ptr_array_unref);
  g_free (f);
}

void
jmem_finding_add_number (JmemFinding *finding,
                         const char  *name,
                         double       value,
                         const char  *unit)
{
  JmemFindingNumber *n = g_new0 (JmemFindingNumber, 1);

  n->name = g_strdup (name);
  n->value = value;
  n->unit = g_strdup (unit);
  g_ptr_array_add (finding->numbers, n);
}

double
jmem_finding_get_number (const JmemFinding *finding, const char *name)
{
  for (guint i = 0; finding->numbers != NULL && i < finding->numbers->len; i++)
    {
      const JmemFindingNumber *n = g_ptr_array_index (finding->numbers, i);

      if (g_str_equal (n->name, name))
        return n->value;
    }
  return NAN;
}

JsonNode *
jmem_findings_to_json (GPtrArray *findings)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();

  json_builder_begin_array (b);
  for (guint i = 0; findings != NULL && i < findings->len; i++)
    {
      const JmemFinding *f = g_ptr_array_index (findings, i);

      json_builder_begin_object (b);
      json_builder_set_member_name (b, "id");
      json_builder_add_string_value (b, f->id);
      json_builder_set_member_name (b, "severity");
      json_builder_add_string_value (b, jmem_severity_to_string (f->severity));
      json_builder_set_member_name (b, "message");
      json_builder_add_string_value (b, f->message);
      json_builder_set_member_name (b, "numbers");
      json_builder_begin_object (b);
      for (guint j = 0; j < f->numbers->len; j++)
        {
          const JmemFindingNumber *n = g_ptr_array_index (f->numbers, j);

          json_builder_set_member_name (b, n->name);
          json_builder_begin_object (b);
          json_builder_set_member_name (b, "value");
          if (!isfinite (n->value))
            json_builder_add_null_value (b);
          else if (n->value > -9007199254740992.0 && n->value < 9007199254740992.0 &&
                   n->value == (double) (gint64) n->value)
            json_builder_add_int_value (b, (gint64) n->value);
          else
            json_builder_add_double_value (b, n->value);
          json_builder_set_member_name (b, "unit");
          json_builder_add_string_value (b, n->unit);
          json_builder_end_object (b);
        }
      json_builder_end_object (b);
      json_builder_set_member_name (b, "action");
      json_builder_add_string_value (b, f->action);
      json_builder_set_member_name (b, "admin");
      json_builder_add_boolean_value (b, f->admin);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  return json_builder_get_root (b);
}
