/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A finding: what a rule concluded, as data every face renders (the
 * "findings" array of docs/snapshot.schema.json). The rules that make them
 * are on the floor above (rules/jmem-triage.h); the snapshot carries them. */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

typedef enum {
  JMEM_SEVERITY_INFO,
  JMEM_SEVERITY_WARNING,
  JMEM_SEVERITY_CRITICAL,
} JmemSeverity;

const char *jmem_severity_to_string (JmemSeverity severity);

typedef struct {
  char  *name;   /* "nvmap_total_kib", "percent_of_mem_total", ... */
  double value;  /* integral for KiB, counts and PIDs */
  char  *unit;   /* "KiB", "percent", "celsius", "count", "pid" */
} JmemFindingNumber;

/* Who can take a finding's action. An agent never runs a privileged
 * command itself: it relays an administrator's action to the person it
 * works for, as a step for an administrator (docs/triage.md). */
typedef enum {
  JMEM_ACTION_ANY_USER,  /* needs no privilege beyond the account's own */
  JMEM_ACTION_ADMIN,     /* some step needs an administrator: sudo, a system
                          * service, the boot configuration, a reboot, a group */
} JmemActionBy;

typedef struct {
  char        *id;       /* stable: "gpu-dominates", "nvmap-orphan", ... */
  JmemSeverity severity;
  char        *message;  /* one line, valid UTF-8 (names may need escaping on a terminal) */
  GPtrArray   *numbers;  /* JmemFindingNumber, the values that triggered it */
  char        *action;   /* what to do */
  gboolean     admin;    /* the action has a step for an administrator (JMEM_ACTION_ADMIN) */
} JmemFinding;

/* A finding with no numbers yet; @message is one line of valid UTF-8. */
JmemFinding *jmem_finding_new (const char  *id,
                               JmemSeverity severity,
                               JmemActionBy by,
                               const char  *action,
                               const char  *message);
void jmem_finding_free (JmemFinding *finding);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (JmemFinding, jmem_finding_free)

void jmem_finding_add_number (JmemFinding *finding,
                              const char  *name,
                              double       value,
                              const char  *unit);

/* The value of @finding's number @name, or NAN when it has none. */
double jmem_finding_get_number (const JmemFinding *finding, const char *name);

/* The "findings" array of docs/snapshot.schema.json. */
JsonNode *jmem_findings_to_json (GPtrArray *findings);

G_END_DECLS
