/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "jmem-top-accounting.h"

#include "jmem-text.h"
#include "jmem-top-trend.h"

#include <string.h>

/* By stable name (docs/snapshot.schema.json, accounting_bucket.name): a
 * letter that recalls the bucket, the same in every sample and release. */
static const struct {
  const char       *name;
  char              letter;
  JmemTopBucketKind kind;
} buckets[] = {
  { "free", '.', JMEM_TOP_BUCKET_PLAIN },
  { "page_cache", 'c', JMEM_TOP_BUCKET_CACHE },
  { "page_cache_locked", 'l', JMEM_TOP_BUCKET_CACHE },
  { "shmem", 'h', JMEM_TOP_BUCKET_CACHE },
  { "anon", 'a', JMEM_TOP_BUCKET_PROCESS },
  { "slab_reclaimable", 's', JMEM_TOP_BUCKET_KERNEL },
  { "slab_unreclaimable", 'S', JMEM_TOP_BUCKET_KERNEL },
  { "kernel_reclaimable", 'r', JMEM_TOP_BUCKET_KERNEL },
  { "kernel_stack", 'k', JMEM_TOP_BUCKET_KERNEL },
  { "page_tables", 't', JMEM_TOP_BUCKET_KERNEL },
  { "vmalloc", 'v', JMEM_TOP_BUCKET_KERNEL },
  { "percpu", 'p', JMEM_TOP_BUCKET_KERNEL },
  { "hugetlb", 'H', JMEM_TOP_BUCKET_GPU },
  { "zram", 'z', JMEM_TOP_BUCKET_PROCESS },
  { "zswap", 'w', JMEM_TOP_BUCKET_PROCESS },
  { "nvmap", 'n', JMEM_TOP_BUCKET_GPU },
  { "nvmap_pool", 'N', JMEM_TOP_BUCKET_GPU },
  { "gpu", 'g', JMEM_TOP_BUCKET_GPU },
  { "gpu_pool", 'G', JMEM_TOP_BUCKET_GPU },
  { "unexplained", '?', JMEM_TOP_BUCKET_UNEXPLAINED },
};

#define UNKNOWN_LETTER '*'

char
jmem_top_bucket_letter (const char *name)
{
  for (guint i = 0; i < G_N_ELEMENTS (buckets); i++)
    if (g_strcmp0 (name, buckets[i].name) == 0)
      return buckets[i].letter;
  return UNKNOWN_LETTER;
}

JmemTopBucketKind
jmem_top_bucket_kind (char letter)
{
  for (guint i = 0; i < G_N_ELEMENTS (buckets); i++)
    if (buckets[i].letter == letter)
      return buckets[i].kind;
  return JMEM_TOP_BUCKET_PLAIN;
}

/* The buckets the bar stacks, in its order: free last. */
static GPtrArray *
stacked (const JmemFrame *f)
{
  GPtrArray *list = g_ptr_array_new ();
  const JmemFrameBucket *free_bucket = NULL;

  for (guint i = 0; i < f->buckets->len; i++)
    {
      const JmemFrameBucket *b = g_ptr_array_index (f->buckets, i);

      if (b->kib <= 0)
        continue;
      if (g_str_equal (b->name, "free"))
        free_bucket = b;
      else
        g_ptr_array_add (list, (gpointer) b);
    }
  if (free_bucket != NULL)
    g_ptr_array_add (list, (gpointer) free_bucket);
  return list;
}

char *
jmem_top_accounting_bar (const JmemFrame *f,
                         guint            cells)
{
  g_autoptr(GPtrArray) list = NULL;
  g_autofree guint *n = NULL;
  g_autofree double *rest = NULL;
  GString *bar;
  double sum = 0;
  guint given = 0;

  if (f->buckets == NULL)
    return NULL;
  list = stacked (f);
  n = g_new0 (guint, list->len + 1);
  rest = g_new0 (double, list->len + 1);
  for (guint i = 0; i < list->len; i++)
    sum += (double) ((const JmemFrameBucket *) g_ptr_array_index (list, i))->kib;
  /* each bucket its whole cells, then the cells left to the largest
   * remainders: the letters fill the bar, and no bucket gets a cell a
   * larger remainder should have had */
  for (guint i = 0; i < list->len && sum > 0; i++)
    {
      double share = (double) ((const JmemFrameBucket *) g_ptr_array_index (list, i))->kib * cells / sum;

      n[i] = (guint) share;
      rest[i] = share - n[i];
      given += n[i];
    }
  while (sum > 0 && given < cells)
    {
      guint best = 0;

      for (guint i = 1; i < list->len; i++)
        if (rest[i] > rest[best])
          best = i;
      n[best]++;
      rest[best] = -1;
      given++;
    }
  bar = g_string_sized_new (cells + 1);
  for (guint i = 0; i < list->len; i++)
    for (guint c = 0; c < n[i]; c++)
      g_string_append_c (bar, jmem_top_bucket_letter (((const JmemFrameBucket *) g_ptr_array_index (list, i))->name));
  while (bar->len < cells)
    g_string_append_c (bar, ' ');
  return g_string_free (bar, FALSE);
}

/* Largest first, free last: its dots speak for themselves, and the Mem
 * line above says what is available. */
static gint
legend_order (gconstpointer a, gconstpointer b)
{
  const JmemFrameBucket *ba = *(const JmemFrameBucket * const *) a;
  const JmemFrameBucket *bb = *(const JmemFrameBucket * const *) b;
  gboolean fa = g_str_equal (ba->name, "free"), fb = g_str_equal (bb->name, "free");

  if (fa != fb)
    return fa ? 1 : -1;
  return ba->kib > bb->kib ? -1 : ba->kib < bb->kib;
}

static char *
entry_text (const JmemFrameBucket *b)
{
  g_autofree char *label = jmem_text_for_terminal (b->label);
  g_autofree char *size = jmem_top_size (b->kib);

  return g_strdup_printf ("%c %s %s", jmem_top_bucket_letter (b->name), label, size);
}

/* The legend with the first @n entries and a tail for the rest. */
static char *
legend_with (GPtrArray *entries, guint n, guint n_other, gint64 overlap_kib)
{
  GString *line = g_string_new ("   ");

  for (guint i = 0; i < n; i++)
    g_string_append_printf (line, " %s ", (const char *) g_ptr_array_index (entries, i));
  if (n_other > 0)
    g_string_append_printf (line, " +%u more ", n_other);
  if (overlap_kib > 0)
    {
      g_autofree char *size = jmem_top_size (overlap_kib);

      g_string_append_printf (line, " overlap %s ", size);
    }
  while (line->len > 0 && line->str[line->len - 1] == ' ')
    g_string_truncate (line, line->len - 1);
  return g_string_free (line, FALSE);
}

char *
jmem_top_accounting_legend (const JmemFrame *f,
                            const char      *bar,
                            guint            cols)
{
  g_autoptr(GPtrArray) list = NULL;
  g_autoptr(GPtrArray) entries = g_ptr_array_new_with_free_func (g_free);
  guint n_nonzero;
  g_autofree char *shortest = NULL;

  if (f->buckets == NULL || bar == NULL)
    return NULL;
  list = stacked (f);
  n_nonzero = list->len;
  g_ptr_array_sort (list, legend_order);
  for (guint i = 0; i < list->len; i++)
    {
      const JmemFrameBucket *b = g_ptr_array_index (list, i);

      if (strchr (bar, jmem_top_bucket_letter (b->name)) != NULL)
        g_ptr_array_add (entries, entry_text (b));
    }
  /* as many entries as fit, largest first, the tail always shown */
  for (guint n = entries->len + 1; n-- > 0;)
    {
      char *line = legend_with (entries, n, n_nonzero - n, f->overlap_kib);

      if (jmem_text_width (line) <= cols || n == 0)
        {
          if (jmem_text_width (line) <= cols)
            return line;
          shortest = line;
          break;
        }
      g_free (line);
    }
  return jmem_text_fit_width (shortest, cols, FALSE);
}
