/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "jmem-top-layout.h"

#include "jmem-top-trend.h"

static const struct {
  const char *title;
  guint       min;   /* narrowest */
  guint       max;   /* widest it grows to */
} columns[JMEM_TOP_N_COLS] = {
  [JMEM_TOP_COL_PID] = { "PID", 7, 7 },
  [JMEM_TOP_COL_USER] = { "USER", 8, 12 },
  [JMEM_TOP_COL_NAME] = { "NAME", 14, 32 },
  [JMEM_TOP_COL_FOOTPRINT] = { "FOOTPRINT", 10, 10 },
  [JMEM_TOP_COL_PSS] = { "PSS", 7, 7 },
  [JMEM_TOP_COL_NVMAP] = { "NVMAP", 7, 7 },
  [JMEM_TOP_COL_GPU] = { "GPU", 7, 7 },
  [JMEM_TOP_COL_SWAP] = { "SWAP", 7, 7 },
  [JMEM_TOP_COL_CONTAINER] = { "CONTAINER", 12, 25 },
  [JMEM_TOP_COL_TREND] = { "TREND", JMEM_TOP_MIN_SPARK_CELLS + 1 + JMEM_TOP_GROWTH_COLS,
                           JMEM_TOP_TREND_SAMPLES + 1 + JMEM_TOP_GROWTH_COLS },
};

/* The order in which columns go (after an empty NVMAP or GPU); the GPU
 * column early only where NVMAP holds the GPU's memory. */
static const JmemTopColumn drop_order[] = {
  JMEM_TOP_COL_SWAP, JMEM_TOP_COL_USER, JMEM_TOP_COL_GPU, JMEM_TOP_COL_CONTAINER,
  JMEM_TOP_COL_PSS, JMEM_TOP_COL_TREND, JMEM_TOP_COL_NVMAP, JMEM_TOP_COL_GPU,
};

/* Where room goes once every kept column has its narrowest width, and up
 * to how wide (0: the column's widest): a name readable first, then the
 * sparkline, then the rest of the texts. */
static const struct {
  JmemTopColumn column;
  guint         up_to;
} grow_order[] = {
  { JMEM_TOP_COL_NAME, 20 }, { JMEM_TOP_COL_TREND, 0 }, { JMEM_TOP_COL_NAME, 0 },
  { JMEM_TOP_COL_CONTAINER, 0 }, { JMEM_TOP_COL_USER, 0 },
};

const char *
jmem_top_column_title (JmemTopColumn column)
{
  return columns[column].title;
}

static guint
total (const JmemTopLayout *k)
{
  guint sum = 0, n = 0;

  for (guint c = 0; c < JMEM_TOP_N_COLS; c++)
    if (k->shown[c])
      {
        sum += k->width[c];
        n++;
      }
  return n > 0 ? sum + n - 1 : 0;  /* a blank between columns */
}

void
jmem_top_layout (JmemTopLayout *k,
                 guint          width,
                 gboolean       has_nvmap,
                 gboolean       has_gpu)
{
  guint x = 0;

  *k = (JmemTopLayout) { { 0 } };
  for (guint c = 0; c < JMEM_TOP_N_COLS; c++)
    {
      k->shown[c] = TRUE;
      k->width[c] = columns[c].min;
    }
  if (total (k) > width && !has_gpu)
    k->shown[JMEM_TOP_COL_GPU] = FALSE;
  if (total (k) > width && !has_nvmap)
    k->shown[JMEM_TOP_COL_NVMAP] = FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (drop_order) && total (k) > width; i++)
    if (drop_order[i] != JMEM_TOP_COL_GPU || has_nvmap || i + 1 == G_N_ELEMENTS (drop_order))
      k->shown[drop_order[i]] = FALSE;

  for (guint i = 0; i < G_N_ELEMENTS (grow_order); i++)
    {
      JmemTopColumn c = grow_order[i].column;
      guint room = width > total (k) ? width - total (k) : 0;
      guint up_to = grow_order[i].up_to > 0 ? grow_order[i].up_to : columns[c].max;

      if (k->shown[c] && up_to > k->width[c])
        k->width[c] += MIN (room, up_to - k->width[c]);
    }
  k->spark_cells = k->shown[JMEM_TOP_COL_TREND]
                     ? k->width[JMEM_TOP_COL_TREND] - 1 - JMEM_TOP_GROWTH_COLS : 0;
  for (guint c = 0; c < JMEM_TOP_N_COLS; c++)
    if (k->shown[c])
      {
        k->x[c] = x;
        x += k->width[c] + 1;
      }
  k->total = total (k);
}
