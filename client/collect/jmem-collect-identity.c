/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "jmem-collect-private.h"

#include "jmem-names.h"
#include "jmem-text.h"

#include <string.h>

/* systemd's default target: the link's file name, from the admin's
 * /etc override first, then the vendor's. */
static char *
read_default_target (JmemCollectContext *ctx)
{
  static const char * const paths[] = {
    "/etc/systemd/system/default.target",
    "/lib/systemd/system/default.target",
    "/usr/lib/systemd/system/default.target",
  };

  for (gsize i = 0; i < G_N_ELEMENTS (paths); i++)
    {
      g_autofree char *target = jmem_root_read_link (ctx->files, paths[i], NULL);
      g_autofree char *base = NULL;

      if (target == NULL)
        continue;
      base = g_path_get_basename (target);
      return jmem_text_make_valid (base, -1);
    }
  return NULL;
}

static gint64
read_captured_at (JmemCollectContext *ctx)
{
  g_autofree char *text = NULL;
  guint64 value;

  if (ctx->root == NULL)
    return g_get_real_time () / G_USEC_PER_SEC;
  text = jmem_root_read_text (ctx->files, "/jmem/captured-at", NULL);
  if (text != NULL && g_ascii_string_to_unsigned (text, 10, 0, G_MAXINT64, &value, NULL))
    return (gint64) value;
  return -1;
}

/* Seconds since boot: the first number of /proc/uptime ("350735.47
 * 234388.90"), whole seconds; -1 when absent (a capture of an older jmem). */
static gint64
read_uptime (JmemCollectContext *ctx)
{
  g_autofree char *text = jmem_root_read_text (ctx->files, "/proc/uptime", NULL);
  const char *end;
  guint64 value;

  if (text == NULL)
    return -1;
  end = text + strspn (text, "0123456789");
  if (end == text || (*end != '.' && *end != ' ' && *end != '\0'))
    return -1;
  text[end - text] = '\0';
  if (!g_ascii_string_to_unsigned (text, 10, 0, G_MAXINT64, &value, NULL))
    return -1;
  return (gint64) value;
}

void
jmem_collect_identity (JmemCollectContext *ctx)
{
  JmemSnapshot *s = ctx->snapshot;
  g_autofree char *model = NULL;
  g_autofree char *model_data = NULL;
  g_autofree char *boot_data = NULL;
  g_autofree char *release_data = NULL;
  g_autoptr(GHashTable) boot_control = NULL;
  g_autoptr(GError) error = NULL;
  gsize len = 0;

  s->hostname = jmem_root_read_text (ctx->files, "/proc/sys/kernel/hostname", NULL);
  s->kernel_release = jmem_root_read_text (ctx->files, "/proc/sys/kernel/osrelease", NULL);
  s->timestamp_unix = read_captured_at (ctx);
  s->uptime_seconds = read_uptime (ctx);
  s->default_target = read_default_target (ctx);

  /* what the board and its L4T release are does not change until a reboot */
  if (jmem_collect_read_boot_raw (ctx, "/proc/device-tree/model", JMEM_MAX_SMALL_BYTES,
                                  &model_data, &len, NULL))
    {
      model = jmem_text_make_valid (model_data, (gssize) strnlen (model_data, len));
      g_strchomp (model);  /* device-tree strings end in NUL */
    }
  if (jmem_collect_read_boot_raw (ctx, "/etc/nv_boot_control.conf", JMEM_MAX_SMALL_BYTES,
                                  &boot_data, &len, NULL))
    boot_control = jmem_boot_control_parse (boot_data, len);

  if (jmem_collect_read_boot_raw (ctx, "/etc/nv_tegra_release", JMEM_MAX_SMALL_BYTES,
                                  &release_data, &len, NULL))
    {
      s->release = jmem_tegra_release_parse (release_data, len, &error);
      if (s->release == NULL)
        jmem_snapshot_add_warning (s, "identity", NULL,
                                   "/etc/nv_tegra_release is unreadable: %s", error->message);
    }

  s->identity = jmem_identity_resolve (model, boot_control, s->mem_total_kib);
  s->is_jetson = s->release != NULL ||
                 (s->identity != NULL && s->identity->generation != NULL &&
                  !g_str_equal (s->identity->generation, "unknown"));

  if (s->is_jetson && s->release == NULL)
    jmem_snapshot_add_warning (s, "identity", NULL,
                               "no /etc/nv_tegra_release: the L4T version is unknown");
}
