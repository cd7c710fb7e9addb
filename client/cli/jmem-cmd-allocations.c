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
#define PID_UNSET G_MININT64

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

static gboolean
client_shown (const JmemNvmapClientHandles *ch,
              gint64                        pid)
{
  return pid < 0 || ch->client->pid == pid;
}

static void
layout_init (Layout                     *k,
             const JmemNvmapAllocations *a,
             gint64                      pid,
             guint                       width)
{
  guint numbers = 2, tag_floor;

  k->width = width;
  k->tag = 3;   /* "TAG" */
  for (guint c = 0; c < N_COLS; c++)
    {
      k->cols[c] = (guint) strlen (col_heads[c]);
      k->shown[c] = c != COL_HUGETLBFS;
    }
  for (guint i = 0; i < a->clients->len; i++)
    {
      const JmemNvmapClientHandles *ch = g_ptr_array_index (a->clients, i);

      for (guint j = 0; client_shown (ch, pid) && j < ch->handles->len; j++)
        {
          const JmemNvmapHandle *h = g_ptr_array_index (ch->handles, j);
          char *cells[N_COLS] = { NULL };
          g_autofree char *tag = shown (h->tag);

          handle_cells (h, cells);
          for (guint c = 0; c < N_COLS; c++)
            k->cols[c] = jmem_table_widest (k->cols[c], cells[c]);
          k->shown[COL_HUGETLBFS] |= h->from_hugetlbfs >= 0;
          k->tag = jmem_table_widest (k->tag, tag);
          cells_clear (cells);
        }
    }
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

static void
append_client (GString                      *out,
               const Layout                 *k,
               const JmemNvmapClientHandles *ch)
{
  g_autofree char *name = shown (ch->client->process);
  g_autofree char *pid = g_strdup_printf ("PID %u", ch->client->pid);
  g_autofree char *client = shown (ch->client->client);
  g_autofree char *size = jmem_text_size (ch->client->size_kib > G_MAXINT64 ? G_MAXINT64
                                          : (gint64) ch->client->size_kib);
  g_autofree char *count = g_strdup_printf ("%u %s", ch->handles->len,
                                            jmem_text_plural (ch->handles->len, "handle", "handles"));
  const char *pieces[] = { name, pid, client, size, count, NULL };

  g_string_append_c (out, '\n');
  jmem_table_append_pieces (out, pieces, "  ", k->width, 0, JMEM_TABLE_INDENT);
  if (ch->handles->len > 0)
    append_row (out, k, col_heads, "TAG");
  for (guint j = 0; j < ch->handles->len; j++)
    {
      const JmemNvmapHandle *h = g_ptr_array_index (ch->handles, j);
      char *cells[N_COLS] = { NULL };
      g_autofree char *tag = shown (h->tag);

      handle_cells (h, cells);
      append_row (out, k, (const char * const *) cells, tag);
      cells_clear (cells);
    }
}

static char *
to_text (const JmemNvmapAllocations *a, const char *via, gint64 pid, guint width)
{
  GString *out = g_string_new (NULL);
  Layout k = { 0 };

  layout_init (&k, a, pid, width);
  g_string_append_printf (out, "NvMap allocations (via %s)\n", via);
  for (guint i = 0; i < a->clients->len; i++)
    {
      const JmemNvmapClientHandles *ch = g_ptr_array_index (a->clients, i);

      if (client_shown (ch, pid))
        append_client (out, &k, ch);
    }
  if (a->has_total && pid < 0)
    {
      g_autofree char *total = jmem_text_size (a->total_kib > G_MAXINT64 ? G_MAXINT64
                                               : (gint64) a->total_kib);

      g_string_append_printf (out, "\ntotal %s\n", total);
    }
  return g_string_free (out, FALSE);
}

int
jmem_cmd_allocations (int argc, char **argv)
{
  gint64 pid = PID_UNSET;
  GOptionEntry entries[] = {
    { "pid", 0, 0, G_OPTION_ARG_INT64, &pid, "Only this process (0: the kernel's handles)", "PID" },
    { NULL },
  };
  const JmemViewHelp help = {
    .width = "Fit the table to N columns, at least 60 (default: the terminal's; a pipe gets whole lines)",
  };
  g_autoptr(GOptionContext) context = g_option_context_new ("- NvMap handles per client");
  g_auto(JmemView) view = { 0 };
  g_autoptr(JmemOpsAllocations) read = NULL;
  JmemOpsAllocationsOptions options = { 0 };
  const JmemNvmapAllocations *allocations;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;

  g_option_context_add_main_entries (context, entries, NULL);
  jmem_view_init (&view, context, JMEM_VIEW_JSON | JMEM_VIEW_WIDTH | JMEM_VIEW_SYSROOT |
                  JMEM_VIEW_NO_ASK, 0, &help);
  g_option_context_set_description (context,
    "Reads through jmem-helper, or debugfs directly as root, or a capture.\n"
    "Exit status: 0 ok, 64 usage error, 69 no NvMap data, or no helper, polkit or system bus,\n"
    "77 not authorized.");
  if (!jmem_cmd_parse (context, &argc, &argv, 0, NULL) || !jmem_view_check (&view))
    return JMEM_EXIT_USAGE;
  if (pid != PID_UNSET && (pid < 0 || pid > G_MAXUINT32))
    {
      g_printerr ("jmem allocations: --pid takes a process ID, 0 to %u, not %" G_GINT64_FORMAT "\n"
                  "Try \"jmem allocations --help\".\n", G_MAXUINT32, pid);
      return JMEM_EXIT_USAGE;
    }
  /* from here on, < 0 is every process */
  pid = pid == PID_UNSET ? -1 : pid;
  options.sysroot = view.sysroot;
  options.allow_interactive = view.allow_interactive;
  read = jmem_ops_allocations (&options, &error);
  if (read == NULL)
    return jmem_cmd_report_error ("jmem allocations", error, NULL);
  allocations = read->allocations;

  /* NvMap's PIDs, read from a container with a PID namespace of its own */
  if (!jmem_pid_namespace_joinable (allocations->pid_namespace, jmem_pid_namespace_self ()))
    g_printerr ("jmem allocations: the PIDs are host PIDs: jmem runs in another PID namespace%s\n",
                pid >= 0 ? ", so --pid takes a host PID" : "");

  if (view.json)
    {
      g_autoptr(JsonNode) root = jmem_ops_allocations_json (read, pid);

      text = json_to_string (root, TRUE);
    }
  else
    text = to_text (allocations, read->via, pid, (guint) view.width);
  if (!jmem_cmd_write_stdout (text, strlen (text)) || (view.json && !jmem_cmd_write_stdout ("\n", 1)))
    return JMEM_EXIT_CANT_CREATE;
  return JMEM_EXIT_OK;
}
