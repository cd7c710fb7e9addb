/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the writer tests share (test-run.h). */
#include "test-run.h"

#include "jmem-test.h"

char *
test_make_tmp (void)
{
  g_autoptr(GError) error = NULL;
  char *dir = jmem_test_make_tmp ("jmem-test-write-XXXXXX", &error);

  g_assert_no_error (error);
  return dir;
}

void
test_remove_tree (const char *path)
{
  const char *argv[] = { "rm", "-rf", "--", path, NULL };
  g_auto(JmemTestRun) r = { 0 };

  jmem_test_run_spawn (&r, NULL, argv);
  g_assert_cmpint (r.status, ==, 0);
}

char *
test_read_file (const char *path)
{
  char *data = NULL;

  if (!g_file_get_contents (path, &data, NULL, NULL))
    return NULL;
  return data;
}
