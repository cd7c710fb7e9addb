/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What each account pins with the snapshot descriptors it was given. A
 * snapshot's memory (Shmem) stays while any descriptor or mapping of its
 * memfd is open, in the caller's hands: without a bound, one account that
 * keeps them could pin 32 MiB a call. Each uid gets a memfd of its own for
 * a snapshot (the one read, or a copy when another uid has it), watched
 * with inotify, which says when its last descriptor is gone; the uid's
 * count goes down then. A call that would take a uid past its bound is
 * refused with JMEM_ERROR_RATE_LIMITED until it closes some. Thread-safe;
 * the watch is read on the default main context. */
#pragma once

#include <glib.h>

#include "jmem-helper-snapshot.h"
#include "jmem-names.h"

G_BEGIN_DECLS

/* Three snapshots of the largest debugfs file the helper reads. */
#define JMEM_SNAPSHOT_PINS_MAX_PER_UID (3 * (guint64) JMEM_MAX_DEBUGFS_BYTES)

typedef struct _JmemSnapshotPins JmemSnapshotPins;

/* Each uid may pin @max_per_uid bytes of snapshots at most. */
JmemSnapshotPins *jmem_snapshot_pins_new (guint64   max_per_uid,
                                          GError  **error);
void jmem_snapshot_pins_free (JmemSnapshotPins *pins);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (JmemSnapshotPins, jmem_snapshot_pins_free)

/* A read-only descriptor of @snapshot for @uid, counted against its bound;
 * another of a memfd @uid already pins costs nothing more. */
int jmem_snapshot_pins_open (JmemSnapshotPins  *pins,
                             JmemSealedFile    *snapshot,
                             gint64             uid,
                             GError           **error);

/* The bytes @uid pins now (as far as the watch has said). */
guint64 jmem_snapshot_pins_bytes (JmemSnapshotPins *pins,
                                  gint64            uid);

/* Whether any snapshot handed out is still held: a new instance of the
 * helper would not know what it pins. */
gboolean jmem_snapshot_pins_any (JmemSnapshotPins *pins);

G_END_DECLS
