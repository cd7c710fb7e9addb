/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "jmem-cmd.h"
#include "jmem-cmd-view.h"

#include "jmem-ops-allocations.h"
#include "jmem-output-table.h"
#include "jmem-pid-namespace.h"
#include "jmem-text.h"

#include <gio/gio.h>
#include <json-glib/json-glib.h>
#include <string.h>

/* --pid before parsing: the option was not given. */

/* A string from debugfs or a captured tree, safe for a terminal. */
static char *
shown (const char *value)
{
  g_autofree char *capped = NULL;

  capped = jmem_text_cap_field (value != NULL ? value : "");
  return jmem_text_for_terminal (capped);
}

/* The handle table's number columns; HUGETLBFS only where the kernel says. */
enum { COL_BASE, COL_SIZE, COL_FLAGS, COL_REFS, COL_DUPES, COL_PINS, COL_KMAPS, COL_UMAPS,
       COL_SHARE, COL_HUGETLBFS, N_COLS };

static const char * const col_heads[N_COLS] = {
  "BASE", "SIZE", "FLAGS", "REFS", "DUPES", "PINS", "KMAPS", "UMAPS", "SHARE", "HUGETLBFS",
};

/* The columns, as wide as their widest cell over every shown client, and
 * where the table is cut: by the rules of jmem-output-table.h, TAG being the
 * last text. */
typedef struct {
  guint    width;            /* 0: nothing cut */
  guint    cols[N_COLS];
  gboolean shown[N_COLS];
  gboolean wrap_before[N_COLS];  /* numbers wider than the line go on */
  guint    tag;
  gboolean two_lines;
} Layout;

static void
handle_cells (const JmemNvmapHandle *h,
              char                  *cells[N_COLS])
{
  cells[COL_BASE] = g_strdup_printf ("%" G_GINT64_MODIFIER "x", h->base);
  cells[COL_SIZE] = jmem_text_size (h->size_kib > G_MAXINT64 ? G_MAXINT64 : (gint64) h->size_kib);
  cells[COL_FLAGS] = g_strdup_printf ("%x", h->flags);
  cells[COL_REFS] = g_strdup_printf ("%u", h->refs);
  cells[COL_DUPES] = g_strdup_printf ("%u", h->dupes);
  cells[COL_PINS] = g_strdup_printf ("%u", h->pins);
  cells[COL_KMAPS] = g_strdup_printf ("%u", h->kmaps);
  cells[COL_UMAPS] = g_strdup_printf ("%u", h->umaps);
  cells[COL_SHARE] = g_strdup_printf ("%u", h->share);
  cells[COL_HUGETLBFS] = g_strdup (h->from_hugetlbfs < 0 ? "-" : h->from_hugetlbfs ? "yes" : "no");
}

static void
cells_clear (char *cells[N_COLS])
{
  for (guint c = 0; c < N_COLS; c++)
    g_clear_pointer (&cells[c], g_free);
}

/* The table is as wide as its widest cell, and each client's line says
 * how many handles follow it: both known only once every row was read. A
 * first walk measures, a second prints (the rows are not kept). */
typedef struct {
  Layout  *k;
  gint64   pid;
  gboolean shown;      /* the current client is the one asked for */
  GArray  *n_handles;  /* guint, each shown client's, in order */
} Measure;

static void
measure_client (JmemNvmapClient *client, gpointer user_data)
{
  Measure *m = user_data;
  guint none = 0;

  m->shown = m->pid < 0 || client->pid == m->pid;
  if (m->shown)
    g_array_append_val (m->n_handles, none);
  jmem_nvmap_client_free (client);
}

static void
measure_handle (JmemNvmapHandle *h, gpointer user_data)
{
  Measure *m = user_data;
  char *cells[N_COLS] = { NULL };
  g_autofree char *tag = NULL;

  if (m->shown)
    {
      tag = shown (h->tag);
      handle_cells (h, cells);
      for (guint c = 0; c < N_COLS; c++)
        m->k->cols[c] = jmem_table_widest (m->k->cols[c], cells[c]);
      m->k->shown[COL_HUGETLBFS] |= h->from_hugetlbfs >= 0;
      m->k->tag = jmem_table_widest (m->k->tag, tag);
      cells_clear (cells);
      g_array_index (m->n_handles, guint, m->n_handles->len - 1)++;
    }
  jmem_nvmap_handle_free (h);
}

/* Measures the shown rows into @k and each shown client's handles into
 * @n_handles. */
static gboolean
layout_init (Layout                   *k,
             GArray                   *n_handles,
             const JmemOpsAllocations *read,
             gint64                    pid,
             guint                     width,
             GError                  **error)
{
  static const JmemNvmapAllocationsVisitor visitor = { measure_client, measure_handle };
  Measure m = { k, pid, FALSE, n_handles };
  guint numbers = 2, tag_floor;

  k->width = width;
  k->tag = 3;   /* "TAG" */
  for (guint c = 0; c < N_COLS; c++)
    {
      k->cols[c] = (guint) strlen (col_heads[c]);
      k->shown[c] = c != COL_HUGETLBFS;
    }
  if (!jmem_ops_allocations_walk (read, &visitor, &m, error))
    return FALSE;
  for (guint c = 0; c < N_COLS; c++)
    numbers += k->shown[c] ? k->cols[c] + 1 : 0;
  /* TAG keeps the floor, or all it needs when that is less */
  tag_floor = MIN (k->tag, JMEM_TABLE_MIN_LAST);
  k->two_lines = jmem_table_two_lines (width, numbers, 1 + tag_floor);
  if (width == 0)
    k->tag = G_MAXUINT;
  else if (!k->two_lines)
    k->tag = width - numbers - 1;
  else
    {
      guint col = 2;

      /* the numbers alone wider than the line (forged values): go on at the indent */
      for (guint c = 0; c < N_COLS; c++)
        {
          if (!k->shown[c])
            continue;
          k->wrap_before[c] = col > JMEM_TABLE_INDENT && col + k->cols[c] > width;
          if (k->wrap_before[c])
            col = JMEM_TABLE_INDENT;
          col += k->cols[c] + 1;
        }
      k->tag = width - JMEM_TABLE_INDENT;
    }
  return TRUE;
}

/* One row of the handle table (@cells: the number columns, @tag escaped). */
static void
append_row (GString      *out,
            const Layout *k,
            const char   * const cells[N_COLS],
            const char   *tag)
{
  g_string_append (out, "  ");
  for (guint c = 0; c < N_COLS; c++)
    {
      if (!k->shown[c])
        continue;
      if (k->wrap_before[c])
        {
          jmem_table_end_line (out);
          g_string_append_printf (out, "%*s", JMEM_TABLE_INDENT, "");
        }
      jmem_table_append_right (out, cells[c], k->cols[c]);
    }
  if (k->two_lines)
    {
      /* a handle without a tag takes no second line */
      if (tag[0] == '\0')
        {
          jmem_table_end_line (out);
          return;
        }
      jmem_table_end_line (out);
      g_string_append_printf (out, "%*s", JMEM_TABLE_INDENT, "");
    }
  else
    g_string_append_c (out, ' ');
  if (k->tag == G_MAXUINT)
    g_string_append (out, tag);
  else
    jmem_table_append_cell (out, tag, k->tag);
  jmem_table_end_line (out);
}

/* Standard output, in pieces of about 64 KiB: the table of 240,000
 * handles is 17 MB. After a failed write nothing more is written. */
#define OUTPUT_PIECE (64 * 1024)

typedef struct {
  GString *text;
  gboolean failed;
} Output;

static gboolean
output_write (const char *text, gsize len, gpointer user_data)
{
  Output *o = user_data;

  if (!o->failed && !jmem_cmd_write_stdout (text, len))
    o->failed = TRUE;
  return !o->failed;
}

static void
output_flush (Output *o)
{
  (void) output_write (o->text->str, o->text->len, o);
  g_string_truncate (o->text, 0);
}

typedef struct {
  Output       *out;
  const Layout *k;
  gint64        pid;
  gboolean      shown;      /* the current client is the one asked for */
  const GArray *n_handles;  /* from layout_init() */
  guint         n_clients;  /* shown so far */
} Table;

static void
table_client (JmemNvmapClient *client, gpointer user_data)
{
  Table *t = user_data;
  GString *out = t->out->text;

  t->shown = t->pid < 0 || client->pid == t->pid;
  /* every walk gives the same rows (jmem-nvmap-reader.h): the bound only
   * keeps a mistake from reading past the counts */
  if (t->shown && t->n_clients < t->n_handles->len)
    {
      guint n = g_array_index (t->n_handles, guint, t->n_clients++);
      g_autofree char *name = shown (client->process);
      g_autofree char *pid = g_strdup_printf ("PID %u", client->pid);
      g_autofree char *owner = shown (client->client);
      g_autofree char *size = jmem_text_size (client->size_kib > G_MAXINT64 ? G_MAXINT64
                                              : (gint64) client->size_kib);
      g_autofree char *count = g_strdup_printf ("%u %s", n,
                                                jmem_text_plural (n, "handle", "handles"));
      const char *pieces[] = { name, pid, owner, size, count, NULL };

      g_string_append_c (out, '\n');
      jmem_table_append_pieces (out, pieces, "  ", t->k->width, 0, JMEM_TABLE_INDENT);
      if (n > 0)
        append_row (out, t->k, col_heads, "TAG");
    }
  jmem_nvmap_client_free (client);
}

static void
table_handle (JmemNvmapHandle *h, gpointer user_data)
{
  Table *t = user_data;

  if (t->shown)
    {
      char *cells[N_COLS] = { NULL };
      g_autofree char *tag = shown (h->tag);

      handle_cells (h, cells);
      append_row (t->out->text, t->k, (const char * const *) cells, tag);
      cells_clear (cells);
      if (t->out->text->len >= OUTPUT_PIECE)
        output_flush (t->out);
    }
  jmem_nvmap_handle_free (h);
}

/* The table, written to standard output as it is made. */
static gboolean
write_text (const JmemOpsAllocations *read, gint64 pid, guint width, Output *out,
            GError **error)
{
  static const JmemNvmapAllocationsVisitor visitor = { table_client, table_handle };
  const JmemNvmapAllocations *a = &read->summary;
  g_autoptr(GArray) n_handles = g_array_new (FALSE, FALSE, sizeof (guint));
  Layout k = { 0 };
  Table t = { out, &k, pid, FALSE, n_handles, 0 };

  if (!layout_init (&k, n_handles, read, pid, width, error))
    return FALSE;
  g_string_append_printf (out->text, "NvMap allocations (via %s)\n", read->via);
  if (!jmem_ops_allocations_walk (read, &visitor, &t, error))
    return FALSE;
  /* found nothing is an answer, not a failure: exit 0 (jmem(1)) */
  if (pid >= 0 && t.n_clients == 0)
    {
      g_autofree char *none = g_strdup_printf ("No NvMap client has PID %" G_GINT64_FORMAT ": %s "
                                               "holds no NvMap handle here (jmem allocations "
                                               "lists every client).", pid,
                                               pid == 0 ? "the kernel" : "that process");

      g_string_append_c (out->text, '\n');
      jmem_table_append_wrapped (out->text, none, k.width, 0, JMEM_TABLE_INDENT);
      g_string_append_c (out->text, '\n');
    }
  if (a->has_total && pid < 0)
    {
      g_autofree char *total = jmem_text_size (a->total_kib > G_MAXINT64 ? G_MAXINT64
                                               : (gint64) a->total_kib);

      g_string_append_printf (out->text, "\ntotal %s\n", total);
    }
  output_flush (out);
  return TRUE;
}

int
jmem_cmd_allocations (int argc, char **argv)
{
  gint64 pid = -1;
  JmemCmdNumber pid_number = JMEM_CMD_PID (JMEM_CMD_NUMBER_INT64, &pid);
  GOptionEntry entries[] = {
    jmem_cmd_number_entry (&pid_number, "Only this process (0: the kernel's handles)", "PID"),
    { NULL },
  };
  const JmemViewHelp help = {
    .width = "Fit the table to N columns, at least 60 (default: the terminal's; a pipe gets whole lines)",
  };
  g_autoptr(GOptionContext) context = g_option_context_new ("- NvMap handles per client");
  g_auto(JmemView) view = { 0 };
  g_autoptr(JmemOpsAllocations) read = NULL;
  JmemOpsAllocationsOptions options = { 0 };
  g_autoptr(GString) text = g_string_sized_new (OUTPUT_PIECE + 4096);
  Output out = { text, FALSE };
  g_autoptr(GError) error = NULL;
  gboolean written;

  g_option_context_add_main_entries (context, entries, NULL);
  jmem_view_init (&view, context, JMEM_VIEW_JSON | JMEM_VIEW_WIDTH | JMEM_VIEW_SYSROOT |
                  JMEM_VIEW_NO_ASK, 0, &help);
  g_option_context_set_description (context,
    "Reads through jmem-helper, or debugfs directly as root, or a capture.\n"
    "With --pid, a process that holds no NvMap handle gets a line that says so\n"
    "(in --json: no client), and exit status 0.\n"
    "Exit status: 0 ok, 64 usage error, 69 no NvMap data, or no helper, polkit or system bus,\n"
    "77 not authorized.");
  if (!jmem_cmd_parse (context, &argc, &argv, 0, NULL) || !jmem_view_check (&view))
    return view.status;
  /* < 0 (not given): every process */
  options.sysroot = view.sysroot;
  options.allow_interactive = view.allow_interactive;
  read = jmem_ops_allocations (&options, &error);
  if (read == NULL)
    return jmem_cmd_report_error ("jmem allocations", error, NULL);

  /* NvMap's PIDs, read from a container with a PID namespace of its own */
  if (!jmem_pid_namespace_joinable (read->summary.pid_namespace, jmem_pid_namespace_self ()))
    g_printerr ("jmem allocations: the PIDs are host PIDs: jmem runs in another PID namespace%s\n",
                pid >= 0 ? ", so --pid takes a host PID" : "");

  if (view.json)
    {
      g_autoptr(JmemJsonWriter) writer = jmem_json_writer_new_to_sink (TRUE, output_write, &out);

      written = jmem_ops_allocations_write_json (read, pid, -1, writer, &error) &&
                jmem_json_writer_finish (writer) && output_write ("\n", 1, &out);
    }
  else
    written = write_text (read, pid, (guint) view.width, &out, &error);
  if (error != NULL)
    return jmem_cmd_report_error ("jmem allocations", error, NULL);
  return written && !out.failed ? JMEM_EXIT_OK : JMEM_EXIT_CANT_CREATE;
}
