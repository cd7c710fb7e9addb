/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the helper takes out of an NvMap table before a caller sees it,
 * read through the one table reader the client parses it with
 * (jmem-nvmap-table.h): every byte stays where it was, so the file parses
 * as it did but for what was taken out. */
#pragma once

#include <glib.h>

#include "jmem-nvmap-table.h"

G_BEGIN_DECLS

typedef enum {
  JMEM_NVMAP_REDACT_UIDS = 1 << 0,  /* every handle row's UID (a kernel pointer) to 0s */
  JMEM_NVMAP_REDACT_VMAS = 1 << 1,  /* maps: each VMA [start, end) to [0, end - start) */
} JmemNvmapRedact;

/* Overwrites @data (a whole @file) in place. */
void jmem_nvmap_redact (JmemNvmapTableFile  file,
                        JmemNvmapRedact     what,
                        char               *data,
                        gsize               len);

/* The same for a file that comes in pieces, so that not even its text is
 * held whole. */
typedef struct {
  JmemNvmapTable  table;
  JmemNvmapRedact what;
} JmemNvmapRedactor;

void jmem_nvmap_redactor_init (JmemNvmapRedactor  *redactor,
                               JmemNvmapTableFile  file,
                               JmemNvmapRedact     what);

/* Redacts in place the lines @data holds whole and returns how many of its
 * bytes they took: those are final. The rest (a line cut by the end of the
 * piece) must come again at the start of the next call's @data, followed
 * by more of the file; with @at_end, @data is all that is left and is
 * taken whole. The bytes are the same whatever the pieces. */
gsize jmem_nvmap_redactor_feed (JmemNvmapRedactor *redactor,
                                char              *data,
                                gsize              len,
                                gboolean           at_end);

G_END_DECLS
