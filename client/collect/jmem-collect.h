/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Collecting a JmemSnapshot from the live system or from a captured tree. */
#pragma once

#include <glib.h>

#include "jmem-collect-boot.h"
#include "jmem-sampler.h"
#include "jmem-snapshot.h"

G_BEGIN_DECLS

#define JMEM_COLLECT_DEFAULT_TOP 10
#define JMEM_COLLECT_COMMAND_TIMEOUT_MS 5000

/* The source of the warning that a captured tree is incomplete (jmem
 * capture was stopped before its end): commands that print no snapshot
 * warnings print these on stderr. */
#define JMEM_COLLECT_CAPTURE_SOURCE "capture"

typedef struct {
  const char *sysroot;             /* NULL or "/" for the live system */
  int         top;                 /* processes kept after sorting; < 0 keeps all */
  guint       tegrastats_seconds;  /* 0: do not run tegrastats */
  gboolean    allow_interactive;   /* let polkit ask for a password */
  guint       command_timeout_ms;  /* per external command; 0 = default */
  JmemCollectBoot *boot;           /* per-boot facts kept between snapshots, or NULL */
  JmemSampler *sampler;            /* processes kept between samples (jmem-sampler.h), or NULL */
} JmemCollectOptions;

/* Never fails for a missing or unreadable source: that becomes a warning in
 * the snapshot, as does a capture that was stopped before its end. Fails (JMEM_ERROR_NOT_AVAILABLE) only when @sysroot is not a
 * directory or holds neither /proc/meminfo nor any process. */
JmemSnapshot *jmem_collect_snapshot (const JmemCollectOptions *options,
                                     GError                  **error);

G_END_DECLS
