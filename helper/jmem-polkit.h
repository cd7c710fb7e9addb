/* The helper's one authorization gate: every method call is mapped to a
 * polkit action and asked about; anything not in the table is refused. */
#pragma once

#include <gio/gio.h>

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

/* How long polkit may take before the call is refused. Interactive calls get
 * longer: a person may be typing a password. */
typedef struct {
  guint timeout_s;
  guint interactive_timeout_s;
} JmemPolkitGateConfig;

/* Connects the g-authorize-method handler; @config is copied. */
void jmem_polkit_gate_attach (GDBusInterfaceSkeleton     *skeleton,
                              const JmemPolkitGateConfig *config);

/* The caller's uid as the gate looked it up from the bus, or -1. */
gint64 jmem_polkit_caller_uid (GDBusMethodInvocation *invocation);

G_END_DECLS
