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

char *
jmem_container_detect (const char *path)
{
  g_autoptr(JmemRoot) root = jmem_root_open (path, NULL);
  g_autofree char *name = NULL;
  char *found;

  if (root == NULL)
    return NULL;
  if (exists (root, "/.dockerenv"))
    return g_strdup ("/.dockerenv exists");
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
