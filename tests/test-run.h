/* What the writer tests share: running a program and reading what it left. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct {
  int   status;  /* exit status; -1 when killed by a signal */
  int   signal;  /* the signal, when killed */
  char *out;
  char *err;
} TestRun;

void test_run_clear (TestRun *r);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (TestRun, test_run_clear)

/* @argv with @env (NAME=VALUE, NULL-ended, nullable) set on top of ours;
 * asserts it was not killed by `timeout` (status 124). */
void test_run_argv (const char * const *argv,
                    const char * const *env,
                    TestRun            *r);

/* A new directory in the temporary directory, removed by test_remove_tree(). */
char *test_make_tmp (void);
void  test_remove_tree (const char *path);

/* The file's contents, or NULL. */
char *test_read_file (const char *path);

G_END_DECLS
