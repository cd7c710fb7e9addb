/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The floor for `jmem snapshot --json --all`: read the /proc files it reads
 * (status, smaps_rollup, stat, cgroup, cmdline) of every process, and
 * nothing else. bench-snapshot compares jmem's CPU with this loop's. */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

int
main (void)
{
  static const char *files[] = { "status", "smaps_rollup", "stat", "cgroup", "cmdline" };
  static char buf[65536];
  unsigned long total = 0;
  struct dirent *e;
  DIR *proc = opendir ("/proc");

  if (proc == NULL)
    return 1;
  while ((e = readdir (proc)) != NULL)
    {
      int pid_fd;

      if (e->d_name[0] < '0' || e->d_name[0] > '9')
        continue;
      pid_fd = openat (dirfd (proc), e->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      if (pid_fd < 0)
        continue;
      for (unsigned i = 0; i < sizeof files / sizeof files[0]; i++)
        {
          int fd = openat (pid_fd, files[i], O_RDONLY | O_CLOEXEC);
          ssize_t n;

          if (fd < 0)
            continue;
          while ((n = read (fd, buf, sizeof buf)) > 0)
            total += (unsigned long) n;
          close (fd);
        }
      close (pid_fd);
    }
  closedir (proc);
  printf ("%lu\n", total);
  return 0;
}
