/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Which PID namespace a set of PIDs is in. NvMap prints each client's
 * task->pid, a PID of the initial namespace, whoever reads the file; a jmem
 * in a container with a PID namespace of its own must not take those for
 * its own PIDs. A namespace is named by the inode of /proc/PID/ns/pid. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The initial PID namespace's inode: fixed by the kernel (PROC_PID_INIT_INO). */
#define JMEM_PID_NAMESPACE_INITIAL G_GUINT64_CONSTANT (0xEFFFFFFC)

/* The inode of this process's PID namespace, or 0 when it cannot be read. */
guint64 jmem_pid_namespace_self (void);

/* Whether PIDs from namespace @pids (0: not said, as in a captured tree,
 * whose /proc is the one its PIDs belong to) can be looked up in the /proc
 * of a process in namespace @own. An unreadable @own (0) is never taken for
 * a match. */
gboolean jmem_pid_namespace_joinable (guint64 pids,
                                      guint64 own);

G_END_DECLS
