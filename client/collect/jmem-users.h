/* SPDX-License-Identifier: GPL-2.0-or-later */
/* uid -> user name, from the live system or a captured /etc/passwd. */
#pragma once

#include <glib.h>

#include "jmem-root.h"

G_BEGIN_DECLS

typedef struct _JmemUsers JmemUsers;

/* The live system: getpwuid(); a tree: its /etc/passwd (absent: no names). */
JmemUsers *jmem_users_new (JmemRoot *root);
void jmem_users_free (JmemUsers *users);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (JmemUsers, jmem_users_free)

/* A new string, valid UTF-8, or NULL when the uid has no name. */
char *jmem_users_lookup (JmemUsers *users, gint64 uid);

G_END_DECLS
