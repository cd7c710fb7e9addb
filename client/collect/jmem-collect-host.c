/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Host facts: thermal zones, power mode, disk usage. */
#include "jmem-collect-private.h"

#include "jmem-names.h"
#include "jmem-run.h"
#include "jmem-text.h"

#include <gio/gio.h>
#include <string.h>
#include <sys/statvfs.h>

static int
compare_zone (gconstpointer a, gconstpointer b)
{
  const JmemThermal *ta = *(JmemThermal * const *) a;
  const JmemThermal *tb = *(JmemThermal * const *) b;
  guint64 na = g_ascii_strtoull (ta->zone + strlen ("thermal_zone"), NULL, 10);
  guint64 nb = g_ascii_strtoull (tb->zone + strlen ("thermal_zone"), NULL, 10);

  return na < nb ? -1 : na > nb;
}

void
jmem_collect_thermal (JmemCollectContext *ctx)
{
  g_auto(GStrv) names = jmem_root_list_dir (ctx->files, "/sys/class/thermal", NULL);

  for (guint i = 0; names != NULL && names[i] != NULL; i++)
    {
      const char *name = names[i];
      g_autofree char *type_path = NULL;
      g_autofree char *temp_path = NULL;
      g_autofree char *temp = NULL;
      JmemThermal *t;
      gint64 milli;
      char *end = NULL;

      if (!g_str_has_prefix (name, "thermal_zone"))
        continue;
      type_path = g_strdup_printf ("/sys/class/thermal/%s/type", name);
      temp_path = g_strdup_printf ("/sys/class/thermal/%s/temp", name);
      temp = jmem_root_read_text (ctx->files, temp_path, NULL);
      if (temp == NULL)
        continue;  /* some zones refuse reads while their sensor is off */
      milli = g_ascii_strtoll (temp, &end, 10);
      if (end == temp || *end != '\0')
        continue;
      t = g_new0 (JmemThermal, 1);
      t->zone = jmem_text_make_valid (name, -1);
      t->type = jmem_root_read_text (ctx->files, type_path, NULL);
      t->celsius = (double) milli / 1000.0;
      g_ptr_array_add (ctx->snapshot->thermal, t);
    }
  g_ptr_array_sort (ctx->snapshot->thermal, compare_zone);
}

/* "NV Power Mode: MAXN\n0" -> "MAXN". */
static char *
power_mode_from_output (const char *data, gsize len)
{
  g_autofree char *text = jmem_text_make_valid (data, (gssize) len);
  g_auto(GStrv) lines = g_strsplit (text, "\n", -1);

  for (guint i = 0; lines[i] != NULL; i++)
    {
      const char *colon = strstr (lines[i], "Power Mode:");

      if (colon != NULL)
        return g_strstrip (g_strdup (colon + strlen ("Power Mode:")));
    }
  return NULL;
}

/* nvpmodel writes the mode it set to this file ("pmode:0002 fmode:..."),
 * readable by anyone: its content names the answer kept for the boot, so a
 * mode set with `nvpmodel -m` is asked for once, and no program runs while
 * the mode stays. Without the file, the answer is kept for the boot. */
#define NVPMODEL_STATUS "/var/lib/nvpmodel/status"

static char *
power_mode_probe_name (JmemCollectContext *ctx)
{
  g_autofree char *status = jmem_root_read_text (ctx->files, NVPMODEL_STATUS, NULL);
  GString *name = g_string_new ("nvpmodel");

  if (status != NULL)
    {
      g_string_append_c (name, ' ');
      /* A key, not a text: what a mode number and its flags are made of. */
      for (const char *c = status; *c != '\0' && name->len < 64; c++)
        if (g_ascii_isalnum (*c) || *c == ':' || *c == '_')
          g_string_append_c (name, *c);
        else if (*c == ' ')
          g_string_append_c (name, '_');
    }
  return g_string_free (name, FALSE);
}

void
jmem_collect_power_mode (JmemCollectContext *ctx)
{
  JmemSnapshot *s = ctx->snapshot;
  g_autofree char *kept = NULL;
  g_autofree char *probe = ctx->root == NULL ? power_mode_probe_name (ctx) : NULL;
  gsize kept_len = 0;

  /* no nvpmodel to start: the report says why (the platform's not_applying) */
  if (jmem_platform_not_applying (s->platform, JMEM_JETSON_PART_POWER_MODE) != NULL)
    return;
  if (ctx->root != NULL)
    {
      g_autofree char *data = NULL;
      gsize len = 0;

      if (jmem_root_read (ctx->files, "/nvpmodel/query.txt", JMEM_MAX_SMALL_BYTES, &data, &len, NULL))
        s->power_mode = power_mode_from_output (data, len);
    }
  else if (jmem_collect_boot_probe (ctx, probe, &kept, &kept_len))
    {
      /* asked once per boot and mode, so repeated snapshots start no
       * program (docs/watch.md) */
      if (kept != NULL)
        s->power_mode = power_mode_from_output (kept, kept_len);
    }
  else
    {
      const char *argv[] = { "nvpmodel", "-q", NULL };
      g_autoptr(GError) error = NULL;
      JmemRunResult r;

      if (jmem_run (argv, ctx->timeout_ms, JMEM_MAX_SMALL_BYTES, &r, &error))
        {
          if (r.exit_status == 0)
            s->power_mode = power_mode_from_output (r.out, r.out_len);
          else if (r.timed_out)
            jmem_snapshot_add_warning (s, "power-mode", NULL,
                                       "nvpmodel -q did not answer within %u ms and was killed",
                                       ctx->timeout_ms);
          if (!r.timed_out)
            jmem_collect_boot_keep_probe (ctx, probe, r.exit_status == 0 ? r.out : "",
                                          r.exit_status == 0 ? r.out_len : 0);
          jmem_run_result_clear (&r);
        }
      else if (g_error_matches (error, G_SPAWN_ERROR, G_SPAWN_ERROR_NOENT))
        jmem_collect_boot_keep_probe (ctx, probe, NULL, 0);
    }
  /* installing nvpmodel here does nothing for a capture: the next one can have it */
  if (s->power_mode == NULL && s->is_jetson && ctx->root != NULL)
    jmem_snapshot_add_warning (s, "power-mode",
                               "install nvpmodel (package nvidia-l4t-tools) on the Jetson before "
                               "the next capture",
                               "power mode unknown: the capture holds no answer from nvpmodel -q");
  else if (s->power_mode == NULL && s->is_jetson)
    jmem_snapshot_add_warning (s, "power-mode", "install nvpmodel (package nvidia-l4t-tools)",
                               "power mode unknown: no answer from nvpmodel -q");
}

/* One line of DIR/jmem/disks.tsv: mount, device, type, size, used, available (KiB). */
static JmemDisk *
disk_from_tsv (const char *line)
{
  g_auto(GStrv) f = g_strsplit (line, "\t", -1);
  guint64 v[3];
  JmemDisk *d;

  if (g_strv_length (f) != 6)
    return NULL;
  for (int i = 0; i < 3; i++)
    if (!g_ascii_string_to_unsigned (f[3 + i], 10, 0, G_MAXUINT64, &v[i], NULL))
      return NULL;
  d = g_new0 (JmemDisk, 1);
  d->mount_point = jmem_text_make_valid (f[0], -1);
  d->device = jmem_text_make_valid (f[1], -1);
  d->fs_type = jmem_text_make_valid (f[2], -1);
  d->size_kib = v[0];
  d->used_kib = v[1];
  d->available_kib = v[2];
  return d;
}

/* mounts escape spaces and such as \040. */
static char *
unescape_mount_field (const char *field)
{
  g_autofree char *raw = g_strcompress (field);

  return jmem_text_make_valid (raw, -1);
}

static void
collect_live_disks (JmemSnapshot *s)
{
  g_autofree char *data = NULL;
  g_auto(GStrv) lines = NULL;
  g_autoptr(GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  if (!g_file_get_contents ("/proc/self/mounts", &data, NULL, NULL))
    return;
  lines = g_strsplit (data, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_auto(GStrv) f = g_strsplit (lines[i], " ", -1);
      g_autofree char *mount_point = NULL;
      struct statvfs st;
      JmemDisk *d;

      if (g_strv_length (f) < 3)
        continue;
      /* Real filesystems sit on a block device; "/" counts whatever it is
       * (overlay in a container). */
      if (!g_str_has_prefix (f[0], "/dev/") && !g_str_equal (f[1], "/"))
        continue;
      mount_point = unescape_mount_field (f[1]);
      if (g_hash_table_contains (seen, mount_point) ||
          statvfs (mount_point, &st) != 0 || st.f_blocks == 0)
        continue;
      g_hash_table_add (seen, g_strdup (mount_point));
      d = g_new0 (JmemDisk, 1);
      d->mount_point = g_steal_pointer (&mount_point);
      d->device = unescape_mount_field (f[0]);
      d->fs_type = unescape_mount_field (f[2]);
      d->size_kib = (guint64) st.f_blocks * st.f_frsize / 1024;
      d->available_kib = (guint64) st.f_bavail * st.f_frsize / 1024;
      d->used_kib = (guint64) (st.f_blocks - st.f_bfree) * st.f_frsize / 1024;
      g_ptr_array_add (s->disks, d);
    }
}

void
jmem_collect_disks (JmemCollectContext *ctx)
{
  g_autofree char *data = NULL;
  g_auto(GStrv) lines = NULL;
  gsize len = 0;

  if (ctx->root == NULL)
    {
      collect_live_disks (ctx->snapshot);
      return;
    }
  if (!jmem_root_read (ctx->files, "/jmem/disks.tsv", JMEM_MAX_SMALL_BYTES, &data, &len, NULL))
    return;
  lines = g_strsplit (data, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      JmemDisk *d = lines[i][0] ? disk_from_tsv (lines[i]) : NULL;

      if (d != NULL)
        g_ptr_array_add (ctx->snapshot->disks, d);
    }
}
