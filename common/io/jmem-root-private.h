/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What jmem-root.c and jmem-root-capture.c share. */
#pragma once

#include "jmem-root.h"

G_BEGIN_DECLS

typedef enum {
  ROOT_LIVE,
  ROOT_TREE,
  ROOT_CAPTURE,
} RootKind;

struct _JmemRoot {
  RootKind    kind;
  char       *path;
  int         fd;          /* -1 for the live system */
  GPtrArray  *refused;     /* char*, a tree's refused paths */
  GHashTable *refused_set;
  char       *dir_path;    /* capture: the directory written last ... */
  int         dir_fd;      /* ... and its descriptor, or -1 */
};

JmemRoot *jmem_root_new (RootKind kind, const char *path, int fd);

/* Sets @error from @saved ("WHAT PATH: strerror") and returns FALSE. */
gboolean jmem_root_set_errno_error (GError   **error,
                                    int        saved,
                                    const char *what,
                                    const char *path);

/* @path without its leading slashes: relative to the root's descriptor. */
const char *jmem_root_relative (const char *path);

G_END_DECLS
