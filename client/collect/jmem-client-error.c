/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "jmem-client-error.h"

G_DEFINE_QUARK (jmem-client-error-quark, jmem_client_error)
