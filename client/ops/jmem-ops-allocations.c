#include "jmem-ops-allocations.h"

#include "jmem-nvmap-source.h"
#include "jmem-text.h"

/* The parser gives valid UTF-8 of any length; the output carries at most
 * JMEM_TEXT_MAX_FIELD_BYTES of it, as a snapshot does. */
static void
add_bounded_string (JsonBuilder *b, const char *name, const char *value)
{
  g_autofree char *capped = jmem_text_cap_field (value);

  json_builder_set_member_name (b, name);
  json_builder_add_string_value (b, capped);
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
jmem_ops_allocations_json (const JmemOpsAllocations *result,
                           gint64                    pid,
                           gint64                    limit)
{
  const JmemNvmapAllocations *a = result->allocations;
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
  json_builder_add_string_value (b, result->via);
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

JmemOpsAllocations *
jmem_ops_allocations (const JmemOpsAllocationsOptions *options,
                      GError                         **error)
{
  JmemNvmapSourceContext sctx = { 0 };
  const JmemNvmapSource *source;
  JmemNvmapAllocations *allocations = NULL;
  JmemOpsAllocations *result;

  sctx.root = options->sysroot && !g_str_equal (options->sysroot, "/") && options->sysroot[0] ?
              options->sysroot : NULL;
  sctx.allow_interactive = options->allow_interactive;
  source = jmem_nvmap_source_choose (&sctx, error);
  if (source != NULL)
    allocations = source->read_allocations (&sctx, error);
  if (allocations == NULL)
    return NULL;
  result = g_new0 (JmemOpsAllocations, 1);
  result->allocations = allocations;
  result->via = source->via;
  return result;
}

void
jmem_ops_allocations_free (JmemOpsAllocations *allocations)
{
  if (allocations == NULL)
    return;
  jmem_nvmap_allocations_free (allocations->allocations);
  g_free (allocations);
}
