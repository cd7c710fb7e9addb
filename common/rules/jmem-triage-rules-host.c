/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Rules about the host around memory: heat and fragmentation. */
#include "jmem-triage-private.h"

void
jmem_triage_rule_thermal_hot (JmemTriage *t)
{
  const JmemSnapshot *s = t->snapshot;
  g_autoptr(GString) zones = g_string_new (NULL);
  gboolean zones_read = s->thermal != NULL && s->thermal->len > 0;
  double hottest = -G_MAXDOUBLE;
  guint n = 0;
  JmemFinding *f;

  for (guint i = 0; s->thermal != NULL && i < s->thermal->len; i++)
    {
      const JmemThermal *z = g_ptr_array_index (s->thermal, i);

      if (!(z->celsius > JMEM_TRIAGE_THERMAL_CELSIUS) ||
          z->celsius > JMEM_TRIAGE_THERMAL_PLAUSIBLE_CELSIUS)
        continue;
      g_string_append_printf (zones, "%s%s %.1f °C", n++ ? ", " : "",
                              z->type ? z->type : z->zone ? z->zone : "?", z->celsius);
      hottest = MAX (hottest, z->celsius);
    }
  /* tegrastats only when the zones were not read */
  for (guint i = 0; !zones_read && s->tegrastats != NULL && s->tegrastats->temps != NULL &&
                   i < s->tegrastats->temps->len; i++)
    {
      const JmemTegrastatsTemp *z = g_ptr_array_index (s->tegrastats->temps, i);

      if (!(z->celsius > JMEM_TRIAGE_THERMAL_CELSIUS) ||
          z->celsius > JMEM_TRIAGE_THERMAL_PLAUSIBLE_CELSIUS)
        continue;
      g_string_append_printf (zones, "%s%s %.1f °C (tegrastats)", n++ ? ", " : "",
                              z->name ? z->name : "?", z->celsius);
      hottest = MAX (hottest, z->celsius);
    }
  if (n == 0)
    return;

  f = jmem_triage_add (t, "thermal-hot", JMEM_SEVERITY_WARNING, JMEM_ACTION_ADMIN,
                       /* nvpmodel is a Jetson's */
                       jmem_platform_not_applying (s->platform, JMEM_JETSON_PART_POWER_MODE)
                         ? "Check that the fan spins and the vents have airflow, and lower the "
                           "GPU's load."
                         : "Check that the fan spins and the heatsink has airflow, or choose a "
                           "lower power mode (`sudo nvpmodel -m N`).",
                       "Thermal zones above %.0f °C: %s; the module is about to throttle",
                       JMEM_TRIAGE_THERMAL_CELSIUS, zones->str);
  jmem_finding_add_number (f, "max_celsius", hottest, "celsius");
  jmem_finding_add_number (f, "zones_over", (double) n, "count");
  jmem_finding_add_number (f, "threshold_celsius", JMEM_TRIAGE_THERMAL_CELSIUS, "celsius");
}

void
jmem_triage_rule_lfb_fragmented (JmemTriage *t)
{
  const JmemTegrastats *ts = t->snapshot->tegrastats;
  g_autofree char *block = NULL, *total_s = NULL;
  guint64 total;
  JmemFinding *f;

  if (ts == NULL || ts->lfb_blocks < 0 || ts->lfb_block_kib < 0)
    return;
  /* buddyinfo is what tegrastats reads: fragmented says it once */
  if (t->snapshot->headroom != NULL && t->snapshot->headroom->largest_free_block_kib >= 0)
    return;
  total = (guint64) ts->lfb_block_kib > 0 &&
          (guint64) ts->lfb_blocks > G_MAXUINT64 / (guint64) ts->lfb_block_kib
            ? G_MAXUINT64 : (guint64) ts->lfb_blocks * (guint64) ts->lfb_block_kib;
  if (total >= JMEM_TRIAGE_LFB_MIN_TOTAL_KIB &&
      !(ts->lfb_block_kib < JMEM_TRIAGE_LFB_FULL_BLOCK_KIB && ts->lfb_blocks < JMEM_TRIAGE_LFB_FEW_BLOCKS))
    return;

  block = jmem_triage_size ((guint64) ts->lfb_block_kib);
  total_s = jmem_triage_size (total);
  f = jmem_triage_add (t, "lfb-fragmented", JMEM_SEVERITY_WARNING, JMEM_ACTION_ADMIN,
                       "Compact memory (`jmem drop-caches --compact`), restart long-running "
                       "pipelines that churn buffers, and reserve contiguous memory for camera "
                       "and video through CMA at boot.",
                       "Largest free blocks (tegrastats lfb): %" G_GINT64_FORMAT " × %s = %s; "
                       "memory is fragmented, and large contiguous allocations will fail or stall",
                       ts->lfb_blocks, block, total_s);
  jmem_finding_add_number (f, "lfb_blocks", (double) ts->lfb_blocks, "count");
  jmem_finding_add_number (f, "lfb_block_kib", (double) ts->lfb_block_kib, "KiB");
  jmem_finding_add_number (f, "lfb_total_kib", (double) total, "KiB");
}
