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

G_END_DECLS
