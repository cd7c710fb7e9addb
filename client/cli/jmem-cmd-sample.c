/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Taking samples for the commands: one through the collector with the
 * command's error reporting, or one every few seconds until a count or a
 * signal ends it. */
#include "jmem-cmd.h"

#include "jmem-error.h"

#include <errno.h>
#include <glib-unix.h>
#include <signal.h>
#include <unistd.h>

JmemSnapshot *
jmem_cmd_collect (const char                   *command,
                  const JmemOpsSnapshotOptions *options,
                  int                          *exit_status)
{
  g_autoptr(GError) error = NULL;
  JmemSnapshot *snapshot = jmem_ops_snapshot (options, &error);

  if (snapshot == NULL)
    {
      jmem_cmd_printerr ("%s: %s", command, error->message);
      *exit_status = g_error_matches (error, JMEM_ERROR, JMEM_ERROR_NOT_AVAILABLE) ?
                       JMEM_EXIT_NO_DATA : JMEM_EXIT_INTERNAL;
    }
  return snapshot;
}

void
jmem_cmd_print_capture_warnings (const char         *command,
                                 const JmemSnapshot *snapshot)
{
  for (guint i = 0; i < snapshot->warnings->len; i++)
    {
      const JmemWarning *w = g_ptr_array_index (snapshot->warnings, i);

      if (g_strcmp0 (w->source, JMEM_COLLECT_CAPTURE_SOURCE) == 0)
        jmem_cmd_printerr ("%s: %s: %s", command, w->message, w->action);
    }
}

typedef struct {
  GMainLoop         *loop;
  JmemCmdSampleFunc  func;
  gpointer           user_data;
  guint              count;
  guint              done;
  guint              first_id;
  int                status;
} Repeat;

/* SIGINT or SIGTERM has come. GLib's own signal sources learn of a signal
 * only once its worker thread has run, which can be after a sample that
 * overran returns to a loop whose timer is already due; a flag the handler
 * sets itself is seen before any next sample, whichever thread ran it. */
static volatile sig_atomic_t stop_requested;
static int stop_pipe[2] = { -1, -1 };

static void
on_stop_signal (int signum)
{
  int saved_errno = errno;

  stop_requested = signum;
  /* only wakes the loop: a full pipe has woken it already */
  (void) !write (stop_pipe[1], "", 1);
  errno = saved_errno;
}

static void
sample (Repeat *r)
{
  /* The sample runs to its end here: a signal meanwhile is only acted on
   * afterwards, so the last line written is always complete. */
  r->status = r->func (r->done, r->user_data);
  r->done++;
  if (r->status != JMEM_EXIT_OK || (r->count > 0 && r->done >= r->count))
    g_main_loop_quit (r->loop);
}

static gboolean
on_timer (gpointer data)
{
  Repeat *r = data;

  if (stop_requested)
    g_main_loop_quit (r->loop);
  else
    sample (r);
  return G_SOURCE_CONTINUE;
}

static gboolean
on_first (gpointer data)
{
  Repeat *r = data;

  r->first_id = 0;
  on_timer (r);
  return G_SOURCE_REMOVE;
}

static gboolean
on_stop_fd (gint fd, GIOCondition condition, gpointer data)
{
  Repeat *r = data;

  g_main_loop_quit (r->loop);
  return G_SOURCE_CONTINUE;
}

int
jmem_cmd_repeat (guint             interval_s,
                 guint             count,
                 JmemCmdSampleFunc func,
                 gpointer          user_data)
{
  g_autoptr(GMainLoop) loop = g_main_loop_new (NULL, FALSE);
  g_autoptr(GError) error = NULL;
  Repeat r = { loop, func, user_data, count, 0, 0, JMEM_EXIT_OK };
  struct sigaction stop = { .sa_handler = on_stop_signal };
  struct sigaction old_int, old_term;
  guint wake, timer;

  if (!g_unix_open_pipe (stop_pipe, FD_CLOEXEC, &error) ||
      !g_unix_set_fd_nonblocking (stop_pipe[1], TRUE, &error))
    {
      jmem_cmd_printerr ("%s: %s", g_get_prgname (), error->message);
      return JMEM_EXIT_INTERNAL;
    }
  stop_requested = 0;
  sigemptyset (&stop.sa_mask);
  stop.sa_flags = SA_RESTART;
  sigaction (SIGINT, &stop, &old_int);
  sigaction (SIGTERM, &stop, &old_term);
  wake = g_unix_fd_add_full (G_PRIORITY_HIGH, stop_pipe[0], G_IO_IN, on_stop_fd, &r, NULL);
  /* GLib measures each interval from the start of the last sample, so the
   * collection's own time does not add up over a long run. */
  timer = g_timeout_add ((guint) MIN ((guint64) interval_s * 1000, G_MAXUINT), on_timer, &r);
  r.first_id = g_idle_add (on_first, &r);
  g_main_loop_run (loop);
  g_source_remove (wake);
  g_source_remove (timer);
  if (r.first_id != 0)
    g_source_remove (r.first_id);
  sigaction (SIGINT, &old_int, NULL);
  sigaction (SIGTERM, &old_term, NULL);
  close (stop_pipe[0]);
  close (stop_pipe[1]);
  stop_pipe[0] = stop_pipe[1] = -1;
  return r.status;
}
