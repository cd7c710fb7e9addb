/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What `jmem headroom` prints: the verdict first, what makes room, then one
 * line per figure with what it is made of. Every figure is the headroom's
 * (common/model/jmem-headroom.c); nothing is recomputed. */
#pragma once

#include <glib.h>

#include "jmem-ops-headroom.h"

G_BEGIN_DECLS

/* Appends the report of @headroom to @out, escaped for a terminal and
 * wrapped at @width columns (0: 80, the width a log or a pipe gets). */
void jmem_output_headroom_human (const JmemOpsHeadroom *headroom,
                                 GString               *out,
                                 guint                  width);

G_END_DECLS
