/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "jmem-output-gates.h"

#include "jmem-output-table.h"
#include "jmem-text.h"

#define NAME_COLS    10
#define SIZE_COLS    10
#define VERDICT_COLS 8
/* where a gate's description starts in the table, and its further lines */
#define TEXT_COL     (NAME_COLS + SIZE_COLS + 2 + VERDICT_COLS)

/* @text (unescaped) from column @indent, wrapped, and a newline. */
static void
wrapped (GString *out, const char *text, guint width, guint indent, guint hang)
{
  g_autofree char *shown = jmem_text_for_terminal (text);

  jmem_table_append_wrapped (out, shown, width, indent, hang);
  g_string_append_c (out, '\n');
}

static const char *
verdict (const JmemGate *g)
{
  if (g->fits < 0)
    return g->kib >= 0 ? "" : "unknown";
  if (g->agrees == 0)
    return g->fits ? "fits *" : "short *";
  return g->fits ? "fits" : "short";
}

static void
actions (GString *out, const JmemGate *g, guint width)
{
  for (guint i = 0; i < g->actions->len; i++)
    jmem_table_append_action (out, g_ptr_array_index (g->actions, i), width, 4);
}

/* One gate in full: what --for shows. */
static void
detail (GString *out, const JmemGate *g, const JmemHeadroom *h, guint width)
{
  g_autofree char *size = g->kib >= 0 ? jmem_text_size (g->kib) : g_strdup ("unknown");
  g_autofree char *need = h->need_kib >= 0 ? jmem_text_size (h->need_kib) : NULL;
  g_autofree char *line = g_strdup_printf ("%s checks %s: %s here, %s%s%s%s.", g->framework,
                                           g->reads, size, g->fields,
                                           g->note != NULL ? " (" : "",
                                           g->note != NULL ? g->note : "",
                                           g->note != NULL ? ")" : "");

  wrapped (out, line, width, 0, 2);
  g_clear_pointer (&line, g_free);
  if (g->fits >= 0)
    {
      line = g_strdup_printf ("%s %s by it; by jmem's estimate it %s.", need,
                              g->fits ? "fits" : "does not fit",
                              h->verdict == JMEM_HEADROOM_FITS_NOW ? "fits now" :
                              h->verdict == JMEM_HEADROOM_FITS_AFTER_RECLAIM ? "fits after reclaim"
                                                                             : "does not fit");
      g_string_append (out, "  ");
      wrapped (out, line, width, 2, 4);
      g_clear_pointer (&line, g_free);
    }
  line = g_strdup_printf ("Source: %s", g->source);
  g_string_append (out, "  ");
  wrapped (out, line, width, 2, 4);
  if (g->actions->len > 0)
    {
      g_string_append (out, "  What closes the gap:\n");
      actions (out, g, width);
    }
}

static void
table (GString *out, const JmemOpsHeadroom *r, guint width)
{
  gboolean differs = FALSE;

  g_string_append_printf (out, "%-*s%*s  %-*s%s\n", NAME_COLS, "Gate", SIZE_COLS, "Figure",
                          VERDICT_COLS, r->headroom->need_kib >= 0 ? "Need" : "", "What it reads");
  for (guint i = 0; i < r->gates->len; i++)
    {
      const JmemGate *g = g_ptr_array_index (r->gates, i);
      g_autofree char *size = g->kib >= 0 ? jmem_text_size (g->kib) : g_strdup ("n/a");
      g_autofree char *text = g_strdup_printf ("%s%s", g->approximated ? "~ " : "", g->fields);

      g_string_append_printf (out, "%-*s%*s  %-*s", NAME_COLS, g->framework, SIZE_COLS, size,
                              VERDICT_COLS, verdict (g));
      wrapped (out, text, width, TEXT_COL, TEXT_COL);
      differs |= g->agrees == 0;
    }
  if (differs)
    wrapped (out, "* not jmem's verdict; what closes the gap:", width, 0, 2);
  for (guint i = 0; i < r->gates->len; i++)
    {
      const JmemGate *g = g_ptr_array_index (r->gates, i);

      if (g->agrees != 0)
        continue;
      g_string_append_printf (out, "  %s:\n", g->framework);
      actions (out, g, width);
    }
  g_string_append (out, "Sources:\n");
  for (guint i = 0; i < r->gates->len; i++)
    {
      const JmemGate *g = g_ptr_array_index (r->gates, i);
      g_autofree char *line = g_strdup_printf ("%s: %s", g->framework, g->source);

      g_string_append (out, "  ");
      wrapped (out, line, width, 2, 4);
    }
}

void
jmem_output_gates_human (const JmemOpsHeadroom *r,
                         GString               *out,
                         guint                  width)
{
  if (r->gates == NULL || r->gates->len == 0)
    return;
  g_string_append_c (out, '\n');
  if (r->gate < JMEM_GATE_N)
    {
      detail (out, g_ptr_array_index (r->gates, 0), r->headroom, width);
      return;
    }
  wrapped (out, "Each framework's gate: the number it checks before it allocates "
           "(~ approximated; jmem headroom --for NAME says more).", width, 0, 2);
  table (out, r, width);
}
