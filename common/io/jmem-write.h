/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Every file jmem writes goes through here: the capture tree, the metrics
 * textfile, the watch history and its trim, the per-boot cache.
 *
 * A writer opens the directory it writes in once (the directory itself
 * with O_NOFOLLOW|O_DIRECTORY; the path above it is the caller's choice) and
 * does every later step relative to that descriptor. New files get the
 * fixed mode their format needs, whatever the umask, never a mode copied
 * from a file they replace. Only regular files are written, and an existing
 * file is opened without blocking. Temporary files are named
 * ".NAME.XXXXXXXX.tmp" (eight hex digits), locked while in use, and a
 * killed run's are removed by the next writer of NAME.
 *
 * As root (or, with JMEM_WRITE_DIR_PRIVATE, for anyone) a directory that
 * another user owns or can write is refused, as is an existing file that
 * another user owns, that has another name (a hard link) or whose mode lets
 * its group or others write it or carries set-id bits: whoever could change
 * them could make root write where they choose. A sticky directory (/tmp) is taken
 * unless private: there nobody else can rename or remove root's files. */
#pragma once

#include <glib.h>
#include <sys/types.h>

G_BEGIN_DECLS

typedef enum {
  JMEM_WRITE_DIR_DEFAULT = 0,
  /* Make the directory (0700) in its parent when it is missing; made or
   * found, it is then mode 0700. */
  JMEM_WRITE_DIR_CREATE = 1 << 0,
  /* For any caller, not only root: the caller's own, and writable by nobody
   * else (a sticky bit is no excuse). */
  JMEM_WRITE_DIR_PRIVATE = 1 << 1,
  /* An existing directory must be empty (a capture's). */
  JMEM_WRITE_DIR_EMPTY = 1 << 2,
} JmemWriteDirFlags;

typedef struct _JmemWriteDir JmemWriteDir;

/* The directory @path ("DIR/" names DIR), opened and checked as above.
 * Refusals are G_IO_ERROR_TOO_MANY_LINKS (a symbolic link),
 * G_IO_ERROR_NOT_DIRECTORY, G_IO_ERROR_PERMISSION_DENIED (owner, mode) and
 * G_IO_ERROR_EXISTS (not empty), each with a message that says what to do. */
JmemWriteDir *jmem_write_dir_open (const char        *path,
                                   JmemWriteDirFlags  flags,
                                   GError           **error);

/* The directory that holds the file @path, and in *@name the file's name
 * in it. @path must name a file (not "", not ending in '/'). */
JmemWriteDir *jmem_write_dir_open_parent (const char *path,
                                          char      **name,
                                          GError    **error);

void jmem_write_dir_free (JmemWriteDir *dir);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (JmemWriteDir, jmem_write_dir_free)

int         jmem_write_dir_get_fd (const JmemWriteDir *dir);
/* As given ("DIR/" without its slash), for messages. */
const char *jmem_write_dir_get_path (const JmemWriteDir *dir);

/* Replaces @name with @data: a temporary file (mode @mode), written,
 * synced, renamed over @name, and the directory synced, so a reader sees
 * the old file or the new one, never a part. What a killed run left for
 * @name is removed first. On failure @name is as it was and no temporary
 * file is left. */
gboolean jmem_write_replace (JmemWriteDir *dir,
                             const char   *name,
                             const char   *data,
                             gsize         len,
                             mode_t        mode,
                             GError      **error);

/* The same for content written piece by piece (the history's trim). */
typedef struct _JmemWriteTemp JmemWriteTemp;

/* A new temporary file beside @name, mode @mode, open read-write for
 * appending at jmem_write_temp_get_fd(). */
JmemWriteTemp *jmem_write_temp_new (JmemWriteDir *dir,
                                    const char   *name,
                                    mode_t        mode,
                                    GError      **error);
int jmem_write_temp_get_fd (const JmemWriteTemp *temp);

/* Syncs the file, renames it over its @name and syncs the directory. The
 * descriptor is then @name's, still open for appending, and is handed to
 * the caller (-1 with @error on failure). */
int jmem_write_temp_commit (JmemWriteTemp *temp,
                            GError       **error);

/* Closes the file, and removes it unless committed. */
void jmem_write_temp_free (JmemWriteTemp *temp);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (JmemWriteTemp, jmem_write_temp_free)

/* @name opened for appending (O_RDWR|O_APPEND), created with mode @mode
 * when missing. A symbolic link is refused (G_IO_ERROR_TOO_MANY_LINKS), as
 * is anything but a regular file (G_IO_ERROR_NOT_REGULAR_FILE: a FIFO is
 * refused at once, never waited on); as root, so is a file that fails the
 * checks above (G_IO_ERROR_PERMISSION_DENIED). -1 with @error. */
int jmem_write_open_append (JmemWriteDir *dir,
                            const char   *name,
                            mode_t        mode,
                            GError      **error);

/* Removes the temporary files of @name that a killed run left: regular
 * files of the caller's, named as above, that no running writer holds
 * locked. Returns how many. */
guint jmem_write_remove_stale (JmemWriteDir *dir,
                               const char   *name);

/* ---- a file several writers share (a history) ---- */

/* Takes the exclusive lock (flock) of the file open as *@fd, @name's in
 * @dir as jmem_write_open_append() opened it, waiting for the writer that
 * holds it. Once locked, when @name no longer names that file (another
 * writer renamed a rewrite over it, or it was removed), *@fd is closed and
 * replaced by @name opened anew (created, mode @mode, when missing) and
 * locked in turn: the caller then holds the lock of the file @name names,
 * and no other writer appends or renames over it until jmem_write_unlock().
 * A rewrite made with jmem_write_temp_new() is locked from its creation, so
 * its descriptor keeps the lock once jmem_write_temp_commit() renamed it.
 * On failure (@error, the new file could not be opened) *@fd stays open
 * and locked. */
gboolean jmem_write_lock_named (JmemWriteDir *dir,
                                const char   *name,
                                mode_t        mode,
                                int          *fd,
                                GError      **error);

/* Lets the next writer of the file open as @fd take its lock. */
void jmem_write_unlock (int fd);

/* ---- beneath a directory jmem made itself (a capture) ---- */

/* The directory @name in @dirfd, made mode 0700 when missing and opened
 * without following a link; @what names it in messages. -1 with @error. */
int jmem_write_mkdir_at (int          dirfd,
                         const char  *name,
                         const char  *what,
                         GError     **error);

/* A new file @name in @dirfd (it must not exist, even as a link), mode
 * @mode, open for writing; @what names it in messages. -1 with @error. */
int jmem_write_new_at (int          dirfd,
                       const char  *name,
                       mode_t       mode,
                       const char  *what,
                       GError     **error);

/* A symbolic link @name in @dirfd holding @target (it must not exist). */
gboolean jmem_write_symlink_at (int          dirfd,
                                const char  *name,
                                const char  *target,
                                const char  *what,
                                GError     **error);

/* Removes the file @name from @dirfd, and syncs @dirfd so that the removal
 * survives a power cut. */
gboolean jmem_write_remove_at (int          dirfd,
                               const char  *name,
                               const char  *what,
                               GError     **error);

G_END_DECLS
