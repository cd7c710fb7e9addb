#include "jmem-helper-wire.h"

#include "jmem-error.h"
#include "jmem-glib-compat.h"
#include "jmem-text.h"

/* g_variant_new_string() refuses invalid UTF-8; the parsers promise valid
 * text, but a broken promise must not crash the root helper. */
static GVariant *
wire_string (const char *s)
{
  if (s == NULL)
    return g_variant_new_string ("");
  if (g_utf8_validate (s, -1, NULL))
    return g_variant_new_string (s);
  return g_variant_new_take_string (jmem_text_make_valid (s, -1));
}

static JmemNvmapLayout
layout_from_string (const char *s)
{
  for (int l = JMEM_NVMAP_LAYOUT_UNKNOWN; l <= JMEM_NVMAP_LAYOUT_LOOSE; l++)
    if (g_strcmp0 (s, jmem_nvmap_layout_to_string ((JmemNvmapLayout) l)) == 0)
      return (JmemNvmapLayout) l;
  return JMEM_NVMAP_LAYOUT_UNKNOWN;
}

static void
add_common_info (GVariantBuilder *info,
                 guint            n_malformed,
                 JmemNvmapLayout  layout,
                 gboolean         has_total)
{
  g_variant_builder_add (info, "{sv}", "malformed_lines", g_variant_new_uint32 (n_malformed));
  g_variant_builder_add (info, "{sv}", "layout",
                         g_variant_new_string (jmem_nvmap_layout_to_string (layout)));
  g_variant_builder_add (info, "{sv}", "has_total", g_variant_new_boolean (has_total));
}

static GVariant *
client_row (const JmemNvmapClient *c)
{
  return g_variant_new ("(@s@sut)", wire_string (c->client), wire_string (c->process),
                        c->pid, c->size_kib);
}

GVariant *
jmem_wire_clients_to_variant (const JmemNvmapClients *clients,
                              gint64                  stats_total_bytes)
{
  GVariantBuilder rows, info;

  g_return_val_if_fail (clients != NULL, NULL);

  g_variant_builder_init (&rows, G_VARIANT_TYPE ("a(ssut)"));
  for (guint i = 0; clients->clients != NULL && i < clients->clients->len; i++)
    g_variant_builder_add_value (&rows, client_row (g_ptr_array_index (clients->clients, i)));

  g_variant_builder_init (&info, G_VARIANT_TYPE_VARDICT);
  add_common_info (&info, clients->n_malformed, clients->layout, clients->has_total);
  if (stats_total_bytes >= 0)
    g_variant_builder_add (&info, "{sv}", "stats_total_bytes",
                           g_variant_new_uint64 ((guint64) stats_total_bytes));

  return g_variant_new ("(@a(ssut)t@a{sv})", g_variant_builder_end (&rows),
                        clients->has_total ? clients->total_kib : 0,
                        g_variant_builder_end (&info));
}

GVariant *
jmem_wire_allocations_to_variant (const JmemNvmapAllocations *allocations)
{
  GVariantBuilder rows, info;

  g_return_val_if_fail (allocations != NULL, NULL);

  g_variant_builder_init (&rows, G_VARIANT_TYPE ("a(ssuta(ttuuuuuuuis))"));
  for (guint i = 0; allocations->clients != NULL && i < allocations->clients->len; i++)
    {
      const JmemNvmapClientHandles *ch = g_ptr_array_index (allocations->clients, i);
      GVariantBuilder handles;

      g_variant_builder_init (&handles, G_VARIANT_TYPE ("a(ttuuuuuuuis)"));
      for (guint j = 0; ch->handles != NULL && j < ch->handles->len; j++)
        {
          const JmemNvmapHandle *h = g_ptr_array_index (ch->handles, j);
          g_variant_builder_add (&handles, "(ttuuuuuuui@s)",
                                 h->base, h->size_kib, h->flags, h->refs, h->dupes,
                                 h->pins, h->kmaps, h->umaps, h->share,
                                 h->from_hugetlbfs, wire_string (h->tag));
        }
      g_variant_builder_add (&rows, "(@s@sut@a(ttuuuuuuuis))",
                             wire_string (ch->client->client), wire_string (ch->client->process),
                             ch->client->pid, ch->client->size_kib,
                             g_variant_builder_end (&handles));
    }

  g_variant_builder_init (&info, G_VARIANT_TYPE_VARDICT);
  add_common_info (&info, allocations->n_malformed, allocations->layout, allocations->has_total);
  g_variant_builder_add (&info, "{sv}", "has_hugetlbfs_column",
                         g_variant_new_boolean (allocations->has_hugetlbfs_column));

  return g_variant_new ("(@a(ssuta(ttuuuuuuuis))t@a{sv})", g_variant_builder_end (&rows),
                        allocations->has_total ? allocations->total_kib : 0,
                        g_variant_builder_end (&info));
}

static gboolean
check_type (GVariant    *reply,
            const char  *type,
            GError     **error)
{
  if (reply != NULL && g_variant_is_of_type (reply, G_VARIANT_TYPE (type)))
    return TRUE;
  g_set_error (error, JMEM_ERROR, JMEM_ERROR_FAILED,
               "jmem-helper answered with type %s, expected %s: client and helper versions differ",
               reply != NULL ? g_variant_get_type_string (reply) : "(nothing)", type);
  return FALSE;
}

static void
read_common_info (GVariant        *info,
                  guint           *n_malformed,
                  JmemNvmapLayout *layout,
                  gboolean        *has_total)
{
  const char *layout_str = NULL;
  guint32 n = 0;
  gboolean total = FALSE;

  /* Absent or mistyped keys read as "unknown": info only adds detail. */
  g_variant_lookup (info, "malformed_lines", "u", &n);
  g_variant_lookup (info, "layout", "&s", &layout_str);
  g_variant_lookup (info, "has_total", "b", &total);
  *n_malformed = n;
  *layout = layout_from_string (layout_str);
  *has_total = total;
}


JmemNvmapClients *
jmem_wire_clients_from_variant (GVariant  *reply,
                                gint64    *stats_total_bytes,
                                GError   **error)
{
  g_autoptr(GVariant) info = NULL;
  g_autoptr(GVariantIter) iter = NULL;
  JmemNvmapClients *clients;
  const char *client, *process;
  guint32 pid;
  guint64 size_kib, total_kib, stats;

  if (stats_total_bytes != NULL)
    *stats_total_bytes = -1;
  if (!check_type (reply, JMEM_WIRE_CLIENTS_REPLY_TYPE, error))
    return NULL;

  g_variant_get (reply, "(a(ssut)t@a{sv})", &iter, &total_kib, &info);

  clients = g_new0 (JmemNvmapClients, 1);
  clients->clients = g_ptr_array_new_with_free_func ((GDestroyNotify) jmem_nvmap_client_free);
  while (g_variant_iter_next (iter, "(&s&sut)", &client, &process, &pid, &size_kib))
    g_ptr_array_add (clients->clients, jmem_nvmap_client_new (client, process, pid, size_kib));

  read_common_info (info, &clients->n_malformed, &clients->layout, &clients->has_total);
  clients->total_kib = clients->has_total ? total_kib : 0;

  /* A byte count beyond gint64 cannot be real memory: report it as unknown. */
  if (stats_total_bytes != NULL && g_variant_lookup (info, "stats_total_bytes", "t", &stats)
      && stats <= G_MAXINT64)
    *stats_total_bytes = (gint64) stats;
  return clients;
}

static void
handle_free (JmemNvmapHandle *h)
{
  g_free (h->tag);
  g_free (h);
}

static void
client_handles_free (JmemNvmapClientHandles *ch)
{
  jmem_nvmap_client_free (ch->client);
  g_clear_pointer (&ch->handles, g_ptr_array_unref);
  g_free (ch);
}

JmemNvmapAllocations *
jmem_wire_allocations_from_variant (GVariant  *reply,
                                    GError   **error)
{
  g_autoptr(GVariant) info = NULL;
  g_autoptr(GVariantIter) iter = NULL;
  JmemNvmapAllocations *allocations;
  GVariantIter *handles_iter;
  const char *client, *process;
  guint32 pid;
  guint64 size_kib, total_kib;
  gboolean hugetlbfs = FALSE;

  if (!check_type (reply, JMEM_WIRE_ALLOCATIONS_REPLY_TYPE, error))
    return NULL;

  g_variant_get (reply, "(a(ssuta(ttuuuuuuuis))t@a{sv})", &iter, &total_kib, &info);

  allocations = g_new0 (JmemNvmapAllocations, 1);
  allocations->clients = g_ptr_array_new_with_free_func ((GDestroyNotify) client_handles_free);
  while (g_variant_iter_next (iter, "(&s&suta(ttuuuuuuuis))",
                              &client, &process, &pid, &size_kib, &handles_iter))
    {
      JmemNvmapClientHandles *ch = g_new0 (JmemNvmapClientHandles, 1);
      JmemNvmapHandle h = { 0 };
      const char *tag;

      ch->client = jmem_nvmap_client_new (client, process, pid, size_kib);
      ch->handles = g_ptr_array_new_with_free_func ((GDestroyNotify) handle_free);
      while (g_variant_iter_next (handles_iter, "(ttuuuuuuui&s)",
                                  &h.base, &h.size_kib, &h.flags, &h.refs, &h.dupes,
                                  &h.pins, &h.kmaps, &h.umaps, &h.share,
                                  &h.from_hugetlbfs, &tag))
        {
          JmemNvmapHandle *copy = g_memdup2 (&h, sizeof h);

          /* Only 0 and 1 are facts; anything else means "not known". */
          if (copy->from_hugetlbfs != 0 && copy->from_hugetlbfs != 1)
            copy->from_hugetlbfs = -1;
          copy->tag = g_strdup (tag);
          g_ptr_array_add (ch->handles, copy);
        }
      g_variant_iter_free (handles_iter);
      g_ptr_array_add (allocations->clients, ch);
    }

  read_common_info (info, &allocations->n_malformed, &allocations->layout,
                    &allocations->has_total);
  allocations->total_kib = allocations->has_total ? total_kib : 0;
  g_variant_lookup (info, "has_hugetlbfs_column", "b", &hugetlbfs);
  allocations->has_hugetlbfs_column = hugetlbfs;
  return allocations;
}
