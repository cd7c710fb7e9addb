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
jmem_caps_allowed_mask (void)
{
  return BIT (CAP_SYS_ADMIN) | BIT (CAP_DAC_READ_SEARCH);
}

void
jmem_caps_plan (const JmemCapSets *have,
                JmemCapPlan       *plan)
{
  guint64 allowed = jmem_caps_allowed_mask ();
  guint64 all = have->permitted | have->effective | have->inheritable |
                have->bounding | have->ambient;

  memset (plan, 0, sizeof *plan);
  plan->target = *have;

  /* Under the systemd unit the bounding set is already the two and seccomp
   * denies capset(): making no call at all is what lets the helper run. */
  if ((all & ~allowed) == 0)
    return;

  plan->change = TRUE;
  plan->drop_bounding = have->bounding & ~allowed;
  plan->needs_setpcap = plan->drop_bounding != 0;
  plan->clear_ambient = have->ambient != 0;
  plan->target.permitted = have->permitted & allowed;
  plan->target.effective = have->effective & allowed;
  plan->target.inheritable = have->inheritable & allowed;
  plan->target.bounding = have->bounding & allowed;
  plan->target.ambient = 0;
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

static gboolean
apply_sets (const JmemCapSets *target,
            GError           **error)
{
  g_auto(cap_t) caps = cap_init ();

  if (caps == NULL)
    return set_errno_error (error, errno, "Cannot allocate capability sets");

  for (int cap = 0; cap < 64; cap++)
    {
      cap_value_t v = cap;

      if (target->permitted & BIT (cap))
        cap_set_flag (caps, CAP_PERMITTED, 1, &v, CAP_SET);
      if (target->effective & BIT (cap))
        cap_set_flag (caps, CAP_EFFECTIVE, 1, &v, CAP_SET);
      if (target->inheritable & BIT (cap))
        cap_set_flag (caps, CAP_INHERITABLE, 1, &v, CAP_SET);
    }
  if (cap_set_proc (caps) != 0)
    return set_errno_error (error, errno, "Cannot reduce the capability sets");
  return TRUE;
}

gboolean
jmem_caps_restrict (gboolean *changed,
                    GError  **error)
{
  JmemCapSets have, after;
  JmemCapPlan plan, check;

  *changed = FALSE;
  if (!jmem_caps_read (&have, error))
    return FALSE;

  jmem_caps_plan (&have, &plan);
  if (!plan.change)
    return TRUE;
  *changed = TRUE;

  /* Bounding first: PR_CAPBSET_DROP needs CAP_SETPCAP, which the capset
   * below takes away. */
  for (int cap = 0; cap < 64; cap++)
    if ((plan.drop_bounding & BIT (cap)) && cap_drop_bound (cap) != 0)
      {
        g_set_error (error, JMEM_ERROR, JMEM_ERROR_FAILED,
                     "Cannot drop capability %d from the bounding set: %s%s", cap,
                     g_strerror (errno),
                     (have.effective & BIT (CAP_SETPCAP)) ? "" : " (CAP_SETPCAP is not held)");
        return FALSE;
      }
  if (plan.clear_ambient && cap_reset_ambient () != 0)
    return set_errno_error (error, errno, "Cannot clear the ambient capability set");
  if (!apply_sets (&plan.target, error))
    return FALSE;

  /* Trust the kernel's view, not the calls' return values. */
  if (!jmem_caps_read (&after, error))
    return FALSE;
  jmem_caps_plan (&after, &check);
  if (check.change)
    {
      g_set_error (error, JMEM_ERROR, JMEM_ERROR_FAILED,
                   "Capability sets still hold more than CAP_SYS_ADMIN and CAP_DAC_READ_SEARCH "
                   "(permitted %" G_GINT64_MODIFIER "x, bounding %" G_GINT64_MODIFIER "x)",
                   after.permitted, after.bounding);
      return FALSE;
    }
  return TRUE;
}
