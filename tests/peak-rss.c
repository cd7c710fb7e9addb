/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Runs a command and writes its peak resident set size, in KiB, to a file:
 * ru_maxrss of the child it forks and waits for (the highest VmHWM of the
 * command and of what it exec'd into).
 *
 * A test or a script cannot take that figure from its own children: exec
 * keeps the peak of the memory it replaces, so a child forked (or vforked)
 * from a big test process or a Python interpreter starts with the parent's
 * peak. This program is small and uses no library but libc, so the child
 * it forks starts with a peak of about a megabyte.
 *
 * usage: peak-rss FILE COMMAND [ARG...]
 * Exit status: COMMAND's, 128 + the signal that killed it, or 127 where it
 * could not be run. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int
main (int argc, char **argv)
{
  struct rusage usage;
  FILE *out;
  pid_t child;
  int status;

  if (argc < 3)
    {
      fprintf (stderr, "usage: peak-rss FILE COMMAND [ARG...]\n");
      return 64;
    }
  child = fork ();
  if (child < 0)
    {
      perror ("peak-rss: fork");
      return 127;
    }
  if (child == 0)
    {
      execvp (argv[2], argv + 2);
      fprintf (stderr, "peak-rss: cannot run %s: %s\n", argv[2], strerror (errno));
      _exit (127);
    }
  while (wait4 (child, &status, 0, &usage) < 0)
    if (errno != EINTR)
      {
        perror ("peak-rss: wait4");
        return 127;
      }
  out = fopen (argv[1], "w");
  if (out == NULL || fprintf (out, "%ld\n", usage.ru_maxrss) < 0 || fclose (out) != 0)
    {
      fprintf (stderr, "peak-rss: cannot write %s: %s\n", argv[1], strerror (errno));
      return 127;
    }
  if (WIFSIGNALED (status))
    return 128 + WTERMSIG (status);
  return WEXITSTATUS (status);
}
