/* SPDX-License-Identifier: GPL-2.0-or-later */
/* DropCaches' limit: one call per interval, for every caller together. */
#include <glib.h>

#include "jmem-rate-limit.h"

#define S G_USEC_PER_SEC

static void
test_one_per_interval (void)
{
  JmemRateLimit rl;
  guint wait = 0;
  gint64 t0 = 1000 * S;

  jmem_rate_limit_init (&rl, 10 * S);
  g_assert_false (jmem_rate_limit_active (&rl, t0));
  g_assert_true (jmem_rate_limit_try (&rl, t0, &wait));
  g_assert_true (jmem_rate_limit_active (&rl, t0));

  g_assert_false (jmem_rate_limit_try (&rl, t0, &wait));
  g_assert_cmpuint (wait, ==, 10);
  g_assert_false (jmem_rate_limit_try (&rl, t0 + S / 2, &wait));
  g_assert_cmpuint (wait, ==, 10);      /* 9.5 s left: say 10, never 9 */
  g_assert_false (jmem_rate_limit_try (&rl, t0 + 9 * S + 1, &wait));
  g_assert_cmpuint (wait, ==, 1);       /* a sliver left is still a second */

  /* A refusal does not move the window. */
  g_assert_true (jmem_rate_limit_try (&rl, t0 + 10 * S, &wait));
  g_assert_false (jmem_rate_limit_try (&rl, t0 + 15 * S, &wait));
  g_assert_cmpuint (wait, ==, 5);
  g_assert_false (jmem_rate_limit_active (&rl, t0 + 20 * S));
  jmem_rate_limit_clear (&rl);
}

static void
test_clock_going_back (void)
{
  JmemRateLimit rl;
  guint wait = 0;

  jmem_rate_limit_init (&rl, 10 * S);
  g_assert_true (jmem_rate_limit_try (&rl, 50 * S, &wait));
  /* Earlier than the last event: the full interval still applies. */
  g_assert_false (jmem_rate_limit_try (&rl, 10 * S, &wait));
  g_assert_cmpuint (wait, ==, 10);
  jmem_rate_limit_clear (&rl);
}

typedef struct {
  JmemRateLimit rl;
  gint          accepted;
} Shared;

static gpointer
racer (gpointer data)
{
  Shared *s = data;

  for (int i = 0; i < 100; i++)
    if (jmem_rate_limit_try (&s->rl, 77 * S, NULL))
      g_atomic_int_inc (&s->accepted);
  return NULL;
}

static void
test_concurrent_callers_get_one (void)
{
  Shared s = { 0 };
  GThread *threads[8];

  jmem_rate_limit_init (&s.rl, 10 * S);
  for (guint i = 0; i < G_N_ELEMENTS (threads); i++)
    threads[i] = g_thread_new ("racer", racer, &s);
  for (guint i = 0; i < G_N_ELEMENTS (threads); i++)
    g_thread_join (threads[i]);
  g_assert_cmpint (s.accepted, ==, 1);
  jmem_rate_limit_clear (&s.rl);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/helper/rate-limit/one-per-interval", test_one_per_interval);
  g_test_add_func ("/helper/rate-limit/clock-going-back", test_clock_going_back);
  g_test_add_func ("/helper/rate-limit/concurrent-callers-get-one", test_concurrent_callers_get_one);
  return g_test_run ();
}
