/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Whether a step jmem tells a person or an agent to take is one for an
 * administrator: every action in jmem's JSON carries this as "admin", so
 * that an agent relays it rather than running it (docs/mcp.md). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* How the human output marks an administrator's step, before it. */
#define JMEM_ACTION_ADMIN_MARK "(as administrator)"

/* TRUE when @action (nullable) runs a command as root: it says `sudo`.
 * jmem's own commands are not: the helper grants what they need to the
 * jmem group, and tells an outsider how to join (a step that says sudo). */
gboolean jmem_action_is_admin (const char *action);

G_END_DECLS
