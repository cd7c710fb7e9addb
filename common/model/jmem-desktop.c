/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The desktop session's process names. */
#include "jmem-desktop.h"

gboolean
jmem_process_is_desktop (const char *name)
{
  /* comm names, at most 15 bytes, as the kernel and NvMap rows show them */
  static const char * const patterns[] = {
    "Xorg", "X", "Xwayland", "Xvnc", "gnome-shell", "gnome-session*", "gdm*",
    "mutter*", "kwin*", "plasmashell", "lightdm", "sddm*", "xfwm4", "xfce4-*",
    "weston", "sway", "compiz", "unity*", "cinnamon*", "lxsession", "nautilus",
    "gsd-*", "Xtigervnc", "nvidia-settings",
  };
  g_autofree char *base = NULL;

  if (name == NULL || name[0] == '\0')
    return FALSE;
  /* nvidia-smi names a process by its executable's path */
  base = g_path_get_basename (name);
  for (gsize i = 0; i < G_N_ELEMENTS (patterns); i++)
    if (g_pattern_match_simple (patterns[i], base))
      return TRUE;
  return FALSE;
}
