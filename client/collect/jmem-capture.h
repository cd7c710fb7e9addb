/* SPDX-License-Identifier: GPL-2.0-or-later */
/* `jmem capture DIR`: the raw inputs of a snapshot, written as a sysroot
 * tree that `jmem snapshot --sysroot DIR` reads (docs/capture-format.md). */
#pragma once

#include <glib.h>

#include "jmem-nvmap.h"

G_BEGIN_DECLS

typedef struct {
  gboolean allow_interactive;  /* helper calls may ask for a password */
  guint    tegrastats_seconds; /* 0: no tegrastats line */
  guint    command_timeout_ms; /* 0: default */
} JmemCaptureOptions;

/* What a capture wrote, for the line that reports it. */
typedef struct {
  guint   n_files;
  guint64 n_bytes;
} JmemCaptureWritten;

/* Creates @dir (0700) and writes every file (0600) and directory (0700)
 * beneath it through descriptors (jmem_root_create()): refuses an existing
 * @dir unless it is an empty directory owned by the caller that neither
 * group nor others can write; fails when it cannot be created or written.
 * What could not be captured is appended to @notes (strings) and is no
 * failure. @written counts the files and bytes written, on failure too. */
gboolean jmem_capture_write (const char               *dir,
                             const JmemCaptureOptions *options,
                             GPtrArray                *notes,
                             JmemCaptureWritten       *written,
                             GError                  **error);

/* Overwrites, in place, the UID column of each handle row of an
 * iovmm/allocations text with zeros: it holds kernel pointers (%pK), which
 * a capture must not carry; the text parses as before. */
void jmem_capture_blank_kernel_pointers (char *data, gsize len);

/* NvMap rows from the helper in the kernel's iovmm/clients layout, so a
 * capture made without root reads like one made with it. */
char *jmem_capture_render_clients (const JmemNvmapClients *clients);

G_END_DECLS
