/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The framework gates in `jmem headroom`: every gate in one table, or with
 * --for the one asked about, each with the number it reads, whether the
 * need fits by it, its source, and what closes a gap with jmem's verdict.
 * Every figure is the gates' (common/jmem-framework-gates.c). */
#pragma once

#include <glib.h>

#include "jmem-ops-headroom.h"

G_BEGIN_DECLS

/* Appends the gates of @headroom to @out, escaped for a terminal and
 * wrapped at @width columns (> 0). */
void jmem_output_gates_human (const JmemOpsHeadroom *headroom,
                              GString               *out,
                              guint                  width);

G_END_DECLS
