/* Replacing a file in node_exporter's textfile directory so that a reader
 * sees the old content or the new, never a part. */
#pragma once

#include <glib.h>
#include <sys/types.h>

G_BEGIN_DECLS

/* Writes @data to @dir/@name: a new temporary file in @dir (created with
 * O_EXCL|O_NOFOLLOW relative to the directory's descriptor, named so that
 * node_exporter skips it), mode 0644 whatever the umask, fsync, then
 * renameat() over @name and fsync of the directory. @dir itself must be a
 * directory, not a symbolic link to one. On failure nothing is left behind
 * and @name keeps its old content; the GError (G_IO_ERROR) says why. */
gboolean jmem_textfile_replace (const char *dir,
                                const char *name,
                                const char *data,
                                gsize       len,
                                GError    **error);

/* The same in the directory open as @dirfd (@dir names it in messages),
 * with @mode for the new file. */
gboolean jmem_textfile_replace_at (int         dirfd,
                                   const char *dir,
                                   const char *name,
                                   const char *data,
                                   gsize       len,
                                   mode_t      mode,
                                   GError    **error);

G_END_DECLS
