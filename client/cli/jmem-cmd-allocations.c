#include "jmem-cmd.h"

#include "jmem-error.h"
#include "jmem-nvmap-source.h"
#include "jmem-output-table.h"
#include "jmem-pid-namespace.h"
#include "jmem-text.h"

#include <gio/gio.h>
#include <json-glib/json-glib.h>
#include <string.h>
#include <unistd.h>

/* The parser gives valid UTF-8 of any length; the output carries at most
 * JMEM_TEXT_MAX_FIELD_BYTES of it, as a snapshot does. */
static void
add_bounded_string (JsonBuilder *b, const char *name, const char *value)
{
  g_autofree char *capped = jmem_text_cap_field (value);

  json_builder_set_member_name (b, name);
  json_builder_add_string_value (b, capped);
}

/* A string from debugfs or a captured tree, safe for a terminal. */
static char *
shown (const char *value)
{
  g_autofree char *capped = NULL;

  capped = jmem_text_cap_field (value != NULL ? value : "");
  return jmem_text_for_terminal (capped);
}

static void
add_handle (JsonBuilder *b, const JmemNvmapHandle *h)
{
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "base");
  json_builder_add_int_value (b, (gint64) MIN (h->base, (guint64) G_MAXINT64));
  json_builder_set_member_name (b, "size_kib");
  json_builder_add_int_value (b, (gint64) MIN (h->size_kib, (guint64) G_MAXINT64));
#define U32(field) json_builder_set_member_name (b, #field); json_builder_add_int_value (b, h->field)
  U32 (flags); U32 (refs); U32 (dupes); U32 (pins); U32 (kmaps); U32 (umaps); U32 (share);
#undef U32
  json_builder_set_member_name (b, "from_hugetlbfs");
  if (h->from_hugetlbfs < 0)
    json_builder_add_null_value (b);
  else
    json_builder_add_boolean_value (b, h->from_hugetlbfs != 0);
  add_bounded_string (b, "tag", h->tag ? h->tag : "");
  json_builder_end_object (b);
}

typedef struct {
  char   *tag;
  guint64 handles;
  guint64 size_kib;
} OmittedTag;

static void
omitted_tag_free (OmittedTag *t)
{
  g_free (t->tag);
  g_free (t);
}

static int
omitted_tag_cmp (gconstpointer a, gconstpointer b)
{
  const OmittedTag *x = *(OmittedTag * const *) a, *y = *(OmittedTag * const *) b;

  if (x->size_kib != y->size_kib)
    return x->size_kib > y->size_kib ? -1 : 1;
  return g_strcmp0 (x->tag, y->tag);
}

/* The handles past the limit, by tag, largest first: enough for a reader
 * to see which kind of buffer a leak of thousands of handles is made of. */
static void
add_omitted (JsonBuilder *b, GHashTable *by_tag, guint64 handles, guint64 size_kib)
{
  g_autoptr(GPtrArray) tags = g_ptr_array_new ();
  GHashTableIter iter;
  gpointer value;

  g_hash_table_iter_init (&iter, by_tag);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    g_ptr_array_add (tags, value);

  g_ptr_array_sort (tags, omitted_tag_cmp);
  json_builder_set_member_name (b, "omitted");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "handles");
  json_builder_add_int_value (b, (gint64) handles);
  json_builder_set_member_name (b, "size_kib");
  json_builder_add_int_value (b, (gint64) MIN (size_kib, (guint64) G_MAXINT64));
  json_builder_set_member_name (b, "by_tag");
  json_builder_begin_array (b);
  for (guint i = 0; i < tags->len; i++)
    {
      const OmittedTag *t = g_ptr_array_index (tags, i);

      json_builder_begin_object (b);
      add_bounded_string (b, "tag", t->tag);
      json_builder_set_member_name (b, "handles");
      json_builder_add_int_value (b, (gint64) t->handles);
      json_builder_set_member_name (b, "size_kib");
      json_builder_add_int_value (b, (gint64) MIN (t->size_kib, (guint64) G_MAXINT64));
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_end_object (b);
}

JsonNode *
jmem_cmd_allocations_json (const JmemNvmapAllocations *a,
                           const char                 *via,
                           gint64                      pid,
                           gint64                      limit)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autoptr(GHashTable) by_tag = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
                                                        (GDestroyNotify) omitted_tag_free);
  guint64 n_shown = 0, n_omitted = 0, omitted_kib = 0;

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "schema");
  json_builder_add_string_value (b, "jmem-allocations");
  json_builder_set_member_name (b, "schema_version");
  json_builder_add_int_value (b, 1);
  json_builder_set_member_name (b, "via");
  json_builder_add_string_value (b, via);
  json_builder_set_member_name (b, "layout");
  json_builder_add_string_value (b, jmem_nvmap_layout_to_string (a->layout));
  json_builder_set_member_name (b, "total_kib");
  if (a->has_total && pid < 0)
    json_builder_add_int_value (b, (gint64) MIN (a->total_kib, (guint64) G_MAXINT64));
  else
    json_builder_add_null_value (b);
  json_builder_set_member_name (b, "n_malformed");
  json_builder_add_int_value (b, a->n_malformed);
  json_builder_set_member_name (b, "clients");
  json_builder_begin_array (b);
  for (guint i = 0; i < a->clients->len; i++)
    {
      const JmemNvmapClientHandles *ch = g_ptr_array_index (a->clients, i);

      if (pid >= 0 && ch->client->pid != pid)
        continue;
      json_builder_begin_object (b);
      add_bounded_string (b, "client", ch->client->client);
      add_bounded_string (b, "process", ch->client->process);
      json_builder_set_member_name (b, "pid");
      json_builder_add_int_value (b, ch->client->pid);
      json_builder_set_member_name (b, "size_kib");
      json_builder_add_int_value (b, (gint64) MIN (ch->client->size_kib, (guint64) G_MAXINT64));
      json_builder_set_member_name (b, "handles");
      json_builder_begin_array (b);
      for (guint j = 0; j < ch->handles->len; j++)
        {
          const JmemNvmapHandle *h = g_ptr_array_index (ch->handles, j);
          const char *tag = h->tag != NULL ? h->tag : "";
          OmittedTag *t;

          if (limit < 0 || n_shown < (guint64) limit)
            {
              add_handle (b, h);
              n_shown++;
              continue;
            }
          t = g_hash_table_lookup (by_tag, tag);
          if (t == NULL)
            {
              t = g_new0 (OmittedTag, 1);
              t->tag = g_strdup (tag);
              g_hash_table_insert (by_tag, t->tag, t);
            }
          t->handles++;
          t->size_kib += h->size_kib;
          n_omitted++;
          omitted_kib += h->size_kib;
        }
      json_builder_end_array (b);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  if (n_omitted > 0)
    add_omitted (b, by_tag, n_omitted, omitted_kib);
  json_builder_end_object (b);
  return json_builder_get_root (b);
}

JmemNvmapAllocations *
jmem_cmd_read_allocations (const char  *sysroot,
                           gboolean     allow_interactive,
                           const char **via,
                           GError     **error)
{
  JmemNvmapSourceContext sctx = { 0 };
  const JmemNvmapSource *source;
  JmemNvmapAllocations *allocations = NULL;

  sctx.root = sysroot && !g_str_equal (sysroot, "/") && sysroot[0] ? sysroot : NULL;
  sctx.allow_interactive = allow_interactive;
  source = jmem_nvmap_source_choose (&sctx, error);
  if (source != NULL)
    allocations = source->read_allocations (&sctx, error);
  if (allocations != NULL)
    *via = source->via;
  return allocations;
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
  gboolean json = FALSE, no_ask = FALSE;
  gint64 pid = -1;
  int width = JMEM_CMD_WIDTH_UNSET;
  g_autofree char *sysroot = NULL;
  GOptionEntry entries[] = {
    { "pid", 0, 0, G_OPTION_ARG_INT64, &pid, "Only this process", "PID" },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, "Write JSON", NULL },
    { "sysroot", 0, 0, G_OPTION_ARG_FILENAME, &sysroot, "Read a tree written by jmem capture", "DIR" },
    { "width", 0, 0, G_OPTION_ARG_INT, &width, "Fit the table to N columns, at least 60 (default: the terminal's; a pipe gets whole lines)", "N" },
    { "no-ask-password", 0, 0, G_OPTION_ARG_NONE, &no_ask, "Never let polkit ask for a password", NULL },
    { NULL },
  };
  g_autoptr(GOptionContext) context = g_option_context_new ("- NvMap handles per client");
  g_autoptr(JmemNvmapAllocations) allocations = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  const char *via = NULL;

  g_option_context_add_main_entries (context, entries, NULL);
  g_option_context_set_description (context,
    "Reads through jmem-helper, or debugfs directly as root, or a capture.\n"
    "Exit status: 0 ok, 64 usage error, 69 no NvMap data, or no helper, polkit or system bus,\n"
    "77 not authorized.");
  if (!jmem_cmd_parse (context, &argc, &argv, 0, NULL))
    return JMEM_EXIT_USAGE;
  if (pid < -1 || pid > G_MAXUINT32)
    {
      g_printerr ("jmem allocations: --pid takes a process ID\n");
      return JMEM_EXIT_USAGE;
    }
  if (!jmem_cmd_check_width (&width))
    return JMEM_EXIT_USAGE;
  allocations = jmem_cmd_read_allocations (sysroot, !no_ask && isatty (STDIN_FILENO), &via,
                                           &error);
  if (allocations == NULL)
    return jmem_cmd_report_error ("jmem allocations", error, NULL);

  /* NvMap's PIDs, read from a container with a PID namespace of its own */
  if (!jmem_pid_namespace_joinable (allocations->pid_namespace, jmem_pid_namespace_self ()))
    g_printerr ("jmem allocations: the PIDs are host PIDs: jmem runs in another PID namespace%s\n",
                pid >= 0 ? ", so --pid takes a host PID" : "");

  if (json)
    {
      g_autoptr(JsonNode) root = jmem_cmd_allocations_json (allocations, via, pid, -1);

      text = json_to_string (root, TRUE);
    }
  else
    text = to_text (allocations, via, pid, (guint) width);
  if (!jmem_cmd_write_stdout (text, strlen (text)) || (json && !jmem_cmd_write_stdout ("\n", 1)))
    return JMEM_EXIT_CANT_CREATE;
  return JMEM_EXIT_OK;
}
