/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The one reader of sizes people and agents give jmem (`jmem headroom
 * --need`, the MCP headroom tool's "need", `jmem watch --max-bytes`). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* No size past this (4 PiB) is RAM: the accounting's own limit, in bytes. */
#define JMEM_SIZE_MAX_BYTES (G_GUINT64_CONSTANT (1) << 52)

/* What every refusal says a size looks like. */
#define JMEM_SIZE_HINT \
  "a size is a number of bytes, or a number with a unit: 6G, 6GiB, 6144M, 1.5G, 512K"

/* Parses @text: a whole number of bytes ("4096"), or a whole or decimal
 * number (at most three digits after the point) followed by a unit, with or
 * without a space: K, M, G, T, P, each alone or with B or iB, in any case.
 * Units are binary, as the kernel, free and tegrastats count memory: 6G,
 * 6GB and 6GiB are all 6 x 2^30 bytes. A fraction is rounded up to the
 * byte. Surrounding blanks are ignored. Refuses (JMEM_ERROR_INVALID_ARGUMENT,
 * the message saying why, quoting @text, and what a size looks like) empty
 * text, a sign, an exponent, another unit or character, and anything above
 * JMEM_SIZE_MAX_BYTES. */
gboolean jmem_size_parse (const char *text,
                          guint64    *bytes,
                          GError    **error);

/* For @text that jmem_size_parse() takes with a decimal unit's name (4GB,
 * 1.5 mb): "4 GB read as 4 GiB", a note for the output, so that nobody
 * takes 4 x 10^9 bytes as asked for; NULL for any other text. */
char *jmem_size_unit_note (const char *text);

/* @kib as jmem_size_parse() reads it back to the same size, in the largest
 * unit that divides it ("6G", "512M", "100K"): what a printed command that
 * takes a size (`jmem headroom --need 6G --drop`) is given. */
char *jmem_size_option_text (gint64 kib);

G_END_DECLS
