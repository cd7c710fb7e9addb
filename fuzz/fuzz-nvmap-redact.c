/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer target for the helper's redaction of iovmm/allocations and
 * iovmm/maps: for any input, what it passes on parses as the original in
 * the client (VMAs as their lengths), and no handle row keeps a UID other
 * than 0s nor a VMA its address (tests/nvmap-redact-check.c). */
#include <stdint.h>
#include <stdlib.h>

#include <glib.h>

#include "nvmap-redact-check.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autofree char *why = jmem_nvmap_redact_check ((const char *) data, size);

  if (why != NULL)
    abort ();
  return 0;
}
