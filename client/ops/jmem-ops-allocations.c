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

void
jmem_ops_allocations_add_handle (JsonBuilder           *b,
                                 const JmemNvmapHandle *h)
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

void
jmem_ops_allocations_begin_json (JsonBuilder              *b,
                                 const JmemOpsAllocations *result,
                                 gint64                    pid)
{
  const JmemNvmapAllocations *a = result->allocations;

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
}

JsonNode *
jmem_ops_allocations_json (const JmemOpsAllocations *result,
                           gint64                    pid)
{
  const JmemNvmapAllocations *a = result->allocations;
  g_autoptr(JsonBuilder) b = json_builder_new ();

  jmem_ops_allocations_begin_json (b, result, pid);
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
        jmem_ops_allocations_add_handle (b, g_ptr_array_index (ch->handles, j));
      json_builder_end_array (b);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
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
