/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The helper's capability decision (hold none, or only the operator's
 * grant), and reading the sets the kernel reports. */
#include <glib.h>
#include <linux/capability.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "jmem-caps.h"
#include "jmem-error.h"
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

/* The design allows the helper CAP_DAC_READ_SEARCH and nothing else: for
 * every other capability, in any of the five sets, alone or beside the
 * grant, the plan drops everything. */
static void
test_only_the_grant_is_kept (void)
{
  g_assert_cmphex (jmem_caps_grantable_mask (), ==, GRANT);

  for (int cap = 0; cap <= CAP_LAST_CAP; cap++)
    for (int f = 0; f < 5; f++)
      {
        JmemCapSets alone = { 0 };
        JmemCapSets beside = { GRANT, GRANT, 0, GRANT, 0 };
        guint64 *alone_fields[] = { &alone.permitted, &alone.effective, &alone.inheritable,
                                    &alone.bounding, &alone.ambient };
        guint64 *beside_fields[] = { &beside.permitted, &beside.effective, &beside.inheritable,
                                     &beside.bounding, &beside.ambient };
        JmemCapPlan plan;

        *alone_fields[f] |= BIT (cap);
        *beside_fields[f] |= BIT (cap);
        jmem_caps_plan (&alone, &plan);
        if (plan.change != (cap != CAP_DAC_READ_SEARCH))
          g_error ("capability %d alone in set %d: plan.change is %d", cap, f, plan.change);
        if (plan.change)
          assert_empty (&plan.target);
        jmem_caps_plan (&beside, &plan);
        if (plan.change != (cap != CAP_DAC_READ_SEARCH))
          g_error ("capability %d beside the grant in set %d: plan.change is %d", cap, f, plan.change);
        if (plan.change)
          assert_empty (&plan.target);
      }
}

/* ---- a kernel that leaves capabilities behind --------------------------- */

/* The process's sets as the stand-in kernel holds them, and what each call
 * fails to take away. */
static JmemCapSets fake;
static JmemCapSets stays;
static guint fake_calls;

static gboolean
fake_read (JmemCapSets *sets, GError **error)
{
  *sets = fake;
  return TRUE;
}

static int
fake_drop_bound (int cap)
{
  fake_calls++;
  fake.bounding &= ~BIT (cap) | stays.bounding;
  return 0;
}

static int
fake_clear_ambient (void)
{
  fake_calls++;
  fake.ambient &= stays.ambient;
  return 0;
}

static int
fake_clear_sets (void)
{
  fake_calls++;
  fake.permitted &= stays.permitted;
  fake.effective &= stays.effective;
  fake.inheritable &= stays.inheritable;
  return 0;
}

static const JmemCapsOps fake_ops = { fake_read, fake_drop_bound, fake_clear_ambient, fake_clear_sets };

/* Full root, as a bus without systemd starts the helper. */
static void
fake_full_root (void)
{
  fake = (JmemCapSets) { FULL, FULL, 0, FULL, BIT (CAP_NET_ADMIN) };
  stays = (JmemCapSets) { 0 };
  fake_calls = 0;
}

/* Every call "succeeds", but a capability stays in one set: the helper
 * looks at all five afterwards and refuses to run, whichever it is. */
static void
test_leftovers_refuse_to_run (void)
{
  static const char *const names[] = { "permitted", "effective", "inheritable", "bounding", "ambient" };
  gboolean changed;
  guint64 kept = 1;

  /* the stand-in does what a kernel does when nothing stays */
  fake_full_root ();
  g_assert_true (jmem_caps_restrict_with (&fake_ops, &changed, &kept, NULL));
  g_assert_true (changed);
  g_assert_cmphex (kept, ==, 0);
  assert_empty (&fake);

  for (int f = 0; f < 5; f++)
    {
      g_autoptr(GError) error = NULL;
      guint64 *stays_fields[] = { &stays.permitted, &stays.effective, &stays.inheritable,
                                  &stays.bounding, &stays.ambient };

      fake_full_root ();
      fake.inheritable = BIT (CAP_SYS_ADMIN);
      fake.ambient = BIT (CAP_SYS_ADMIN);
      *stays_fields[f] = BIT (CAP_SYS_ADMIN);
      g_test_message ("CAP_SYS_ADMIN stays in %s", names[f]);
      g_assert_false (jmem_caps_restrict_with (&fake_ops, &changed, &kept, &error));
      g_assert_error (error, JMEM_ERROR, JMEM_ERROR_FAILED);
      g_assert_nonnull (strstr (error->message, "not empty after dropping them"));
      g_assert_cmpuint (fake_calls, >, 0);
    }
}

/* Found holding the grant alone (the operator's drop-in), nothing is
 * called and the grant is what is kept; with anything beside it, all goes. */
static void
test_grant_kept_over_every_cap (void)
{
  for (int cap = 0; cap <= CAP_LAST_CAP; cap++)
    {
      g_autoptr(GError) error = NULL;
      gboolean changed = TRUE;
      guint64 kept = 0;

      fake = (JmemCapSets) { GRANT, GRANT, 0, GRANT | BIT (cap), 0 };
      stays = (JmemCapSets) { 0 };
      fake_calls = 0;
      g_assert_true (jmem_caps_restrict_with (&fake_ops, &changed, &kept, &error));
      g_assert_no_error (error);
      if (cap == CAP_DAC_READ_SEARCH)
        {
          g_assert_false (changed);
          g_assert_cmpuint (fake_calls, ==, 0);
          g_assert_cmphex (kept, ==, GRANT);
        }
      else
        {
          g_assert_true (changed);
          g_assert_cmphex (kept, ==, 0);
          assert_empty (&fake);
        }
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
  g_test_add_func ("/helper/caps/only-the-grant-is-kept", test_only_the_grant_is_kept);
  g_test_add_func ("/helper/caps/leftovers-refuse-to-run", test_leftovers_refuse_to_run);
  g_test_add_func ("/helper/caps/grant-kept-over-every-cap", test_grant_kept_over_every_cap);
  g_test_add_func ("/helper/caps/read-matches-proc-status", test_read_matches_proc_status);
  g_test_add_func ("/helper/caps/restrict-in-child", test_restrict_in_child);
  return g_test_run ();
}
