/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "jmem-ops-triage.h"

#include "jmem-config.h"
#include "jmem-history.h"
#include "jmem-ops-snapshot.h"
#include "jmem-triage.h"
#include "jmem-triage-history.h"

#define JMEM_TRIAGE_SCHEMA_NAME "jmem-triage"
#define JMEM_TRIAGE_SCHEMA_VERSION 1

JsonNode *
jmem_ops_triage_json (GPtrArray *findings)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "schema");
  json_builder_add_string_value (b, JMEM_TRIAGE_SCHEMA_NAME);
  json_builder_set_member_name (b, "schema_version");
  json_builder_add_int_value (b, JMEM_TRIAGE_SCHEMA_VERSION);
  json_builder_set_member_name (b, "findings");
  json_builder_add_value (b, jmem_findings_to_json (findings));
  json_builder_end_object (b);
  return json_builder_get_root (b);
}

JmemSnapshot *
jmem_ops_triage (const JmemOpsTriageOptions *options,
                 GError                    **error)
{
  JmemOpsSnapshotOptions snapshot_options = { 0 };
  JmemSnapshot *snapshot;

  snapshot_options.sysroot = options->sysroot;
  snapshot_options.top = 0;  /* triage sees every process before the list is cut */
  snapshot_options.tegrastats_seconds = options->tegrastats_seconds;
  snapshot_options.recorded_tegrastats = TRUE;
  snapshot_options.allow_interactive = options->allow_interactive;
  snapshot_options.boot = options->boot;

  snapshot = jmem_ops_snapshot (&snapshot_options, error);
  if (snapshot != NULL && snapshot->findings == NULL)
    snapshot->findings = jmem_triage_run (snapshot);
  return snapshot;
}

const char *
jmem_ops_default_history (void)
{
  const char *path = g_getenv ("JMEM_HISTORY");

  return path != NULL && *path != '\0' ? path : JMEM_HISTORY_DEFAULT_PATH;
}

GPtrArray *
jmem_ops_triage_history (const char *path,
                         gint64      need_kib,
                         GPtrArray  *warnings,
                         guint      *n_samples,
                         GError    **error)
{
  g_autoptr(JmemTriageHistory) history = jmem_triage_history_read (path, warnings, error);

  if (history == NULL)
    return NULL;
  *n_samples = jmem_triage_history_get_n_samples (history);
  jmem_triage_history_set_need (history, need_kib);
  return jmem_triage_history_run (history);
}
