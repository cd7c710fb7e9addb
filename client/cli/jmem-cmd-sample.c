/* Taking samples for the commands: one through the collector with the
 * command's error reporting, or one every few seconds until a count or a
 * signal ends it. */
#include "jmem-cmd.h"

#include "jmem-error.h"

#include <glib-unix.h>
#include <signal.h>

JmemSnapshot *
jmem_cmd_collect (const char               *command,
                  const JmemCollectOptions *options,
                  int                      *exit_status)
{
  g_autoptr(GError) error = NULL;
  JmemSnapshot *snapshot = jmem_collect_snapshot (options, &error);

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
  gboolean           stopping;  /* a signal came: no sample after it */
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
  Repeat *r = data;

  if (!r->stopping)
    sample (r);
  return G_SOURCE_CONTINUE;
}

static gboolean
on_first (gpointer data)
{
  Repeat *r = data;

  r->first_id = 0;
  if (!r->stopping)
    sample (r);
  return G_SOURCE_REMOVE;
}

static gboolean
on_signal (gpointer data)
{
  Repeat *r = data;

  r->stopping = TRUE;
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
  Repeat r = { loop, func, user_data, count, 0, 0, JMEM_EXIT_OK, FALSE };
  guint sigint, sigterm, timer;

  /* A signal that came during a sample that overran its interval is ready
   * together with the timer when the sample ends; above the timer's
   * priority, it is dispatched alone, and no sample follows it. */
  sigint = g_unix_signal_add_full (G_PRIORITY_HIGH, SIGINT, on_signal, &r, NULL);
  sigterm = g_unix_signal_add_full (G_PRIORITY_HIGH, SIGTERM, on_signal, &r, NULL);
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
