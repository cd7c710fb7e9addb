/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Runs a command as on a kernel without openat2 (Linux before 5.6), or under
 * a container runtime whose seccomp profile predates it: a seccomp filter
 * answers openat2 with ENOSYS (or EPERM, as some profiles do), and is
 * inherited by everything the command starts. jmem then opens beneath a
 * root one component at a time (common/io/jmem-root.c), the way it does there;
 * a test run under this wrapper exercises that walk with nothing in jmem
 * told to take it.
 *
 * usage: no-openat2 ENOSYS|EPERM COMMAND [ARG...]
 * Exit status: COMMAND's; 77 (a skip) where no seccomp filter can be set
 * (qemu user emulation, a kernel without seccomp). */
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_openat2
#ifdef __NR_openat2
#define SYS_openat2 __NR_openat2
#else
#define SYS_openat2 437  /* the same on every architecture */
#endif
#endif

#if defined(__x86_64__)
#define THIS_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define THIS_ARCH AUDIT_ARCH_AARCH64
#elif defined(__i386__)
#define THIS_ARCH AUDIT_ARCH_I386
#elif defined(__arm__)
#define THIS_ARCH AUDIT_ARCH_ARM
#endif

#define SKIP 77

int
main (int argc, char **argv)
{
  int err;

  if (argc < 3 || (strcmp (argv[1], "ENOSYS") != 0 && strcmp (argv[1], "EPERM") != 0))
    {
      fprintf (stderr, "usage: %s ENOSYS|EPERM COMMAND [ARG...]\n", argv[0]);
      return 2;
    }
  err = strcmp (argv[1], "ENOSYS") == 0 ? ENOSYS : EPERM;

#ifndef THIS_ARCH
  fprintf (stderr, "no-openat2: SKIP: no seccomp architecture known for this build\n");
  return SKIP;
#else
  {
    struct sock_filter filter[] = {
      /* another architecture's call (a compat one): let it through */
      BPF_STMT (BPF_LD | BPF_W | BPF_ABS, offsetof (struct seccomp_data, arch)),
      BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K, THIS_ARCH, 1, 0),
      BPF_STMT (BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
      BPF_STMT (BPF_LD | BPF_W | BPF_ABS, offsetof (struct seccomp_data, nr)),
      BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K, SYS_openat2, 0, 1),
      BPF_STMT (BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (unsigned) err),
      BPF_STMT (BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog prog = { .len = sizeof filter / sizeof filter[0], .filter = filter };

    /* an unprivileged process may install a filter only with no-new-privs */
    if (prctl (PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
        prctl (PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0)
      {
        fprintf (stderr, "no-openat2: SKIP: cannot set a seccomp filter: %s\n", strerror (errno));
        return SKIP;
      }
  }
  /* the filter works: openat2 is answered as the command will see it */
  errno = 0;
  if (syscall (SYS_openat2, AT_FDCWD, ".", NULL, 0) != -1 || errno != err)
    {
      fprintf (stderr, "no-openat2: openat2 still answers (%s)\n", strerror (errno));
      return 1;
    }
  execvp (argv[2], argv + 2);
  fprintf (stderr, "no-openat2: cannot run %s: %s\n", argv[2], strerror (errno));
  return 127;
#endif
}
