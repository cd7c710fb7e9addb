/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "jmem-top-term.h"

#include <curses.h>
#include <errno.h>
#include <gio/gio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <term.h>
#include <termios.h>
#include <unistd.h>

volatile sig_atomic_t jmem_top_term_quit;

static SCREEN *screen;
static gboolean active;
static gboolean color;
static int tty_fd = -1;
static struct termios saved_modes;
static gboolean have_modes;
/* What leaves the alternate screen and shows the cursor, from terminfo,
 * written by a signal handler: no allocation there. */
static char restore_seq[256];
static size_t restore_len;

/* These end the view as q does; every other signal that ends a process
 * (SIGQUIT, SIGPIPE, SIGALRM, SIGUSR1, a fault, a real-time signal...)
 * restores the terminal and then ends it as it would have. */
static const int quit_signals[] = { SIGINT, SIGTERM, SIGHUP };
static struct sigaction old_quit[G_N_ELEMENTS (quit_signals)];
static struct sigaction old_ending[NSIG];
static gboolean ending_caught[NSIG];
static gboolean handlers_installed;

/* Async-signal-safe: write(2) and tcsetattr(3) only. */
static void
restore_now (void)
{
  ssize_t ignored;

  if (!active)
    return;
  if (restore_len > 0)
    ignored = write (tty_fd, restore_seq, restore_len);
  (void) ignored;
  if (have_modes)
    tcsetattr (tty_fd, TCSANOW, &saved_modes);
}

static void
on_quit (int sig)
{
  if (jmem_top_term_quit != 0)
    {
      restore_now ();
      _exit (128 + sig);
    }
  jmem_top_term_quit = sig;
}

static gboolean
is_fault (int sig)
{
  return sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE || sig == SIGILL || sig == SIGTRAP ||
         sig == SIGSYS;
}

/* Whether @sig, left to its default action, ends the process and is not
 * one of the quit signals. */
static gboolean
ends_by_default (int sig)
{
  switch (sig)
    {
    case SIGKILL: case SIGSTOP:  /* cannot be caught */
    case SIGCHLD: case SIGCONT: case SIGTSTP: case SIGTTIN: case SIGTTOU: case SIGWINCH:
    case SIGURG:
      return FALSE;
    default:
      break;
    }
  for (guint i = 0; i < G_N_ELEMENTS (quit_signals); i++)
    if (quit_signals[i] == sig)
      return FALSE;
  return TRUE;
}

/* The terminal first, then what would have happened anyway: a fault
 * returns to the instruction, which faults again under the handler that
 * was there before (the default, or a sanitizer's); any other signal
 * (sent by kill(), abort(), a write to a closed pipe, alarm()) is raised
 * again under it. */
static void
on_ending (int sig, siginfo_t *info, void *context)
{
  restore_now ();
  active = FALSE;
  if (sig > 0 && sig < NSIG && ending_caught[sig])
    sigaction (sig, &old_ending[sig], NULL);
  if (!is_fault (sig) || info == NULL || info->si_code <= 0)
    raise (sig);
}

static void
install_handlers (void)
{
  struct sigaction sa;

  if (handlers_installed)
    return;
  /* No SA_RESTART: a signal ends the wait for a key at once. Installed
   * before ncurses starts, which then leaves SIGINT and SIGTERM to us. */
  memset (&sa, 0, sizeof sa);
  sigemptyset (&sa.sa_mask);
  sa.sa_handler = on_quit;
  for (guint i = 0; i < G_N_ELEMENTS (quit_signals); i++)
    sigaction (quit_signals[i], &sa, &old_quit[i]);

  memset (&sa, 0, sizeof sa);
  sigemptyset (&sa.sa_mask);
  sa.sa_sigaction = on_ending;
  sa.sa_flags = SA_SIGINFO | SA_NODEFER;
  for (int sig = 1; sig < NSIG; sig++)
    {
      struct sigaction old;

      /* an ignored signal ends nothing; the C library refuses its own */
      if (!ends_by_default (sig) || sigaction (sig, NULL, &old) != 0 || old.sa_handler == SIG_IGN)
        continue;
      ending_caught[sig] = sigaction (sig, &sa, &old_ending[sig]) == 0;
    }
  handlers_installed = TRUE;
}

void
jmem_top_term_catch_quit (void)
{
  struct sigaction sa;

  memset (&sa, 0, sizeof sa);
  sigemptyset (&sa.sa_mask);
  sa.sa_handler = on_quit;
  for (guint i = 0; i < G_N_ELEMENTS (quit_signals); i++)
    sigaction (quit_signals[i], &sa, NULL);
}

static void
remove_handlers (void)
{
  if (!handlers_installed)
    return;
  for (guint i = 0; i < G_N_ELEMENTS (quit_signals); i++)
    sigaction (quit_signals[i], &old_quit[i], NULL);
  for (int sig = 1; sig < NSIG; sig++)
    if (ending_caught[sig])
      {
        sigaction (sig, &old_ending[sig], NULL);
        ending_caught[sig] = FALSE;
      }
  handlers_installed = FALSE;
}

static void
append_cap (const char *name)
{
  const char *cap = tigetstr ((char *) name);
  size_t len;

  if (cap == NULL || cap == (char *) -1)
    return;
  len = strlen (cap);
  if (restore_len + len < sizeof restore_seq)
    {
      memcpy (restore_seq + restore_len, cap, len);
      restore_len += len;
    }
}

static void
at_exit (void)
{
  jmem_top_term_stop ();
}

gboolean
jmem_top_term_start (gboolean use_color,
                     GError **error)
{
  static gboolean at_exit_added;
  const char *term = g_getenv ("TERM");

  g_return_val_if_fail (!active, FALSE);
  tty_fd = fileno (stdout);
  if (!isatty (tty_fd) || !isatty (fileno (stdin)))
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                           "stdin and stdout are not both a terminal");
      return FALSE;
    }
  have_modes = tcgetattr (tty_fd, &saved_modes) == 0;
  install_handlers ();
  /* newterm(), unlike initscr(), returns on a terminal it does not know */
  screen = newterm (NULL, stdout, stdin);
  if (screen == NULL)
    {
      remove_handlers ();
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                   "the terminal \"%s\" is not in the terminfo database",
                   term != NULL ? term : "");
      return FALSE;
    }
  set_term (screen);
  active = TRUE;
  if (!at_exit_added)
    {
      atexit (at_exit);
      at_exit_added = TRUE;
    }
  restore_len = 0;
  append_cap ("sgr0");
  append_cap ("cnorm");
  append_cap ("rmkx");
  append_cap ("rmcup");

  cbreak ();
  noecho ();
  nonl ();
  keypad (stdscr, TRUE);
  intrflush (stdscr, FALSE);
  curs_set (0);
  set_escdelay (25);
  color = FALSE;
  if (use_color && has_colors () && start_color () == OK)
    {
      use_default_colors ();
      init_pair (JMEM_TOP_PAIR_BAR, COLOR_GREEN, -1);
      init_pair (JMEM_TOP_PAIR_NVMAP, COLOR_MAGENTA, -1);
      init_pair (JMEM_TOP_PAIR_GROW, COLOR_RED, -1);
      init_pair (JMEM_TOP_PAIR_TITLE, COLOR_BLACK, COLOR_GREEN);
      init_pair (JMEM_TOP_PAIR_WARN, COLOR_YELLOW, -1);
      init_pair (JMEM_TOP_PAIR_CACHE, COLOR_BLUE, -1);
      init_pair (JMEM_TOP_PAIR_PROCESS, COLOR_CYAN, -1);
      init_pair (JMEM_TOP_PAIR_KERNEL, COLOR_YELLOW, -1);
      color = TRUE;
    }
  return TRUE;
}

void
jmem_top_term_stop (void)
{
  if (!active)
    return;
  endwin ();
  /* endwin() restores the modes it saved; ours came first */
  if (have_modes)
    tcsetattr (tty_fd, TCSANOW, &saved_modes);
  active = FALSE;
  delscreen (screen);
  screen = NULL;
  remove_handlers ();
}

gboolean
jmem_top_term_has_color (void)
{
  return color;
}
