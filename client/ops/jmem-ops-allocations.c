/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "jmem-ops-allocations.h"

#include "jmem-nvmap-source.h"
#include "jmem-text.h"

/* ---- the source, and the walks over it --------------------------------- */

static void
drop_client (JmemNvmapClient *client, gpointer user_data)
{
  jmem_nvmap_client_free (client);
}

static void
drop_handle (JmemNvmapHandle *handle, gpointer user_data)
{
  jmem_nvmap_handle_free (handle);
}

JmemOpsAllocations *
jmem_ops_allocations (const JmemOpsAllocationsOptions *options,
                      GError                         **error)
{
  static const JmemNvmapAllocationsVisitor drop = { drop_client, drop_handle };
  JmemNvmapSourceContext sctx = { 0 };
  const JmemNvmapSource *source;
  g_autoptr(JmemOpsAllocations) result = g_new0 (JmemOpsAllocations, 1);

  sctx.root = options->sysroot && !g_str_equal (options->sysroot, "/") && options->sysroot[0] ?
              options->sysroot : NULL;
  sctx.allow_interactive = options->allow_interactive;
  source = jmem_nvmap_source_choose (&sctx, error);
  if (source == NULL)
    return NULL;
  result->via = source->via;
  result->reader = source->open_allocations (&sctx, error);
  /* the summary heads every output, before the rows: one walk for it, which
   * also says whether the file is NvMap's at all */
  if (result->reader == NULL ||
      !jmem_nvmap_allocations_reader_walk (result->reader, &drop, NULL, &result->summary, error))
    return NULL;
  return g_steal_pointer (&result);
}

void
jmem_ops_allocations_free (JmemOpsAllocations *allocations)
{
  if (allocations == NULL)
    return;
  jmem_nvmap_allocations_reader_free (allocations->reader);
  g_free (allocations);
}

gboolean
jmem_ops_allocations_walk (const JmemOpsAllocations          *allocations,
                           const JmemNvmapAllocationsVisitor *visitor,
                           gpointer                           user_data,
                           GError                           **error)
{
  JmemNvmapAllocations again = { 0 };

  return jmem_nvmap_allocations_reader_walk (allocations->reader, visitor, user_data, &again,
                                             error);
}

JmemNvmapAllocations *
jmem_ops_allocations_parse (const JmemOpsAllocations *allocations,
                            GError                  **error)
{
  return jmem_nvmap_allocations_reader_parse (allocations->reader, error);
}

/* ---- the document ------------------------------------------------------ */

/* The parser gives valid UTF-8 of any length; the output carries at most
 * JMEM_TEXT_MAX_FIELD_BYTES of it, as a snapshot does. */
static void
add_bounded_string (JmemJsonWriter *w, const char *name, const char *value)
{
  g_autofree char *capped = jmem_text_cap_field (value);

  jmem_json_writer_set_member_name (w, name);
  jmem_json_writer_add_string_value (w, capped);
}

static void
add_size (JmemJsonWriter *w, const char *name, guint64 kib)
{
  jmem_json_writer_set_member_name (w, name);
  jmem_json_writer_add_int_value (w, (gint64) MIN (kib, (guint64) G_MAXINT64));
}

void
jmem_ops_allocations_add_handle (JmemJsonWriter        *w,
                                 const JmemNvmapHandle *h)
{
  jmem_json_writer_begin_object (w);
  add_size (w, "base", h->base);
  add_size (w, "size_kib", h->size_kib);
#define U32(field) jmem_json_writer_set_member_name (w, #field); jmem_json_writer_add_int_value (w, h->field)
  U32 (flags); U32 (refs); U32 (dupes); U32 (pins); U32 (kmaps); U32 (umaps); U32 (share);
#undef U32
  jmem_json_writer_set_member_name (w, "from_hugetlbfs");
  if (h->from_hugetlbfs < 0)
    jmem_json_writer_add_null_value (w);
  else
    jmem_json_writer_add_boolean_value (w, h->from_hugetlbfs != 0);
  add_bounded_string (w, "tag", h->tag ? h->tag : "");
  jmem_json_writer_end_object (w);
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

/* The rows as the document is written from them. */
typedef struct {
  JmemJsonWriter *w;
  gint64          pid;
  gint64          limit;
  gboolean        shown;        /* the current client is the one asked for */
  gboolean        client_open;  /* its handles array is open */
  guint64         n_shown;
  guint64         n_omitted;
  guint64         omitted_kib;
  GHashTable     *by_tag;       /* tag -> OmittedTag */
} Document;

static void
close_client (Document *d)
{
  if (!d->client_open)
    return;
  jmem_json_writer_end_array (d->w);
  jmem_json_writer_end_object (d->w);
  d->client_open = FALSE;
}

static void
document_client (JmemNvmapClient *client, gpointer user_data)
{
  Document *d = user_data;

  close_client (d);
  d->shown = d->pid < 0 || client->pid == d->pid;
  if (d->shown)
    {
      jmem_json_writer_begin_object (d->w);
      add_bounded_string (d->w, "client", client->client);
      add_bounded_string (d->w, "process", client->process);
      jmem_json_writer_set_member_name (d->w, "pid");
      jmem_json_writer_add_int_value (d->w, client->pid);
      add_size (d->w, "size_kib", client->size_kib);
      jmem_json_writer_set_member_name (d->w, "handles");
      jmem_json_writer_begin_array (d->w);
      d->client_open = TRUE;
    }
  jmem_nvmap_client_free (client);
}

/* A handle past the limit, summed up with the others of its tag. */
static void
omit (Document *d, const JmemNvmapHandle *h)
{
  const char *tag = h->tag != NULL ? h->tag : "";
  OmittedTag *t = g_hash_table_lookup (d->by_tag, tag);

  if (t == NULL)
    {
      t = g_new0 (OmittedTag, 1);
      t->tag = g_strdup (tag);
      g_hash_table_insert (d->by_tag, t->tag, t);
    }
  t->handles++;
  t->size_kib += h->size_kib;
  d->n_omitted++;
  d->omitted_kib += h->size_kib;
}

static void
document_handle (JmemNvmapHandle *h, gpointer user_data)
{
  Document *d = user_data;

  if (d->shown && (d->limit < 0 || d->n_shown < (guint64) d->limit))
    {
      jmem_ops_allocations_add_handle (d->w, h);
      d->n_shown++;
    }
  else if (d->shown)
    omit (d, h);
  jmem_nvmap_handle_free (h);
}

/* The handles past the limit, by tag, largest first: enough for a reader
 * to see which kind of buffer a leak of thousands of handles is made of. */
static void
add_omitted (const Document *d)
{
  g_autoptr(GPtrArray) tags = g_ptr_array_new ();
  GHashTableIter iter;
  gpointer value;

  g_hash_table_iter_init (&iter, d->by_tag);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    g_ptr_array_add (tags, value);

  g_ptr_array_sort (tags, omitted_tag_cmp);
  jmem_json_writer_set_member_name (d->w, "omitted");
  jmem_json_writer_begin_object (d->w);
  jmem_json_writer_set_member_name (d->w, "handles");
  jmem_json_writer_add_int_value (d->w, (gint64) d->n_omitted);
  add_size (d->w, "size_kib", d->omitted_kib);
  jmem_json_writer_set_member_name (d->w, "by_tag");
  jmem_json_writer_begin_array (d->w);
  for (guint i = 0; i < tags->len; i++)
    {
      const OmittedTag *t = g_ptr_array_index (tags, i);

      jmem_json_writer_begin_object (d->w);
      add_bounded_string (d->w, "tag", t->tag);
      jmem_json_writer_set_member_name (d->w, "handles");
      jmem_json_writer_add_int_value (d->w, (gint64) t->handles);
      add_size (d->w, "size_kib", t->size_kib);
      jmem_json_writer_end_object (d->w);
    }
  jmem_json_writer_end_array (d->w);
  jmem_json_writer_end_object (d->w);
}

void
jmem_ops_allocations_begin_json (JmemJsonWriter           *w,
                                 const JmemOpsAllocations *allocations,
                                 gint64                    pid)
{
  const JmemNvmapAllocations *a = &allocations->summary;

  jmem_json_writer_begin_object (w);
  jmem_json_writer_set_member_name (w, "schema");
  jmem_json_writer_add_string_value (w, "jmem-allocations");
  jmem_json_writer_set_member_name (w, "schema_version");
  jmem_json_writer_add_int_value (w, 1);
  jmem_json_writer_set_member_name (w, "via");
  jmem_json_writer_add_string_value (w, allocations->via);
  jmem_json_writer_set_member_name (w, "layout");
  jmem_json_writer_add_string_value (w, jmem_nvmap_layout_to_string (a->layout));
  if (a->has_total && pid < 0)
    add_size (w, "total_kib", a->total_kib);
  else
    {
      jmem_json_writer_set_member_name (w, "total_kib");
      jmem_json_writer_add_null_value (w);
    }
  jmem_json_writer_set_member_name (w, "n_malformed");
  jmem_json_writer_add_int_value (w, a->n_malformed);
}

gboolean
jmem_ops_allocations_write_json (const JmemOpsAllocations *allocations,
                                 gint64                    pid,
                                 gint64                    limit,
                                 JmemJsonWriter           *w,
                                 GError                  **error)
{
  static const JmemNvmapAllocationsVisitor rows = { document_client, document_handle };
  g_autoptr(GHashTable) by_tag = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
                                                        (GDestroyNotify) omitted_tag_free);
  Document d = { .w = w, .pid = pid, .limit = limit, .by_tag = by_tag };

  jmem_ops_allocations_begin_json (w, allocations, pid);
  jmem_json_writer_set_member_name (w, "clients");
  jmem_json_writer_begin_array (w);
  if (!jmem_ops_allocations_walk (allocations, &rows, &d, error))
    return FALSE;
  close_client (&d);
  jmem_json_writer_end_array (w);
  if (d.n_omitted > 0)
    add_omitted (&d);
  jmem_json_writer_end_object (w);
  return TRUE;
}

JsonNode *
jmem_ops_allocations_json (const JmemOpsAllocations *allocations,
                           gint64                    pid,
                           gint64                    limit,
                           GError                  **error)
{
  g_autoptr(JmemJsonWriter) w = jmem_json_writer_new (FALSE);

  if (!jmem_ops_allocations_write_json (allocations, pid, limit, w, error))
    return NULL;
  return jmem_json_writer_free_to_node (g_steal_pointer (&w));
}
