/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The one way jmem reads JSON that comes from outside: saved snapshots,
 * histories, MCP messages. json-glib's parser is lenient (comments, single
 * quotes, hexadecimal numbers, a second value ignored, integers past 64 bits
 * wrapped), recursive (deep nesting overflows the stack) and builds every
 * member, so every input is read here instead, without recursion, against
 * RFC 8259 and jmem's limits, into a json-glib tree of what the caller
 * reads. */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

#include "jmem-json-paths.h"

G_BEGIN_DECLS

/* Arrays and objects nested deeper than this are refused. A snapshot nests
 * about six levels, an MCP message five; json-glib's recursion when it
 * frees or writes a tree this deep fits a thread stack of 64 KiB. */
#define JMEM_JSON_MAX_DEPTH 64

/* Reads @len bytes of @data, which must hold exactly one JSON value
 * (whitespace around it aside) in strict RFC 8259 syntax, as UTF-8.
 * Errors (JMEM_ERROR), each message giving the column (and the line, in
 * text of more than one):
 * - JMEM_ERROR_INVALID_ARGUMENT: not JSON jmem reads: bytes that are not
 *   UTF-8, a syntax error (comments, single quotes, hexadecimal numbers,
 *   NaN, a trailing comma, an unescaped control character, a second value
 *   after the first), a string holding \u0000 (which json-glib would cut
 *   the string at) or half of a UTF-16 surrogate pair (no character);
 * - JMEM_ERROR_TOO_LARGE: valid JSON beyond jmem's limits: more than
 *   @max_bytes, nesting deeper than JMEM_JSON_MAX_DEPTH, an integer outside
 *   the signed 64-bit range, a number too large for a double;
 * - JMEM_ERROR_NOT_AVAILABLE: nothing but whitespace.
 * Never recurses on the input: safe on any bytes at any stack size that
 * freeing JMEM_JSON_MAX_DEPTH levels needs. The tree is json-glib's, built
 * as json-glib's parser builds it: an integer is an int64, any other number
 * a double, and a member named twice keeps its last value. */
JsonNode *jmem_json_read (const char *data,
                          gsize       len,
                          gsize       max_bytes,
                          GError    **error);

/* The same, building only the members @paths names (all when NULL): the
 * whole text is still checked as above, and what is not built costs no
 * allocation. */
JsonNode *jmem_json_read_paths (const char          *data,
                                gsize                len,
                                gsize                max_bytes,
                                const JmemJsonPaths *paths,
                                GError             **error);

G_END_DECLS
