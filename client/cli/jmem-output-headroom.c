/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "jmem-output-headroom.h"

#include "jmem-output-gates.h"
#include "jmem-output-table.h"
#include "jmem-text.h"

#define DEFAULT_WIDTH 80
#define LABEL_COLS    20
#define SIZE_COLS     10
/* where a figure's description starts, and its further lines */
#define TEXT_COL      (LABEL_COLS + SIZE_COLS + 2)

/* @text (unescaped) from column @indent, wrapped, and a newline. */
static void
wrapped (GString *out, const char *text, guint width, guint indent, guint hang)
{
  g_autofree char *shown = jmem_text_for_terminal (text);

  jmem_table_append_wrapped (out, shown, width, indent, hang);
  g_string_append_c (out, '\n');
}

static char *
size_or_na (gint64 kib)
{
  return kib >= 0 ? jmem_text_size (kib) : g_strdup ("n/a");
}

/* "Label        12.3 GiB  what it is made of" */
static void
figure (GString *out, const char *label, gint64 kib, const char *text, guint width)
{
  g_autofree char *size = size_or_na (kib);

  g_string_append_printf (out, "%-*s%*s  ", LABEL_COLS, label, SIZE_COLS, size);
  wrapped (out, text, width, TEXT_COL, TEXT_COL);
}

/* " - CmaFree 244.1 MiB" for a term, "" when it is 0 and says nothing. */
static void
append_term (GString *s, const JmemHeadroomTerm *t, const char *name)
{
  g_autofree char *size = size_or_na (t->kib);

  if (t->kib == 0 && t->id != JMEM_HEADROOM_TERM_FREE)
    return;
  if (s->len > 0 || t->subtract)
    g_string_append (s, t->subtract ? " - " : " + ");
  g_string_append_printf (s, "%s %s", name, size);
}

static void
verdict_line (GString *out, const JmemHeadroom *h, guint width)
{
  g_autofree char *need = jmem_text_size (h->need_kib);
  g_autofree char *now = size_or_na (h->allocatable_now_kib);
  g_autofree char *after = size_or_na (h->allocatable_after_reclaim_kib);
  g_autofree char *short_by = size_or_na (h->shortfall_kib);
  g_autofree char *block = size_or_na (h->largest_free_block_kib);
  g_autofree char *line = NULL;

  switch (h->verdict)
    {
    case JMEM_HEADROOM_FITS_NOW:
      line = g_strdup_printf ("Fits now: %s needed, %s allocatable now.", need, now);
      break;
    case JMEM_HEADROOM_FITS_AFTER_RECLAIM:
      line = g_strdup_printf ("Fits after reclaim: %s needed, %s allocatable now, %s after "
                              "reclaim; %s must be freed first.", need, now, after, short_by);
      break;
    case JMEM_HEADROOM_DOES_NOT_FIT:
      line = g_strdup_printf ("Does not fit: %s needed, %s allocatable now, %s after reclaim: "
                              "%s short.", need, now, after, short_by);
      break;
    case JMEM_HEADROOM_UNKNOWN:
      line = g_strdup_printf ("Unknown: %s needed, but the memory figures are unknown.", need);
      break;
    case JMEM_HEADROOM_NO_NEED:
      line = g_strdup_printf ("Allocatable now %s, after reclaim %s; largest free block %s.",
                              now, after, block);
      break;
    }
  wrapped (out, line, width, 0, 2);
}

static void
drop_line (GString *out, const JmemOpsHeadroom *r, guint width)
{
  g_autofree char *line = NULL;

  if (!r->drop_asked)
    return;
  if (r->dropped)
    {
      g_autofree char *before = size_or_na (r->before->allocatable_now_kib);
      g_autofree char *after = size_or_na (r->headroom->allocatable_now_kib);

      const JmemHeadroomTerm *pool = &r->before->terms[JMEM_HEADROOM_TERM_GPU_POOL];
      g_autofree char *pool_before = size_or_na (pool->kib);
      g_autofree char *pool_after = size_or_na (r->headroom->terms[JMEM_HEADROOM_TERM_GPU_POOL].kib);
      /* what the GPU driver's pool gave back shows in its two readings */
      g_autofree char *returned = pool->kib > 0
                                  ? g_strdup_printf ("; the GPU driver's pool %s before, %s after%s",
                                                     pool_before, pool_after,
                                                     g_strcmp0 (pool->source, "estimate") == 0
                                                     ? " (the accounting's estimate)" : "")
                                  : g_strdup ("");

      line = g_strdup_printf ("Dropped caches (level 3), as %s: allocatable now %s before, "
                              "%s after%s.", r->drop_reason, before, after, returned);
    }
  else
    line = g_strdup_printf ("Caches not dropped: %s.", r->drop_reason);
  wrapped (out, line, width, 0, 2);
}

static void
actions (GString *out, const JmemHeadroom *h, guint width)
{
  if (h->actions->len == 0)
    return;
  g_string_append (out, h->verdict == JMEM_HEADROOM_DOES_NOT_FIT ? "In the way:\n"
                        : h->verdict == JMEM_HEADROOM_FITS_NOW ? "Note:\n" : "To make room:\n");
  for (guint i = 0; i < h->actions->len; i++)
    jmem_table_append_action (out, g_ptr_array_index (h->actions, i), width, 2);
}

static void
figures (GString *out, const JmemHeadroom *h, guint width)
{
  g_autoptr(GString) now = g_string_new (NULL);
  g_autoptr(GString) reclaim = g_string_new (NULL);
  g_autofree char *text = NULL;

  /* "MemTotal" where MemFree was above it */
  append_term (now, &h->terms[JMEM_HEADROOM_TERM_FREE],
               h->terms[JMEM_HEADROOM_TERM_FREE].fields != NULL ? h->terms[JMEM_HEADROOM_TERM_FREE].fields
                                                                : "MemFree");
  append_term (now, &h->terms[JMEM_HEADROOM_TERM_CMA_FREE], "CmaFree");
  append_term (now, &h->terms[JMEM_HEADROOM_TERM_RESERVE], "min_free_kbytes");
  append_term (now, &h->terms[JMEM_HEADROOM_TERM_NVMAP_POOL], "NvMap pool");
  append_term (now, &h->terms[JMEM_HEADROOM_TERM_GPU_CARVEOUT], "GPU carveout");
  figure (out, "Allocatable now", h->allocatable_now_kib, now->str, width);

  g_string_append (reclaim, "now");
  append_term (reclaim, &h->terms[JMEM_HEADROOM_TERM_PAGE_CACHE], "unmapped page cache");
  append_term (reclaim, &h->terms[JMEM_HEADROOM_TERM_SLAB], "slab");
  append_term (reclaim, &h->terms[JMEM_HEADROOM_TERM_GPU_POOL],
               h->terms[JMEM_HEADROOM_TERM_GPU_POOL].kib > 0 &&
               g_strcmp0 (h->terms[JMEM_HEADROOM_TERM_GPU_POOL].source, "estimate") == 0
               ? "GPU driver pool (estimate)" : "GPU driver pool");
  append_term (reclaim, &h->terms[JMEM_HEADROOM_TERM_SWAP], "swap");
  figure (out, "After reclaim", h->allocatable_after_reclaim_kib, reclaim->str, width);

  if (h->largest_free_block_kib >= 0 && h->largest_free_block_zone != NULL)
    {
      g_autofree char *huge = jmem_text_size (h->huge_free_kib);
      g_autoptr(GString) zones = g_string_new (NULL);
      gint order = -1;

      for (guint i = 0; i < h->zones->len; i++)
        order = MAX (order, ((const JmemHeadroomZone *) g_ptr_array_index (h->zones, i))->largest_order);
      for (guint i = 0; i < h->zones->len; i++)
        {
          const JmemHeadroomZone *z = g_ptr_array_index (h->zones, i);

          if (z->largest_order == order)
            g_string_append_printf (zones, "%s%s", zones->len > 0 ? ", " : "", z->zone);
        }
      text = g_strdup_printf ("%" G_GUINT64_FORMAT " of them (%s; buddyinfo, %" G_GINT64_FORMAT
                              " KiB pages); %s free in blocks of 2 MiB or more%s",
                              h->largest_free_blocks, zones->str, h->page_size / 1024,
                              huge, h->fragmented ? ": fragmented" : "");
    }
  else
    text = g_strdup (h->zones->len > 0 ? "buddyinfo read, the page size unknown"
                                       : "buddyinfo not read");
  figure (out, "Largest free block", h->largest_free_block_kib, text, width);
  g_clear_pointer (&text, g_free);

  if (h->hugetlb_total_kib > 0)
    {
      g_autofree char *total = jmem_text_size (h->hugetlb_total_kib);

      text = g_strdup_printf ("free of %s of hugetlb pages: %s", total,
                              h->gpu_carveout ? "the GPU's carveout, counted now"
                                              : "hugetlbfs', not the GPU's");
      figure (out, "Huge pages free", h->hugetlb_free_kib, text, width);
      g_clear_pointer (&text, g_free);
    }
  if (h->cma_total_kib > 0)
    {
      g_autofree char *total = jmem_text_size (h->cma_total_kib);

      text = g_strdup_printf ("free of %s: camera, video and display buffers; NvMap does not "
                              "take it", total);
      figure (out, "CMA free", h->cma_free_kib, text, width);
      g_clear_pointer (&text, g_free);
    }
  if (h->swap_free_kib == 0 && h->terms[JMEM_HEADROOM_TERM_SWAP].note != NULL)
    text = g_strdup (h->terms[JMEM_HEADROOM_TERM_SWAP].note);
  else if (h->zram_ratio > 0)
    text = g_strdup_printf ("free; zram at %.1f:1%s, a page swapped frees %.0f %% of itself",
                            h->zram_ratio, h->zram_ratio_assumed ? " (assumed)" : "",
                            100.0 * (1.0 - 1.0 / h->zram_ratio));
  else
    text = g_strdup ("free");
  figure (out, "Swap", h->swap_free_kib, text, width);
  g_clear_pointer (&text, g_free);

  if (h->nvmap_free_size_kib >= 0)
    figure (out, "NvMap free_size", h->nvmap_free_size_kib,
            "NvMap's own estimate (iovmm/free_size): MemAvailable - CmaFree", width);
  if (h->app_note_kib >= 0)
    {
      text = g_strdup_printf ("the CUDA for Tegra app note's estimate: %s", h->app_note_fields);
      figure (out, "App note estimate", h->app_note_kib, text, width);
    }
}

void
jmem_output_headroom_human (const JmemOpsHeadroom *r,
                            GString               *out,
                            guint                  width)
{
  const JmemHeadroom *h = r->headroom;

  if (width == 0)
    width = DEFAULT_WIDTH;
  verdict_line (out, h, width);
  drop_line (out, r, width);
  actions (out, h, width);
  g_string_append_c (out, '\n');
  figures (out, h, width);
  jmem_output_gates_human (r, out, width);
  for (guint i = 0; i < h->notes->len; i++)
    {
      g_string_append (out, "Note: ");
      wrapped (out, g_ptr_array_index (h->notes, i), width, 6, 2);
    }
}
