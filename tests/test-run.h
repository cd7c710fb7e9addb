/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the writer tests share: a scratch directory and reading what jmem
 * left in it (running it: jmem-test.h). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* A new directory in the temporary directory, removed by test_remove_tree(). */
char *test_make_tmp (void);
void  test_remove_tree (const char *path);

/* The file's contents, or NULL. */
char *test_read_file (const char *path);

G_END_DECLS
