/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct {
  char     *name;    /* "MemTotal", "CmaFree", "NvMapMemUsed", "HugePages_Total", ... */
  guint64   value;
  gboolean  is_kib;  /* FALSE for counts such as HugePages_Total */
} JmemMeminfoField;

typedef struct {
  GArray *fields;      /* JmemMeminfoField, in file order */
  guint   n_malformed;
} JmemMeminfo;

void jmem_meminfo_free (JmemMeminfo *meminfo);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (JmemMeminfo, jmem_meminfo_free)

JmemMeminfo *jmem_meminfo_parse (const char *data,
                                 gsize       len,
                                 GError    **error);

/* Value in KiB of a kB field, or -1 when absent. */
gint64 jmem_meminfo_get_kib (const JmemMeminfo *meminfo,
                             const char        *name);

G_END_DECLS
