/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Whether jmem runs inside a container. There, drop-caches acts on the
 * host's page cache (there is only one) and the PIDs the helper reports are
 * the host's, so the commands say so. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* What shows that this process is in a container ("/.dockerenv exists and
 * / is overlay", "container=podman in PID 1's environment", "the cgroup of
 * PID 1 is docker 3f4e8b2a9c1d"), or NULL when nothing does. /.dockerenv
 * counts only with a root filesystem made of layers: a machine whose root
 * was made from a container image keeps the file. @root is NULL for the
 * live system, or a directory standing for it (tests). */
char *jmem_container_detect (const char *root);

/* The line people are shown inside a container. */
#define JMEM_CONTAINER_NOTE \
  "inside a container: dropping caches acts on the host's page cache, and process IDs are host IDs"

G_END_DECLS
