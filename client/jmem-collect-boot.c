#include "jmem-collect-private.h"

#include <gio/gio.h>
#include <string.h>

/* What a per-boot read gave: the bytes, or the error it failed with. */
typedef struct {
  GBytes *data;
  GError *error;
} Kept;

struct _JmemCollectBoot {
  char       *boot_id;  /* of the boot what is kept belongs to; NULL: keep nothing */
  GHashTable *kept;     /* path or probe name -> Kept */
};

static void
kept_free (Kept *kept)
{
  g_clear_pointer (&kept->data, g_bytes_unref);
  g_clear_error (&kept->error);
  g_free (kept);
}

JmemCollectBoot *
jmem_collect_boot_new (void)
{
  JmemCollectBoot *boot = g_new0 (JmemCollectBoot, 1);

  boot->kept = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) kept_free);
  return boot;
}

void
jmem_collect_boot_free (JmemCollectBoot *boot)
{
  if (boot == NULL)
    return;
  g_free (boot->boot_id);
  g_hash_table_unref (boot->kept);
  g_free (boot);
}

void
jmem_collect_boot_check (JmemCollectContext *ctx)
{
  JmemCollectBoot *boot = ctx->boot;
  g_autofree char *boot_id = NULL;

  if (boot == NULL)
    return;
  /* without a boot_id nothing tells a reboot apart: keep nothing */
  boot_id = jmem_root_read_text (ctx->files, "/proc/sys/kernel/random/boot_id", NULL);
  if (boot_id != NULL && g_strcmp0 (boot_id, boot->boot_id) == 0)
    return;
  g_hash_table_remove_all (boot->kept);
  g_free (boot->boot_id);
  boot->boot_id = g_steal_pointer (&boot_id);
}

static gboolean
give (const Kept *kept, gsize max_bytes, char **data, gsize *len, GError **error)
{
  gsize size;
  const char *bytes;

  if (kept->error != NULL)
    {
      g_propagate_error (error, g_error_copy (kept->error));
      return FALSE;
    }
  if (kept->data == NULL)
    {
      /* a probe kept as absent */
      *data = NULL;
      *len = 0;
      return TRUE;
    }
  bytes = g_bytes_get_data (kept->data, &size);
  if (size > max_bytes)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "larger than %" G_GSIZE_FORMAT " bytes",
                   max_bytes);
      return FALSE;
    }
  *data = g_malloc (size + 1);
  memcpy (*data, bytes, size);
  (*data)[size] = '\0';
  *len = size;
  return TRUE;
}

gboolean
jmem_collect_read_boot_raw (const JmemCollectContext *ctx,
                            const char               *path,
                            gsize                     max_bytes,
                            char                    **data,
                            gsize                    *len,
                            GError                  **error)
{
  JmemCollectBoot *boot = ctx->boot;
  g_autoptr(GError) local = NULL;
  const Kept *found;
  Kept *kept;

  if (boot == NULL || boot->boot_id == NULL)
    return jmem_root_read (ctx->files, path, max_bytes, data, len, error);
  found = g_hash_table_lookup (boot->kept, path);
  if (found != NULL)
    return give (found, max_bytes, data, len, error);

  kept = g_new0 (Kept, 1);
  if (jmem_root_read (ctx->files, path, max_bytes, data, len, &local))
    kept->data = g_bytes_new (*data, *len);
  else
    kept->error = g_error_copy (local);
  g_hash_table_insert (boot->kept, g_strdup (path), kept);
  if (local != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&local));
      return FALSE;
    }
  return TRUE;
}

gboolean
jmem_collect_boot_probe (const JmemCollectContext *ctx,
                         const char               *name,
                         char                    **data,
                         gsize                    *len)
{
  JmemCollectBoot *boot = ctx->boot;
  g_autofree char *key = g_strconcat ("probe:", name, NULL);
  const Kept *found;

  *data = NULL;
  *len = 0;
  if (boot == NULL || boot->boot_id == NULL)
    return FALSE;
  found = g_hash_table_lookup (boot->kept, key);
  return found != NULL && give (found, G_MAXSIZE - 1, data, len, NULL);
}

void
jmem_collect_boot_keep_probe (const JmemCollectContext *ctx,
                              const char               *name,
                              const char               *data,
                              gsize                     len)
{
  JmemCollectBoot *boot = ctx->boot;
  Kept *kept;

  if (boot == NULL || boot->boot_id == NULL)
    return;
  kept = g_new0 (Kept, 1);
  kept->data = data != NULL ? g_bytes_new (data, len) : NULL;
  g_hash_table_insert (boot->kept, g_strconcat ("probe:", name, NULL), kept);
}
