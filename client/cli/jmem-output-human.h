/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The human view of a snapshot: a terminal report, every attacker-controlled
 * string escaped so it cannot move the cursor or forge a row. */
#pragma once

#include <glib.h>

#include "jmem-snapshot.h"

G_BEGIN_DECLS

/* Appends the report to @out, fitted to the terminal on stdout (else
 * $COLUMNS, else 80 columns; not a terminal: nothing cut); ANSI colour only when @color. */
void jmem_output_human_snapshot (const JmemSnapshot *snapshot,
                                 GString            *out,
                                 gboolean            color);

/* The same for a fixed @width in columns (at least 60 is used; 0: nothing
 * cut). */
void jmem_output_human_snapshot_width (const JmemSnapshot *snapshot,
                                       GString            *out,
                                       gboolean            color,
                                       guint               width);

/* Only the triage findings (jmem triage): a "Findings" section, its lines
 * wrapped at @width (at least 60 is used; 0: whole lines). */
void jmem_output_human_findings (GPtrArray *findings,
                                 GString   *out,
                                 gboolean   color,
                                 guint      width);

G_END_DECLS
