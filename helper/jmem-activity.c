/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "jmem-activity.h"

/* Shared with the calls it counts, which may be finalized in a worker
 * thread and after everything else is gone: each holds a reference. */
struct _JmemActivity {
  GMutex lock;
  guint  in_flight;
  gint64 last_us;  /* monotonic: a call arrived or ended */
};

#define HOLD_KEY "jmem-activity"

JmemActivity *
jmem_activity_new (void)
{
  JmemActivity *activity = g_atomic_rc_box_new0 (JmemActivity);

  g_mutex_init (&activity->lock);
  activity->last_us = g_get_monotonic_time ();
  return activity;
}

JmemActivity *
jmem_activity_ref (JmemActivity *activity)
{
  return g_atomic_rc_box_acquire (activity);
}

static void
activity_clear (JmemActivity *activity)
{
  g_mutex_clear (&activity->lock);
}

void
jmem_activity_unref (JmemActivity *activity)
{
  g_atomic_rc_box_release_full (activity, (GDestroyNotify) activity_clear);
}

static void
release (gpointer data)
{
  JmemActivity *activity = data;

  g_mutex_lock (&activity->lock);
  activity->in_flight--;
  activity->last_us = g_get_monotonic_time ();
  g_mutex_unlock (&activity->lock);
  jmem_activity_unref (activity);
}

void
jmem_activity_hold (JmemActivity *activity,
                    GObject      *call)
{
  g_mutex_lock (&activity->lock);
  activity->in_flight++;
  activity->last_us = g_get_monotonic_time ();
  g_mutex_unlock (&activity->lock);
  g_object_set_data_full (call, HOLD_KEY, jmem_activity_ref (activity), release);
}

guint
jmem_activity_in_flight (JmemActivity *activity)
{
  guint n;

  g_mutex_lock (&activity->lock);
  n = activity->in_flight;
  g_mutex_unlock (&activity->lock);
  return n;
}

gboolean
jmem_activity_idle (JmemActivity *activity,
                    gint64        now_us,
                    gint64        quiet_us)
{
  gboolean idle;

  g_mutex_lock (&activity->lock);
  idle = activity->in_flight == 0 && now_us - activity->last_us >= quiet_us;
  g_mutex_unlock (&activity->lock);
  return idle;
}
