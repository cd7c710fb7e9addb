/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "jmem-helper-wire.h"

#include <string.h>

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
                 gboolean         has_total,
                 guint64          pid_namespace)
{
  if (pid_namespace != 0)
    g_variant_builder_add (info, "{sv}", "pid_namespace", g_variant_new_uint64 (pid_namespace));
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
  add_common_info (&info, clients->n_malformed, clients->layout, clients->has_total,
                   clients->pid_namespace);
  if (stats_total_bytes >= 0)
    g_variant_builder_add (&info, "{sv}", "stats_total_bytes",
                           g_variant_new_uint64 ((guint64) stats_total_bytes));

  return g_variant_new ("(@a(ssut)t@a{sv})", g_variant_builder_end (&rows),
                        clients->has_total ? clients->total_kib : 0,
                        g_variant_builder_end (&info));
}

/* ---- allocations, one handle at a time ---------------------------------- */

/* GVariant's tree form costs about 2 KiB per handle (a GVariant for each of
 * its eleven fields); 60,000 handles took the helper past 100 MiB. The
 * handles of one client are written in GVariant's serialised form instead,
 * as g_variant_get_data() would lay them out: each (ttuuuuuuuis) at an
 * 8-byte boundary (48 fixed bytes, then the tag and its NUL: the last member
 * needs no framing offset), then one end offset per element, each as wide
 * as the array's total size needs. test-helper-wire compares the bytes
 * with GLib's own. */
#define HANDLE_TYPE      "(ttuuuuuuuis)"
#define HANDLES_TYPE     "a" HANDLE_TYPE
#define ALLOC_ROWS_TYPE  "a(ssut" HANDLES_TYPE ")"
#define HANDLE_FIXED     48

struct _JmemWireAllocationsBuilder {
  GVariantBuilder  rows;
  JmemNvmapClient *client;  /* the client whose handles are being added */
  GByteArray      *body;    /* its handles, serialised */
  GArray          *ends;    /* gsize: the end of each handle in body */
};

JmemWireAllocationsBuilder *
jmem_wire_allocations_builder_new (void)
{
  JmemWireAllocationsBuilder *b = g_new0 (JmemWireAllocationsBuilder, 1);

  g_variant_builder_init (&b->rows, G_VARIANT_TYPE (ALLOC_ROWS_TYPE));
  b->body = g_byte_array_new ();
  b->ends = g_array_new (FALSE, FALSE, sizeof (gsize));
  return b;
}

void
jmem_wire_allocations_builder_free (JmemWireAllocationsBuilder *b)
{
  if (b == NULL)
    return;
  g_variant_builder_clear (&b->rows);
  g_clear_pointer (&b->client, jmem_nvmap_client_free);
  g_byte_array_unref (b->body);
  g_array_unref (b->ends);
  g_free (b);
}

static void
put_le (guint8 *p, guint64 v, guint width)
{
  for (guint i = 0; i < width; i++)
    p[i] = (guint8) (v >> (8 * i));
}

static GVariant *
handles_end (JmemWireAllocationsBuilder *b)
{
  g_autoptr(GBytes) bytes = NULL;
  gsize body = b->body->len, n = b->ends->len, total;
  guint width;

  /* gvs_calculate_total_size(): the narrowest offsets the total fits. */
  if (body + n <= G_MAXUINT8)
    width = 1;
  else if (body + 2 * n <= G_MAXUINT16)
    width = 2;
  else if (body + 4 * n <= G_MAXUINT32)
    width = 4;
  else
    width = 8;
  total = n == 0 ? 0 : body + width * n;

  g_byte_array_set_size (b->body, (guint) total);
  for (gsize i = 0; i < n; i++)
    put_le (b->body->data + body + i * width, g_array_index (b->ends, gsize, i), width);

  bytes = g_byte_array_free_to_bytes (g_steal_pointer (&b->body));
  b->body = g_byte_array_new ();
  g_array_set_size (b->ends, 0);
  return g_variant_new_from_bytes (G_VARIANT_TYPE (HANDLES_TYPE), bytes, TRUE);
}

static void
flush_client (JmemWireAllocationsBuilder *b)
{
  g_autoptr(JmemNvmapClient) c = g_steal_pointer (&b->client);
  GVariant *handles;

  if (c == NULL)
    return;
  handles = handles_end (b);
  g_variant_builder_add (&b->rows, "(@s@sut@" HANDLES_TYPE ")",
                         wire_string (c->client), wire_string (c->process),
                         c->pid, c->size_kib, handles);
}

void
jmem_wire_allocations_builder_add_client (JmemWireAllocationsBuilder *b,
                                          const JmemNvmapClient      *client)
{
  flush_client (b);
  b->client = jmem_nvmap_client_new (client->client, client->process,
                                     client->pid, client->size_kib);
}

void
jmem_wire_allocations_builder_add_handle (JmemWireAllocationsBuilder *b,
                                          const JmemNvmapHandle      *h)
{
  g_autofree char *repaired = NULL;
  const char *tag = h->tag != NULL ? h->tag : "";
  guint32 u[7] = { h->flags, h->refs, h->dupes, h->pins, h->kmaps, h->umaps, h->share };
  gsize old_len, start, tag_len;
  guint8 *p;

  g_return_if_fail (b->client != NULL);

  if (!g_utf8_validate (tag, -1, NULL))
    tag = repaired = jmem_text_make_valid (tag, -1);
  tag_len = strlen (tag);

  old_len = b->body->len;
  start = (old_len + 7) & ~(gsize) 7;
  g_byte_array_set_size (b->body, (guint) (start + HANDLE_FIXED + tag_len + 1));
  p = b->body->data;
  memset (p + old_len, 0, start - old_len);  /* padding is zero in normal form */
  p += start;
  put_le (p, h->base, 8);
  put_le (p + 8, h->size_kib, 8);
  for (guint i = 0; i < G_N_ELEMENTS (u); i++)
    put_le (p + 16 + 4 * i, u[i], 4);
  put_le (p + 44, (guint32) h->from_hugetlbfs, 4);
  memcpy (p + HANDLE_FIXED, tag, tag_len + 1);

  start += HANDLE_FIXED + tag_len + 1;
  g_array_append_val (b->ends, start);
}

GVariant *
jmem_wire_allocations_builder_end (JmemWireAllocationsBuilder *b,
                                   const JmemNvmapAllocations *summary,
                                   GVariant                   *extra_info)
{
  g_autoptr(GVariant) extra = extra_info != NULL ? g_variant_ref_sink (extra_info) : NULL;
  GVariantBuilder info;

  flush_client (b);
  g_variant_builder_init (&info, G_VARIANT_TYPE_VARDICT);
  add_common_info (&info, summary->n_malformed, summary->layout, summary->has_total,
                   summary->pid_namespace);
  g_variant_builder_add (&info, "{sv}", "has_hugetlbfs_column",
                         g_variant_new_boolean (summary->has_hugetlbfs_column));
  if (extra != NULL)
    {
      GVariantIter iter;
      const char *key;
      GVariant *value;

      g_variant_iter_init (&iter, extra);
      while (g_variant_iter_next (&iter, "{&sv}", &key, &value))
        {
          g_variant_builder_add (&info, "{sv}", key, value);
          g_variant_unref (value);
        }
    }

  return g_variant_new ("(@" ALLOC_ROWS_TYPE "t@a{sv})", g_variant_builder_end (&b->rows),
                        summary->has_total ? summary->total_kib : 0,
                        g_variant_builder_end (&info));
}

GVariant *
jmem_wire_allocations_to_variant (const JmemNvmapAllocations *allocations)
{
  g_autoptr(JmemWireAllocationsBuilder) b = NULL;

  g_return_val_if_fail (allocations != NULL, NULL);

  b = jmem_wire_allocations_builder_new ();
  for (guint i = 0; allocations->clients != NULL && i < allocations->clients->len; i++)
    {
      const JmemNvmapClientHandles *ch = g_ptr_array_index (allocations->clients, i);

      jmem_wire_allocations_builder_add_client (b, ch->client);
      for (guint j = 0; ch->handles != NULL && j < ch->handles->len; j++)
        jmem_wire_allocations_builder_add_handle (b, g_ptr_array_index (ch->handles, j));
    }
  return jmem_wire_allocations_builder_end (b, allocations, NULL);
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
                  gboolean        *has_total,
                  guint64         *pid_namespace)
{
  const char *layout_str = NULL;
  guint32 n = 0;
  gboolean total = FALSE;
  guint64 ns = 0;

  /* Absent or mistyped keys read as "unknown": info only adds detail. */
  g_variant_lookup (info, "malformed_lines", "u", &n);
  g_variant_lookup (info, "layout", "&s", &layout_str);
  g_variant_lookup (info, "has_total", "b", &total);
  g_variant_lookup (info, "pid_namespace", "t", &ns);
  *n_malformed = n;
  *pid_namespace = ns;
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

  read_common_info (info, &clients->n_malformed, &clients->layout, &clients->has_total,
                    &clients->pid_namespace);
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
                    &allocations->has_total, &allocations->pid_namespace);
  allocations->total_kib = allocations->has_total ? total_kib : 0;
  g_variant_lookup (info, "has_hugetlbfs_column", "b", &hugetlbfs);
  allocations->has_hugetlbfs_column = hugetlbfs;
  return allocations;
}
