/* The helper's one authorization gate: every method call is mapped to a
 * polkit action and asked about; anything not in the table is refused. */
#pragma once

#include <gio/gio.h>

#include "jmem-activity.h"

G_BEGIN_DECLS

typedef enum {
  JMEM_GATE_DENY,    /* not in the table */
  JMEM_GATE_ALLOW,   /* reading the Version/Features properties */
  JMEM_GATE_POLKIT,  /* ask polkit about the action */
} JmemGateKind;

/* How a call of @interface.@method is decided; *action gets the polkit
 * action for JMEM_GATE_POLKIT, NULL otherwise. */
JmemGateKind jmem_polkit_gate_lookup (const char  *interface,
                                      const char  *method,
                                      const char **action);

/* Authorization checks pending at once: beyond these a call is refused at
 * once with dev.jmem.Error.RateLimited, so that no caller can use up what
 * the others need. */
#define JMEM_POLKIT_MAX_PENDING_PER_UID 16
#define JMEM_POLKIT_MAX_PENDING         128

/* How long polkit may take before the call is refused. Interactive calls get
 * longer: a person may be typing a password. */
typedef struct {
  guint timeout_s;
  guint interactive_timeout_s;
} JmemPolkitGateConfig;

typedef struct _JmemPolkitGate JmemPolkitGate;

/* Exports @skeleton's interface at @path on @bus behind the gate: each call
 * is checked asynchronously on the thread-default main context, and only an
 * authorized one reaches the skeleton's handle-* handlers, which then run in
 * a worker thread. Every call is counted in @activity until it is answered.
 * @config is copied. */
JmemPolkitGate *jmem_polkit_gate_export (GDBusInterfaceSkeleton     *skeleton,
                                         GDBusConnection            *bus,
                                         const char                 *path,
                                         const JmemPolkitGateConfig *config,
                                         JmemActivity               *activity,
                                         GError                    **error);

/* Unexports, cancels the checks still pending (their callers get an error)
 * and frees the gate. */
void jmem_polkit_gate_free (JmemPolkitGate *gate);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (JmemPolkitGate, jmem_polkit_gate_free)

/* The caller's uid as the gate looked it up from the bus, or -1. */
gint64 jmem_polkit_caller_uid (GDBusMethodInvocation *invocation);

G_END_DECLS
