/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "jmem-pid-namespace.h"

#include <sys/stat.h>

guint64
jmem_pid_namespace_self (void)
{
  struct stat st;

  if (stat ("/proc/self/ns/pid", &st) != 0)
    return 0;
  return (guint64) st.st_ino;
}

gboolean
jmem_pid_namespace_joinable (guint64 pids,
                             guint64 own)
{
  return pids == 0 || (own != 0 && pids == own);
}
