/* What the tests share: running a program (jmem, or jmem as another
 * account) and keeping what it did. */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

typedef struct {
  int    status;   /* exit status; -1 when a signal ended it */
  char  *out;      /* "" when stdout was not piped */
  char  *err;
  double seconds;  /* from the start given to jmem_test_run_finish() */
} JmemTestRun;

void jmem_test_run_clear (JmemTestRun *run);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (JmemTestRun, jmem_test_run_clear)

/* Adds to @argv what runs @program here: a cross build's test binaries
 * behind the emulator meson test names in MESON_EXE_WRAPPER (no binfmt
 * handler may be registered), then @program. */
void jmem_test_add_program (GPtrArray  *argv,
                            const char *program);

/* Starts @program with @args (NULL-terminated) from @launcher, as @user
 * (NULL: as this process is) through setpriv (jmem_test_add_program()) with the user's groups, from
 * "/" with HOME=/nonexistent and LC_ALL=C.UTF-8. */
GSubprocess *jmem_test_spawn_as (GSubprocessLauncher *launcher,
                                 const char          *user,
                                 const char          *program,
                                 const char *const   *args);

/* Waits for @process, started at @start (g_get_monotonic_time()) with
 * stderr and perhaps stdout piped, and keeps its end in @run. */
void jmem_test_run_finish (GSubprocess *process,
                           gint64       start,
                           JmemTestRun *run);

G_END_DECLS
