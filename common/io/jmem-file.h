/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Reads a whole file (regular, /proc, /sys or debugfs) into a NUL-terminated
 * buffer. Refuses with JMEM_ERROR_TOO_LARGE when it holds more than
 * @max_bytes, and with G_IO_ERROR codes (G_IO_ERROR_NOT_FOUND,
 * G_IO_ERROR_PERMISSION_DENIED, ...) when it cannot be opened or read.
 * Symbolic links are followed: /proc/self and debugfs need it. */
gboolean jmem_file_read_capped (const char *path,
                                gsize       max_bytes,
                                char      **contents,
                                gsize      *length,
                                GError    **error);

/* Opens @path, a file a user names (a saved snapshot, a history), for
 * reading. Without blocking on a FIFO, and refusing what is not a regular
 * file (G_IO_ERROR_NOT_REGULAR_FILE, G_IO_ERROR_IS_DIRECTORY): a FIFO or
 * a pipe would hang the command in open() or read() with nothing said.
 * Returns the descriptor (blocking again, close-on-exec) or -1. Errors
 * name @path. */
int jmem_file_open_regular (const char *path,
                            GError    **error);

/* jmem_file_read_capped() for a file opened with jmem_file_open_regular(). */
gboolean jmem_file_read_regular_capped (const char *path,
                                        gsize       max_bytes,
                                        char      **contents,
                                        gsize      *length,
                                        GError    **error);

/* The same for @name relative to the directory @dirfd (a /proc/PID opened
 * once: every file then comes from that one process even if its PID is
 * reused meanwhile), into @buffer, which is reused across calls. The data is
 * buffer->data, buffer->len bytes, followed by a NUL. */
gboolean jmem_file_read_at (int         dirfd,
                            const char *name,
                            gsize       max_bytes,
                            GByteArray *buffer,
                            GError    **error);

/* jmem_file_read_at() for a file the kernel writes whole at each read: the
 * /proc/PID files made by one seq_file record (status, stat, smaps_rollup,
 * cgroup) and cmdline. A read shorter than asked is then the end, which
 * spares the read that would answer 0: a fifth of the system calls of a
 * snapshot of every process. Not for smaps, maps or regular files. */
gboolean jmem_file_read_record_at (int         dirfd,
                                   const char *name,
                                   gsize       max_bytes,
                                   GByteArray *buffer,
                                   GError    **error);

/* Reads the open @fd to its end into @buffer as jmem_file_read_at() does,
 * then closes it; @name is for messages. */
gboolean jmem_file_read_fd (int         fd,
                            const char *name,
                            gsize       max_bytes,
                            GByteArray *buffer,
                            GError    **error);

/* Writes all of @data to @fd, again after a short write or EINTR; FALSE
 * with errno set (ENOSPC for a write that took nothing) when it cannot. */
gboolean jmem_file_write_all (int         fd,
                              const void *data,
                              gsize       len);

G_END_DECLS
