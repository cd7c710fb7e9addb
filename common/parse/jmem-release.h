/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Board identity: /etc/nv_tegra_release, /etc/nv_boot_control.conf, the device-tree model. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct {
  char *major;      /* "36" from "# R36 (release)" */
  char *revision;   /* "4.0" */
  char *version;    /* "36.4.0" */
  char *gcid;
  char *board;
  char *date;       /* unwrapped when a paste split the DATE line */
  char *kernel_variant;
} JmemTegraRelease;

void jmem_tegra_release_free (JmemTegraRelease *release);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (JmemTegraRelease, jmem_tegra_release_free)
JmemTegraRelease *jmem_tegra_release_parse (const char *data, gsize len, GError **error);

/* TNSPEC / COMPATIBLE_SPEC / TEGRA_CHIPID ... from nv_boot_control.conf. */
GHashTable *jmem_boot_control_parse (const char *data, gsize len);

typedef struct {
  char *model;          /* device-tree model, NUL and trailing whitespace removed; NULL if absent */
  char *sku;            /* thor, orin-agx, orin-nx, orin-nano, xavier, tx2, nano, unknown */
  char *generation;     /* thor, orin, xavier, tx2, tx1, unknown */
  char *product_line;   /* "Jetson AGX Thor", "Jetson AGX Orin", ... or NULL */
  char *variant;        /* orin-agx-64gb, orin-nx-16gb, thor-t5000, ... or NULL */
  char *variant_source; /* "boot-control:TNSPEC", "boot-control:COMPATIBLE_SPEC", "model", "memory-size", or NULL */
} JmemIdentity;

void jmem_identity_free (JmemIdentity *identity);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (JmemIdentity, jmem_identity_free)

/* Any argument may be NULL (absent); @mem_total_kib is -1 when unknown. */
JmemIdentity *jmem_identity_resolve (const char *device_tree_model,
                                     GHashTable *boot_control,
                                     gint64      mem_total_kib);

/* The RAM of @identity's module by its variant (orin-agx-64gb: 64 GiB), in
 * KiB; -1 when the variant is unknown. */
gint64 jmem_identity_module_ram_kib (const JmemIdentity *identity);

G_END_DECLS
