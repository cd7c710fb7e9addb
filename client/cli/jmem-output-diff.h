/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The comparison of two snapshots (common/rules/jmem-diff.h) for people: MiB, the
 * largest changes first, names made safe for a terminal. */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* A before/after/change table of the system rows of a diff (a JSON array as
 * jmem_diff_system returns). */
void jmem_output_diff_system (JsonArray *rows,
                              GString   *out);

/* The whole diff; @top limits each process list (< 0: no limit); @dropped:
 * caches were dropped between the two (jmem audit), so what came back was
 * reclaimed; @width: the columns to fit (0: whole lines). */
void jmem_output_diff_human (JsonNode *diff,
                             int       top,
                             gboolean  dropped,
                             guint     width,
                             GString  *out);

G_END_DECLS
