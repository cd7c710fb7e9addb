/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the RAM accounting reads beyond meminfo and NvMap's clients (zram,
 * the device tree's memory nodes, each NvMap holder's smaps), and the
 * input it is computed from. The arithmetic is common/model/jmem-accounting.c. */
#include "jmem-collect-private.h"

#include "jmem-glib-compat.h"
#include "jmem-names.h"
#include "jmem-smaps.h"
#include "jmem-text.h"

#include <string.h>
#include <unistd.h>

/* Large CUDA processes map thousands of regions: smaps is bigger than the
 * other /proc files, and read only for NvMap's holders. */
#define MAX_SMAPS_BYTES (64u * 1024u * 1024u)

/* ---- zram ---- */

static void
read_zram (JmemCollectContext *ctx)
{
  JmemSnapshot *s = ctx->snapshot;
  g_auto(GStrv) names = jmem_root_list_dir (ctx->files, "/sys/block", NULL);
  guint64 sum = 0, orig_sum = 0;

  if (names == NULL)
    {
      g_autofree char *listed = NULL;
      gsize len = 0;

      /* A capture records sys/block only for zram devices, and lists them
       * in jmem/zram-devices: an empty list is "no zram"; a listed device
       * whose mm_stat is missing, or no list (an older capture), is
       * unknown. */
      if (jmem_root_read (ctx->files, JMEM_CAPTURE_ZRAM_PATH, JMEM_MAX_SMALL_BYTES, &listed, &len,
                          NULL) && len == 0)
        s->zram_bytes = s->zram_orig_bytes = 0;
      return;
    }
  for (guint i = 0; names[i] != NULL; i++)
    {
      g_autofree char *path = NULL, *data = NULL;
      gsize len = 0;
      guint64 bytes, orig;

      if (!g_str_has_prefix (names[i], "zram"))
        continue;
      path = g_strdup_printf ("/sys/block/%s/mm_stat", names[i]);
      if (!jmem_root_read (ctx->files, path, JMEM_MAX_SMALL_BYTES, &data, &len, NULL))
        continue;  /* a zram device not set up has no store */
      if (!jmem_accounting_zram_mm_stat (data, len, &orig, &bytes) || bytes > G_MAXINT64 - sum ||
          orig > G_MAXINT64 - orig_sum)
        {
          g_autofree char *shown = jmem_text_escape (names[i]);

          jmem_snapshot_add_warning (s, "accounting", NULL,
                                     "%s's mm_stat is not zram's format: its store is uncounted",
                                     shown);
          continue;
        }
      sum += bytes;
      orig_sum += orig;
    }
  s->zram_bytes = (gint64) sum;
  s->zram_orig_bytes = (gint64) orig_sum;
}

/* ---- the device tree's memory nodes ---- */

static guint
read_cells (JmemCollectContext *ctx, const char *path, guint fallback)
{
  g_autofree char *data = NULL;
  gsize len = 0;

  if (!jmem_collect_read_boot_raw (ctx, path, JMEM_MAX_SMALL_BYTES, &data, &len, NULL) || len != 4)
    return fallback;
  return ((guint) (guint8) data[0] << 24) | ((guint) (guint8) data[1] << 16) |
         ((guint) (guint8) data[2] << 8) | (guint) (guint8) data[3];
}

static void
read_device_tree (JmemCollectContext *ctx)
{
  JmemSnapshot *s = ctx->snapshot;
  g_auto(GStrv) names = jmem_root_list_dir (ctx->files, "/proc/device-tree", NULL);
  /* the Devicetree Specification's defaults when the root does not say */
  guint address_cells = read_cells (ctx, "/proc/device-tree/#address-cells", 2);
  guint size_cells = read_cells (ctx, "/proc/device-tree/#size-cells", 1);
  guint64 sum = 0;
  gboolean any = FALSE;

  for (guint i = 0; names != NULL && names[i] != NULL; i++)
    {
      g_autofree char *path = NULL, *data = NULL;
      gsize len = 0;
      guint64 bytes;

      if (!g_str_equal (names[i], "memory") && !g_str_has_prefix (names[i], "memory@"))
        continue;
      path = g_strdup_printf ("/proc/device-tree/%s/reg", names[i]);
      if (!jmem_collect_read_boot_raw (ctx, path, JMEM_MAX_SMALL_BYTES, &data, &len, NULL))
        continue;
      if (!jmem_accounting_device_tree_bytes ((const guint8 *) data, len, address_cells, size_cells,
                                              &bytes) || bytes > G_MAXINT64 - sum)
        {
          g_autofree char *shown = jmem_text_escape (names[i]);

          jmem_snapshot_add_warning (s, "accounting", NULL,
                                     "the device tree's %s/reg is not %u address and %u size "
                                     "cells: the board's RAM is unknown", shown, address_cells,
                                     size_cells);
          return;
        }
      sum += bytes;
      any = TRUE;
    }
  if (any)
    s->device_tree_bytes = (gint64) sum;
}

void
jmem_collect_memory_extras (JmemCollectContext *ctx)
{
  read_zram (ctx);
  read_device_tree (ctx);
}

/* ---- the NvMap pages inside each holder's PSS or RSS ---- */

typedef struct {
  GArray *ranges;  /* JmemNvmapVma of one process, from iovmm/maps */
} Match;

static gboolean
in_nvmap_maps (const JmemSmapsVma *vma, gpointer user_data)
{
  const Match *m = user_data;

  for (guint i = 0; i < m->ranges->len; i++)
    {
      const JmemNvmapVma *r = &g_array_index (m->ranges, JmemNvmapVma, i);

      if (vma->start >= r->start && vma->end <= r->end)
        return TRUE;
    }
  return FALSE;
}

static gboolean
named_nvmap (const JmemSmapsVma *vma, gpointer user_data)
{
  return jmem_smaps_path_is_nvmap (vma->path, vma->path_len);
}

static int
compare_vma (gconstpointer a, gconstpointer b)
{
  const JmemNvmapVma *x = a, *y = b;

  if (x->start != y->start)
    return x->start < y->start ? -1 : 1;
  return x->end < y->end ? -1 : x->end > y->end;
}

/* PID -> GArray of its NvMap VMAs, each once: a process with two clients
 * holding one handle sees its VMAs printed under both. */
static GHashTable *
ranges_by_pid (const JmemNvmapMaps *maps)
{
  GHashTable *by_pid = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free,
                                              (GDestroyNotify) g_array_unref);
  GHashTableIter iter;
  gpointer value;

  for (guint i = 0; maps != NULL && i < maps->clients->len; i++)
    {
      const JmemNvmapClientMaps *cm = g_ptr_array_index (maps->clients, i);
      gint64 pid = cm->client->pid;
      GArray *ranges = g_hash_table_lookup (by_pid, &pid);

      if (pid == 0)
        continue;
      if (ranges == NULL)
        {
          ranges = g_array_new (FALSE, FALSE, sizeof (JmemNvmapVma));
          g_hash_table_insert (by_pid, g_memdup2 (&pid, sizeof pid), ranges);
        }
      g_array_append_vals (ranges, cm->vmas->data, cm->vmas->len);
    }
  g_hash_table_iter_init (&iter, by_pid);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      GArray *ranges = value;
      guint out = 0;

      g_array_sort (ranges, compare_vma);
      for (guint i = 0; i < ranges->len; i++)
        if (out == 0 || compare_vma (&g_array_index (ranges, JmemNvmapVma, out - 1),
                                     &g_array_index (ranges, JmemNvmapVma, i)) != 0)
          g_array_index (ranges, JmemNvmapVma, out++) = g_array_index (ranges, JmemNvmapVma, i);
      g_array_set_size (ranges, out);
    }
  return by_pid;
}

static guint64
ranges_kib (const GArray *ranges)
{
  guint64 kib = 0;

  for (guint i = 0; i < ranges->len; i++)
    {
      const JmemNvmapVma *r = &g_array_index (ranges, JmemNvmapVma, i);

      kib += MIN ((r->end - r->start) / 1024, (guint64) JMEM_ACCOUNTING_MAX_KIB);
    }
  return MIN (kib, (guint64) JMEM_ACCOUNTING_MAX_KIB);
}

/* Whether @ranges are where the process maps them: the helper gives each
 * VMA as [0, length) (docs/dbus-api.md), and no mapping starts at 0. */
static gboolean
ranges_have_addresses (const GArray *ranges)
{
  /* sorted: a stripped one comes first */
  return ranges->len > 0 && g_array_index (ranges, JmemNvmapVma, 0).start != 0;
}

/* smaps of @p matched by NvMap's own ranges where maps lists the process,
 * else by the mappings' names; FALSE when unreadable. */
static gboolean
read_smaps (JmemCollectContext *ctx, int proc_fd, JmemProcess *p, GArray *ranges,
            JmemSmapsSum *sum)
{
  g_autoptr(GByteArray) buf = g_byte_array_new ();
  char name[48];
  Match m = { ranges };

  g_snprintf (name, sizeof name, "%" G_GINT64_FORMAT "/smaps", p->pid);
  if (proc_fd < 0 ||
      !jmem_root_read_record_at (ctx->files, proc_fd, "/proc", name, MAX_SMAPS_BYTES, buf, NULL))
    return FALSE;
  return jmem_smaps_sum ((const char *) buf->data, buf->len,
                         ranges != NULL ? in_nvmap_maps : named_nvmap, &m, sum, NULL);
}

void
jmem_collect_nvmap_mapped (JmemCollectContext *ctx)
{
  JmemSnapshot *s = ctx->snapshot;
  g_autoptr(GHashTable) by_pid = ranges_by_pid (s->nvmap_extras.maps);
  gboolean maps_read = s->nvmap_extras.maps != NULL && !s->nvmap_pids_host;
  int proc_fd = ctx->proc_fd >= 0 ? ctx->proc_fd : jmem_root_open_dir (ctx->files, "/proc", NULL);
  guint n_unknown = 0;

  for (guint i = 0; i < s->processes->len; i++)
    {
      JmemProcess *p = g_ptr_array_index (s->processes, i);
      GArray *ranges = maps_read ? g_hash_table_lookup (by_pid, &p->pid) : NULL;
      GArray *addressed = ranges != NULL && ranges_have_addresses (ranges) ? ranges : NULL;
      JmemSmapsSum sum;

      if (p->nvmap_kib <= 0)
        continue;
      if (ranges != NULL && ranges->len == 0)
        {
          /* NvMap lists no CPU mapping of this process: nothing to take out */
          p->nvmap_mapped_kib = 0;
          p->nvmap_mapped_source = "nvmap-maps";
        }
      else if (read_smaps (ctx, proc_fd, p, addressed, &sum))
        {
          guint64 part = p->pss_kib >= 0 ? sum.pss_kib : sum.rss_kib;

          p->nvmap_mapped_kib = (gint64) MIN (part, (guint64) JMEM_ACCOUNTING_MAX_KIB);
          p->nvmap_mapped_source = addressed != NULL ? "smaps" : "smaps-name";
        }
      else if (p->pss_kib < 0 && ranges != NULL && p->rss_kib >= 0)
        {
          /* no smaps: the mapped size, all of it resident at most */
          p->nvmap_mapped_kib = MIN ((gint64) ranges_kib (ranges), p->rss_kib);
          p->nvmap_mapped_source = "nvmap-maps";
        }
      else
        n_unknown++;
    }
  if (proc_fd >= 0 && proc_fd != ctx->proc_fd)
    close (proc_fd);
  if (n_unknown > 0)
    jmem_snapshot_add_warning (s, "processes", NULL,
                               "for %u %s holding NvMap the part of PSS or RSS that is NvMap's "
                               "is unknown (no smaps, no NvMap maps): %s footprint may count "
                               "its CPU-mapped NvMap buffers twice",
                               n_unknown, jmem_text_plural (n_unknown, "process", "processes"),
                               jmem_text_plural (n_unknown, "its", "their"));
}

/* ---- the accounting ---- */

void
jmem_collect_accounting (JmemCollectContext *ctx)
{
  JmemSnapshot *s = ctx->snapshot;

  s->accounting = jmem_snapshot_accounting_new (s);
  for (guint i = 0; s->accounting != NULL && i < s->accounting->warnings->len; i++)
    jmem_snapshot_add_warning (s, "accounting", NULL, "%s",
                               (const char *) g_ptr_array_index (s->accounting->warnings, i));
}
