/* dev.jmem.Helper1 replies: what the helper sends is what the client reads,
 * for real layouts and for hostile names; and DropCaches' argument checks. */
#include <gio/gio.h>

#include "jmem-error.h"
#include "jmem-file.h"
#include "jmem-helper-methods.h"
#include "jmem-helper-wire.h"
#include "jmem-nvmap.h"
#include "jmem-pid-namespace.h"

static char *
fixture (const char *name,
         gsize      *len)
{
  g_autofree char *path = g_build_filename (g_getenv ("JMEM_FIXTURES"), "nvmap", name, NULL);
  g_autoptr(GError) error = NULL;
  char *data = NULL;

  g_assert_true (jmem_file_read_capped (path, 1 << 24, &data, len, &error));
  g_assert_no_error (error);
  return data;
}

static void
assert_clients_equal (const JmemNvmapClient *a,
                      const JmemNvmapClient *b)
{
  g_assert_cmpstr (a->client, ==, b->client);
  g_assert_cmpstr (a->process, ==, b->process);
  g_assert_cmpuint (a->pid, ==, b->pid);
  g_assert_cmpuint (a->size_kib, ==, b->size_kib);
}

static void
roundtrip_clients (const char *name)
{
  g_autoptr(JmemNvmapClients) parsed = NULL;
  g_autoptr(JmemNvmapClients) back = NULL;
  g_autoptr(GVariant) reply = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *data = NULL;
  gsize len = 0;
  gint64 stats = 0;

  data = fixture (name, &len);
  parsed = jmem_nvmap_clients_parse (data, len, &error);
  g_assert_no_error (error);

  reply = g_variant_ref_sink (jmem_wire_clients_to_variant (parsed, 123456789));
  g_assert_true (g_variant_is_of_type (reply, G_VARIANT_TYPE (JMEM_WIRE_CLIENTS_REPLY_TYPE)));
  back = jmem_wire_clients_from_variant (reply, &stats, &error);
  g_assert_no_error (error);

  g_assert_cmpint (stats, ==, 123456789);
  g_assert_cmpuint (back->clients->len, ==, parsed->clients->len);
  for (guint i = 0; i < parsed->clients->len; i++)
    {
      const JmemNvmapClient *c = g_ptr_array_index (back->clients, i);

      assert_clients_equal (c, g_ptr_array_index (parsed->clients, i));
      g_assert_true (g_utf8_validate (c->process, -1, NULL));
    }
  g_assert_cmpint (back->has_total, ==, parsed->has_total);
  g_assert_cmpuint (back->total_kib, ==, parsed->total_kib);
  g_assert_cmpuint (back->n_malformed, ==, parsed->n_malformed);
  g_assert_cmpint (back->layout, ==, parsed->layout);
}

static void
test_clients_roundtrip (void)
{
  roundtrip_clients ("clients.rendered-r36-format.txt");
  roundtrip_clients ("clients.gimbal-testdata.txt");
  roundtrip_clients ("clients.gimbal-testdata-bad.txt");
  roundtrip_clients ("clients.hostile-comm-invalid-utf8.txt");
  roundtrip_clients ("clients.hostile-comm-spaces.txt");
  roundtrip_clients ("clients.hostile-comm-newline.txt");
}

static void
test_clients_without_stats (void)
{
  JmemNvmapClients empty = { .clients = NULL, .has_total = FALSE, .total_kib = 42 };
  g_autoptr(JmemNvmapClients) back = NULL;
  g_autoptr(GVariant) reply = NULL;
  gint64 stats = 0;

  reply = g_variant_ref_sink (jmem_wire_clients_to_variant (&empty, -1));
  back = jmem_wire_clients_from_variant (reply, &stats, NULL);
  g_assert_nonnull (back);
  g_assert_cmpint (stats, ==, -1);
  g_assert_cmpuint (back->clients->len, ==, 0);
  g_assert_false (back->has_total);
  /* No total line: no number pretends to be one. */
  g_assert_cmpuint (back->total_kib, ==, 0);
}

/* The rows' PID namespace travels in info as pid_namespace (t), for both
 * replies; a reply without it (an older helper) reads as 0, "not said". */
static void
test_pid_namespace_in_info (void)
{
  JmemNvmapClients clients = { .clients = NULL, .pid_namespace = 4026531836u };
  JmemNvmapAllocations allocations = { .clients = NULL, .pid_namespace = 4026532999u };
  g_autoptr(GVariant) reply = NULL;
  g_autoptr(GVariant) areply = NULL;
  g_autoptr(GVariant) info = NULL;
  g_autoptr(JmemNvmapClients) back = NULL;
  g_autoptr(JmemNvmapAllocations) aback = NULL;
  guint64 ns = 0;

  reply = g_variant_ref_sink (jmem_wire_clients_to_variant (&clients, -1));
  info = g_variant_get_child_value (reply, 2);
  g_assert_true (g_variant_lookup (info, "pid_namespace", "t", &ns));
  g_assert_cmpuint (ns, ==, 4026531836u);
  back = jmem_wire_clients_from_variant (reply, NULL, NULL);
  g_assert_cmpuint (back->pid_namespace, ==, 4026531836u);

  areply = g_variant_ref_sink (jmem_wire_allocations_to_variant (&allocations));
  aback = jmem_wire_allocations_from_variant (areply, NULL);
  g_assert_nonnull (aback);
  g_assert_cmpuint (aback->pid_namespace, ==, 4026532999u);

  g_clear_pointer (&reply, g_variant_unref);
  g_clear_pointer (&info, g_variant_unref);
  g_clear_pointer (&back, jmem_nvmap_clients_free);
  clients.pid_namespace = 0;
  reply = g_variant_ref_sink (jmem_wire_clients_to_variant (&clients, -1));
  info = g_variant_get_child_value (reply, 2);
  g_assert_false (g_variant_lookup (info, "pid_namespace", "t", &ns));
  back = jmem_wire_clients_from_variant (reply, NULL, NULL);
  g_assert_cmpuint (back->pid_namespace, ==, 0);
}

/* Join only PIDs of the client's own namespace, or ones nobody placed. */
static void
test_pid_namespace_joinable (void)
{
  guint64 own = jmem_pid_namespace_self ();

  g_assert_cmpuint (own, !=, 0);
  g_assert_true (jmem_pid_namespace_joinable (own, own));
  g_assert_true (jmem_pid_namespace_joinable (0, own));
  g_assert_false (jmem_pid_namespace_joinable (own + 1, own));
  g_assert_false (jmem_pid_namespace_joinable (JMEM_PID_NAMESPACE_INITIAL, 0));
  g_assert_true (jmem_pid_namespace_joinable (0, 0));
}

static void
test_invalid_utf8_is_repaired_on_the_way_out (void)
{
  JmemNvmapClient bad = { .client = (char *) "user", .process = (char *) "ev\xffil\xc3",
                          .pid = 7, .size_kib = 64 };
  g_autoptr(GPtrArray) rows = g_ptr_array_new ();
  JmemNvmapClients clients = { .clients = rows, .has_total = TRUE, .total_kib = 64 };
  g_autoptr(JmemNvmapClients) back = NULL;
  g_autoptr(GVariant) reply = NULL;
  const JmemNvmapClient *c;

  g_ptr_array_add (rows, &bad);
  reply = g_variant_ref_sink (jmem_wire_clients_to_variant (&clients, -1));
  back = jmem_wire_clients_from_variant (reply, NULL, NULL);
  g_assert_cmpuint (back->clients->len, ==, 1);
  c = g_ptr_array_index (back->clients, 0);
  g_assert_true (g_utf8_validate (c->process, -1, NULL));
  g_assert_true (g_str_has_prefix (c->process, "ev"));
  g_assert_cmpuint (c->pid, ==, 7);
  g_assert_cmpuint (c->size_kib, ==, 64);
}

static void
roundtrip_allocations (const char *name)
{
  g_autoptr(JmemNvmapAllocations) parsed = NULL;
  g_autoptr(JmemNvmapAllocations) back = NULL;
  g_autoptr(GVariant) reply = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *data = NULL;
  gsize len = 0;

  data = fixture (name, &len);
  parsed = jmem_nvmap_allocations_parse (data, len, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (parsed->clients->len, >, 0);

  reply = g_variant_ref_sink (jmem_wire_allocations_to_variant (parsed));
  back = jmem_wire_allocations_from_variant (reply, &error);
  g_assert_no_error (error);

  g_assert_cmpuint (back->clients->len, ==, parsed->clients->len);
  for (guint i = 0; i < parsed->clients->len; i++)
    {
      const JmemNvmapClientHandles *p = g_ptr_array_index (parsed->clients, i);
      const JmemNvmapClientHandles *b = g_ptr_array_index (back->clients, i);

      assert_clients_equal (b->client, p->client);
      g_assert_cmpuint (b->handles->len, ==, p->handles->len);
      for (guint j = 0; j < p->handles->len; j++)
        {
          const JmemNvmapHandle *ph = g_ptr_array_index (p->handles, j);
          const JmemNvmapHandle *bh = g_ptr_array_index (b->handles, j);

          g_assert_cmphex (bh->base, ==, ph->base);
          g_assert_cmpuint (bh->size_kib, ==, ph->size_kib);
          g_assert_cmphex (bh->flags, ==, ph->flags);
          g_assert_cmpuint (bh->refs, ==, ph->refs);
          g_assert_cmpuint (bh->dupes, ==, ph->dupes);
          g_assert_cmpuint (bh->pins, ==, ph->pins);
          g_assert_cmpuint (bh->kmaps, ==, ph->kmaps);
          g_assert_cmpuint (bh->umaps, ==, ph->umaps);
          g_assert_cmpuint (bh->share, ==, ph->share);
          g_assert_cmpint (bh->from_hugetlbfs, ==, ph->from_hugetlbfs);
          g_assert_cmpstr (bh->tag, ==, ph->tag);
        }
    }
  g_assert_cmpint (back->has_total, ==, parsed->has_total);
  g_assert_cmpuint (back->total_kib, ==, parsed->total_kib);
  g_assert_cmpuint (back->n_malformed, ==, parsed->n_malformed);
  g_assert_cmpint (back->has_hugetlbfs_column, ==, parsed->has_hugetlbfs_column);
  g_assert_cmpint (back->layout, ==, parsed->layout);
}

static void
test_allocations_roundtrip (void)
{
  roundtrip_allocations ("allocations.rendered-r36-format.txt");
  roundtrip_allocations ("allocations.rendered-r38-hugetlbfs.txt");
  roundtrip_allocations ("allocations.hostile-tags.txt");
}

static void
test_wrong_reply_type_is_an_error (void)
{
  g_autoptr(GVariant) v = g_variant_ref_sink (g_variant_new ("(as)", NULL));
  g_autoptr(GError) error = NULL;
  gint64 stats = 5;

  g_assert_null (jmem_wire_clients_from_variant (v, &stats, &error));
  g_assert_error (error, JMEM_ERROR, JMEM_ERROR_FAILED);
  g_assert_cmpint (stats, ==, -1);
  g_clear_error (&error);
  g_assert_null (jmem_wire_allocations_from_variant (v, &error));
  g_assert_error (error, JMEM_ERROR, JMEM_ERROR_FAILED);
}

static void
test_out_of_range_hugetlbfs_reads_unknown (void)
{
  g_autoptr(GVariant) v = NULL;
  g_autoptr(JmemNvmapAllocations) back = NULL;
  const JmemNvmapClientHandles *ch;

  v = g_variant_ref_sink (g_variant_new_parsed (
      "([('user', 'app', uint32 9, uint64 4, "
      "  [(uint64 4096, uint64 4, uint32 1, uint32 1, uint32 0, uint32 0, uint32 0, uint32 0, uint32 1, 7, 'x')])],"
      " uint64 4, {'has_total': <true>})"));
  back = jmem_wire_allocations_from_variant (v, NULL);
  g_assert_nonnull (back);
  ch = g_ptr_array_index (back->clients, 0);
  g_assert_cmpint (((JmemNvmapHandle *) g_ptr_array_index (ch->handles, 0))->from_hugetlbfs, ==, -1);
  g_assert_cmpuint (back->n_malformed, ==, 0);
  g_assert_cmpint (back->layout, ==, JMEM_NVMAP_LAYOUT_UNKNOWN);
}

static void
test_drop_caches_request (void)
{
  g_autoptr(GVariant) none = g_variant_ref_sink (g_variant_new_parsed ("@a{sv} {}"));
  g_autoptr(GVariant) compact = g_variant_ref_sink (g_variant_new_parsed ("{'compact': <true>}"));
  g_autoptr(GVariant) wrong_type = g_variant_ref_sink (g_variant_new_parsed ("{'compact': <1>}"));
  g_autoptr(GVariant) unknown = g_variant_ref_sink (g_variant_new_parsed ("{'path': <'/etc/shadow'>}"));
  g_autoptr(GError) error = NULL;
  gboolean c = TRUE;

  for (guint level = 1; level <= 3; level++)
    {
      g_assert_true (jmem_drop_caches_check_request (level, none, &c, &error));
      g_assert_no_error (error);
      g_assert_false (c);
    }
  g_assert_true (jmem_drop_caches_check_request (3, compact, &c, &error));
  g_assert_true (c);

  guint bad_levels[] = { 0, 4, 10, G_MAXUINT32 };
  for (guint i = 0; i < G_N_ELEMENTS (bad_levels); i++)
    {
      g_assert_false (jmem_drop_caches_check_request (bad_levels[i], none, &c, &error));
      g_assert_error (error, JMEM_ERROR, JMEM_ERROR_INVALID_ARGUMENT);
      g_clear_error (&error);
    }
  g_assert_false (jmem_drop_caches_check_request (1, wrong_type, &c, &error));
  g_assert_error (error, JMEM_ERROR, JMEM_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_assert_false (jmem_drop_caches_check_request (1, unknown, &c, &error));
  g_assert_error (error, JMEM_ERROR, JMEM_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "path"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/helper/wire/clients-roundtrip", test_clients_roundtrip);
  g_test_add_func ("/helper/wire/clients-without-stats", test_clients_without_stats);
  g_test_add_func ("/helper/wire/pid-namespace-in-info", test_pid_namespace_in_info);
  g_test_add_func ("/helper/wire/pid-namespace-joinable", test_pid_namespace_joinable);
  g_test_add_func ("/helper/wire/invalid-utf8-repaired", test_invalid_utf8_is_repaired_on_the_way_out);
  g_test_add_func ("/helper/wire/allocations-roundtrip", test_allocations_roundtrip);
  g_test_add_func ("/helper/wire/wrong-reply-type", test_wrong_reply_type_is_an_error);
  g_test_add_func ("/helper/wire/out-of-range-hugetlbfs", test_out_of_range_hugetlbfs_reads_unknown);
  g_test_add_func ("/helper/methods/drop-caches-request", test_drop_caches_request);
  return g_test_run ();
}
