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

/* Refuses an existing non-empty @dir (G_IO_ERROR_EXISTS); fails when it
 * cannot be created or written. What could not be captured is appended to
 * @notes (strings) and is no failure. */
gboolean jmem_capture_write (const char               *dir,
                             const JmemCaptureOptions *options,
                             GPtrArray                *notes,
                             GError                  **error);

/* NvMap rows from the helper in the kernel's iovmm/clients layout, so a
 * capture made without root reads like one made with it. */
char *jmem_capture_render_clients (const JmemNvmapClients *clients);

G_END_DECLS
