/* The helper's capability decision, and reading the sets the kernel reports. */
#include <glib.h>
#include <linux/capability.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "jmem-caps.h"
#include "jmem-file.h"

#define BIT(cap) (G_GUINT64_CONSTANT (1) << (cap))
#define FULL     ((BIT (CAP_LAST_CAP) << 1) - 1)
#define TWO      (BIT (CAP_SYS_ADMIN) | BIT (CAP_DAC_READ_SEARCH))

static void
assert_within_two (const JmemCapSets *s)
{
  g_assert_cmphex (s->permitted & ~TWO, ==, 0);
  g_assert_cmphex (s->effective & ~TWO, ==, 0);
  g_assert_cmphex (s->inheritable & ~TWO, ==, 0);
  g_assert_cmphex (s->bounding & ~TWO, ==, 0);
  g_assert_cmphex (s->ambient, ==, 0);
}

static void
test_bounded_by_systemd_makes_no_call (void)
{
  /* What the unit gives: bounding = the two, root's sets clipped to it. */
  JmemCapSets have = { TWO, TWO, 0, TWO, 0 };
  JmemCapPlan plan;

  jmem_caps_plan (&have, &plan);
  g_assert_false (plan.change);
  g_assert_false (plan.needs_setpcap);
  g_assert_cmphex (plan.drop_bounding, ==, 0);

  /* Fewer than the two is within them too: nothing is ever added. */
  have = (JmemCapSets) { BIT (CAP_DAC_READ_SEARCH), 0, 0, TWO, 0 };
  jmem_caps_plan (&have, &plan);
  g_assert_false (plan.change);
  have = (JmemCapSets) { 0 };
  jmem_caps_plan (&have, &plan);
  g_assert_false (plan.change);
}

static void
test_full_root_is_reduced (void)
{
  JmemCapSets have = { FULL, FULL, FULL, FULL, BIT (CAP_NET_ADMIN) };
  JmemCapPlan plan;

  jmem_caps_plan (&have, &plan);
  g_assert_true (plan.change);
  g_assert_true (plan.needs_setpcap);
  g_assert_true (plan.clear_ambient);
  g_assert_cmphex (plan.drop_bounding, ==, FULL & ~TWO);
  g_assert_true (plan.drop_bounding & BIT (CAP_SETPCAP));
  assert_within_two (&plan.target);
  g_assert_cmphex (plan.target.permitted, ==, TWO);
  g_assert_cmphex (plan.target.effective, ==, TWO);
  g_assert_cmphex (plan.target.bounding, ==, TWO);
}

static void
test_one_extra_anywhere_triggers (void)
{
  JmemCapSets base = { TWO, TWO, 0, TWO, 0 };
  guint64 *fields[5];
  JmemCapSets have;

  for (int f = 0; f < 5; f++)
    {
      JmemCapPlan plan;

      have = base;
      fields[0] = &have.permitted;
      fields[1] = &have.effective;
      fields[2] = &have.inheritable;
      fields[3] = &have.bounding;
      fields[4] = &have.ambient;
      *fields[f] |= BIT (CAP_SYS_PTRACE);
      jmem_caps_plan (&have, &plan);
      g_assert_true (plan.change);
      assert_within_two (&plan.target);
      /* What was held of the two stays held. */
      g_assert_cmphex (plan.target.permitted, ==, TWO);
      g_assert_cmphex (plan.target.effective, ==, TWO);
      g_assert_cmpint (plan.needs_setpcap, ==, f == 3);
      g_assert_cmpint (plan.clear_ambient, ==, f == 4);
    }
}

static void
test_reduction_never_adds (void)
{
  JmemCapSets have = { BIT (CAP_DAC_READ_SEARCH) | BIT (CAP_KILL), BIT (CAP_KILL), 0,
                       FULL, 0 };
  JmemCapPlan plan;

  jmem_caps_plan (&have, &plan);
  g_assert_true (plan.change);
  g_assert_cmphex (plan.target.permitted, ==, BIT (CAP_DAC_READ_SEARCH));
  g_assert_cmphex (plan.target.effective, ==, 0);
}

static guint64
status_field (const char *status,
              const char *name)
{
  g_autofree char *key = g_strdup_printf ("\n%s:\t", name);
  const char *p = strstr (status, key);

  g_assert_nonnull (p);
  return g_ascii_strtoull (p + strlen (key), NULL, 16);
}

static void
test_read_matches_proc_status (void)
{
  g_autofree char *status = NULL;
  g_autoptr(GError) error = NULL;
  JmemCapSets sets;

  g_assert_true (jmem_caps_read (&sets, &error));
  g_assert_no_error (error);
  g_assert_true (jmem_file_read_capped ("/proc/self/status", 1 << 20, &status, NULL, &error));
  g_assert_cmphex (sets.permitted, ==, status_field (status, "CapPrm"));
  g_assert_cmphex (sets.effective, ==, status_field (status, "CapEff"));
  g_assert_cmphex (sets.inheritable, ==, status_field (status, "CapInh"));
  g_assert_cmphex (sets.bounding, ==, status_field (status, "CapBnd"));
  g_assert_cmphex (sets.ambient, ==, status_field (status, "CapAmb"));
}

/* Applying the plan for real: in a forked child, so the test keeps its own
 * sets (fork, not a GLib subprocess: no helper threads in the test). */
static void
test_restrict_in_child (void)
{
  JmemCapSets mine;
  JmemCapPlan plan;
  int status = 0;
  pid_t pid;

  g_assert_true (jmem_caps_read (&mine, NULL));
  jmem_caps_plan (&mine, &plan);

  pid = fork ();
  g_assert_cmpint (pid, >=, 0);
  if (pid == 0)
    {
      GError *error = NULL;
      gboolean changed = FALSE;
      JmemCapSets after;

      if (!jmem_caps_restrict (&changed, &error))
        _exit (g_str_has_prefix (error->message, "Cannot drop capability") ? 3 : 4);
      if (!jmem_caps_read (&after, NULL))
        _exit (5);
      jmem_caps_plan (&after, &plan);
      _exit (plan.change ? 6 : changed ? 1 : 0);
    }
  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
  g_assert_true (WIFEXITED (status));

  if (!plan.change)
    g_assert_cmpint (WEXITSTATUS (status), ==, 0);       /* no call made */
  else if (!plan.needs_setpcap || (mine.effective & BIT (CAP_SETPCAP)))
    g_assert_cmpint (WEXITSTATUS (status), ==, 1);       /* reduced, and it held */
  else
    g_assert_cmpint (WEXITSTATUS (status), ==, 3);       /* cannot: refuse to run */
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/helper/caps/bounded-by-systemd-makes-no-call", test_bounded_by_systemd_makes_no_call);
  g_test_add_func ("/helper/caps/full-root-is-reduced", test_full_root_is_reduced);
  g_test_add_func ("/helper/caps/one-extra-anywhere-triggers", test_one_extra_anywhere_triggers);
  g_test_add_func ("/helper/caps/reduction-never-adds", test_reduction_never_adds);
  g_test_add_func ("/helper/caps/read-matches-proc-status", test_read_matches_proc_status);
  g_test_add_func ("/helper/caps/restrict-in-child", test_restrict_in_child);
  return g_test_run ();
}
