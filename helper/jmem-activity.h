/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The helper's idle accounting: how many calls are unanswered and when the
 * last one arrived or was answered, so that it exits only when nobody is
 * waiting for it. It counts method invocations, not wire messages: a
 * Peer.Ping or an Introspect neither counts nor keeps the helper running. */
#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

typedef struct _JmemActivity JmemActivity;

JmemActivity *jmem_activity_new (void);
JmemActivity *jmem_activity_ref (JmemActivity *activity);
void jmem_activity_unref (JmemActivity *activity);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (JmemActivity, jmem_activity_unref)

/* Counts @call (a GDBusMethodInvocation) from now until it is finalized,
 * which happens once its reply has been sent, whoever sent it and in
 * whichever thread. */
void jmem_activity_hold (JmemActivity *activity,
                         GObject      *call);

/* Calls held and not yet finalized. Thread-safe, as is everything here. */
guint jmem_activity_in_flight (JmemActivity *activity);

/* Whether no call is held and none arrived or ended within @quiet_us of
 * @now_us (monotonic). */
gboolean jmem_activity_idle (JmemActivity *activity,
                             gint64        now_us,
                             gint64        quiet_us);

G_END_DECLS
