/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The human view of the RAM accounting: the "Where the RAM is" section of
 * `jmem snapshot`. */
#pragma once

#include <glib.h>

#include "jmem-snapshot.h"

G_BEGIN_DECLS

/* Appends the section; @width as jmem-output-table.h uses it (0: nothing cut,
 * the bars then as on an 80-column terminal). */
void jmem_output_human_accounting (GString            *out,
                                   const JmemSnapshot *snapshot,
                                   gboolean            color,
                                   guint               width);

G_END_DECLS
