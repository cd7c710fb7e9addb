/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The helper's audit trail: who asked for what, and what came of it. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Sends log records to the journal when stderr is connected to it (the
 * unit), to stderr otherwise (a bus without systemd, tests). */
void jmem_helper_log_init (void);

/* One structured record with JMEM_ACTION, JMEM_CALLER_UID (-1: unknown) and
 * JMEM_RESULT fields, and a MESSAGE that says the same for plain stderr.
 * Every string may hold a caller's text: each is escaped with
 * jmem_text_escape(), as the client's human output is, before it reaches a
 * field, so it stays on one line and cannot pass for another record. */
void jmem_helper_log_action (const char *action,
                             gint64      caller_uid,
                             const char *result,
                             const char *detail);

G_END_DECLS
