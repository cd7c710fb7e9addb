/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "jmem-caps.h"

#include <errno.h>
#include <gio/gio.h>
#include <linux/capability.h>
#include <sys/capability.h>
#include <sys/prctl.h>

#include "jmem-error.h"

#include <string.h>

static void
cap_t_free (cap_t caps)
{
  cap_free (caps);
}
G_DEFINE_AUTO_CLEANUP_FREE_FUNC (cap_t, cap_t_free, NULL)

#define BIT(cap) (G_GUINT64_CONSTANT (1) << (cap))

guint64
jmem_caps_grantable_mask (void)
{
  return BIT (CAP_DAC_READ_SEARCH);
}

static guint64
union_of (const JmemCapSets *s)
{
  return s->permitted | s->effective | s->inheritable | s->bounding | s->ambient;
}

void
jmem_caps_plan (const JmemCapSets *have,
                JmemCapPlan       *plan)
{
  memset (plan, 0, sizeof *plan);
  plan->target = *have;

  /* Under the unit every set is empty already (or bounded to the operator's
   * grant) and seccomp denies capset(): making no call at all is what lets
   * the helper run there, and what keeps the grant. */
  if ((union_of (have) & ~jmem_caps_grantable_mask ()) == 0)
    return;

  /* Anything else was not chosen for the helper: drop every set, the
   * grantable one included. */
  plan->change = TRUE;
  plan->drop_bounding = have->bounding;
  plan->needs_setpcap = plan->drop_bounding != 0;
  plan->clear_ambient = have->ambient != 0;
  memset (&plan->target, 0, sizeof plan->target);
}

static gboolean
set_errno_error (GError    **error,
                 int         saved,
                 const char *what)
{
  g_set_error (error, JMEM_ERROR, JMEM_ERROR_FAILED, "%s: %s", what, g_strerror (saved));
  return FALSE;
}

gboolean
jmem_caps_read (JmemCapSets *sets,
                GError     **error)
{
  g_auto(cap_t) caps = NULL;
  int last = (int) cap_max_bits () - 1;

  memset (sets, 0, sizeof *sets);
  caps = cap_get_proc ();
  if (caps == NULL)
    return set_errno_error (error, errno, "Cannot read the capability sets");

  for (int cap = 0; cap <= last && cap < 64; cap++)
    {
      cap_flag_value_t v;

      if (cap_get_flag (caps, cap, CAP_PERMITTED, &v) == 0 && v == CAP_SET)
        sets->permitted |= BIT (cap);
      if (cap_get_flag (caps, cap, CAP_EFFECTIVE, &v) == 0 && v == CAP_SET)
        sets->effective |= BIT (cap);
      if (cap_get_flag (caps, cap, CAP_INHERITABLE, &v) == 0 && v == CAP_SET)
        sets->inheritable |= BIT (cap);
      if (cap_get_bound (cap) > 0)
        sets->bounding |= BIT (cap);
      if (cap_get_ambient (cap) > 0)
        sets->ambient |= BIT (cap);
    }
  return TRUE;
}

/* cap_init() is every set empty: one capset() clears permitted, effective
 * and inheritable together. */
static int
clear_sets (void)
{
  g_auto(cap_t) caps = cap_init ();

  if (caps == NULL)
    return -1;
  return cap_set_proc (caps);
}

static int
drop_bound (int cap)
{
  return cap_drop_bound (cap);
}

static int
clear_ambient (void)
{
  return cap_reset_ambient ();
}

static const JmemCapsOps libcap_ops = {
  .read = jmem_caps_read,
  .drop_bound = drop_bound,
  .clear_ambient = clear_ambient,
  .clear_sets = clear_sets,
};

gboolean
jmem_caps_restrict (gboolean *changed,
                    guint64  *kept,
                    GError  **error)
{
  return jmem_caps_restrict_with (NULL, changed, kept, error);
}

gboolean
jmem_caps_restrict_with (const JmemCapsOps *ops,
                         gboolean          *changed,
                         guint64           *kept,
                         GError           **error)
{
  JmemCapSets have, after;
  JmemCapPlan plan;

  if (ops == NULL)
    ops = &libcap_ops;
  *changed = FALSE;
  if (kept != NULL)
    *kept = 0;
  if (!ops->read (&have, error))
    return FALSE;

  jmem_caps_plan (&have, &plan);
  if (!plan.change)
    {
      if (kept != NULL)
        *kept = union_of (&have);
      return TRUE;
    }
  *changed = TRUE;

  /* Bounding first: PR_CAPBSET_DROP needs CAP_SETPCAP in the effective set,
   * which the capset below takes away (dropping it from the bounding set
   * does not). */
  for (int cap = 0; cap < 64; cap++)
    if ((plan.drop_bounding & BIT (cap)) && ops->drop_bound (cap) != 0)
      {
        g_set_error (error, JMEM_ERROR, JMEM_ERROR_FAILED,
                     "Cannot drop capability %d from the bounding set: %s%s", cap,
                     g_strerror (errno),
                     (have.effective & BIT (CAP_SETPCAP)) ? "" : " (CAP_SETPCAP is not held)");
        return FALSE;
      }
  if (plan.clear_ambient && ops->clear_ambient () != 0)
    return set_errno_error (error, errno, "Cannot clear the ambient capability set");
  if (ops->clear_sets () != 0)
    return set_errno_error (error, errno, "Cannot clear the capability sets");

  /* Trust the kernel's view, not the calls' return values: all five sets,
   * since a capability left in any of them can come back. */
  if (!ops->read (&after, error))
    return FALSE;
  if (union_of (&after) != 0)
    {
      g_set_error (error, JMEM_ERROR, JMEM_ERROR_FAILED,
                   "Capability sets are not empty after dropping them (permitted %"
                   G_GINT64_MODIFIER "x, effective %" G_GINT64_MODIFIER "x, inheritable %"
                   G_GINT64_MODIFIER "x, bounding %" G_GINT64_MODIFIER "x, ambient %"
                   G_GINT64_MODIFIER "x)",
                   after.permitted, after.effective, after.inheritable, after.bounding,
                   after.ambient);
      return FALSE;
    }
  return TRUE;
}
