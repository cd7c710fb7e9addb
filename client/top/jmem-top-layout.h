/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Which columns of jmem top's table fit a window, and how wide each is.
 *
 * Every column at its narrowest takes 105 columns. As the window narrows,
 * columns go in this order (docs/jmem.1, "jmem top"):
 *   1. NVMAP or GPU where no process in the sample has a value for it (GPU
 *      on the nvgpu stack, NVMAP on Thor);
 *   2. SWAP, 3. USER, 4. GPU where NVMAP has values (else GPU goes last),
 *   5. CONTAINER, 6. PSS, 7. TREND, 8. NVMAP, 9. GPU
 *   (the GPU's memory is the point on a Jetson: its column goes last).
 * PID, NAME and FOOTPRINT stay. Room beyond the narrowest widths goes to
 * NAME (up to 20 columns), the sparkline (up to JMEM_TOP_TREND_SAMPLES
 * cells), then NAME, CONTAINER and USER. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum {
  JMEM_TOP_COL_PID,
  JMEM_TOP_COL_USER,
  JMEM_TOP_COL_NAME,
  JMEM_TOP_COL_FOOTPRINT,
  JMEM_TOP_COL_PSS,
  JMEM_TOP_COL_NVMAP,
  JMEM_TOP_COL_GPU,
  JMEM_TOP_COL_SWAP,
  JMEM_TOP_COL_CONTAINER,
  JMEM_TOP_COL_TREND,
  JMEM_TOP_N_COLS,
} JmemTopColumn;

/* The growth text's columns after the sparkline, and the fewest cells a
 * sparkline is given. */
#define JMEM_TOP_GROWTH_COLS 8
#define JMEM_TOP_MIN_SPARK_CELLS 8

typedef struct {
  gboolean shown[JMEM_TOP_N_COLS];
  guint    x[JMEM_TOP_N_COLS];      /* where each shown column starts */
  guint    width[JMEM_TOP_N_COLS];  /* its columns (TREND: sparkline, a blank, growth) */
  guint    spark_cells;             /* TREND's sparkline */
  guint    total;                   /* columns the table takes */
} JmemTopLayout;

/* The header of a column, as the table and the sort keys name it. */
const char *jmem_top_column_title (JmemTopColumn column);

/* Lays the table out in @width columns; @has_nvmap and @has_gpu say whether
 * any row has a value for those columns. */
void jmem_top_layout (JmemTopLayout *layout,
                      guint          width,
                      gboolean       has_nvmap,
                      gboolean       has_gpu);

G_END_DECLS
