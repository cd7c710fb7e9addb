/* SPDX-License-Identifier: GPL-2.0-or-later */
/* jmem top: memory per process, live in the terminal (ncursesw), or a
 * jmem watch history played back. docs/jmem.1 describes the screen. */
#pragma once

#include <glib.h>

#include "jmem-frame.h"
#include "jmem-nvmap.h"
#include "jmem-top-replay.h"

G_BEGIN_DECLS

/* --speed's range, and what + and - stay within. */
#define JMEM_TOP_MIN_SPEED 0.01
#define JMEM_TOP_MAX_SPEED 100000.0

/* What top asks of the rest of jmem; the command (client/cli/jmem-cmd-top.c)
 * fills it in, so the face holds no knowledge of how each is done. */
typedef struct {
  /* One sample of the live system or the tree; NULL with @error. */
  JmemFrame *(*sample) (gpointer user_data, GError **error);
  /* The NvMap allocations (of every process); on failure *@action
   * (nullable) says what to do. *@via names the source. */
  JmemNvmapAllocations *(*allocations) (gpointer      user_data,
                                        const char  **via,
                                        char        **action,
                                        GError      **error);
  /* Drops the caches through the helper and describes what that freed (the
   * lines `jmem drop-caches` prints, wrapped at @width columns); NULL with
   * @error and *@action. */
  char *(*drop_caches) (gpointer user_data, guint width, char **action, GError **error);
  gpointer user_data;
} JmemTopBackend;

typedef struct {
  double      interval_s;   /* live: seconds between samples */
  guint       count;        /* live: stop after so many samples (0: never) */
  JmemTopReplay *replay;    /* a history, read on while it plays; NULL live */
  GPtrArray  *replay_warnings; /* what reading it on found (char *), for after the screen */
  const char *replay_name;  /* the history's file, for the header */
  double      speed;        /* replay: times real time */
  gboolean    captured;     /* the frames come from a captured tree: no helper */
  guint       pss_refresh;  /* the sampler's bound, for the help */
} JmemTopOptions;

/* Shows the screen until q, Ctrl-C or SIGTERM (or @count samples); where
 * the terminal cannot take it (TERM=dumb, unknown, not a terminal) prints
 * one `jmem summary` line per sample instead, after the local time. FALSE
 * with the first sample's error (later ones are shown on the screen) or
 * G_IO_ERROR_BROKEN_PIPE when the lines cannot be written. */
gboolean jmem_top_run (const JmemTopOptions *options,
                       const JmemTopBackend *backend,
                       GError              **error);

G_END_DECLS
