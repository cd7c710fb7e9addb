/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Process names and command lines are attacker-controlled bytes. */

/* The most bytes of one command line the outputs carry (JSON and human). */
#define JMEM_TEXT_MAX_CMDLINE_BYTES 4096u
/* The most bytes of any other string the outputs carry before a "…" marks
 * the cut: only forged input (a captured tree, a stand-in tool) comes near. */
#define JMEM_TEXT_MAX_FIELD_BYTES   4096u

/* Valid UTF-8 copy of @len bytes: invalid sequences become U+FFFD, NUL bytes
 * become U+FFFD too, so the result is always a safe C string for JSON/D-Bus. */
char *jmem_text_make_valid (const char *bytes,
                            gssize      len);

/* A copy of any bytes safe to print on a terminal or a log line: it moves
 * no cursor, starts no line and hides or reorders nothing. Newline and tab
 * become \n and \t, a backslash \\, the C0 controls and DEL \xNN;
 * beyond them what shows as nothing or reorders text (the C1 controls, format characters
 * such as the bidirectional controls, zero-width characters and the BOM,
 * line and paragraph separators, private-use and unassigned code points)
 * \uNNNN, or \UNNNNNNNN above U+FFFF; a byte that is not UTF-8 \xNN (so
 * \xNN from 80 up is always a byte, never a character). The
 * one spelling of the human output, the metrics labels and the helper's
 * log. */
char *jmem_text_escape (const char *text);

/* jmem_text_make_valid() then jmem_text_escape(): any bytes to a printable
 * copy, U+FFFD where a byte is not UTF-8 (as the JSON has it); NULL gives "". */
char *jmem_text_for_terminal (const char *bytes);

/* The columns valid UTF-8 @utf8 takes on a terminal: 2 for East Asian wide
 * characters, 0 for combining and zero-width ones, 1 for the rest. Meant for
 * escaped text (no control characters). */
gsize jmem_text_width (const char *utf8);

/* @utf8 cut to at most @cols columns, a final "…" marking a cut; with @pad,
 * blanks fill it to exactly @cols columns. */
char *jmem_text_fit_width (const char *utf8,
                           gsize       cols,
                           gboolean    pad);

/* At most @max_bytes bytes of valid UTF-8 @utf8, cut at a character
 * boundary; *@cut (may be NULL) says whether anything was left out. */
char *jmem_text_cap_bytes (const char *utf8,
                           gsize       max_bytes,
                           gboolean   *cut);

/* jmem_text_cap_bytes() at JMEM_TEXT_MAX_FIELD_BYTES, "…" appended to a cut. */
char *jmem_text_cap_field (const char *utf8);

/* A size for people, the same in every output: "512 KiB", "12.3 MiB",
 * "1.2 GiB" (IEC units, one decimal from MiB up); "-" when @kib < 0. */
char *jmem_text_size (gint64 kib);

/* The unsigned number @s's @n bytes spell in decimal (hex), every byte a
 * digit: no sign, space or prefix. FALSE for none, another byte, or a value
 * above @max. */
gboolean jmem_text_parse_decimal (const char *s,
                                  gsize       n,
                                  guint64     max,
                                  guint64    *out);
gboolean jmem_text_parse_hex (const char *s,
                              gsize       n,
                              guint64     max,
                              guint64    *out);

/* @one when @n is 1, else @many: "%u %s", n, jmem_text_plural (n, "process", "processes"). */
static inline const char *
jmem_text_plural (guint64     n,
                  const char *one,
                  const char *many)
{
  return n == 1 ? one : many;
}

G_END_DECLS
