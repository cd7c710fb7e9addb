/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The per-boot facts on disk: a `jmem metrics` started by a timer finds
 * what an earlier run probed in this boot and starts no program for it.
 * The file is private to the caller and treated as hostile all the same. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define JMEM_BOOT_CACHE_NAME "boot-cache"
#define JMEM_BOOT_CACHE_MAX_BYTES (256u * 1024u)
/* private to the caller, and refused at any other mode */
#define JMEM_BOOT_CACHE_MODE 0600

/* Where the file goes: the first entry of $RUNTIME_DIRECTORY (set by
 * systemd for a unit with RuntimeDirectory=), else $XDG_RUNTIME_DIR/jmem
 * (*@create TRUE: made 0700 on first use), else NULL: nothing persisted.
 * Relative paths are ignored. */
char *jmem_boot_cache_dir_from_env (gboolean *create);

/* The bytes of @dir/boot-cache when @dir is a real directory (not a link)
 * owned by the caller and writable by nobody else, and the file a regular
 * file (not a link) owned by the caller, mode 0600, at most
 * JMEM_BOOT_CACHE_MAX_BYTES; else NULL with the reason. */
GBytes *jmem_boot_cache_load (const char *dir,
                              GError    **error);

/* Replaces @dir/boot-cache atomically through jmem_write_replace() (a
 * temporary file, mode 0600, renamed over it; what a killed run left is
 * removed first), after the same checks on @dir; with @create, makes @dir
 * 0700 first when it does not exist, in a parent that passes the same
 * checks ($XDG_RUNTIME_DIR: sudo may keep another user's). */
gboolean jmem_boot_cache_store (const char *dir,
                                gboolean    create,
                                const char *data,
                                gsize       len,
                                GError    **error);

G_END_DECLS
