/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "jmem-container.h"

#include <string.h>

#include "jmem-root.h"
#include "jmem-names.h"
#include "jmem-procfs.h"
#include "jmem-text.h"

static gboolean
exists (JmemRoot *root, const char *path)
{
  return jmem_root_exists (root, path);
}

/* container=NAME in a NUL-separated environment (PID 1's: systemd-nspawn,
 * podman, LXC set it); NULL when absent. */
static char *
container_from_environ (JmemRoot *root)
{
  g_autofree char *data = NULL;
  gsize len = 0;

  if (!jmem_root_read (root, "/proc/1/environ", JMEM_MAX_SMALL_BYTES, &data, &len, NULL))
    return NULL;
  for (gsize at = 0; at < len; at += strlen (data + at) + 1)
    if (g_str_has_prefix (data + at, "container=") && data[at + 10] != '\0')
      return jmem_text_make_valid (data + at + 10, -1);
  return NULL;
}

static char *
container_from_cgroup (JmemRoot *root, const char *pid)
{
  g_autofree char *rel = g_strdup_printf ("/proc/%s/cgroup", pid);
  g_autofree char *data = NULL;
  JmemCgroupInfo info = { 0 };
  char *found = NULL;
  gsize len = 0;

  if (jmem_root_read (root, rel, JMEM_MAX_PROC_BYTES, &data, &len, NULL) &&
      jmem_cgroup_parse (data, len, &info, NULL) && info.runtime != NULL)
    found = g_strdup_printf ("the cgroup of PID %s is %s %.12s", pid, info.runtime,
                             info.id != NULL ? info.id : "");
  jmem_cgroup_info_clear (&info);
  return found;
}

/* The filesystem type of the mount at "/" (proc(5), mountinfo: the 5th
 * field is the mount point, the type follows the " - " separator; the last
 * mount at "/" is the one in effect), or NULL. */
static char *
root_fstype (JmemRoot *root)
{
  g_autofree char *data = NULL;
  g_auto(GStrv) lines = NULL;
  char *type = NULL;
  gsize len = 0;

  if (!jmem_root_read (root, "/proc/self/mountinfo", JMEM_MAX_PROC_BYTES, &data, &len, NULL))
    return NULL;
  lines = g_strsplit (data, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_auto(GStrv) fields = g_strsplit (lines[i], " ", 6);
      const char *after = strstr (lines[i], " - ");

      if (g_strv_length (fields) > 5 && g_str_equal (fields[4], "/") && after != NULL)
        {
          g_free (type);
          type = g_strndup (after + 3, strcspn (after + 3, " "));
        }
    }
  return type;
}

/* A root filesystem made of an image's layers, as Docker's and
 * containerd's usual storage drivers mount it. */
static gboolean
layered_root (const char *fstype)
{
  return fstype != NULL && (g_str_equal (fstype, "overlay") || g_str_equal (fstype, "aufs") ||
                            g_str_equal (fstype, "fuse.fuse-overlayfs"));
}

char *
jmem_container_detect (const char *path)
{
  g_autoptr(JmemRoot) root = jmem_root_open (path, NULL);
  g_autofree char *name = NULL;
  g_autofree char *fstype = NULL;
  char *found;

  if (root == NULL)
    return NULL;
  /* Docker writes /.dockerenv into every container, but an image turned
   * into a machine's root filesystem (a VM, a board flashed from a
   * container image) keeps it: alone it proves nothing. With "/" made of
   * layers it does. */
  if (exists (root, "/.dockerenv") && layered_root ((fstype = root_fstype (root))))
    return g_strdup_printf ("/.dockerenv exists and / is %s", fstype);
  if (exists (root, "/run/.containerenv"))
    return g_strdup ("/run/.containerenv exists");
  name = container_from_environ (root);
  if (name != NULL)
    {
      g_autofree char *safe = g_strescape (name, NULL);
      return g_strdup_printf ("container=%s in PID 1's environment", safe);
    }
  if ((found = container_from_cgroup (root, "1")) != NULL ||
      (found = container_from_cgroup (root, "self")) != NULL)
    return found;
  return NULL;
}
