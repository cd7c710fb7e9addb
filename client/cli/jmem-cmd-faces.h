/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What jmem top and jmem plot ask of the rest of jmem (collection, the
 * helper, the file writer), all in jmem-cmd-faces.c: the faces themselves
 * (client/top, client/plot) call none of it. */
#pragma once

#include <glib.h>

#include "jmem-top.h"

G_BEGIN_DECLS

typedef struct _JmemCmdTopSource JmemCmdTopSource;

/* Live samples of the system (@sysroot NULL) or a tree, processes kept
 * between samples (jmem-sampler.h); @backend is filled in to use it. */
JmemCmdTopSource *jmem_cmd_top_source_new (const char     *sysroot,
                                           JmemTopBackend *backend);
void jmem_cmd_top_source_free (JmemCmdTopSource *source);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (JmemCmdTopSource, jmem_cmd_top_source_free)

/* Prints "@command: WARNING" for each of @warnings (nullable). */
void jmem_cmd_faces_print_warnings (const char *command,
                                    GPtrArray  *warnings);

/* Prints "@command: why" for a history that could not be read
 * (jmem-history.h) and returns the exit status: 66 the file cannot be
 * read, 65 a line is not a snapshot, 69 it holds none. */
int jmem_cmd_faces_history_failed (const char   *command,
                                   const GError *error);

/* Exit status for a sample that could not be taken: 69 no data, 70 other. */
int jmem_cmd_faces_sample_exit (const GError *error);

/* Writes @data to @path whole or not at all (a temporary file in the same
 * directory renamed over it), mode 0644; @path's last part is a file name. */
gboolean jmem_cmd_faces_write_file (const char *path,
                                    const char *data,
                                    gsize       len,
                                    GError    **error);

G_END_DECLS
