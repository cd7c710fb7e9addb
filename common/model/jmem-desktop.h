/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Which processes belong to a desktop session. The headroom names them as
 * holders a headless boot returns, and triage's desktop rules read them. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Whether @name (a comm, or the executable's path nvidia-smi prints) is a
 * desktop session process: an X server, a compositor, a session manager. */
gboolean jmem_process_is_desktop (const char *name);

G_END_DECLS
