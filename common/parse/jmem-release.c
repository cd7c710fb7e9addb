/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "jmem-release.h"

#include "jmem-error.h"
#include "jmem-text.h"

#include <string.h>

/* ---- /etc/nv_tegra_release ---- */

void
jmem_tegra_release_free (JmemTegraRelease *release)
{
  if (release == NULL)
    return;
  g_free (release->major);
  g_free (release->revision);
  g_free (release->version);
  g_free (release->gcid);
  g_free (release->board);
  g_free (release->date);
  g_free (release->kernel_variant);
  g_free (release);
}

static gboolean
all_digits (const char *s)
{
  if (*s == '\0')
    return FALSE;
  for (; *s != '\0'; s++)
    if (!g_ascii_isdigit (*s))
      return FALSE;
  return TRUE;
}

/* "4.0", "7.1": digits separated by single dots. */
static gboolean
is_revision (const char *s)
{
  g_auto(GStrv) parts = g_strsplit (s, ".", -1);

  if (g_strv_length (parts) < 1 || g_strv_length (parts) > 4)
    return FALSE;
  for (guint i = 0; parts[i] != NULL; i++)
    if (!all_digits (parts[i]) || strlen (parts[i]) > 6)
      return FALSE;
  return TRUE;
}

/* "# R36 (release), REVISION: 4.0, GCID: ..., BOARD: ..., EABI: ..., DATE: ..." */
static gboolean
parse_release_line (const char *line, JmemTegraRelease *rel)
{
  g_auto(GStrv) fields = NULL;
  g_autofree char *major = NULL;
  const char *p;
  gsize n;

  if (!g_str_has_prefix (line, "# R"))
    return FALSE;
  p = line + 3;
  for (n = 0; g_ascii_isdigit (p[n]) && n < 6; n++)
    ;
  if (n == 0 || (p[n] != ' ' && p[n] != ','))
    return FALSE;
  major = g_strndup (p, n);

  fields = g_strsplit (p + n, ", ", -1);
  for (guint i = 0; fields[i] != NULL; i++)
    {
      char *colon = strstr (fields[i], ": ");
      char **slot = NULL;
      const char *key = fields[i], *value;

      if (colon == NULL)
        continue;
      *colon = '\0';
      value = colon + 2;
      if (g_str_equal (key, "REVISION"))
        slot = &rel->revision;
      else if (g_str_equal (key, "GCID"))
        slot = &rel->gcid;
      else if (g_str_equal (key, "BOARD"))
        slot = &rel->board;
      else if (g_str_equal (key, "DATE"))
        slot = &rel->date;
      if (slot != NULL && *slot == NULL)
        *slot = g_strstrip (jmem_text_make_valid (value, -1));
    }

  if (rel->revision != NULL && !is_revision (rel->revision))
    g_clear_pointer (&rel->revision, g_free);
  rel->major = g_steal_pointer (&major);
  rel->version = rel->revision != NULL
    ? g_strdup_printf ("%s.%s", rel->major, rel->revision)
    : g_strdup (rel->major);
  return TRUE;
}

JmemTegraRelease *
jmem_tegra_release_parse (const char *data, gsize len, GError **error)
{
  g_autoptr(JmemTegraRelease) rel = g_new0 (JmemTegraRelease, 1);
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;
  gboolean after_release = FALSE;

  g_return_val_if_fail (data != NULL || len == 0, NULL);

  /* A NUL inside the file ends what we look at: it is text. */
  text = g_strndup (data, len);
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      char *line = g_strchomp (lines[i]);

      if (rel->major == NULL && parse_release_line (line, rel))
        {
          after_release = TRUE;
          continue;
        }
      /* A paste can wrap the DATE field onto the next line ("UTC 2025"). */
      if (after_release && rel->date != NULL && line[0] != '\0' &&
          line[0] != '#' && strchr (line, '=') == NULL && strlen (line) < 64)
        {
          g_autofree char *rest = jmem_text_make_valid (g_strstrip (line), -1);
          g_autofree char *joined = g_strdup_printf ("%s %s", rel->date, rest);

          g_free (rel->date);
          rel->date = g_steal_pointer (&joined);
          after_release = FALSE;
          continue;
        }
      after_release = FALSE;
      if (g_str_has_prefix (line, "# KERNEL_VARIANT:") && rel->kernel_variant == NULL)
        rel->kernel_variant =
          g_strstrip (jmem_text_make_valid (line + strlen ("# KERNEL_VARIANT:"), -1));
    }

  if (rel->major == NULL)
    {
      g_set_error_literal (error, JMEM_ERROR, JMEM_ERROR_FAILED,
                           "nv_tegra_release has no \"# R<major> (release)\" line");
      return NULL;
    }
  return g_steal_pointer (&rel);
}

/* ---- /etc/nv_boot_control.conf ---- */

GHashTable *
jmem_boot_control_parse (const char *data, gsize len)
{
  GHashTable *table = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;

  if (data == NULL)
    return table;
  text = g_strndup (data, len);
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      char *line = g_strstrip (lines[i]);
      gsize k = 0;

      while (g_ascii_isupper (line[k]) || g_ascii_isdigit (line[k]) || line[k] == '_')
        k++;
      if (k == 0 || k > 64 || (line[k] != ' ' && line[k] != '\t'))
        continue;
      line[k] = '\0';
      if (!g_hash_table_contains (table, line))
        g_hash_table_insert (table, g_strdup (line),
                             g_strstrip (jmem_text_make_valid (line + k + 1, -1)));
    }
  return table;
}

/* ---- identity ---- */

void
jmem_identity_free (JmemIdentity *identity)
{
  if (identity == NULL)
    return;
  g_free (identity->model);
  g_free (identity->sku);
  g_free (identity->generation);
  g_free (identity->product_line);
  g_free (identity->variant);
  g_free (identity->variant_source);
  g_free (identity);
}

typedef struct {
  const char *sku;
  const char *generation;
  const char *product_line;
} Family;

static const Family families[] = {
  { "thor", "thor", "Jetson AGX Thor" },
  { "orin-agx", "orin", "Jetson AGX Orin" },
  { "orin-nx", "orin", "Jetson Orin NX" },
  { "orin-nano", "orin", "Jetson Orin Nano" },
  { "xavier", "xavier", "Jetson Xavier" },
  { "tx2", "tx2", "Jetson TX2" },
  { "nano", "tx1", "Jetson Nano" },
  { "tx1", "tx1", "Jetson TX1" },
};

static const Family *
family_by_sku (const char *sku)
{
  for (gsize i = 0; i < G_N_ELEMENTS (families); i++)
    if (g_str_equal (families[i].sku, sku))
      return &families[i];
  return NULL;
}

/* Module board ids (P-number and SKU) from the Jetson Linux developer guide's
 * module tables and the flashing configuration names:
 *   P3701-0000  Jetson AGX Orin 32GB (first developer kit module)
 *   P3701-0004  Jetson AGX Orin 32GB
 *   P3701-0005  Jetson AGX Orin 64GB
 *   P3701-0008  Jetson AGX Orin Industrial
 *   P3767-0000  Jetson Orin NX 16GB
 *   P3767-0001  Jetson Orin NX 8GB
 *   P3767-0003  Jetson Orin Nano 8GB
 *   P3767-0004  Jetson Orin Nano 4GB
 *   P3767-0005  Jetson Orin Nano 8GB (developer kit module)
 *   P3834-0008  Jetson T5000 (AGX Thor developer kit module)
 *   P3834-0010  Jetson T4000 */
static const struct {
  const char *board;
  const char *board_sku;
  const char *sku;
  const char *variant;
} board_ids[] = {
  { "3701", "0000", "orin-agx", "orin-agx-32gb" },
  { "3701", "0004", "orin-agx", "orin-agx-32gb" },
  { "3701", "0005", "orin-agx", "orin-agx-64gb" },
  { "3701", "0008", "orin-agx", "orin-agx-industrial" },
  { "3767", "0000", "orin-nx", "orin-nx-16gb" },
  { "3767", "0001", "orin-nx", "orin-nx-8gb" },
  { "3767", "0003", "orin-nano", "orin-nano-8gb" },
  { "3767", "0004", "orin-nano", "orin-nano-4gb" },
  { "3767", "0005", "orin-nano", "orin-nano-8gb" },
  { "3834", "0008", "thor", "thor-t5000" },
  { "3834", "0010", "thor", "thor-t4000" },
};

/* TNSPEC "3701-500-0005-G.0-1-0-jetson-agx-orin-devkit-mmcblk0p1" or
 * COMPATIBLE_SPEC "3701--0005--1--jetson-agx-orin-devkit-": the board id
 * leads, the first later four-digit field is the module SKU. */
static gboolean
board_from_spec (const char *spec, const char **sku, const char **variant)
{
  g_auto(GStrv) parts = NULL;
  const char *board_sku = NULL;

  if (spec == NULL)
    return FALSE;
  parts = g_strsplit (spec, "-", 16);
  if (parts[0] == NULL || strlen (parts[0]) != 4 || !all_digits (parts[0]))
    return FALSE;
  for (guint i = 1; parts[i] != NULL && board_sku == NULL; i++)
    if (strlen (parts[i]) == 4 && all_digits (parts[i]))
      board_sku = parts[i];
  if (board_sku == NULL)
    return FALSE;
  for (gsize i = 0; i < G_N_ELEMENTS (board_ids); i++)
    if (g_str_equal (board_ids[i].board, parts[0]) &&
        g_str_equal (board_ids[i].board_sku, board_sku))
      {
        *sku = board_ids[i].sku;
        *variant = board_ids[i].variant;
        return TRUE;
      }
  return FALSE;
}

static const char *
sku_from_model (const char *lower)
{
  if (lower == NULL)
    return NULL;
  if (strstr (lower, "thor") != NULL)
    return "thor";
  if (strstr (lower, "orin") != NULL)
    {
      if (strstr (lower, "orin nano") != NULL || strstr (lower, "orin-nano") != NULL)
        return "orin-nano";
      if (strstr (lower, "orin nx") != NULL || strstr (lower, "orin-nx") != NULL)
        return "orin-nx";
      return "orin-agx";
    }
  if (strstr (lower, "xavier") != NULL || g_str_equal (lower, "jetson-agx"))
    return "xavier";
  if (strstr (lower, "tx2") != NULL || strstr (lower, "quill") != NULL)
    return "tx2";
  if (strstr (lower, "nano") != NULL)
    return "nano";
  if (strstr (lower, "tx1") != NULL)
    return "tx1";
  return NULL;
}

/* What the model string says about the module. A developer kit ships one
 * module: the Orin Nano kit the 8GB P3767-0005, the Thor kit the T5000. The
 * AGX Orin kit came with a 32GB and later a 64GB module, so it says nothing. */
static const char *
variant_from_model (const char *sku, const char *lower)
{
  gboolean devkit = strstr (lower, "developer kit") != NULL ||
                    strstr (lower, "devkit") != NULL;

  if (g_str_equal (sku, "orin-agx"))
    {
      if (strstr (lower, "industrial") != NULL)
        return "orin-agx-industrial";
      if (strstr (lower, "64gb") != NULL)
        return "orin-agx-64gb";
      if (strstr (lower, "32gb") != NULL)
        return "orin-agx-32gb";
    }
  else if (g_str_equal (sku, "orin-nx"))
    {
      if (strstr (lower, "16gb") != NULL)
        return "orin-nx-16gb";
      if (strstr (lower, "8gb") != NULL)
        return "orin-nx-8gb";
    }
  else if (g_str_equal (sku, "orin-nano"))
    {
      if (strstr (lower, "4gb") != NULL)
        return "orin-nano-4gb";
      if (strstr (lower, "8gb") != NULL || devkit)
        return "orin-nano-8gb";
    }
  else if (g_str_equal (sku, "thor"))
    {
      if (strstr (lower, "t4000") != NULL)
        return "thor-t4000";
      if (strstr (lower, "t5000") != NULL || devkit)
        return "thor-t5000";
    }
  return NULL;
}

/* MemTotal is the RAM left after carve-outs, a few GiB below the module's
 * size. A module is named only when MemTotal lies within a quarter below
 * its size: an AGX Orin reporting 7.7 GiB fits neither module (a mem=
 * limit, a broken carve-out), so its variant stays unknown. */
static const char *
variant_from_memory (const char *sku, gint64 mem_total_kib)
{
  static const struct { const char *sku; gint64 gib; const char *variant; } modules[] = {
    { "orin-agx", 32, "orin-agx-32gb" }, { "orin-agx", 64, "orin-agx-64gb" },
    { "orin-nx", 8, "orin-nx-8gb" }, { "orin-nx", 16, "orin-nx-16gb" },
    { "orin-nano", 4, "orin-nano-4gb" }, { "orin-nano", 8, "orin-nano-8gb" },
    { "thor", 64, "thor-t4000" }, { "thor", 128, "thor-t5000" },
  };

  if (mem_total_kib <= 0)
    return NULL;
  for (gsize i = 0; i < G_N_ELEMENTS (modules); i++)
    {
      gint64 size_kib = modules[i].gib * 1024 * 1024;

      if (g_str_equal (sku, modules[i].sku) &&
          mem_total_kib <= size_kib && mem_total_kib > size_kib / 4 * 3)
        return modules[i].variant;
    }
  return NULL;
}

gint64
jmem_identity_module_ram_kib (const JmemIdentity *identity)
{
  /* the modules' data sheets: AGX Orin Industrial has 64 GB, T4000 64 GB */
  static const struct { const char *variant; gint64 gib; } sizes[] = {
    { "orin-agx-32gb", 32 }, { "orin-agx-64gb", 64 }, { "orin-agx-industrial", 64 },
    { "orin-nx-8gb", 8 }, { "orin-nx-16gb", 16 },
    { "orin-nano-4gb", 4 }, { "orin-nano-8gb", 8 },
    { "thor-t4000", 64 }, { "thor-t5000", 128 },
  };

  if (identity == NULL || identity->variant == NULL)
    return -1;
  for (gsize i = 0; i < G_N_ELEMENTS (sizes); i++)
    if (g_str_equal (identity->variant, sizes[i].variant))
      return sizes[i].gib * 1024 * 1024;
  return -1;
}

JmemIdentity *
jmem_identity_resolve (const char *device_tree_model,
                       GHashTable *boot_control,
                       gint64      mem_total_kib)
{
  g_autoptr(JmemIdentity) id = g_new0 (JmemIdentity, 1);
  g_autofree char *lower = NULL;
  const char *sku = NULL, *variant = NULL, *source = NULL;
  const Family *family;
  static const char *const spec_keys[] = { "TNSPEC", "COMPATIBLE_SPEC" };

  if (device_tree_model != NULL)
    {
      /* The device-tree property is NUL-terminated and may carry padding. */
      id->model = g_strchomp (jmem_text_make_valid (device_tree_model, -1));
      if (id->model[0] == '\0')
        g_clear_pointer (&id->model, g_free);
      else
        lower = g_ascii_strdown (id->model, -1);
    }

  for (gsize i = 0; i < G_N_ELEMENTS (spec_keys) && variant == NULL; i++)
    {
      const char *spec = boot_control != NULL
        ? g_hash_table_lookup (boot_control, spec_keys[i]) : NULL;

      if (board_from_spec (spec, &sku, &variant))
        source = spec_keys[i];
    }
  if (source != NULL)
    id->variant_source = g_strdup_printf ("boot-control:%s", source);
  else
    sku = sku_from_model (lower);

  family = sku != NULL ? family_by_sku (sku) : NULL;
  if (family == NULL)
    {
      id->sku = g_strdup ("unknown");
      id->generation = g_strdup ("unknown");
      return g_steal_pointer (&id);
    }
  id->sku = g_strdup (family->sku);
  id->generation = g_strdup (family->generation);
  id->product_line = g_strdup (family->product_line);

  if (variant == NULL && lower != NULL &&
      (variant = variant_from_model (sku, lower)) != NULL)
    id->variant_source = g_strdup ("model");
  if (variant == NULL &&
      (variant = variant_from_memory (sku, mem_total_kib)) != NULL)
    id->variant_source = g_strdup ("memory-size");
  id->variant = g_strdup (variant);
  return g_steal_pointer (&id);
}
