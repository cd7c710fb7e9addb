/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* GLib 2.66 is the floor (Debian 11; JetPack 6 ships 2.72), and the build
 * sets GLIB_VERSION_MAX_ALLOWED to it so that newer API fails to compile.
 * These few newer names are cheap to provide on top of 2.66, so the code can
 * keep them. G_ENCODE_VERSION, not GLIB_VERSION_2_68: older headers lack
 * the latter. */

#include <glib.h>
#include <string.h>

#if GLIB_VERSION_MAX_ALLOWED < G_ENCODE_VERSION (2, 68)
/* g_memdup() takes a guint size; this is g_memdup2()'s gsize one. */
static inline gpointer
jmem_memdup2 (gconstpointer mem, gsize byte_size)
{
  gpointer copy;

  if (mem == NULL || byte_size == 0)
    return NULL;
  copy = g_malloc (byte_size);
  memcpy (copy, mem, byte_size);
  return copy;
}
#define g_memdup2 jmem_memdup2
#endif

#if GLIB_VERSION_MAX_ALLOWED < G_ENCODE_VERSION (2, 70)
/* The same function under its old name, which said "exit status" for a
 * wait status. */
#define g_spawn_check_wait_status g_spawn_check_exit_status
#endif
