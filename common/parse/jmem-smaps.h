/* SPDX-License-Identifier: GPL-2.0-or-later */
/* /proc/PID/smaps, one mapping at a time: the Rss and Pss of the mappings
 * a caller picks (the NvMap buffers a process maps for the CPU, which its
 * smaps_rollup counts among the rest). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* One mapping's header line: "start-end perms offset dev inode [path]". */
typedef struct {
  guint64     start;
  guint64     end;
  const char *path;      /* not NUL-terminated; the kernel escapes newlines as \012 */
  gsize       path_len;  /* 0: an anonymous mapping */
} JmemSmapsVma;

typedef gboolean (*JmemSmapsMatch) (const JmemSmapsVma *vma,
                                    gpointer            user_data);

typedef struct {
  guint   n_vmas;      /* mappings matched */
  guint64 size_kib;    /* their virtual size */
  guint64 rss_kib;
  guint64 pss_kib;
  guint   n_malformed; /* lines neither header nor "Name: value" */
} JmemSmapsSum;

/* Adds up Size, Rss and Pss of every mapping @match accepts. Fails
 * (JMEM_ERROR_FAILED) when @data holds no mapping header at all but is not
 * empty (an empty smaps is a process without memory) or when a sum would
 * pass 2^63 KiB. */
gboolean jmem_smaps_sum (const char     *data,
                         gsize           len,
                         JmemSmapsMatch  match,
                         gpointer        user_data,
                         JmemSmapsSum   *sum,
                         GError        **error);

/* Whether a mapping's backing file is an NvMap buffer by its name: a
 * dma-buf ("/dmabuf:NAME" since Linux 5.3, "anon_inode:dmabuf" before), or
 * /dev/nvmap itself (drivers of 2011-2014). Other exporters' dma-bufs carry
 * the same name: see docs/accounting.md. */
gboolean jmem_smaps_path_is_nvmap (const char *path,
                                   gsize       path_len);

G_END_DECLS
