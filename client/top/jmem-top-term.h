/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The terminal under jmem top: taken with ncursesw, and given back as it
 * was on every way out: q, Ctrl-C (SIGINT), SIGTERM, SIGHUP, a crash
 * (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT) or exit(). */
#pragma once

#include <glib.h>
#include <signal.h>

G_BEGIN_DECLS

/* Set by SIGINT, SIGTERM and SIGHUP: the main loop ends at its next turn
 * (a sample in progress finishes first). A second such signal gives the
 * terminal back at once and exits with 128 + the signal. */
extern volatile sig_atomic_t jmem_top_term_quit;

/* Only the quit signals' handlers (no terminal to give back): the lines
 * printed instead of the screen end at the next turn too. */
void jmem_top_term_catch_quit (void);

/* Takes the terminal on stdin/stdout: saved modes, signal handlers, the
 * alternate screen, no echo, keys one at a time, no cursor. FALSE with
 * @error when the terminal cannot be used (not one, or TERM unknown). */
gboolean jmem_top_term_start (gboolean use_color,
                              GError **error);

/* Gives the terminal back; harmless when not started or already stopped. */
void jmem_top_term_stop (void);

/* Whether colour pairs are set up (a colour terminal, NO_COLOR unset). */
gboolean jmem_top_term_has_color (void);

/* Colour pairs jmem_top_term_start() sets up. */
enum {
  JMEM_TOP_PAIR_BAR = 1,   /* the memory bar's used part */
  JMEM_TOP_PAIR_NVMAP,     /* the accounting's GPU memory (NvMap, hugetlb) */
  JMEM_TOP_PAIR_GROW,      /* growth, and memory no bucket explains */
  JMEM_TOP_PAIR_TITLE,     /* the table's header */
  JMEM_TOP_PAIR_WARN,      /* messages that say something failed */
  JMEM_TOP_PAIR_CACHE,     /* the accounting's page cache and shmem */
  JMEM_TOP_PAIR_PROCESS,   /* its anonymous memory */
  JMEM_TOP_PAIR_KERNEL,    /* its kernel buckets */
};

G_END_DECLS
