/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "jmem-action.h"

#include <string.h>

gboolean
jmem_action_is_admin (const char *action)
{
  /* every action that needs root names its command with sudo */
  for (const char *at = action; at != NULL && (at = strstr (at, "sudo ")) != NULL; at++)
    if (at == action || !g_ascii_isalnum (at[-1]))
      return TRUE;
  return FALSE;
}
