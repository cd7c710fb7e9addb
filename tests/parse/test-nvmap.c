/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The NvMap debugfs parsers on real captures, kernel-format renderings and
 * hostile input (fixtures/nvmap/README.md says which is which). */
#include <string.h>

#include <glib.h>

#include "jmem-test.h"

#include "jmem-error.h"
#include "jmem-nvmap.h"

static char *
load (const char *name, gsize *len)
{
  g_autofree char *path = jmem_test_fixture ("nvmap", name, NULL);
  g_autoptr(GError) error = NULL;
  char *data = NULL;

  g_file_get_contents (path, &data, len, &error);
  g_assert_no_error (error);
  return data;
}

static JmemNvmapClients *
parse_clients_fixture (const char *name)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *data = NULL;
  JmemNvmapClients *clients;
  gsize len;

  data = load (name, &len);
  clients = jmem_nvmap_clients_parse (data, len, &error);
  g_assert_no_error (error);
  g_assert_nonnull (clients);
  return clients;
}

static JmemNvmapAllocations *
parse_allocations_fixture (const char *name)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *data = NULL;
  JmemNvmapAllocations *allocations;
  gsize len;

  data = load (name, &len);
  allocations = jmem_nvmap_allocations_parse (data, len, &error);
  g_assert_no_error (error);
  g_assert_nonnull (allocations);
  return allocations;
}

static void
assert_row (const JmemNvmapClient *c,
            const char            *client,
            const char            *process,
            guint32                pid,
            guint64                size_kib)
{
  g_assert_cmpstr (c->client, ==, client);
  g_assert_cmpstr (c->process, ==, process);
  g_assert_cmpuint (c->pid, ==, pid);
  g_assert_cmpuint (c->size_kib, ==, size_kib);
  g_assert_true (g_utf8_validate (c->process, -1, NULL));
}

#define ROW(list, i) ((const JmemNvmapClient *) g_ptr_array_index ((list)->clients, (i)))

static guint64
row_sum (const JmemNvmapClients *clients)
{
  guint64 sum = 0;

  for (guint i = 0; i < clients->clients->len; i++)
    sum += ROW (clients, i)->size_kib;
  return sum;
}

static void
test_clients_gimbal (void)
{
  g_autoptr(JmemNvmapClients) c = parse_clients_fixture ("clients.gimbal-testdata.txt");

  g_assert_cmpuint (c->clients->len, ==, 4);
  assert_row (ROW (c, 0), "user", "gem", 4481, 118372);
  assert_row (ROW (c, 1), "user", "gnome-shell", 2831, 5384);
  assert_row (ROW (c, 2), "user", "Xorg", 1731, 18140);
  assert_row (ROW (c, 3), "user", "nvargus-daemon", 1012, 0);
  g_assert_true (c->has_total);
  g_assert_cmpuint (c->total_kib, ==, 141896);
  g_assert_cmpuint (c->n_malformed, ==, 0);
  g_assert_cmpint (c->layout, ==, JMEM_NVMAP_LAYOUT_KERNEL);
}

static void
test_clients_r36_kernel_client (void)
{
  g_autoptr(JmemNvmapClients) c = parse_clients_fixture ("clients.rendered-r36-format.txt");

  g_assert_cmpuint (c->clients->len, ==, 4);
  assert_row (ROW (c, 0), "user", "Xorg", 1731, 18140);
  assert_row (ROW (c, 1), "user", "gnome-shell", 2831, 5384);
  assert_row (ROW (c, 2), "user", "VLLM::EngineCor", 1792595, 14617792);
  assert_row (ROW (c, 3), "nvmap-kclient", "kernel", 0, 1024);
  g_assert_true (c->has_total);
  g_assert_cmpuint (c->total_kib, ==, 14642340);
  g_assert_cmpuint (c->n_malformed, ==, 0);
  g_assert_cmpint (c->layout, ==, JMEM_NVMAP_LAYOUT_KERNEL);
}

static void
test_clients_doc_loose (void)
{
  g_autoptr(JmemNvmapClients) c = parse_clients_fixture ("clients.doc-example-not-kernel-aligned.txt");

  g_assert_cmpuint (c->clients->len, ==, 3);
  assert_row (ROW (c, 0), "user", "gnome-shell", 1543, 220);
  assert_row (ROW (c, 1), "user", "Xorg", 1234, 180);
  assert_row (ROW (c, 2), "user", "vlm-server", 4321, 524288);
  g_assert_true (c->has_total);
  g_assert_cmpuint (c->total_kib, ==, 524688);
  g_assert_cmpuint (c->n_malformed, ==, 0);
  g_assert_cmpint (c->layout, ==, JMEM_NVMAP_LAYOUT_LOOSE);
}

static void
test_clients_bad (void)
{
  g_autoptr(JmemNvmapClients) c = parse_clients_fixture ("clients.gimbal-testdata-bad.txt");

  /* Four rows without SIZE and a total without a number. */
  g_assert_cmpuint (c->clients->len, ==, 0);
  g_assert_false (c->has_total);
  g_assert_cmpuint (c->n_malformed, ==, 5);
  g_assert_cmpint (c->layout, ==, JMEM_NVMAP_LAYOUT_UNKNOWN);
}

static void
test_clients_old_note (void)
{
  g_autoptr(JmemNvmapClients) c = parse_clients_fixture ("clients.rendered-old-note.txt");

  g_assert_cmpuint (c->clients->len, ==, 1);
  assert_row (ROW (c, 0), "user", "Xorg", 1234, 18140);
  g_assert_true (c->has_total);
  g_assert_cmpuint (c->total_kib, ==, 18140);
  g_assert_cmpuint (c->n_malformed, ==, 0);
  g_assert_cmpint (c->layout, ==, JMEM_NVMAP_LAYOUT_KERNEL_NOTE);
}

static void
test_clients_rows_do_not_add_up (void)
{
  g_autoptr(JmemNvmapClients) c = parse_clients_fixture ("clients.rendered-shared.txt");

  g_assert_cmpuint (c->clients->len, ==, 2);
  assert_row (ROW (c, 0), "user", "producer", 3001, 4096);
  assert_row (ROW (c, 1), "user", "consumer", 3002, 4096);
  /* The total is the kernel's, not a sum of the rows. */
  g_assert_cmpuint (row_sum (c), ==, 8192);
  g_assert_cmpuint (c->total_kib, ==, 9216);
}

static void
test_clients_comm_spaces (void)
{
  g_autoptr(JmemNvmapClients) c = parse_clients_fixture ("clients.hostile-comm-spaces.txt");

  g_assert_cmpuint (c->clients->len, ==, 2);
  assert_row (ROW (c, 0), "user", "my app  v2", 4242, 1024);
  assert_row (ROW (c, 1), "user", "a b c d e f g h", 4243, 2048);
  g_assert_cmpuint (c->total_kib, ==, 3072);
  g_assert_cmpuint (c->n_malformed, ==, 0);
}

static void
test_clients_comm_newline (void)
{
  g_autoptr(JmemNvmapClients) c = parse_clients_fixture ("clients.hostile-comm-newline.txt");

  /* No phantom PID 1 holding 999K; PID 4242 keeps its 100K. */
  g_assert_cmpuint (c->clients->len, ==, 2);
  assert_row (ROW (c, 0), "user", "a\nuser 1 999K", 4242, 100);
  assert_row (ROW (c, 1), "user", "Xorg", 1731, 18140);
  g_assert_cmpuint (c->total_kib, ==, 18240);
  g_assert_cmpuint (c->n_malformed, ==, 0);
  g_assert_cmpint (c->layout, ==, JMEM_NVMAP_LAYOUT_KERNEL);
}

static void
test_clients_comm_invalid_utf8 (void)
{
  g_autoptr(JmemNvmapClients) c = parse_clients_fixture ("clients.hostile-comm-invalid-utf8.txt");

  g_assert_cmpuint (c->clients->len, ==, 2);
  assert_row (ROW (c, 0), "user", "\357\277\275\357\277\275bad\357\277\275", 5001, 64);
  assert_row (ROW (c, 1), "user", "caf\303\251", 5002, 32);
  g_assert_cmpuint (c->total_kib, ==, 96);
}

static void
test_clients_comm_numbers (void)
{
  g_autoptr(JmemNvmapClients) c = parse_clients_fixture ("clients.hostile-comm-numbers.txt");

  g_assert_cmpuint (c->clients->len, ==, 3);
  assert_row (ROW (c, 0), "user", "1 2K", 7001, 10);
  /* Leading spaces of a comm cannot be told from the column's padding. */
  assert_row (ROW (c, 1), "user", "123  456K", 7002, 20);
  assert_row (ROW (c, 2), "user", "7003 999999K", 7003, 30);
  g_assert_cmpuint (c->total_kib, ==, 60);
  g_assert_cmpuint (c->n_malformed, ==, 0);
}

static void
test_clients_truncated (void)
{
  g_autoptr(JmemNvmapClients) c = parse_clients_fixture ("clients.hostile-truncated.txt");

  g_assert_cmpuint (c->clients->len, ==, 1);
  assert_row (ROW (c, 0), "user", "gem", 4481, 118372);
  g_assert_false (c->has_total);
  g_assert_cmpuint (c->n_malformed, ==, 1);
}

static void
test_clients_wide_size (void)
{
  g_autoptr(JmemNvmapClients) c = parse_clients_fixture ("clients.hostile-wide-size.txt");

  g_assert_cmpuint (c->clients->len, ==, 2);
  assert_row (ROW (c, 0), "user", "big", 9001, G_GUINT64_CONSTANT (1234567890));
  assert_row (ROW (c, 1), "user", "bigger", 9002, G_GUINT64_CONSTANT (12345678901));
  g_assert_true (c->has_total);
  g_assert_cmpuint (c->total_kib, ==, G_GUINT64_CONSTANT (13580246791));
  g_assert_cmpuint (c->n_malformed, ==, 0);
  g_assert_cmpint (c->layout, ==, JMEM_NVMAP_LAYOUT_KERNEL);
}

static void
assert_clients_refused (const char *data, gsize len)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JmemNvmapClients) c = jmem_nvmap_clients_parse (data, len, &error);

  g_assert_null (c);
  g_assert_error (error, JMEM_ERROR, JMEM_ERROR_FAILED);
  g_assert_nonnull (strstr (error->message, "iovmm/clients"));
}

static void
test_clients_not_nvmap (void)
{
  g_autofree char *empty = NULL, *garbage = NULL;
  gsize len;

  empty = load ("clients.hostile-empty.txt", &len);
  assert_clients_refused (empty, len);
  garbage = load ("clients.hostile-garbage.bin", &len);
  assert_clients_refused (garbage, len);
  assert_clients_refused ("hello\nworld\n", 12);
}

static void
test_clients_overflow (void)
{
  const char *data =
    "CLIENT PROCESS PID SIZE\n"
    "user big 4294967296 1K\n"
    "user big 4242 18446744073709551616K\n"
    "user small 4243 18446744073709551615K\n";
  g_autoptr(GError) error = NULL;
  g_autoptr(JmemNvmapClients) c = jmem_nvmap_clients_parse (data, strlen (data), &error);

  /* A PID above 32 bits and a size above 64 bits are damage, not rows;
   * the largest 64-bit size is still a number. */
  g_assert_no_error (error);
  g_assert_cmpuint (c->clients->len, ==, 1);
  assert_row (ROW (c, 0), "user", "small", 4243, G_MAXUINT64);
  g_assert_cmpuint (c->n_malformed, ==, 2);
}

static void
test_clients_many_rows (void)
{
  const guint n = 200000;
  g_autoptr(GString) data = g_string_new ("CLIENT                        PROCESS      PID        SIZE\n");
  g_autoptr(GError) error = NULL;
  g_autoptr(JmemNvmapClients) c = NULL;
  guint64 sum = 0;

  for (guint i = 0; i < n; i++)
    {
      g_string_append_printf (data, "%-18s %18s %8u %10uK\n", "user", "worker\n 1 1K", i + 1, i);
      sum += i;
    }
  g_string_append_printf (data, "%-18s %18s %8s %10" G_GUINT64_FORMAT "K\n", "total", "", "", sum);

  c = jmem_nvmap_clients_parse (data->str, data->len, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (c->clients->len, ==, n);
  assert_row (ROW (c, 0), "user", "worker\n 1 1K", 1, 0);
  assert_row (ROW (c, n - 1), "user", "worker\n 1 1K", n, n - 1);
  g_assert_cmpuint (row_sum (c), ==, sum);
  g_assert_cmpuint (c->total_kib, ==, sum);
  g_assert_cmpuint (c->n_malformed, ==, 0);
}

static void
test_clients_many_malformed (void)
{
  const guint n = 100000;
  g_autoptr(GString) data = g_string_new ("CLIENT                        PROCESS      PID        SIZE\n");
  g_autoptr(GError) error = NULL;
  g_autoptr(JmemNvmapClients) c = NULL;

  for (guint i = 0; i < n; i++)
    g_string_append (data, "user x\n");
  c = jmem_nvmap_clients_parse (data->str, data->len, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (c->clients->len, ==, 0);
  g_assert_cmpuint (c->n_malformed, ==, n);
}

#define HANDLE(ch, i) ((const JmemNvmapHandle *) g_ptr_array_index ((ch)->handles, (i)))
#define CH(a, i) ((const JmemNvmapClientHandles *) g_ptr_array_index ((a)->clients, (i)))

static void
assert_handle (const JmemNvmapHandle *h,
               guint64 base, guint64 size_kib, guint32 flags,
               guint32 refs, guint32 dupes, guint32 pins,
               guint32 kmaps, guint32 umaps, guint32 share,
               gint32 from_hugetlbfs, const char *tag)
{
  g_assert_cmphex (h->base, ==, base);
  g_assert_cmpuint (h->size_kib, ==, size_kib);
  g_assert_cmphex (h->flags, ==, flags);
  g_assert_cmpuint (h->refs, ==, refs);
  g_assert_cmpuint (h->dupes, ==, dupes);
  g_assert_cmpuint (h->pins, ==, pins);
  g_assert_cmpuint (h->kmaps, ==, kmaps);
  g_assert_cmpuint (h->umaps, ==, umaps);
  g_assert_cmpuint (h->share, ==, share);
  g_assert_cmpint (h->from_hugetlbfs, ==, from_hugetlbfs);
  g_assert_cmpstr (h->tag, ==, tag);
}

static void
test_allocations_r36 (void)
{
  g_autoptr(JmemNvmapAllocations) a = parse_allocations_fixture ("allocations.rendered-r36-format.txt");

  g_assert_cmpuint (a->clients->len, ==, 1);
  assert_row (CH (a, 0)->client, "user", "Xorg", 1731, 18140);
  g_assert_cmpuint (CH (a, 0)->handles->len, ==, 2);
  assert_handle (HANDLE (CH (a, 0), 0), 0, 8100, 0x10120001, 2, 1, 0, 0, 1, 1, -1, "");
  assert_handle (HANDLE (CH (a, 0), 1), 0, 10040, 0x10120001, 3, 1, 0, 0, 0, 2, -1, "");
  g_assert_true (a->has_total);
  g_assert_cmpuint (a->total_kib, ==, 18140);
  g_assert_cmpuint (a->n_malformed, ==, 0);
  g_assert_false (a->has_hugetlbfs_column);
  g_assert_true (a->has_map_columns);
  g_assert_cmpint (a->layout, ==, JMEM_NVMAP_LAYOUT_KERNEL);
}

static void
test_allocations_r38_hugetlbfs (void)
{
  g_autoptr(JmemNvmapAllocations) a = parse_allocations_fixture ("allocations.rendered-r38-hugetlbfs.txt");

  g_assert_true (a->has_hugetlbfs_column);
  g_assert_cmpuint (a->clients->len, ==, 2);
  assert_row (CH (a, 0)->client, "user", "VLLM::EngineCor", 1792595, 12288);
  g_assert_cmpuint (CH (a, 0)->handles->len, ==, 2);
  assert_handle (HANDLE (CH (a, 0), 0), 0, 4096, 0x10120001, 2, 1, 0, 0, 1, 1, 0, "");
  assert_handle (HANDLE (CH (a, 0), 1), G_GUINT64_CONSTANT (0x123456000), 8192, 0x10120001,
                 1, 1, 0, 0, 1, 1, 1, "cuda buffer");
  assert_row (CH (a, 1)->client, "nvhost", "kernel", 0, 64);
  g_assert_cmpuint (CH (a, 1)->handles->len, ==, 1);
  assert_handle (HANDLE (CH (a, 1), 0), 0x80000000, 64, 0, 1, 0, 0, 1, 0, 1, 0, "");
  g_assert_cmpuint (a->total_kib, ==, 12352);
  g_assert_cmpuint (a->n_malformed, ==, 0);
}

static void
test_allocations_old (void)
{
  g_autoptr(JmemNvmapAllocations) a = parse_allocations_fixture ("allocations.rendered-old-7col.txt");

  g_assert_false (a->has_map_columns);
  g_assert_false (a->has_hugetlbfs_column);
  g_assert_cmpuint (a->clients->len, ==, 1);
  assert_row (CH (a, 0)->client, "user", "Xorg", 1234, 18140);
  g_assert_cmpuint (CH (a, 0)->handles->len, ==, 1);
  assert_handle (HANDLE (CH (a, 0), 0), 0, 18140, 0x10120001, 1, 1, 0, 0, 0, 0, -1, "");
  g_assert_cmpuint (a->total_kib, ==, 18140);
  g_assert_cmpuint (a->n_malformed, ==, 0);
}

static void
test_allocations_hostile_tags (void)
{
  g_autoptr(JmemNvmapAllocations) a = parse_allocations_fixture ("allocations.hostile-tags.txt");

  /* The tag's second line is damage, never a client with PID 1. */
  g_assert_cmpuint (a->clients->len, ==, 1);
  assert_row (CH (a, 0)->client, "user", "gst-launch-1.0", 4242, 8192);
  g_assert_cmpuint (CH (a, 0)->handles->len, ==, 2);
  assert_handle (HANDLE (CH (a, 0), 0), 0, 4096, 0x10120001, 2, 1, 0, 0, 1, 1, -1, "x");
  assert_handle (HANDLE (CH (a, 0), 1), 0, 4096, 0x10120001, 2, 1, 0, 0, 1, 1, -1,
                 "\357\277\275nv buf ");
  g_assert_cmpuint (a->n_malformed, ==, 1);
  g_assert_cmpuint (a->total_kib, ==, 8192);
}

static void
test_allocations_not_nvmap (void)
{
  g_autofree char *garbage = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JmemNvmapAllocations) a = NULL;
  gsize len;

  a = jmem_nvmap_allocations_parse ("", 0, &error);
  g_assert_null (a);
  g_assert_error (error, JMEM_ERROR, JMEM_ERROR_FAILED);
  g_clear_error (&error);

  garbage = load ("clients.hostile-garbage.bin", &len);
  a = jmem_nvmap_allocations_parse (garbage, len, &error);
  g_assert_null (a);
  g_assert_error (error, JMEM_ERROR, JMEM_ERROR_FAILED);
}

static void
test_allocations_orphan_handle (void)
{
  const char *data =
    "CLIENT                        PROCESS      PID        SIZE\n"
    "                                             0       4096K 10120001      2      1      0      0      1      1 ffff0000a1b2c3d4 \n"
    "total                                                4096K\n";
  g_autoptr(GError) error = NULL;
  g_autoptr(JmemNvmapAllocations) a = jmem_nvmap_allocations_parse (data, strlen (data), &error);

  /* A handle row before any client row belongs to nobody. */
  g_assert_no_error (error);
  g_assert_cmpuint (a->clients->len, ==, 0);
  g_assert_cmpuint (a->n_malformed, ==, 1);
  g_assert_true (a->has_total);
}

static void
test_allocations_bad_hugetlbfs (void)
{
  const char *data =
    "CLIENT                        PROCESS      PID        SIZE\n"
    "                                          BASE        SIZE    FLAGS   REFS  DUPES   PINS  KMAPS  UMAPS  SHARE      UID FROM_HUGETLBFS\n"
    "user                             Xorg     1731       8192K\n"
    "                                             0       4096K 10120001      2      1      0      0      1      1 ffff0000a1b2c3d4      1 \n"
    "                                             0       4096K 10120001      2      1      0      0      1      1 ffff0000a1b2c3d4      2 \n"
    "\n"
    "total                                                8192K\n";
  g_autoptr(GError) error = NULL;
  g_autoptr(JmemNvmapAllocations) a = jmem_nvmap_allocations_parse (data, strlen (data), &error);

  /* FROM_HUGETLBFS is a flag: 2 is damage. */
  g_assert_no_error (error);
  g_assert_cmpuint (CH (a, 0)->handles->len, ==, 1);
  g_assert_cmpint (HANDLE (CH (a, 0), 0)->from_hugetlbfs, ==, 1);
  g_assert_cmpuint (a->n_malformed, ==, 1);
}

static void
test_allocations_late_header (void)
{
  const char *data =
    "CLIENT                        PROCESS      PID        SIZE\n"
    "user                             Xorg     1731       4096K\n"
    "                                             0       4096K 10120001      2      1      0      0      1      1 ffff0000a1b2c3d4 \n"
    "                                          BASE        SIZE    FLAGS   REFS  DUPES   PINS  KMAPS  UMAPS  SHARE      UID FROM_HUGETLBFS\n"
    "\n"
    "total                                                4096K\n";
  g_autoptr(GError) error = NULL;
  g_autoptr(JmemNvmapAllocations) a = jmem_nvmap_allocations_parse (data, strlen (data), &error);

  /* A column header after the first handle cannot re-label that handle. */
  g_assert_no_error (error);
  g_assert_cmpuint (a->n_malformed, ==, 1);
  g_assert_false (a->has_hugetlbfs_column);
  g_assert_cmpuint (CH (a, 0)->handles->len, ==, 1);
  assert_handle (HANDLE (CH (a, 0), 0), 0, 4096, 0x10120001, 2, 1, 0, 0, 1, 1, -1, "");
}

static void
test_total_memory (void)
{
  const struct {
    const char *data;
    gboolean    ok;
    guint64     bytes;
  } cases[] = {
    { "669985280\n", TRUE, 669985280 },
    { "0", TRUE, 0 },
    { "18446744073709551615\n", TRUE, G_MAXUINT64 },
    { "18446744073709551616\n", FALSE, 0 },
    { "", FALSE, 0 },
    { "\n", FALSE, 0 },
    { "-1\n", FALSE, 0 },
    { "12 34\n", FALSE, 0 },
    { "669985280K\n", FALSE, 0 },
    { "0x10\n", FALSE, 0 },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      guint64 bytes = 42;
      gboolean ok = jmem_nvmap_total_memory_parse (cases[i].data, strlen (cases[i].data),
                                                   &bytes, &error);

      g_test_message ("case %" G_GSIZE_FORMAT ": \"%s\"", i, cases[i].data);
      g_assert_cmpint (ok, ==, cases[i].ok);
      if (ok)
        {
          g_assert_no_error (error);
          g_assert_cmpuint (bytes, ==, cases[i].bytes);
        }
      else
        {
          g_assert_error (error, JMEM_ERROR, JMEM_ERROR_FAILED);
          g_assert_true (g_utf8_validate (error->message, -1, NULL));
        }
    }
}

static void
test_total_memory_fixture_and_binary (void)
{
  g_autofree char *data = NULL;
  g_autoptr(GError) error = NULL;
  guint64 bytes = 0;
  gsize len;

  data = load ("stats-total_memory.txt", &len);
  g_assert_true (jmem_nvmap_total_memory_parse (data, len, &bytes, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (bytes, ==, 669985280);

  /* An embedded NUL and invalid UTF-8 are refused with a printable message. */
  g_assert_false (jmem_nvmap_total_memory_parse ("12\0\3774", 5, &bytes, &error));
  g_assert_error (error, JMEM_ERROR, JMEM_ERROR_FAILED);
  g_assert_true (g_utf8_validate (error->message, -1, NULL));
}

static const JmemNvmapClientMaps *
client_maps (const JmemNvmapMaps *maps, guint i)
{
  g_assert_cmpuint (i, <, maps->clients->len);
  return g_ptr_array_index (maps->clients, i);
}

static void
assert_vma (const JmemNvmapClientMaps *cm, guint i, guint64 start, guint64 end)
{
  g_assert_cmpuint (i, <, cm->vmas->len);
  g_assert_cmpuint (g_array_index (cm->vmas, JmemNvmapVma, i).start, ==, start);
  g_assert_cmpuint (g_array_index (cm->vmas, JmemNvmapVma, i).end, ==, end);
}

/* What the per-process double count fix reads: each client's mapped size
 * and the address ranges /proc/PID/smaps names. */
static void
test_maps_r36 (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *data = NULL;
  g_autoptr(JmemNvmapMaps) maps = NULL;
  gsize len;

  data = load ("maps.rendered-r36-format.txt", &len);
  maps = jmem_nvmap_maps_parse (data, len, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (maps->clients->len, ==, 3);
  g_assert_cmpuint (maps->n_malformed, ==, 0);
  g_assert_true (maps->has_total);
  g_assert_cmpuint (maps->total_kib, ==, 13376);
  g_assert_cmpint (maps->layout, ==, JMEM_NVMAP_LAYOUT_KERNEL);

  assert_row (client_maps (maps, 0)->client, "user", "deepstream-app", 4242, 12288);
  g_assert_cmpuint (client_maps (maps, 0)->n_handles, ==, 2);
  g_assert_cmpuint (client_maps (maps, 0)->mapped_kib, ==, 6144);
  g_assert_cmpuint (client_maps (maps, 0)->vmas->len, ==, 2);
  assert_vma (client_maps (maps, 0), 0, 0xffff8a000000, 0xffff8a200000);
  /* a short address: spaces on both sides of the dash */
  assert_vma (client_maps (maps, 0), 1, 0x7f00000, 0x8300000);

  assert_row (client_maps (maps, 1)->client, "user", "nvargus-daemon", 950, 1024);
  g_assert_cmpuint (client_maps (maps, 1)->mapped_kib, ==, 0);
  g_assert_cmpuint (client_maps (maps, 1)->vmas->len, ==, 0);
  assert_row (client_maps (maps, 2)->client, "nvhost", "kernel", 0, 64);
}

static void
test_maps_hostile (void)
{
  /* a VMA row before any handle, a reversed range, a handle row with a
   * word for its mapped size and a forged client row in the middle of a
   * line are counted, never read as numbers */
  static const char data[] =
    "CLIENT                        PROCESS      PID        SIZE\n"
    "user                             Xorg     1731      18140K\n"
    "                                                                                            ffff8a000000-ffff8a7e9000   8100K\n"
    "                                             0       8100K 10120001      1 0000000000000000                             lots\n"
    "                                             0       8100K 10120001      1 0000000000000000                             8100K\n"
    "                                                                                            ffff8a7e9000-ffff8a000000   8100K\n"
    "                                                                                            ffff8a000000-ffff8a7e9000   8100K\n"
    "\n"
    "total                                               18140K\n";
  g_autoptr(GError) error = NULL;
  g_autoptr(JmemNvmapMaps) maps = jmem_nvmap_maps_parse (data, sizeof data - 1, &error);

  g_assert_no_error (error);
  g_assert_cmpuint (maps->clients->len, ==, 1);
  g_assert_cmpuint (maps->n_malformed, ==, 3);
  g_assert_cmpuint (client_maps (maps, 0)->mapped_kib, ==, 8100);
  g_assert_cmpuint (client_maps (maps, 0)->vmas->len, ==, 1);
  assert_vma (client_maps (maps, 0), 0, 0xffff8a000000, 0xffff8a7e9000);

  g_assert_null (jmem_nvmap_maps_parse ("hello\n", 6, &error));
  g_assert_error (error, JMEM_ERROR, JMEM_ERROR_FAILED);
  g_clear_error (&error);
  g_assert_null (jmem_nvmap_maps_parse ("", 0, &error));
  g_assert_error (error, JMEM_ERROR, JMEM_ERROR_FAILED);
}

static void
test_free_size (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *ok = NULL, *bad = NULL;
  guint64 bytes = 0;
  gsize len;

  ok = load ("free_size.rendered.txt", &len);
  g_assert_true (jmem_nvmap_free_size_parse (ok, len, &bytes, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (bytes, ==, G_GUINT64_CONSTANT (6442450944));

  /* the kernel's own failure line is an error, never 0 bytes free */
  bad = load ("free_size.rendered-error.txt", &len);
  g_assert_false (jmem_nvmap_free_size_parse (bad, len, &bytes, &error));
  g_assert_error (error, JMEM_ERROR, JMEM_ERROR_FAILED);
  g_assert_nonnull (strstr (error->message, "Error while fetching"));
  g_clear_error (&error);
  g_assert_false (jmem_nvmap_free_size_parse ("Max allocatable IOVMM memory: -1 bytes\n", 39,
                                              &bytes, &error));
  g_clear_error (&error);
  g_assert_false (jmem_nvmap_free_size_parse ("Max allocatable IOVMM memory: 99999999999999999999 bytes\n",
                                              57, &bytes, &error));
  g_assert_error (error, JMEM_ERROR, JMEM_ERROR_FAILED);
}

static void
test_counter (void)
{
  g_autoptr(GError) error = NULL;
  guint64 v = 0;

  g_assert_true (jmem_nvmap_counter_parse ("3072\n", 5, &v, &error));
  g_assert_cmpuint (v, ==, 3072);
  g_assert_false (jmem_nvmap_counter_parse ("\x1b[2J\n", 5, &v, &error));
  g_assert_error (error, JMEM_ERROR, JMEM_ERROR_FAILED);
  g_assert_null (strchr (error->message, '\x1b'));
}

static void
test_layout_names (void)
{
  g_assert_cmpstr (jmem_nvmap_layout_to_string (JMEM_NVMAP_LAYOUT_KERNEL), ==, "kernel");
  g_assert_cmpstr (jmem_nvmap_layout_to_string (JMEM_NVMAP_LAYOUT_KERNEL_NOTE), ==, "kernel-note");
  g_assert_cmpstr (jmem_nvmap_layout_to_string (JMEM_NVMAP_LAYOUT_LOOSE), ==, "loose");
  g_assert_cmpstr (jmem_nvmap_layout_to_string (JMEM_NVMAP_LAYOUT_UNKNOWN), ==, "unknown");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/nvmap/clients/gimbal", test_clients_gimbal);
  g_test_add_func ("/nvmap/clients/r36-kernel-client", test_clients_r36_kernel_client);
  g_test_add_func ("/nvmap/clients/doc-loose", test_clients_doc_loose);
  g_test_add_func ("/nvmap/clients/bad", test_clients_bad);
  g_test_add_func ("/nvmap/clients/old-note", test_clients_old_note);
  g_test_add_func ("/nvmap/clients/rows-do-not-add-up", test_clients_rows_do_not_add_up);
  g_test_add_func ("/nvmap/clients/comm-spaces", test_clients_comm_spaces);
  g_test_add_func ("/nvmap/clients/comm-newline", test_clients_comm_newline);
  g_test_add_func ("/nvmap/clients/comm-invalid-utf8", test_clients_comm_invalid_utf8);
  g_test_add_func ("/nvmap/clients/comm-numbers", test_clients_comm_numbers);
  g_test_add_func ("/nvmap/clients/truncated", test_clients_truncated);
  g_test_add_func ("/nvmap/clients/wide-size", test_clients_wide_size);
  g_test_add_func ("/nvmap/clients/not-nvmap", test_clients_not_nvmap);
  g_test_add_func ("/nvmap/clients/overflow", test_clients_overflow);
  g_test_add_func ("/nvmap/clients/many-rows", test_clients_many_rows);
  g_test_add_func ("/nvmap/clients/many-malformed", test_clients_many_malformed);
  g_test_add_func ("/nvmap/allocations/r36", test_allocations_r36);
  g_test_add_func ("/nvmap/allocations/r38-hugetlbfs", test_allocations_r38_hugetlbfs);
  g_test_add_func ("/nvmap/allocations/old-7col", test_allocations_old);
  g_test_add_func ("/nvmap/allocations/hostile-tags", test_allocations_hostile_tags);
  g_test_add_func ("/nvmap/allocations/not-nvmap", test_allocations_not_nvmap);
  g_test_add_func ("/nvmap/allocations/orphan-handle", test_allocations_orphan_handle);
  g_test_add_func ("/nvmap/allocations/bad-hugetlbfs", test_allocations_bad_hugetlbfs);
  g_test_add_func ("/nvmap/allocations/late-header", test_allocations_late_header);
  g_test_add_func ("/nvmap/total-memory/cases", test_total_memory);
  g_test_add_func ("/nvmap/total-memory/fixture-and-binary", test_total_memory_fixture_and_binary);
  g_test_add_func ("/nvmap/maps/r36", test_maps_r36);
  g_test_add_func ("/nvmap/maps/hostile", test_maps_hostile);
  g_test_add_func ("/nvmap/free-size", test_free_size);
  g_test_add_func ("/nvmap/page-pool-counter", test_counter);
  g_test_add_func ("/nvmap/layout-names", test_layout_names);

  return g_test_run ();
}
