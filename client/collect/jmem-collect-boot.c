/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "jmem-collect-private.h"

#include "jmem-boot-cache.h"
#include "jmem-error.h"

#include <gio/gio.h>
#include <stdlib.h>
#include <string.h>

#define CACHE_GROUP "jmem"
#define CACHE_VERSION 1
/* far more than the few facts a snapshot keeps */
#define CACHE_MAX_ENTRIES 64

/* What a per-boot read gave: the bytes, or the error it failed with. */
typedef struct {
  GBytes *data;
  GError *error;
} Kept;

struct _JmemCollectBoot {
  char       *boot_id;  /* of the boot what is kept belongs to; NULL: keep nothing */
  GHashTable *kept;     /* path or probe name -> Kept */
  char       *cache_dir;  /* where they persist across processes, or NULL */
  gboolean    create_dir; /* cache_dir is ours to make */
  gboolean    dirty;      /* kept holds what the file does not */
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
  g_free (boot->cache_dir);
  g_free (boot);
}

JmemCollectBoot *
jmem_collect_boot_new_persistent (const char *sysroot)
{
  JmemCollectBoot *boot = jmem_collect_boot_new ();
  gboolean create = FALSE;
  g_autofree char *dir = NULL;

  /* a capture's facts are its own: nothing of the live system's is kept */
  if (sysroot != NULL && sysroot[0] != '\0' && !g_str_equal (sysroot, "/"))
    return boot;
  dir = jmem_boot_cache_dir_from_env (&create);
  if (dir != NULL)
    jmem_collect_boot_set_cache_dir (boot, dir, create);
  return boot;
}

void
jmem_collect_boot_set_cache_dir (JmemCollectBoot *boot,
                                 const char      *dir,
                                 gboolean         create)
{
  g_free (boot->cache_dir);
  boot->cache_dir = g_strdup (dir);
  boot->create_dir = create;
}

/* Only the letters of base64: g_base64_decode() takes anything. */
static gboolean
is_base64 (const char *s)
{
  gsize n = strlen (s);

  if (n % 4 != 0)
    return FALSE;
  for (gsize i = 0; i < n; i++)
    if (!g_ascii_isalnum (s[i]) && s[i] != '+' && s[i] != '/' &&
        !(s[i] == '=' && i + 2 >= n))
      return FALSE;
  return TRUE;
}

/* One [KEY] group of the file, or NULL when it is not one this code writes. */
static Kept *
kept_from_group (GKeyFile *file, const char *group)
{
  g_autofree char *data = g_key_file_get_string (file, group, "data", NULL);
  g_autofree char *domain = g_key_file_get_string (file, group, "error-domain", NULL);
  g_autofree char *message = g_key_file_get_string (file, group, "error-message", NULL);
  g_autoptr(GError) local = NULL;
  gboolean absent = g_key_file_get_boolean (file, group, "absent", &local);
  Kept *kept;

  if (local != NULL)
    absent = FALSE;
  if ((data != NULL) + absent + (domain != NULL) != 1)
    return NULL;
  kept = g_new0 (Kept, 1);
  if (data != NULL)
    {
      guchar *raw;
      gsize len = 0;

      if (!is_base64 (data))
        return (kept_free (kept), NULL);
      raw = g_base64_decode (data, &len);
      kept->data = g_bytes_new_take (raw, len);
    }
  else if (domain != NULL)
    {
      GQuark quark = g_quark_try_string (domain);
      g_autoptr(GError) code_error = NULL;
      gint code = g_key_file_get_integer (file, group, "error-code", &code_error);

      if (quark == 0 || code_error != NULL || message == NULL)
        return (kept_free (kept), NULL);
      kept->error = g_error_new_literal (quark, code, message);
    }
  return kept;
}

/* What an earlier process kept in this boot, when the file is sound and of
 * this boot; anything else is ignored and rewritten by the next save. */
static void
load (JmemCollectBoot *boot)
{
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GKeyFile) file = g_key_file_new ();
  g_autoptr(GHashTable) loaded = NULL;
  g_autofree char *boot_id = NULL;
  g_auto(GStrv) groups = NULL;
  g_autoptr(GError) error = NULL;
  GHashTableIter iter;
  gpointer key, value;
  const char *data;
  gsize len = 0;

  boot->dirty = TRUE;
  bytes = jmem_boot_cache_load (boot->cache_dir, &error);
  if (bytes == NULL)
    {
      g_debug ("per-boot facts not read: %s", error->message);
      return;
    }
  data = g_bytes_get_data (bytes, &len);
  if (!g_utf8_validate (data, (gssize) len, NULL) ||
      !g_key_file_load_from_data (file, data, len, G_KEY_FILE_NONE, NULL) ||
      g_key_file_get_integer (file, CACHE_GROUP, "version", NULL) != CACHE_VERSION)
    {
      g_debug ("per-boot facts in %s not understood: ignored", boot->cache_dir);
      return;
    }
  boot_id = g_key_file_get_string (file, CACHE_GROUP, "boot-id", NULL);
  if (g_strcmp0 (boot_id, boot->boot_id) != 0)
    return;

  /* the domains a kept read can fail with, known before the file names them */
  (void) G_IO_ERROR;
  (void) JMEM_ERROR;
  (void) G_FILE_ERROR;
  groups = g_key_file_get_groups (file, &len);
  if (len > CACHE_MAX_ENTRIES + 1)
    return;
  loaded = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) kept_free);
  for (guint i = 0; groups[i] != NULL; i++)
    {
      Kept *kept;

      if (g_str_equal (groups[i], CACHE_GROUP))
        continue;
      kept = kept_from_group (file, groups[i]);
      if (kept == NULL)
        {
          g_debug ("per-boot facts in %s: [%s] not understood: all ignored", boot->cache_dir,
                   groups[i]);
          return;
        }
      g_hash_table_insert (loaded, g_strdup (groups[i]), kept);
    }
  g_hash_table_iter_init (&iter, loaded);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      g_hash_table_iter_steal (&iter);
      g_hash_table_insert (boot->kept, key, value);
    }
  boot->dirty = FALSE;
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
  boot->dirty = FALSE;
  if (boot->boot_id != NULL && boot->cache_dir != NULL)
    load (boot);
}

static gint
compare_strings (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

void
jmem_collect_boot_save (const JmemCollectContext *ctx)
{
  JmemCollectBoot *boot = ctx->boot;
  g_autoptr(GKeyFile) file = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *data = NULL;
  g_autofree gpointer *keys = NULL;
  guint n_keys = 0;
  gsize len = 0;

  if (boot == NULL || !boot->dirty || boot->cache_dir == NULL || boot->boot_id == NULL)
    return;
  file = g_key_file_new ();
  g_key_file_set_integer (file, CACHE_GROUP, "version", CACHE_VERSION);
  g_key_file_set_string (file, CACHE_GROUP, "boot-id", boot->boot_id);
  /* in a stable order, so that equal facts make equal files */
  keys = g_hash_table_get_keys_as_array (boot->kept, &n_keys);
  qsort (keys, n_keys, sizeof (gpointer), compare_strings);
  for (guint i = 0; i < n_keys && i < CACHE_MAX_ENTRIES; i++)
    {
      const char *key = keys[i];
      const Kept *kept = g_hash_table_lookup (boot->kept, key);

      if (kept->error != NULL)
        {
          g_key_file_set_string (file, key, "error-domain", g_quark_to_string (kept->error->domain));
          g_key_file_set_integer (file, key, "error-code", kept->error->code);
          g_key_file_set_string (file, key, "error-message", kept->error->message);
        }
      else if (kept->data == NULL)
        g_key_file_set_boolean (file, key, "absent", TRUE);
      else
        {
          gsize size;
          const guchar *bytes = g_bytes_get_data (kept->data, &size);
          g_autofree char *encoded = g_base64_encode (bytes, size);

          g_key_file_set_string (file, key, "data", encoded);
        }
    }
  data = g_key_file_to_data (file, &len, NULL);
  if (!jmem_boot_cache_store (boot->cache_dir, boot->create_dir, data, len, &error))
    g_debug ("per-boot facts not kept: %s", error->message);
  else
    boot->dirty = FALSE;
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
  boot->dirty = TRUE;
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
  boot->dirty = TRUE;
}
