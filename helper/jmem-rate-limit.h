/* SPDX-License-Identifier: GPL-2.0-or-later */
/* At most one event per interval, shared by every caller (thread-safe). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct {
  GMutex  lock;
  gint64  interval_us;
  gint64  last_us;   /* monotonic time of the last accepted event */
  gboolean used;
} JmemRateLimit;

void jmem_rate_limit_init (JmemRateLimit *rl,
                           gint64         interval_us);
void jmem_rate_limit_clear (JmemRateLimit *rl);

/* Accepts the event at @now_us (monotonic) and returns TRUE, or returns
 * FALSE with *wait_s = whole seconds until the next one is accepted (>= 1). */
gboolean jmem_rate_limit_try (JmemRateLimit *rl,
                              gint64         now_us,
                              guint         *wait_s);

/* Whether an event at @now_us would be refused (nothing is recorded). */
gboolean jmem_rate_limit_active (JmemRateLimit *rl,
                                 gint64         now_us);

G_END_DECLS
