/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A system account for tests that run jmem as someone else: one of the
 * run's own, named PREFIX-XXXXXX (random), so that two runs on one machine
 * never share, remove or kill each other's; removed when the test ends,
 * however it ends (returns, fails an assertion, is killed), so the host is
 * left as found. */
#pragma once

#include <glib.h>
#include <sys/types.h>

G_BEGIN_DECLS

/* The longest prefix: with "-" and six characters, a name fits the 32
 * characters useradd allows. */
#define TEST_ACCOUNT_MAX_PREFIX 25

/* The account this process made for @prefix, made (as root) on the first
 * call: its name (*name, valid until test_account_remove_created()), uid
 * and gid. A watcher process removes it once this process has exited, even
 * by a signal. FALSE when it cannot be made. */
gboolean test_account_get (const char  *prefix,
                           const char **name,
                           uid_t       *uid,
                           gid_t       *gid);

/* Removes every account test_account_get() created in this process, and
 * returns when they are gone. */
void test_account_remove_created (void);

G_END_DECLS
