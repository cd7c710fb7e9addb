/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Files beneath a root directory descriptor: the live system, a --sysroot
 * tree (untrusted input) or a capture being written. Paths given here are
 * absolute names inside the root ("/proc/meminfo"), never joined strings.
 *
 * The live root follows symbolic links (/proc/self, /sys/class/thermal and
 * /proc/device-tree need them) but reads only regular files, opened without
 * blocking. A tree and a capture allow no symbolic link at all and nothing
 * that resolves outside them; a tree's refused paths are remembered so the
 * report can name them. Reading is jmem-root.c, writing a capture
 * jmem-root-capture.c (through jmem-write.h, as every file jmem writes). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct _JmemRoot JmemRoot;

/* @path NULL, "" or "/" is the live system; anything else is a tree, which
 * must be a directory (JMEM_ERROR_NOT_AVAILABLE otherwise). */
JmemRoot *jmem_root_open (const char *path,
                          GError    **error);

/* A capture's root: creates @path (mode 0700) in its existing parent, or
 * takes an existing empty directory owned by the caller that neither group
 * nor others can write (then made 0700); jmem_write_dir_open() checks it.
 * Anything else is refused with a message that says why
 * (G_IO_ERROR_EXISTS, G_IO_ERROR_PERMISSION_DENIED, ...). */
JmemRoot *jmem_root_create (const char *path,
                            GError    **error);

void jmem_root_free (JmemRoot *root);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (JmemRoot, jmem_root_free)

gboolean    jmem_root_is_live (const JmemRoot *root);
/* The directory as given ("/" for the live system), for messages. */
const char *jmem_root_get_path (const JmemRoot *root);

/* A whole regular file, capped at @max_bytes (JMEM_ERROR_TOO_LARGE above),
 * NUL-terminated. A symbolic link, FIFO, device or directory is refused
 * with G_IO_ERROR_NOT_REGULAR_FILE or G_IO_ERROR_TOO_MANY_LINKS. */
gboolean jmem_root_read (JmemRoot   *root,
                         const char *path,
                         gsize       max_bytes,
                         char      **contents,
                         gsize      *length,
                         GError    **error);

/* The regular file @path, opened for reading as jmem_root_read() opens it,
 * for a file too big to hold whole; -1 with the same errors. */
int jmem_root_open_file (JmemRoot   *root,
                         const char *path,
                         GError    **error);

/* A small text file made valid UTF-8, cut at its first NUL (device-tree
 * strings) and stripped of trailing whitespace; NULL when unreadable. */
char *jmem_root_read_text (JmemRoot   *root,
                           const char *path,
                           GError    **error);

/* @name (relative, may hold '/') beneath @dirfd, the directory @dir opened
 * through @root (@dir names it in messages), into @buffer as jmem_file_read_at() does. On the live system this
 * is jmem_file_read_at() itself: /proc/PID files need no more checks and
 * the per-process path stays one open and its reads. */
gboolean jmem_root_read_at (JmemRoot   *root,
                            int         dirfd,
                            const char *dir,
                            const char *name,
                            gsize       max_bytes,
                            GByteArray *buffer,
                            GError    **error);

/* jmem_root_read_at() for the files jmem_file_read_record_at() names: on
 * the live system a short read is their end; in a tree, read to the end. */
gboolean jmem_root_read_record_at (JmemRoot   *root,
                                   int         dirfd,
                                   const char *dir,
                                   const char *name,
                                   gsize       max_bytes,
                                   GByteArray *buffer,
                                   GError    **error);

/* A directory's descriptor (O_RDONLY|O_DIRECTORY|O_CLOEXEC), or -1 with
 * @error. */
int jmem_root_open_dir (JmemRoot   *root,
                        const char *path,
                        GError    **error);

/* The directory @name beneath @dirfd (the root's @dir, named in messages),
 * as jmem_root_open_dir() opens it: a process's /proc/PID from /proc. */
int jmem_root_open_dir_at (JmemRoot   *root,
                           int         dirfd,
                           const char *dir,
                           const char *name,
                           GError    **error);

/* The text of the symbolic link @path (not followed). */
char *jmem_root_read_link (JmemRoot   *root,
                           const char *path,
                           GError    **error);

/* Whether @path exists (in a tree: as any entry, without following it). */
gboolean jmem_root_exists (JmemRoot   *root,
                           const char *path);

/* The entry names of the directory @path, sorted; NULL with @error. */
GStrv jmem_root_list_dir (JmemRoot   *root,
                          const char *path,
                          GError    **error);

/* What a tree refused so far, one line per path ("proc/1731/cmdline is a
 * symbolic link"), in the order met, at most a few dozen. */
const GPtrArray *jmem_root_get_refused (const JmemRoot *root);

/* Capture roots only: a new file (mode 0600; it must not exist) and the
 * directories above it (0700), each made relative to a directory this root
 * created; a symbolic link anywhere on the way fails the write. */
gboolean jmem_root_write (JmemRoot   *root,
                          const char *path,
                          const char *data,
                          gsize       len,
                          GError    **error);

/* Capture roots only: a symbolic link holding @target, made with symlinkat()
 * in a directory this root created. */
gboolean jmem_root_symlink (JmemRoot   *root,
                            const char *path,
                            const char *target,
                            GError    **error);

/* Capture roots only: a new empty file as jmem_root_write() makes it, open
 * for writing (the caller closes it); -1 with @error. */
int jmem_root_create_file (JmemRoot   *root,
                           const char *path,
                           GError    **error);

/* Capture roots only: removes the file @path this root wrote. */
gboolean jmem_root_remove (JmemRoot   *root,
                           const char *path,
                           GError    **error);

/* Capture roots only: every file written so far on its way to the disk. */
gboolean jmem_root_sync (JmemRoot *root,
                         GError  **error);

G_END_DECLS
