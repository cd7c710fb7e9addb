/* SPDX-License-Identifier: GPL-2.0-or-later */
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

/* Authorization checks pending at once, applied per account first: beyond
 * its 16 a uid's call is refused at once with dev.jmem.Error.RateLimited.
 * The pools bound the rest, except that a uid with no call pending is
 * always let in, so that however many accounts fill them, each still gets
 * its turn. Checks that allow interaction have a pool of their own: only
 * they can wait minutes (for a password, or for an authentication agent
 * that never answers), and they hold none of the places below.
 *
 * Non-interactive checks wait in one queue per uid for one of a few places
 * at polkit (which answers one check after another): a uid whose call came
 * while it had none there goes first, the others take turns, one check
 * each. However many calls other accounts have queued, a member's call
 * thus waits for about one of theirs, not for all of them. */
#define JMEM_POLKIT_MAX_PENDING_PER_UID     16   /* both kinds */
#define JMEM_POLKIT_MAX_PENDING             128  /* non-interactive, all uids */
#define JMEM_POLKIT_MAX_PENDING_INTERACTIVE 32   /* interactive, all uids */
#define JMEM_POLKIT_MAX_RUNNING             2    /* non-interactive at polkit at once */

/* How long polkit may take before the call is refused (interactive calls
 * get longer: a person may be typing a password), and the limits above; a
 * limit of 0 takes the default. */
typedef struct {
  guint timeout_s;
  guint interactive_timeout_s;
  guint max_pending_per_uid;
  guint max_pending;
  guint max_pending_interactive;
  guint max_running;
} JmemPolkitGateConfig;

typedef struct _JmemPolkitGate JmemPolkitGate;

/* Exports @skeleton's interface at @path on @bus behind the gate: each call
 * is checked asynchronously on the thread-default main context, and only an
 * authorized one reaches the skeleton's handle-* handlers, which then run in
 * a worker thread. Every call is counted in @activity until it is answered.
 * A call that carries file descriptors is refused before anything else (no
 * method takes one, and a pending call would hold them). Refusals are
 * logged through a JmemRefusalLog; @config is copied. */
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
