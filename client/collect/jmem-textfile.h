/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Replacing a file in node_exporter's textfile directory so that a reader
 * sees the old content or the new, never a part. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* node_exporter runs as another user: the file is readable by all. */
#define JMEM_TEXTFILE_MODE 0644

/* Writes @data to @dir/@name through jmem_write_replace(): a temporary
 * file named so that node_exporter skips it, mode JMEM_TEXTFILE_MODE
 * whatever the umask, synced and renamed over @name. @dir itself must be a
 * directory, not a symbolic link to one, and as root one that only root
 * can write (jmem-write.h). What a killed run left is removed first; on
 * failure nothing is left behind and @name keeps its old content; the
 * GError (G_IO_ERROR) says why. */
gboolean jmem_textfile_replace (const char *dir,
                                const char *name,
                                const char *data,
                                gsize       len,
                                GError    **error);

G_END_DECLS
