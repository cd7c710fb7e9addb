#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Process names and command lines are attacker-controlled bytes. */

/* Valid UTF-8 copy of @len bytes: invalid sequences become U+FFFD, NUL bytes
 * become U+FFFD too, so the result is always a safe C string for JSON/D-Bus. */
char *jmem_text_make_valid (const char *bytes,
                            gssize      len);

/* A copy safe to print on a terminal: control characters (newline, ESC, ...)
 * are written as \n, \t, \xNN; the input must be valid UTF-8. */
char *jmem_text_escape_for_terminal (const char *utf8);

G_END_DECLS
