/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer target for the /proc/PID status, stat, smaps_rollup, cgroup
 * and cmdline parsers: the same bytes go through each. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "jmem-procfs.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static void
check_status (const char *text, size_t size)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JmemProcStatus) st = jmem_proc_status_parse (text, size, &error);

  if (st == NULL)
    {
      if (error == NULL)
        abort ();
      return;
    }
  if (!g_utf8_validate (st->name, -1, NULL))
    abort ();
  {
    const gint64 values[] = { st->pid, st->ppid, st->uid, st->vm_rss_kib, st->rss_anon_kib,
                              st->rss_file_kib, st->rss_shmem_kib, st->vm_swap_kib, st->threads };

    for (gsize i = 0; i < G_N_ELEMENTS (values); i++)
      if (values[i] < -1)
        abort ();
  }
}

static void
check_stat (const char *text, size_t size)
{
  g_autoptr(GError) error = NULL;
  JmemProcStat st;
  gboolean ok = jmem_proc_stat_parse (text, size, &st, &error);

  if (ok != (error == NULL))
    abort ();
  if (ok && (st.pid < 0 || st.ppid < 0 || st.start_time_ticks < 0 || !g_ascii_isalpha (st.state)))
    abort ();
  if (!ok && (st.pid != -1 || st.start_time_ticks != -1 || st.flags != 0))
    abort ();
}

static void
check_rollup (const char *text, size_t size)
{
  g_autoptr(GError) error = NULL;
  JmemSmapsRollup r;
  gboolean ok = jmem_smaps_rollup_parse (text, size, &r, &error);

  if (ok != (error == NULL) || (ok && r.pss_kib < 0))
    abort ();
  if (r.rss_kib < -1 || r.swap_pss_kib < -1)
    abort ();
}

static void
check_cgroup (const char *text, size_t size)
{
  g_autoptr(GError) error = NULL;
  JmemCgroupInfo info;
  static const char *const runtimes[] = { "docker", "containerd", "crio", "podman", "kubepods" };
  gboolean known = FALSE;

  if (!jmem_cgroup_parse (text, size, &info, &error))
    {
      if (error == NULL || info.runtime != NULL || info.id != NULL || info.cgroup != NULL)
        abort ();
      return;
    }
  if (info.cgroup == NULL || !g_utf8_validate (info.cgroup, -1, NULL))
    abort ();
  if ((info.runtime == NULL) != (info.id == NULL))
    abort ();
  if (info.runtime != NULL)
    {
      for (gsize i = 0; i < G_N_ELEMENTS (runtimes); i++)
        known |= g_str_equal (info.runtime, runtimes[i]);
      if (!known || strspn (info.id, "0123456789abcdef") != strlen (info.id) ||
          strstr (info.cgroup, info.id) == NULL)
        abort ();
    }
  jmem_cgroup_info_clear (&info);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  const char *text = (const char *) data;
  g_autofree char *cmd = NULL;

  check_status (text, size);
  check_stat (text, size);
  check_rollup (text, size);
  check_cgroup (text, size);
  cmd = jmem_cmdline_parse (text, size);
  /* Each input byte becomes at most one U+FFFD (3 bytes) or a space. */
  if (!g_utf8_validate (cmd, -1, NULL) || strlen (cmd) > 3 * size)
    abort ();
  return 0;
}
