/* SPDX-License-Identifier: GPL-2.0-or-later */
/* How the client gets NvMap allocations from helpers that answer
 * differently: a helper that predates GetNvMapAllocationsSnapshot (the
 * typed reply is used), one that sends a sealed memfd, and one whose fd is
 * not sealed (refused). Each is a stand-in on a private bus that the client
 * takes for the system bus. */
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <gio/gio.h>
#include <gio/gunixfdlist.h>

#include "jmem-test.h"

#include "jmem-error.h"
#include "jmem-file.h"
#include "jmem-helper-client.h"
#include "jmem-helper-wire.h"
#include "jmem-names.h"

typedef enum {
  HELPER_OLD,       /* no GetNvMapAllocationsSnapshot */
  HELPER_SEALED,
  HELPER_UNSEALED,
} HelperKind;

static const char old_xml[] =
  "<node><interface name='dev.jmem.Helper1'>"
  "<method name='GetNvMapAllocations'>"
  "<arg name='clients' type='a(ssuta(ttuuuuuuuis))' direction='out'/>"
  "<arg name='total_kib' type='t' direction='out'/>"
  "<arg name='info' type='a{sv}' direction='out'/></method>"
  "</interface></node>";

static const char new_xml[] =
  "<node><interface name='dev.jmem.Helper1'>"
  "<method name='GetNvMapAllocations'>"
  "<arg name='clients' type='a(ssuta(ttuuuuuuuis))' direction='out'/>"
  "<arg name='total_kib' type='t' direction='out'/>"
  "<arg name='info' type='a{sv}' direction='out'/></method>"
  "<method name='GetNvMapAllocationsSnapshot'>"
  "<arg name='snapshot' type='h' direction='out'/>"
  "<arg name='info' type='a{sv}' direction='out'/></method>"
  "<method name='GetNvMapMapsSnapshot'>"
  "<arg name='snapshot' type='h' direction='out'/>"
  "<arg name='info' type='a{sv}' direction='out'/></method>"
  "</interface></node>";

typedef struct {
  HelperKind    kind;
  char         *data;   /* the fixture */
  gsize         len;
  GMainContext *context;
  GMainLoop    *loop;
  GThread      *thread;
  GMutex        lock;
  GCond         ready;
  gboolean      owned;
  guint         typed_calls;
  guint         snapshot_calls;
  guint         maps_calls;
} StandIn;

static int
memfd_with (const char *data, gsize len, gboolean seal)
{
  int fd = memfd_create ("stand-in", MFD_CLOEXEC | MFD_ALLOW_SEALING);

  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (write (fd, data, len), ==, (gssize) len);
  if (seal)
    g_assert_cmpint (fcntl (fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL),
                     ==, 0);
  return fd;
}

static void
on_method (GDBusConnection       *connection,
           const char            *sender,
           const char            *path,
           const char            *interface,
           const char            *method,
           GVariant              *parameters,
           GDBusMethodInvocation *invocation,
           gpointer               user_data)
{
  StandIn *s = user_data;

  if (g_str_equal (method, "GetNvMapAllocations"))
    {
      g_autoptr(JmemNvmapAllocations) parsed = jmem_nvmap_allocations_parse (s->data, s->len, NULL);

      s->typed_calls++;
      g_dbus_method_invocation_return_value (invocation, jmem_wire_allocations_to_variant (parsed));
      return;
    }

  if (g_str_equal (method, "GetNvMapMapsSnapshot"))
    {
      g_autofree char *fixture = jmem_test_fixture ("nvmap",
                                                "maps.rendered-r36-format.txt", NULL);
      g_autofree char *maps = NULL;
      gsize len = 0;
      GVariantBuilder info;
      int fd;
      g_autoptr(GUnixFDList) fds = NULL;

      g_assert_true (jmem_file_read_capped (fixture, 1 << 20, &maps, &len, NULL));
      fd = memfd_with (maps, len, s->kind == HELPER_SEALED);
      fds = g_unix_fd_list_new_from_array (&fd, 1);
      s->maps_calls++;
      g_variant_builder_init (&info, G_VARIANT_TYPE_VARDICT);
      g_variant_builder_add (&info, "{sv}", "page_size", g_variant_new_uint64 (4096));
      g_variant_builder_add (&info, "{sv}", "page_pool_pages", g_variant_new_uint64 (3000));
      g_variant_builder_add (&info, "{sv}", "page_pool_pages_to_zero", g_variant_new_uint64 (72));
      g_variant_builder_add (&info, "{sv}", "free_size_bytes", g_variant_new_uint64 (6442450944));
      g_dbus_method_invocation_return_value_with_unix_fd_list (invocation,
                                                               g_variant_new ("(ha{sv})", 0, &info),
                                                               fds);
      return;
    }

  {
    int fd = memfd_with (s->data, s->len, s->kind == HELPER_SEALED);
    g_autoptr(GUnixFDList) fds = g_unix_fd_list_new_from_array (&fd, 1);

    s->snapshot_calls++;
    g_dbus_method_invocation_return_value_with_unix_fd_list (invocation,
                                                             g_variant_new ("(h@a{sv})", 0,
                                                                            g_variant_new ("a{sv}", NULL)),
                                                             fds);
  }
}

static void
on_name (GDBusConnection *connection, const char *name, gpointer user_data)
{
  StandIn *s = user_data;

  g_mutex_lock (&s->lock);
  s->owned = TRUE;
  g_cond_signal (&s->ready);
  g_mutex_unlock (&s->lock);
}

static gpointer
serve (gpointer user_data)
{
  static const GDBusInterfaceVTable vtable = { on_method, NULL, NULL, { 0 } };
  StandIn *s = user_data;
  g_autoptr(GDBusNodeInfo) node = NULL;
  g_autoptr(GDBusConnection) bus = NULL;
  guint owner, object;

  g_main_context_push_thread_default (s->context);
  bus = g_bus_get_sync (G_BUS_TYPE_SYSTEM, NULL, NULL);
  g_assert_nonnull (bus);
  node = g_dbus_node_info_new_for_xml (s->kind == HELPER_OLD ? old_xml : new_xml, NULL);
  object = g_dbus_connection_register_object (bus, JMEM_DBUS_PATH, node->interfaces[0],
                                              &vtable, s, NULL, NULL);
  g_assert_cmpuint (object, >, 0);
  owner = g_bus_own_name_on_connection (bus, JMEM_DBUS_NAME, G_BUS_NAME_OWNER_FLAGS_NONE,
                                        on_name, NULL, s, NULL);
  g_main_loop_run (s->loop);
  g_bus_unown_name (owner);
  g_dbus_connection_unregister_object (bus, object);
  /* The name is released once the bus has the request. */
  g_dbus_connection_flush_sync (bus, NULL, NULL);
  g_main_context_pop_thread_default (s->context);
  return NULL;
}

static StandIn *
stand_in_start (HelperKind kind)
{
  g_autofree char *path = jmem_test_fixture ("nvmap",
                                            "allocations.rendered-r38-hugetlbfs.txt", NULL);
  StandIn *s = g_new0 (StandIn, 1);

  s->kind = kind;
  g_assert_true (jmem_file_read_capped (path, 1 << 20, &s->data, &s->len, NULL));
  s->context = g_main_context_new ();
  s->loop = g_main_loop_new (s->context, FALSE);
  g_mutex_init (&s->lock);
  g_cond_init (&s->ready);
  s->thread = g_thread_new ("stand-in", serve, s);
  g_mutex_lock (&s->lock);
  while (!s->owned)
    g_cond_wait (&s->ready, &s->lock);
  g_mutex_unlock (&s->lock);
  return s;
}

static void
stand_in_stop (StandIn *s)
{
  g_main_loop_quit (s->loop);
  g_thread_join (s->thread);
  g_main_loop_unref (s->loop);
  g_main_context_unref (s->context);
  g_mutex_clear (&s->lock);
  g_cond_clear (&s->ready);
  g_free (s->data);
  g_free (s);
}

static guint
count_handles (const JmemNvmapAllocations *a)
{
  guint n = 0;

  for (guint i = 0; i < a->clients->len; i++)
    n += ((JmemNvmapClientHandles *) g_ptr_array_index (a->clients, i))->handles->len;
  return n;
}

static void
check_allocations (HelperKind kind, guint want_typed, guint want_snapshot)
{
  g_autoptr(JmemNvmapAllocations) expected = NULL;
  g_autoptr(JmemNvmapAllocationsReader) reader = NULL;
  g_autoptr(GError) error = NULL;
  StandIn *s = stand_in_start (kind);

  expected = jmem_nvmap_allocations_parse (s->data, s->len, NULL);
  reader = jmem_helper_open_nvmap_allocations (NULL, &error);
  g_assert_no_error (error);
  /* every output walks the rows again: the same rows each time, one call */
  for (int walk = 0; walk < 2; walk++)
    {
      g_autoptr(JmemNvmapAllocations) got = jmem_nvmap_allocations_reader_parse (reader, &error);

      g_assert_no_error (error);
      g_assert_cmpuint (got->clients->len, ==, expected->clients->len);
      g_assert_cmpuint (count_handles (got), ==, count_handles (expected));
      g_assert_true (got->has_hugetlbfs_column);
    }
  g_assert_cmpuint (s->typed_calls, ==, want_typed);
  g_assert_cmpuint (s->snapshot_calls, ==, want_snapshot);
  stand_in_stop (s);
}

static void
test_old_helper_typed_reply (void)
{
  check_allocations (HELPER_OLD, 1, 0);
}

static void
test_sealed_snapshot (void)
{
  check_allocations (HELPER_SEALED, 0, 1);
}

static void
test_unsealed_snapshot_refused (void)
{
  g_autoptr(JmemNvmapAllocationsReader) got = NULL;
  g_autoptr(GError) error = NULL;
  StandIn *s = stand_in_start (HELPER_UNSEALED);

  got = jmem_helper_open_nvmap_allocations (NULL, &error);
  g_assert_null (got);
  g_assert_error (error, JMEM_ERROR, JMEM_ERROR_FAILED);
  g_assert_nonnull (strstr (error->message, "not a sealed memfd"));
  g_assert_cmpuint (s->typed_calls, ==, 0);
  stand_in_stop (s);
}

/* GetNvMapMapsSnapshot: maps parsed from the sealed memfd, the pool and
 * free_size from the info; a helper without the method says so by name. */
static void
test_maps (void)
{
  JmemNvmapExtras extras = JMEM_NVMAP_EXTRAS_INIT;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  StandIn *s = stand_in_start (HELPER_SEALED);

  g_assert_true (jmem_helper_get_nvmap_extras (NULL, &extras, &text, &error));
  g_assert_no_error (error);
  g_assert_nonnull (extras.maps);
  g_assert_cmpuint (extras.maps->clients->len, ==, 3);
  g_assert_cmpint (extras.pool_pages, ==, 3072);
  g_assert_cmpint (extras.pool_to_zero, ==, 72);
  g_assert_cmpint (extras.page_size, ==, 4096);
  g_assert_cmpint (extras.free_size_bytes, ==, G_GINT64_CONSTANT (6442450944));
  g_assert_nonnull (strstr (text, "deepstream-app"));
  g_assert_cmpuint (s->maps_calls, ==, 1);
  jmem_nvmap_extras_clear (&extras);
  stand_in_stop (s);

  s = stand_in_start (HELPER_UNSEALED);
  g_assert_false (jmem_helper_get_nvmap_extras (NULL, &extras, NULL, &error));
  g_assert_error (error, JMEM_ERROR, JMEM_ERROR_FAILED);
  g_assert_nonnull (strstr (error->message, "not a sealed memfd"));
  g_clear_error (&error);
  stand_in_stop (s);

  s = stand_in_start (HELPER_OLD);
  g_assert_false (jmem_helper_get_nvmap_extras (NULL, &extras, NULL, &error));
  g_assert_error (error, G_DBUS_ERROR, G_DBUS_ERROR_UNKNOWN_METHOD);
  g_assert_null (extras.maps);
  stand_in_stop (s);
}

int
main (int argc, char **argv)
{
  g_autoptr(GTestDBus) bus = NULL;
  int status;

  g_test_init (&argc, &argv, NULL);
  bus = g_test_dbus_new (G_TEST_DBUS_NONE);
  g_test_dbus_up (bus);
  /* The client talks to the system bus: make it this private one. */
  g_setenv ("DBUS_SYSTEM_BUS_ADDRESS", g_test_dbus_get_bus_address (bus), TRUE);

  g_test_add_func ("/helper-client/snapshot/old-helper", test_old_helper_typed_reply);
  g_test_add_func ("/helper-client/snapshot/sealed", test_sealed_snapshot);
  g_test_add_func ("/helper-client/snapshot/unsealed-refused", test_unsealed_snapshot_refused);
  g_test_add_func ("/helper-client/maps", test_maps);
  status = g_test_run ();
  g_test_dbus_down (bus);
  return status;
}
