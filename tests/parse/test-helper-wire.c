/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dev.jmem.Helper1 replies: what the helper sends is what the client reads,
 * for real layouts and for hostile names; and DropCaches' argument checks. */
#include <gio/gio.h>

#include "jmem-test.h"

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
  g_autofree char *path = jmem_test_fixture ("nvmap", name, NULL);
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

/* GLib's own tree-form construction of the allocations reply: the bytes the
 * helper's hand-serialised handles must equal. */
static GVariant *
glib_allocations_variant (const JmemNvmapAllocations *a)
{
  GVariantBuilder rows, info;

  g_variant_builder_init (&rows, G_VARIANT_TYPE ("a(ssuta(ttuuuuuuuis))"));
  for (guint i = 0; i < a->clients->len; i++)
    {
      const JmemNvmapClientHandles *ch = g_ptr_array_index (a->clients, i);
      GVariantBuilder handles;

      g_variant_builder_init (&handles, G_VARIANT_TYPE ("a(ttuuuuuuuis)"));
      for (guint j = 0; j < ch->handles->len; j++)
        {
          const JmemNvmapHandle *h = g_ptr_array_index (ch->handles, j);
          g_autofree char *tag = g_utf8_make_valid (h->tag, -1);

          g_variant_builder_add (&handles, "(ttuuuuuuuis)", h->base, h->size_kib, h->flags,
                                 h->refs, h->dupes, h->pins, h->kmaps, h->umaps, h->share,
                                 h->from_hugetlbfs, tag);
        }
      g_variant_builder_add (&rows, "(ssuta(ttuuuuuuuis))", ch->client->client,
                             ch->client->process, ch->client->pid, ch->client->size_kib,
                             &handles);
    }
  g_variant_builder_init (&info, G_VARIANT_TYPE_VARDICT);
  g_variant_builder_add (&info, "{sv}", "malformed_lines", g_variant_new_uint32 (a->n_malformed));
  g_variant_builder_add (&info, "{sv}", "layout",
                         g_variant_new_string (jmem_nvmap_layout_to_string (a->layout)));
  g_variant_builder_add (&info, "{sv}", "has_total", g_variant_new_boolean (a->has_total));
  g_variant_builder_add (&info, "{sv}", "has_hugetlbfs_column",
                         g_variant_new_boolean (a->has_hugetlbfs_column));
  return g_variant_new ("(a(ssuta(ttuuuuuuuis))ta{sv})", &rows,
                        a->has_total ? a->total_kib : 0, &info);
}

static void
assert_serialised_like_glib (const JmemNvmapAllocations *a)
{
  g_autoptr(GVariant) ours = g_variant_ref_sink (jmem_wire_allocations_to_variant (a));
  g_autoptr(GVariant) glibs = g_variant_ref_sink (glib_allocations_variant (a));
  g_autoptr(GVariant) untrusted = NULL;
  g_autoptr(GBytes) bytes = NULL;

  g_assert_cmpuint (g_variant_get_size (ours), ==, g_variant_get_size (glibs));
  g_assert_cmpmem (g_variant_get_data (ours), g_variant_get_size (ours),
                   g_variant_get_data (glibs), g_variant_get_size (glibs));
  /* What a receiver checks: the same bytes, read untrusted, are normal form. */
  bytes = g_variant_get_data_as_bytes (ours);
  untrusted = g_variant_ref_sink (g_variant_new_from_bytes (G_VARIANT_TYPE (JMEM_WIRE_ALLOCATIONS_REPLY_TYPE),
                                                            bytes, FALSE));
  g_assert_true (g_variant_is_normal_form (untrusted));
  g_assert_true (g_variant_equal (untrusted, glibs));
}

static void
test_allocations_serialised_like_glib (void)
{
  const char *names[] = {
    "allocations.rendered-r36-format.txt", "allocations.rendered-r38-hugetlbfs.txt",
    "allocations.rendered-old-7col.txt", "allocations.hostile-tags.txt",
  };
  /* Offsets 1, 2, 4 bytes wide, an empty client and a client-less tail. */
  const guint sizes[] = { 0, 1, 2, 5, 100, 1500, 3000 };
  g_autoptr(JmemNvmapAllocations) synthetic = g_new0 (JmemNvmapAllocations, 1);

  for (gsize i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autoptr(JmemNvmapAllocations) parsed = NULL;
      g_autoptr(GError) error = NULL;
      g_autofree char *data = NULL;
      gsize len = 0;

      data = fixture (names[i], &len);
      parsed = jmem_nvmap_allocations_parse (data, len, &error);
      g_assert_no_error (error);
      assert_serialised_like_glib (parsed);
    }

  synthetic->clients = g_ptr_array_new_with_free_func (NULL);
  for (gsize i = 0; i < G_N_ELEMENTS (sizes); i++)
    {
      JmemNvmapClientHandles *ch = g_new0 (JmemNvmapClientHandles, 1);

      ch->client = jmem_nvmap_client_new ("user", "gst-launch-1.0", 4242 + i, 1000 * i);
      ch->handles = g_ptr_array_new_with_free_func ((GDestroyNotify) jmem_nvmap_handle_free);
      for (guint j = 0; j < sizes[i]; j++)
        {
          JmemNvmapHandle *h = g_new0 (JmemNvmapHandle, 1);

          h->base = G_GUINT64_CONSTANT (0xffffffff00000000) + j;
          h->size_kib = j * 4;
          h->flags = 0x10120001;
          h->refs = j % 7;
          h->share = G_MAXUINT32 - j;
          h->from_hugetlbfs = (gint32) (j % 3) - 1;
          h->tag = j % 3 == 0 ? g_strdup ("") : g_strdup_printf ("nvbuf-%u-%.*s", j, (int) (j % 13), "xxxxxxxxxxxxx");
          g_ptr_array_add (ch->handles, h);
        }
      g_ptr_array_add (synthetic->clients, ch);
    }
  synthetic->has_total = TRUE;
  synthetic->total_kib = 123;
  assert_serialised_like_glib (synthetic);
  for (guint i = 0; i < synthetic->clients->len; i++)
    {
      JmemNvmapClientHandles *ch = g_ptr_array_index (synthetic->clients, i);
      jmem_nvmap_client_free (ch->client);
      g_ptr_array_unref (ch->handles);
      g_free (ch);
    }
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
  g_test_add_func ("/helper/wire/allocations-serialised-like-glib", test_allocations_serialised_like_glib);
  g_test_add_func ("/helper/wire/wrong-reply-type", test_wrong_reply_type_is_an_error);
  g_test_add_func ("/helper/wire/out-of-range-hugetlbfs", test_out_of_range_hugetlbfs_reads_unknown);
  g_test_add_func ("/helper/methods/drop-caches-request", test_drop_caches_request);
  return g_test_run ();
}
