/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the human views share to fit a terminal: the width, cells padded and
 * cut by display width, and the rule for when a table row takes two lines.
 * Every cell is escaped text (jmem-text.h). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define JMEM_TABLE_DEFAULT_WIDTH 80
/* --width's range; a narrower terminal still gets 60-column tables */
#define JMEM_TABLE_MIN_WIDTH     60
#define JMEM_TABLE_MAX_WIDTH     10000
/* A row keeps one line while its last text column (COMMAND, TAG) gets at
 * least this many columns, or all it needs if less, and the width is at
 * least JMEM_TABLE_TWO_LINE_BELOW; else the texts go on a second line,
 * indented by JMEM_TABLE_INDENT, so that no field is lost. */
#define JMEM_TABLE_MIN_LAST       20
#define JMEM_TABLE_TWO_LINE_BELOW 64
#define JMEM_TABLE_INDENT         4

/* The width to fit: the terminal's on stdout, else $COLUMNS, else 80; 0
 * (nothing cut) when stdout is not a terminal. */
guint jmem_table_terminal_width (void);

/* @width as the tables use it: 0 stays 0 (nothing cut), anything else is at
 * least JMEM_TABLE_MIN_WIDTH. */
guint jmem_table_clamp_width (guint width);

/* Whether rows of @numbers columns then @texts columns (the last text's
 * floor included) take two lines at @width (0: never). */
gboolean jmem_table_two_lines (guint width,
                               guint numbers,
                               guint texts);

/* MAX (@cols, the display width of @escaped). */
guint jmem_table_widest (guint       cols,
                         const char *escaped);

/* @escaped cut ("…") and padded to exactly @cols columns. */
void jmem_table_append_cell (GString    *out,
                             const char *escaped,
                             guint       cols);

/* @escaped whole, then blanks up to @cols columns. */
void jmem_table_append_padded (GString    *out,
                               const char *escaped,
                               guint       cols);

/* @escaped right-aligned in @cols columns, then a blank. */
void jmem_table_append_right (GString    *out,
                              const char *escaped,
                              guint       cols);

/* Ends a line without the blanks that padded its last cell. */
void jmem_table_end_line (GString *out);

/* Appends @escaped, which starts at column @indent (the caller wrote what
 * comes before it), without a final newline; at @width > 0 it is wrapped at
 * blanks to lines of at most @width columns, each further line indented by
 * @hang blanks, a word wider than a line broken where the line ends. */
void jmem_table_append_wrapped (GString    *out,
                                const char *escaped,
                                guint       width,
                                guint       indent,
                                guint       hang);

/* Appends the NULL-terminated @pieces (escaped), @sep apart, starting at
 * column @indent (the caller wrote what comes before), and a newline; at
 * @width > 0 a piece that would pass the width starts a line indented by
 * @hang blanks, and one wider than a whole line is wrapped at its blanks
 * (jmem_table_append_wrapped()). */
void jmem_table_append_pieces (GString            *out,
                               const char * const *pieces,
                               const char         *sep,
                               guint               width,
                               guint               indent,
                               guint               hang);

/* "  - ACTION" and a newline, wrapped under itself from column @indent and
 * escaped for a terminal; an administrator's step marked (jmem-action.h). */
void jmem_table_append_action (GString    *out,
                               const char *action,
                               guint       width,
                               guint       indent);

G_END_DECLS
