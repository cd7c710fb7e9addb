/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* polkit's headers define g_autoptr() cleanups for its types only from
 * 0.114 on; 0.105 (Debian 11, Ubuntu 22.04 on JetPack 6) has none. meson
 * sets JMEM_POLKIT_HAS_AUTOPTR from the version it finds. */

#include <polkit/polkit.h>

#include "jmem-config.h"

#if !JMEM_POLKIT_HAS_AUTOPTR
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PolkitAuthority, g_object_unref)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PolkitAuthorizationResult, g_object_unref)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PolkitDetails, g_object_unref)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PolkitSubject, g_object_unref)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PolkitSystemBusName, g_object_unref)
#endif
