/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Running a helper program (nvidia-smi, nvpmodel, tegrastats) without ever hanging. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct {
  char     *out;          /* stdout, NUL-terminated, at most the cap given */
  gsize     out_len;
  int       exit_status;  /* exit code; -1 when killed or ended by a signal */
  gboolean  timed_out;    /* the deadline passed and the process group was killed */
  gboolean  truncated;    /* output exceeded the cap; the process group was killed */
} JmemRunResult;

void jmem_run_result_clear (JmemRunResult *result);

/* The program jmem would run for @name (a bare name): the first regular,
 * executable file in PATH's absolute directories (empty and relative entries
 * are skipped, never the current directory). As root, and when PATH is
 * unset, only /usr/sbin, /usr/bin, /sbin and /bin are searched. NULL when
 * none is found. */
char *jmem_run_find_program (const char *name);

/* Runs @argv (found by jmem_run_find_program(); stdin and stderr on
 * /dev/null, LC_ALL=C) in its own process group; kills the whole group when
 * @timeout_ms passes. Fails only when the program cannot be started:
 * G_SPAWN_ERROR_NOENT when it is not installed. */
gboolean jmem_run (const char * const *argv,
                   guint               timeout_ms,
                   gsize               max_bytes,
                   JmemRunResult      *result,
                   GError            **error);

G_END_DECLS
