/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Thin history lines: what the rules over time, `jmem plot` and `jmem top
 * --replay` read from a sample (the board's figures and the processes that
 * hold memory), not the whole snapshot. docs/watch.md lists what is kept. */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* The version of the history line format a thin or thinned line declares in
 * its "history" member; a full snapshot line (version 1) carries none. */
#define JMEM_HISTORY_LINE_VERSION 2

/* Prunes @snapshot (a `jmem snapshot --json` object with every process
 * listed) in place: keeps the board's figures, the @top processes with the
 * largest footprint and every process holding NvMap or GPU memory; drops
 * the rows' command lines unless @cmdlines, and the members no reader of a
 * history needs (thermal, disks, services, evidence, warnings, findings). */
void jmem_history_thin (JsonNode *snapshot,
                        guint     top,
                        gboolean  cmdlines);

G_END_DECLS
