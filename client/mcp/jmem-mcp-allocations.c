/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "jmem-mcp-allocations.h"

#include "jmem-ops-allocations.h"
#include "jmem-text.h"

/* A handle kept to be shown; the heap keeps the @keep largest. */
typedef struct {
  guint64         seq;     /* file order */
  guint           client;  /* index into clients */
  JmemNvmapHandle handle;  /* tag owned */
} Kept;

typedef struct {
  char   *name;      /* process or tag */
  gint64  pid;       /* by process */
  guint64 handles;
  guint64 size_kib;
} Tally;

struct _JmemMcpAllocations {
  gint64      pid;
  guint       keep;
  GPtrArray  *clients;      /* JmemNvmapClient copies of the clients asked for */
  gboolean    taking;       /* the current client is one asked for */
  GArray     *heap;         /* Kept: a min-heap, the least worth showing on top */
  guint64     seq;
  guint64     handles, size_kib;
  GHashTable *by_pid;       /* pid -> Tally */
  GHashTable *by_tag;       /* tag -> Tally */
};

static void
tally_free (Tally *t)
{
  g_free (t->name);
  g_free (t);
}

static void
kept_clear (Kept *k)
{
  g_free (k->handle.tag);
}

JmemMcpAllocations *
jmem_mcp_allocations_new (gint64 pid,
                          guint  keep)
{
  JmemMcpAllocations *a = g_new0 (JmemMcpAllocations, 1);

  a->pid = pid;
  a->keep = keep;
  a->clients = g_ptr_array_new_with_free_func ((GDestroyNotify) jmem_nvmap_client_free);
  a->heap = g_array_new (FALSE, FALSE, sizeof (Kept));
  g_array_set_clear_func (a->heap, (GDestroyNotify) kept_clear);
  a->by_pid = g_hash_table_new_full (g_int64_hash, g_int64_equal, NULL, (GDestroyNotify) tally_free);
  a->by_tag = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, (GDestroyNotify) tally_free);
  return a;
}

void
jmem_mcp_allocations_free (JmemMcpAllocations *a)
{
  if (a == NULL)
    return;
  g_ptr_array_unref (a->clients);
  g_array_unref (a->heap);
  g_hash_table_unref (a->by_pid);
  g_hash_table_unref (a->by_tag);
  g_free (a);
}

static void
add_client (JmemNvmapClient *client, gpointer user_data)
{
  JmemMcpAllocations *a = user_data;

  a->taking = a->pid < 0 || (gint64) client->pid == a->pid;
  if (a->taking)
    g_ptr_array_add (a->clients, client);
  else
    jmem_nvmap_client_free (client);
}

/* Whether @x is less worth showing than @y: smaller, or as large and later. */
static gboolean
below (const Kept *x, const Kept *y)
{
  return x->handle.size_kib != y->handle.size_kib ? x->handle.size_kib < y->handle.size_kib
                                                  : x->seq > y->seq;
}

static void
sift_down (GArray *heap, guint i)
{
  for (;;)
    {
      guint l = 2 * i + 1, r = l + 1, least = i;
      Kept tmp;

      if (l < heap->len && below (&g_array_index (heap, Kept, l), &g_array_index (heap, Kept, least)))
        least = l;
      if (r < heap->len && below (&g_array_index (heap, Kept, r), &g_array_index (heap, Kept, least)))
        least = r;
      if (least == i)
        return;
      tmp = g_array_index (heap, Kept, i);
      g_array_index (heap, Kept, i) = g_array_index (heap, Kept, least);
      g_array_index (heap, Kept, least) = tmp;
      i = least;
    }
}

static void
sift_up (GArray *heap, guint i)
{
  while (i > 0)
    {
      guint parent = (i - 1) / 2;
      Kept tmp;

      if (!below (&g_array_index (heap, Kept, i), &g_array_index (heap, Kept, parent)))
        return;
      tmp = g_array_index (heap, Kept, i);
      g_array_index (heap, Kept, i) = g_array_index (heap, Kept, parent);
      g_array_index (heap, Kept, parent) = tmp;
      i = parent;
    }
}

/* Adds a handle of @size_kib to the tally of @key in @table, made with
 * @name (and @pid, for a process) at the key's first handle. */
static void
count (GHashTable *table, gconstpointer key, const char *name, gint64 pid, guint64 size_kib)
{
  Tally *t = g_hash_table_lookup (table, key);

  if (t == NULL)
    {
      t = g_new0 (Tally, 1);
      t->name = g_strdup (name);
      t->pid = pid;
      /* the key lives in the tally: its PID or its name */
      g_hash_table_insert (table, pid >= 0 ? (gpointer) &t->pid : (gpointer) t->name, t);
    }
  t->handles++;
  t->size_kib = t->size_kib > G_MAXUINT64 - size_kib ? G_MAXUINT64 : t->size_kib + size_kib;
}

static void
take_handle (JmemMcpAllocations    *a,
             const JmemNvmapHandle *handle)
{
  const char *tag = handle->tag != NULL ? handle->tag : "";
  const JmemNvmapClient *client;
  gint64 pid;
  Kept k;

  if (!a->taking || a->clients->len == 0)
    return;
  client = g_ptr_array_index (a->clients, a->clients->len - 1);
  a->handles++;
  a->size_kib = a->size_kib > G_MAXUINT64 - handle->size_kib ? G_MAXUINT64
                                                             : a->size_kib + handle->size_kib;
  pid = client->pid;
  count (a->by_pid, &pid, client->process, pid, handle->size_kib);
  count (a->by_tag, tag, tag, -1, handle->size_kib);

  k.seq = a->seq++;
  k.client = a->clients->len - 1;
  k.handle = *handle;
  if (a->heap->len < a->keep)
    {
      k.handle.tag = g_strdup (handle->tag);
      g_array_append_val (a->heap, k);
      sift_up (a->heap, a->heap->len - 1);
    }
  else if (a->keep > 0 && below (&g_array_index (a->heap, Kept, 0), &k))
    {
      Kept *top = &g_array_index (a->heap, Kept, 0);

      kept_clear (top);
      k.handle.tag = g_strdup (handle->tag);
      *top = k;
      sift_down (a->heap, 0);
    }
}

static void
add_handle (JmemNvmapHandle *handle, gpointer user_data)
{
  take_handle (user_data, handle);
  jmem_nvmap_handle_free (handle);
}

gboolean
jmem_mcp_allocations_add_all (JmemMcpAllocations       *a,
                              const JmemOpsAllocations *read,
                              GError                  **error)
{
  static const JmemNvmapAllocationsVisitor rows = { add_client, add_handle };

  return jmem_ops_allocations_walk (read, &rows, a, error);
}

guint
jmem_mcp_allocations_n_kept (JmemMcpAllocations *a)
{
  return a->heap->len;
}

static void
add_capped (JmemJsonWriter *b, const char *name, const char *value)
{
  g_autofree char *capped = jmem_text_cap_field (value != NULL ? value : "");

  jmem_json_writer_set_member_name (b, name);
  jmem_json_writer_add_string_value (b, capped);
}

static void
add_size (JmemJsonWriter *b, const char *name, guint64 kib)
{
  jmem_json_writer_set_member_name (b, name);
  jmem_json_writer_add_int_value (b, (gint64) MIN (kib, (guint64) G_MAXINT64));
}

static int
kept_by_worth (gconstpointer x, gconstpointer y)
{
  const Kept *a = *(Kept * const *) x, *b = *(Kept * const *) y;

  return below (a, b) ? 1 : below (b, a) ? -1 : 0;
}

static int
kept_by_seq (gconstpointer x, gconstpointer y)
{
  const Kept *a = *(Kept * const *) x, *b = *(Kept * const *) y;

  return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static int
tally_by_size (gconstpointer x, gconstpointer y)
{
  const Tally *a = *(Tally * const *) x, *b = *(Tally * const *) y;

  if (a->size_kib != b->size_kib)
    return a->size_kib > b->size_kib ? -1 : 1;
  if (a->handles != b->handles)
    return a->handles > b->handles ? -1 : 1;
  if (a->pid != b->pid)
    return a->pid < b->pid ? -1 : 1;
  return g_strcmp0 (a->name, b->name);
}

/* The @n largest tallies of @table, and the rest in one line @rest_name. */
static void
add_tallies (JmemJsonWriter *b, GHashTable *table, guint n, const char *list_name,
             const char *rest_name, gboolean by_process)
{
  g_autoptr(GPtrArray) all = g_ptr_array_new ();
  GHashTableIter iter;
  gpointer value;
  guint64 rest_handles = 0, rest_kib = 0;

  g_hash_table_iter_init (&iter, table);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    g_ptr_array_add (all, value);

  g_ptr_array_sort (all, tally_by_size);
  jmem_json_writer_set_member_name (b, list_name);
  jmem_json_writer_begin_array (b);
  for (guint i = 0; i < all->len && i < n; i++)
    {
      const Tally *t = g_ptr_array_index (all, i);

      jmem_json_writer_begin_object (b);
      if (by_process)
        {
          jmem_json_writer_set_member_name (b, "pid");
          jmem_json_writer_add_int_value (b, t->pid);
        }
      add_capped (b, by_process ? "process" : "tag", t->name);
      jmem_json_writer_set_member_name (b, "handles");
      jmem_json_writer_add_int_value (b, (gint64) t->handles);
      add_size (b, "size_kib", t->size_kib);
      jmem_json_writer_end_object (b);
    }
  jmem_json_writer_end_array (b);
  for (guint i = n; i < all->len; i++)
    {
      const Tally *t = g_ptr_array_index (all, i);

      rest_handles += t->handles;
      rest_kib = rest_kib > G_MAXUINT64 - t->size_kib ? G_MAXUINT64 : rest_kib + t->size_kib;
    }
  jmem_json_writer_set_member_name (b, rest_name);
  jmem_json_writer_begin_object (b);
  jmem_json_writer_set_member_name (b, "count");
  jmem_json_writer_add_int_value (b, all->len > n ? all->len - n : 0);
  jmem_json_writer_set_member_name (b, "handles");
  jmem_json_writer_add_int_value (b, (gint64) rest_handles);
  add_size (b, "size_kib", rest_kib);
  jmem_json_writer_end_object (b);
}

JsonNode *
jmem_mcp_allocations_json (JmemMcpAllocations       *a,
                           guint                     shown,
                           const JmemOpsAllocations *read)
{
  g_autoptr(JmemJsonWriter) b = jmem_json_writer_new (FALSE);
  g_autoptr(GPtrArray) order = g_ptr_array_new ();
  guint64 shown_kib = 0;
  guint client = G_MAXUINT;

  for (guint i = 0; i < a->heap->len; i++)
    g_ptr_array_add (order, &g_array_index (a->heap, Kept, i));
  g_ptr_array_sort (order, kept_by_worth);
  if (order->len > shown)
    g_ptr_array_set_size (order, shown);
  g_ptr_array_sort (order, kept_by_seq);

  jmem_ops_allocations_begin_json (b, read, a->pid);

  /* the clients of the handles shown, each with them, in file order */
  jmem_json_writer_set_member_name (b, "clients");
  jmem_json_writer_begin_array (b);
  for (guint i = 0; i < order->len; i++)
    {
      const Kept *k = g_ptr_array_index (order, i);

      if (k->client != client)
        {
          const JmemNvmapClient *c = g_ptr_array_index (a->clients, k->client);

          if (client != G_MAXUINT)
            {
              jmem_json_writer_end_array (b);
              jmem_json_writer_end_object (b);
            }
          client = k->client;
          jmem_json_writer_begin_object (b);
          add_capped (b, "client", c->client);
          add_capped (b, "process", c->process);
          jmem_json_writer_set_member_name (b, "pid");
          jmem_json_writer_add_int_value (b, c->pid);
          add_size (b, "size_kib", c->size_kib);
          jmem_json_writer_set_member_name (b, "handles");
          jmem_json_writer_begin_array (b);
        }
      jmem_ops_allocations_add_handle (b, &k->handle);
      shown_kib += k->handle.size_kib;
    }
  if (client != G_MAXUINT)
    {
      jmem_json_writer_end_array (b);
      jmem_json_writer_end_object (b);
    }
  jmem_json_writer_end_array (b);

  if (order->len < a->handles)
    {
      jmem_json_writer_set_member_name (b, "omitted");
      jmem_json_writer_begin_object (b);
      jmem_json_writer_set_member_name (b, "handles");
      jmem_json_writer_add_int_value (b, (gint64) (a->handles - order->len));
      add_size (b, "size_kib", a->size_kib - MIN (shown_kib, a->size_kib));
      jmem_json_writer_end_object (b);
    }

  jmem_json_writer_set_member_name (b, "totals");
  jmem_json_writer_begin_object (b);
  jmem_json_writer_set_member_name (b, "handles");
  jmem_json_writer_add_int_value (b, (gint64) a->handles);
  add_size (b, "size_kib", a->size_kib);
  add_tallies (b, a->by_pid, JMEM_MCP_ALLOCATIONS_PROCESSES, "by_process", "other_processes",
               TRUE);
  add_tallies (b, a->by_tag, JMEM_MCP_ALLOCATIONS_TAGS, "by_tag", "other_tags", FALSE);
  jmem_json_writer_end_object (b);
  jmem_json_writer_end_object (b);
  return jmem_json_writer_free_to_node (g_steal_pointer (&b));
}
