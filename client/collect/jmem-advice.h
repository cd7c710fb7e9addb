/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What a person or an agent does next about a failed operation: the exit
 * status of jmem(1)'s table and the action to take. One function, called by
 * the commands and the MCP tools alike, so that their advice cannot drift. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* jmem's exit statuses (sysexits.h values; jmem(1), EXIT STATUS). */
typedef enum {
  JMEM_EXIT_OK = 0,
  JMEM_EXIT_USAGE = 64,          /* bad command line */
  JMEM_EXIT_DATA_ERR = 65,       /* an input file is not what it must be */
  JMEM_EXIT_NO_INPUT = 66,       /* an input file is missing or unreadable */
  JMEM_EXIT_NO_DATA = 69,        /* nothing to report at all, or a service jmem needs is unavailable */
  JMEM_EXIT_INTERNAL = 70,       /* a bug */
  JMEM_EXIT_CANT_CREATE = 73,    /* cannot create the output */
  JMEM_EXIT_TEMP_FAIL = 75,      /* refused for now (rate limit): try again later */
  JMEM_EXIT_NOT_AUTHORIZED = 77, /* the command's main data was refused */
} JmemExit;

typedef enum {
  JMEM_ADVICE_NONE = 0,
  /* the face can let polkit ask for a password (a command at a terminal);
   * an MCP tool never can */
  JMEM_ADVICE_CAN_ASK = 1 << 0,
} JmemAdviceFlags;

typedef struct {
  JmemExit    exit_status;
  const char *action;             /* what to do, or NULL when the message says all */
  gboolean    helper_unavailable; /* no helper can answer here now: what works without it
                                   * (audit --no-drop) is the way on */
} JmemAdvice;

/* The advice for @error from the helper client (jmem-helper-client.h), an
 * NvMap source or an operation (JMEM_CLIENT_ERROR). Decided by the error's
 * domain and code alone, except that a PolkitUnavailable whose message says
 * polkit did not answer (JMEM_POLKIT_NO_ANSWER) gets the advice for a hung
 * polkit, with the seconds it was given. */
JmemAdvice jmem_advice_for_error (const GError    *error,
                                  JmemAdviceFlags  flags);

G_END_DECLS
