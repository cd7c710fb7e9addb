/* The helper's capability decision (hold none, or only the operator's
 * grant), and reading the sets the kernel reports. */
#include <glib.h>
#include <linux/capability.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "jmem-caps.h"
#include "jmem-file.h"

#define BIT(cap) (G_GUINT64_CONSTANT (1) << (cap))
#define FULL     ((BIT (CAP_LAST_CAP) << 1) - 1)
#define GRANT    BIT (CAP_DAC_READ_SEARCH)

static void
assert_empty (const JmemCapSets *s)
{
  g_assert_cmphex (s->permitted, ==, 0);
  g_assert_cmphex (s->effective, ==, 0);
  g_assert_cmphex (s->inheritable, ==, 0);
  g_assert_cmphex (s->bounding, ==, 0);
  g_assert_cmphex (s->ambient, ==, 0);
}

static void
test_empty_makes_no_call (void)
{
  /* What the unit gives: an empty bounding set, so root's sets are empty. */
  JmemCapSets have = { 0 };
  JmemCapPlan plan;

  jmem_caps_plan (&have, &plan);
  g_assert_false (plan.change);
  g_assert_false (plan.needs_setpcap);
  g_assert_cmphex (plan.drop_bounding, ==, 0);
}

static void
test_operator_grant_is_kept (void)
{
  /* The operator guide's drop-in: CapabilityBoundingSet=CAP_DAC_READ_SEARCH,
   * with or without AmbientCapabilities=. Dropping it would undo the grant,
   * and under the unit capset() is denied anyway. */
  JmemCapSets bounded = { GRANT, GRANT, 0, GRANT, 0 };
  JmemCapSets ambient = { GRANT, GRANT, GRANT, GRANT, GRANT };
  JmemCapPlan plan;

  jmem_caps_plan (&bounded, &plan);
  g_assert_false (plan.change);
  jmem_caps_plan (&ambient, &plan);
  g_assert_false (plan.change);
}

static void
test_full_root_is_emptied (void)
{
  JmemCapSets have = { FULL, FULL, FULL, FULL, BIT (CAP_NET_ADMIN) };
  JmemCapPlan plan;

  jmem_caps_plan (&have, &plan);
  g_assert_true (plan.change);
  g_assert_true (plan.needs_setpcap);
  g_assert_true (plan.clear_ambient);
  g_assert_cmphex (plan.drop_bounding, ==, FULL);
  assert_empty (&plan.target);
}

static void
test_one_extra_anywhere_empties_all (void)
{
  JmemCapSets base = { GRANT, GRANT, 0, GRANT, 0 };
  guint64 extras[] = { BIT (CAP_SYS_ADMIN), BIT (CAP_SYS_PTRACE), BIT (CAP_SETPCAP) };

  for (gsize e = 0; e < G_N_ELEMENTS (extras); e++)
    for (int f = 0; f < 5; f++)
      {
        JmemCapSets have = base;
        guint64 *fields[] = { &have.permitted, &have.effective, &have.inheritable,
                              &have.bounding, &have.ambient };
        JmemCapPlan plan;

        *fields[f] |= extras[e];
        jmem_caps_plan (&have, &plan);
        g_assert_true (plan.change);
        /* Not a grant the helper recognises: the grantable one goes too. */
        assert_empty (&plan.target);
        g_assert_cmphex (plan.drop_bounding, ==, have.bounding);
        g_assert_true (plan.needs_setpcap);
        g_assert_cmpint (plan.clear_ambient, ==, f == 4);
      }
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
      guint64 kept = 0;
      JmemCapSets after;

      if (!jmem_caps_restrict (&changed, &kept, &error))
        _exit (g_str_has_prefix (error->message, "Cannot drop capability") ? 3 : 4);
      if (!jmem_caps_read (&after, NULL))
        _exit (5);
      if (changed)  /* every set, as the kernel reports them, is empty */
        _exit ((after.permitted | after.effective | after.inheritable |
                after.bounding | after.ambient) != 0 ? 6 : 1);
      _exit (kept == (after.permitted | after.effective | after.inheritable |
                      after.bounding | after.ambient) ? 0 : 7);
    }
  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
  g_assert_true (WIFEXITED (status));

  if (!plan.change)
    g_assert_cmpint (WEXITSTATUS (status), ==, 0);       /* no call made */
  else if (!plan.needs_setpcap || (mine.effective & BIT (CAP_SETPCAP)))
    g_assert_cmpint (WEXITSTATUS (status), ==, 1);       /* emptied, and it held */
  else
    g_assert_cmpint (WEXITSTATUS (status), ==, 3);       /* cannot: refuse to run */
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/helper/caps/empty-makes-no-call", test_empty_makes_no_call);
  g_test_add_func ("/helper/caps/operator-grant-is-kept", test_operator_grant_is_kept);
  g_test_add_func ("/helper/caps/full-root-is-emptied", test_full_root_is_emptied);
  g_test_add_func ("/helper/caps/one-extra-anywhere-empties-all", test_one_extra_anywhere_empties_all);
  g_test_add_func ("/helper/caps/read-matches-proc-status", test_read_matches_proc_status);
  g_test_add_func ("/helper/caps/restrict-in-child", test_restrict_in_child);
  return g_test_run ();
}
