/* SPDX-License-Identifier: GPL-2.0-or-later */
/* "Where the RAM is": the accounting's buckets as bars scaled to MemTotal,
 * and the processes beside the buckets they should match. Every figure is
 * the accounting's (common/model/jmem-accounting.c); nothing is recomputed. */
#include "jmem-output-accounting.h"

#include "jmem-config.h"

#include "jmem-output-table.h"
#include "jmem-text.h"

#define LABEL_COLS 16
#define SIZE_COLS  9
/* two blanks, label, size, bar, percent ("100.0%"), blanks between */
#define FIXED_COLS (2 + LABEL_COLS + 1 + SIZE_COLS + 1 + 1 + 6)
#define BAR_MAX    40
#define BAR_MIN    10

static void
text_line (GString *out, const char *text, guint width)
{
  g_string_append (out, "  ");
  jmem_table_append_wrapped (out, text, width, 2, JMEM_TABLE_INDENT);
  g_string_append_c (out, '\n');
}

static double
percent (gint64 kib, gint64 total)
{
  return total > 0 ? 100.0 * (double) kib / (double) total : 0.0;
}

/* One bucket: label, size, '#' per share of MemTotal, percent. An overlap
 * (@kib < 0) is shown by its size, its label saying what it is; a share
 * of 1000% or more drops its decimal, so that every line keeps its width. */
static void
bar_line (GString *out, const char *label, gint64 kib, gint64 total, guint bar)
{
  g_autofree char *size = jmem_text_size (ABS (kib));
  double share = percent (ABS (kib), total);
  guint n = kib > 0 && total > 0
            ? (guint) MIN ((double) bar, (double) kib * bar / (double) total + 0.5) : 0;

  g_string_append_printf (out, "  %-*s %*s ", LABEL_COLS, label, SIZE_COLS, size);
  for (guint i = 0; i < bar; i++)
    g_string_append_c (out, i < n ? '#' : ' ');
  g_string_append_printf (out, share < 999.95 ? " %5.1f%%\n" : " %5.0f%%\n", share);
}

static void
add_header (GString *out, const JmemAccounting *a, guint width)
{
  g_autofree char *total = jmem_text_size (a->mem_total_kib);
  g_autofree char *physical = NULL, *kept = NULL, *line = NULL;

  if (a->physical_kib >= 0)
    {
      physical = jmem_text_size (a->physical_kib);
      kept = jmem_text_size (MAX (a->firmware_reserved_kib, 0));
      line = g_strdup_printf ("MemTotal %s of the board's %s (%s): %s kept before Linux "
                              "counted, by firmware and carveouts",
                              total, physical,
                              g_strcmp0 (a->physical_source, "device-tree") == 0
                              ? "device tree" : "module size", kept);
    }
  else
    line = g_strdup_printf ("MemTotal %s; the board's RAM is unknown", total);
  text_line (out, line, width);
}

static void
add_buckets (GString *out, const JmemAccounting *a, guint width)
{
  guint bar = width == 0 ? BAR_MAX : CLAMP ((gint) width - FIXED_COLS, BAR_MIN, BAR_MAX);
  g_autoptr(GString) zero = g_string_new (NULL);
  g_autoptr(GString) unknown = g_string_new (NULL);
  const JmemBucket *estimated = NULL;

  for (guint i = 0; i < JMEM_N_BUCKETS; i++)
    {
      const JmemBucket *b = &a->buckets[i];
      const char *label = jmem_accounting_bucket_label (b->id);

      if (b->kib < 0)
        g_string_append_printf (unknown, "%s%s", unknown->len ? ", " : "", label);
      else if (b->kib == 0)
        g_string_append_printf (zero, "%s%s", zero->len ? ", " : "", label);
      else if (b->estimate)
        {
          g_autofree char *marked = g_strdup_printf ("~%s", label);

          bar_line (out, marked, b->kib, a->mem_total_kib, bar);
          estimated = b;
        }
      else
        bar_line (out, label, b->kib, a->mem_total_kib, bar);
    }
  bar_line (out, a->unexplained_kib < 0 ? "overlap" : "unexplained", a->unexplained_kib,
            a->mem_total_kib, bar);
  if (unknown->len > 0)
    {
      g_autofree char *line = g_strdup_printf ("unknown, so in unexplained: %s", unknown->str);

      text_line (out, line, width);
    }
  if (zero->len > 0)
    {
      g_autofree char *line = g_strdup_printf ("none: %s", zero->str);

      text_line (out, line, width);
    }
  if (estimated != NULL)
    {
      g_autofree char *line = g_strdup_printf ("~ an estimate, not a reading: %s", estimated->note);

      text_line (out, line, width);
    }
  if (a->unexplained_kib < 0)
    text_line (out, "overlap: the buckets add up to more than MemTotal, so some pages are "
               "counted twice (see the notes in --json)", width);
}

static void
add_reconciliation (GString *out, const JmemAccounting *a, guint width)
{
  const JmemReconciliation *r = &a->reconciliation;
  g_autofree char *pss = jmem_text_size (r->pss_kib);
  g_autofree char *mapped = jmem_text_size (r->kernel_mapped_kib);
  g_autofree char *shares = jmem_text_size (r->nvmap_shares_kib);
  g_autofree char *nvmap = jmem_text_size (r->nvmap_kib);
  g_autofree char *used = jmem_text_size (r->used_kib);
  g_autofree char *held = jmem_text_size (ABS (r->held_by_no_process_kib));
  g_autofree char *line1 = NULL, *line2 = NULL, *line3 = NULL;

  g_autofree char *gpu_size = jmem_text_size (r->gpu_kib);
  g_autofree char *gpu = r->gpu_kib >= 0 ? g_strdup_printf (", GPU memory %s", gpu_size) : NULL;

  if (r->kernel_mapped_kib >= 0)
    line1 = g_strdup_printf ("processes' PSS without NvMap %s%s; the kernel counts %s mapped "
                             "(AnonPages + Mapped)", pss, gpu ? gpu : "", mapped);
  else
    line1 = g_strdup_printf ("processes' PSS without NvMap %s%s", pss, gpu ? gpu : "");
  text_line (out, line1, width);
  if (r->n_without_pss > 0)
    {
      g_autofree char *rss = jmem_text_size (r->rss_without_pss_kib);
      g_autofree char *more = g_strdup_printf ("and %u %s without PSS, by RSS %s", r->n_without_pss,
                                               jmem_text_plural (r->n_without_pss, "process",
                                                                 "processes"), rss);

      text_line (out, more, width);
    }
  if (r->nvmap_kib >= 0)
    {
      line2 = g_strdup_printf ("processes' NvMap shares %s of %s NvMap in use", shares, nvmap);
      text_line (out, line2, width);
    }
  if (a->gpu_reported_kib >= 0)
    {
      g_autofree char *reported = jmem_text_size (a->gpu_reported_kib);
      g_autofree char *exited = jmem_text_size (a->gpu_exited_kib);
      g_autofree char *overlap = jmem_text_size (MAX (a->gpu_hugetlb_overlap_kib, 0));
      g_autofree char *line = g_strdup_printf ("GPU memory the driver reports %s%s%s%s: the "
                                               "gpu bucket%s%s%s",
                                               reported,
                                               a->gpu_exited_kib > 0 ? " (" : "",
                                               a->gpu_exited_kib > 0 ? exited : "",
                                               a->gpu_exited_kib > 0 ? " for PIDs with no process)"
                                                                     : "",
                                               a->gpu_hugetlb_overlap_kib > 0 ? "; " : "",
                                               a->gpu_hugetlb_overlap_kib > 0 ? overlap : "",
                                               a->gpu_hugetlb_overlap_kib > 0
                                               ? " of hugetlb's pages in use may be the same pages, "
                                                 "and are taken out of hugetlb"
                                               : "");

      text_line (out, line, width);
    }
  if (r->used_kib >= 0)
    {
      line3 = g_strdup_printf ("of %s used (MemTotal - MemFree), %s%s is held by no process",
                               used, r->held_by_no_process_kib < 0 ? "-" : "", held);
      text_line (out, line3, width);
    }
}

void
jmem_output_human_accounting (GString            *out,
                              const JmemSnapshot *s,
                              gboolean            color,
                              guint               width)
{
  const JmemAccounting *a = s->accounting;

  g_string_append_printf (out, "\n%sWhere the RAM is%s\n", color ? "\033[1m" : "",
                          color ? "\033[0m" : "");
  if (a == NULL || a->mem_total_kib <= 0)
    {
      text_line (out, a != NULL && a->notes->len > 0
                      ? (const char *) g_ptr_array_index (a->notes, 0)
                      : "/proc/meminfo was not readable: nothing to account", width);
      return;
    }
  add_header (out, a, width);
  add_buckets (out, a, width);
  add_reconciliation (out, a, width);
  text_line (out, "each bucket's fields and rule: jmem snapshot --json (accounting), "
             JMEM_DOCDIR "/accounting.md", width);
}
