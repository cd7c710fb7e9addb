/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Help text fitted to a terminal: GLib prints an option context's help,
 * and the program's own usage, in lines as long as their authors wrote
 * them; these wrap them at a width instead. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The width help is fitted to: the terminal's on stdout (at least
 * JMEM_TABLE_MIN_WIDTH), else $COLUMNS, else 80 (help read in a pipe or a
 * file still fits 80 columns). */
guint jmem_help_width (void);

/* @help as g_option_context_get_help() writes it (headings ending in ":"
 * over indented lines, then a description), fitted to @width columns: the
 * usage line wrapped under itself; each option's (or command's) description
 * wrapped under the description column, or below the option, indented,
 * where that column leaves too little room; the description's paragraphs
 * (a line that starts "Exit status:", or that starts a sentence after one
 * that ended one) joined and wrapped. */
char *jmem_help_fit (const char *help,
                     guint       width);

G_END_DECLS
