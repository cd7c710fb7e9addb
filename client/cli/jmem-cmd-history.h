/* SPDX-License-Identifier: GPL-2.0-or-later */
/* --history[=FILE] of the commands that read a history (triage, metrics):
 * FILE, or the flight recorder's history when it comes alone. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The option's GOptionEntry, with @description as its help. */
#define JMEM_CMD_HISTORY_ENTRY(description) \
  { "history", 0, G_OPTION_FLAG_OPTIONAL_ARG, G_OPTION_ARG_CALLBACK, \
    (gpointer) jmem_cmd_history_take, (description), "FILE" }

gboolean jmem_cmd_history_take (const char *name,
                                const char *value,
                                gpointer    data,
                                GError    **error);

/* After parsing: the history the option named (g_free), NULL where it was
 * not given; *@bare (may be NULL) TRUE when it came without FILE. The
 * option is forgotten, ready for the next parse. */
char *jmem_cmd_history_steal (gboolean *bare);

G_END_DECLS
