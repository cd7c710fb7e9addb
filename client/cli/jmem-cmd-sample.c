/* Taking samples for the commands: one through the collector with the
 * command's error reporting, or one every few seconds until a count or a
 * signal ends it. */
#include "jmem-cmd.h"

#include "jmem-error.h"

#include <glib-unix.h>
#include <signal.h>

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

typedef struct {
  GMainLoop         *loop;
  JmemCmdSampleFunc  func;
  gpointer           user_data;
  guint              count;
  guint              done;
  guint              first_id;
  int                status;
} Repeat;

static void
sample (Repeat *r)
{
  /* The sample runs to its end here: a signal meanwhile is only dispatched
   * afterwards, so the last line written is always complete. */
  r->status = r->func (r->done, r->user_data);
  r->done++;
  if (r->status != JMEM_EXIT_OK || (r->count > 0 && r->done >= r->count))
    g_main_loop_quit (r->loop);
}

static gboolean
on_timer (gpointer data)
{
  sample (data);
  return G_SOURCE_CONTINUE;
}

static gboolean
on_first (gpointer data)
{
  Repeat *r = data;

  r->first_id = 0;
  sample (r);
  return G_SOURCE_REMOVE;
}

static gboolean
on_signal (gpointer data)
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
  Repeat r = { loop, func, user_data, count, 0, 0, JMEM_EXIT_OK };
  guint sigint, sigterm, timer;

  sigint = g_unix_signal_add (SIGINT, on_signal, &r);
  sigterm = g_unix_signal_add (SIGTERM, on_signal, &r);
  /* GLib measures each interval from the start of the last sample, so the
   * collection's own time does not add up over a long run. */
  timer = g_timeout_add ((guint) MIN ((guint64) interval_s * 1000, G_MAXUINT), on_timer, &r);
  r.first_id = g_idle_add (on_first, &r);
  g_main_loop_run (loop);
  g_source_remove (sigint);
  g_source_remove (sigterm);
  g_source_remove (timer);
  if (r.first_id != 0)
    g_source_remove (r.first_id);
  return r.status;
}
