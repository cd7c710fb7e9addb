/* A system account for tests that run jmem as someone else: made when the
 * host lacks it, and removed when the test ends, however it ends (returns,
 * fails an assertion, is killed), so the host is left as found. */
#pragma once

#include <glib.h>
#include <sys/types.h>

G_BEGIN_DECLS

/* The uid and gid of @name, creating the account (as root) when missing;
 * a watcher process removes it once this process has exited, even by a
 * signal. FALSE when it cannot be made. */
gboolean test_account_get (const char *name, uid_t *uid, gid_t *gid);

/* Removes every account test_account_get() created in this process, and
 * returns when they are gone. */
void test_account_remove_created (void);

G_END_DECLS
