/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "jmem-rate-limit.h"

void
jmem_rate_limit_init (JmemRateLimit *rl,
                      gint64         interval_us)
{
  g_mutex_init (&rl->lock);
  rl->interval_us = interval_us;
  rl->last_us = 0;
  rl->used = FALSE;
}

void
jmem_rate_limit_clear (JmemRateLimit *rl)
{
  g_mutex_clear (&rl->lock);
}

static gint64
remaining_us (JmemRateLimit *rl,
              gint64         now_us)
{
  gint64 elapsed;

  if (!rl->used)
    return 0;
  elapsed = now_us - rl->last_us;
  /* A clock that seems to go back is treated as no time passed. */
  if (elapsed < 0)
    elapsed = 0;
  return elapsed >= rl->interval_us ? 0 : rl->interval_us - elapsed;
}

gboolean
jmem_rate_limit_try (JmemRateLimit *rl,
                     gint64         now_us,
                     guint         *wait_s)
{
  gint64 left;

  g_mutex_lock (&rl->lock);
  left = remaining_us (rl, now_us);
  if (left <= 0)
    {
      rl->used = TRUE;
      rl->last_us = now_us;
    }
  g_mutex_unlock (&rl->lock);

  if (left > 0 && wait_s != NULL)
    *wait_s = (guint) ((left + G_USEC_PER_SEC - 1) / G_USEC_PER_SEC);
  return left <= 0;
}

gboolean
jmem_rate_limit_active (JmemRateLimit *rl,
                        gint64         now_us)
{
  gboolean active;

  g_mutex_lock (&rl->lock);
  active = remaining_us (rl, now_us) > 0;
  g_mutex_unlock (&rl->lock);
  return active;
}
