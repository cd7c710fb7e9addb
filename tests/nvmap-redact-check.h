/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The helper's redaction against the client's parsers, for any input: what
 * the helper passes on parses as the original did (VMAs as their lengths),
 * and no handle row in it has a UID other than 0s nor a VMA an address.
 * Shared by test-nvmap-redact and fuzz-nvmap-redact (and its dumper by
 * fuzz-nvmap-allocations and test-nvmap-reader). */
#pragma once

#include <glib.h>

#include "jmem-nvmap.h"
#include "jmem-nvmap-redact.h"

/* Writes each client and handle it is given as a line to the GString of
 * its user_data (and frees them): a parse to compare with another. */
extern const JmemNvmapAllocationsVisitor jmem_nvmap_dump_visitor;

/* @data redacted as the helper reads it, in pieces of @piece bytes (what
 * each call leaves coming again). */
GByteArray *jmem_nvmap_redact_in_pieces (JmemNvmapTableFile  file,
                                         JmemNvmapRedact     what,
                                         const char         *data,
                                         gsize               len,
                                         gsize               piece);

/* NULL when @data (as iovmm/allocations and as iovmm/maps) passes, else
 * what went wrong. */
char *jmem_nvmap_redact_check (const char *data,
                               gsize       len);
