/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The helper's reading of iovmm/allocations: the UID column zeroed however
 * the file arrives in pieces, a sealed memfd, the size cap, and calls made
 * while a read runs answered by that read. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gio/gio.h>

#include "jmem-test.h"

#include "jmem-error.h"
#include "jmem-file.h"
#include "jmem-helper-snapshot.h"
#include "jmem-nvmap.h"
#include "nvmap-redact-check.h"

static char *
fixture (const char *name, gsize *len)
{
  g_autofree char *path = jmem_test_fixture ("nvmap", name, NULL);
  g_autoptr(GError) error = NULL;
  char *data = NULL;

  g_assert_true (jmem_file_read_capped (path, 1 << 24, &data, len, &error));
  g_assert_no_error (error);
  return data;
}

/* The parser reads the same rows from the filtered file, and no UID it had
 * is left in it. */
static void
check_filtered (const char *name, const char *const *uids)
{
  g_autofree char *data = NULL;
  gsize len = 0;
  const gsize pieces[] = { 1, 7, 59, 4096, 1 << 20 };

  data = fixture (name, &len);
  for (gsize p = 0; p < G_N_ELEMENTS (pieces); p++)
    {
      g_autoptr(GByteArray) out = jmem_nvmap_redact_in_pieces (JMEM_NVMAP_TABLE_ALLOCATIONS,
                                                               JMEM_NVMAP_REDACT_UIDS,
                                                               data, len, pieces[p]);
      g_autoptr(JmemNvmapAllocations) before = NULL;
      g_autoptr(JmemNvmapAllocations) after = NULL;
      g_autoptr(GError) error = NULL;
      g_autofree char *text = NULL;

      g_assert_cmpuint (out->len, ==, len);
      text = g_strndup ((const char *) out->data, out->len);
      for (gsize i = 0; uids[i] != NULL; i++)
        {
          g_assert_nonnull (strstr (data, uids[i]));
          g_assert_null (strstr (text, uids[i]));
        }
      for (gsize i = 0; i < len; i++)
        if (text[i] != data[i])
          g_assert_cmpint (text[i], ==, '0');

      before = jmem_nvmap_allocations_parse (data, len, &error);
      g_assert_no_error (error);
      after = jmem_nvmap_allocations_parse (text, out->len, &error);
      g_assert_no_error (error);
      g_assert_cmpuint (after->clients->len, ==, before->clients->len);
      g_assert_cmpuint (after->n_malformed, ==, before->n_malformed);
      for (guint i = 0; i < before->clients->len; i++)
        {
          JmemNvmapClientHandles *b = g_ptr_array_index (before->clients, i);
          JmemNvmapClientHandles *a = g_ptr_array_index (after->clients, i);

          g_assert_cmpuint (a->handles->len, ==, b->handles->len);
          for (guint j = 0; j < b->handles->len; j++)
            g_assert_cmpstr (((JmemNvmapHandle *) g_ptr_array_index (a->handles, j))->tag, ==,
                             ((JmemNvmapHandle *) g_ptr_array_index (b->handles, j))->tag);
        }
    }
}

static void
test_uid_zeroed (void)
{
  const char *r38[] = { "ffff0000a1b2c3d4", NULL };
  const char *old[] = { "e1b2c3d4", NULL };
  const char *hostile[] = { "ffff0000a1b2c3d4", "ffff0000a1b2c400", NULL };
  const char *header_in_name[] = { "ffff0000a1b2c3d4", "ffff0000a1b2c400", "ffff0000a1b2c480",
                                   NULL };

  check_filtered ("allocations.rendered-r38-hugetlbfs.txt", r38);
  check_filtered ("allocations.rendered-old-7col.txt", old);
  check_filtered ("allocations.hostile-tags.txt", hostile);
  check_filtered ("allocations.hostile-header-in-name.txt", header_in_name);
}

/* A line longer than a piece (a tag of 10000 bytes) has its UID zeroed,
 * and its tag passes whole. */
static void
test_long_tag (void)
{
  g_autoptr(GString) file = g_string_new (
    "CLIENT                        PROCESS      PID        SIZE\n"
    "                                          BASE        SIZE    FLAGS   REFS  DUPES   PINS  KMAPS  UMAPS  SHARE      UID\n"
    "user                             Xorg     1731          4K\n"
    "                                             0          4K 10120001      2      1      0      0      1      1 abcdef0123456789 ");
  g_autoptr(GByteArray) out = NULL;
  g_autofree char *text = NULL;

  for (int i = 0; i < 10000; i++)
    g_string_append_c (file, "abcdef"[i % 6]);
  g_string_append (file, "\n\ntotal                                                   4K\n");

  out = jmem_nvmap_redact_in_pieces (JMEM_NVMAP_TABLE_ALLOCATIONS, JMEM_NVMAP_REDACT_UIDS,
                                     file->str, file->len, 1000);
  text = g_strndup ((const char *) out->data, out->len);
  g_assert_cmpuint (out->len, ==, file->len);
  g_assert_null (strstr (text, "abcdef0123456789"));
  g_assert_nonnull (strstr (text, " 0000000000000000 abcdefabcdef"));
  g_assert_cmpstr (text + file->len - 60, ==, file->str + file->len - 60);
}

typedef struct {
  GMainLoop    *loop;
  guint         pending;
  JmemSealedFile *snapshots[2];
  GError       *errors[2];
} Waiting;

static void
on_snapshot (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Waiting *w = user_data;
  guint i = w->snapshots[0] == NULL && w->errors[0] == NULL ? 0 : 1;

  w->snapshots[i] = jmem_sealed_reader_get_finish (result, &w->errors[i]);
  if (--w->pending == 0)
    g_main_loop_quit (w->loop);
}

/* With @fifo, the read waits for its writer: all @n calls are made before
 * anything is written. */
static void
get_snapshots (JmemSealedReader *reader, Waiting *w, guint n,
               const char *fifo, const char *data, gsize len)
{
  memset (w, 0, sizeof *w);
  w->loop = g_main_loop_new (NULL, FALSE);
  w->pending = n;
  for (guint i = 0; i < n; i++)
    jmem_sealed_reader_get_async (reader, on_snapshot, w);
  if (fifo != NULL)
    {
      int fd = open (fifo, O_WRONLY | O_CLOEXEC);

      g_assert_cmpint (fd, >=, 0);
      g_assert_cmpint (write (fd, data, len), ==, (gssize) len);
      close (fd);
    }
  g_main_loop_run (w->loop);
  g_main_loop_unref (w->loop);
}

static void
waiting_clear (Waiting *w)
{
  for (guint i = 0; i < 2; i++)
    {
      g_clear_pointer (&w->snapshots[i], jmem_sealed_file_unref);
      g_clear_error (&w->errors[i]);
    }
}

static void
test_reader (void)
{
  g_autofree char *dir = jmem_test_make_tmp ("jmem-snapshot-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "allocations", NULL);
  g_autofree char *missing = g_build_filename (dir, "missing", NULL);
  g_autofree char *data = NULL;
  g_autofree char *back = NULL;
  g_autoptr(JmemSealedReader) reader = NULL;
  g_autoptr(JmemSealedReader) small = NULL;
  g_autoptr(JmemSealedReader) absent = NULL;
  const int seals = F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL;
  Waiting w;
  gsize len = 0;
  int ro;

  data = fixture ("allocations.rendered-r36-format.txt", &len);
  g_assert_cmpint (mkfifo (path, 0600), ==, 0);

  /* Two calls while the read waits: one read answers both. */
  reader = jmem_sealed_reader_new (path, 1 << 20, JMEM_NVMAP_TABLE_ALLOCATIONS,
                                   JMEM_NVMAP_REDACT_UIDS);
  get_snapshots (reader, &w, 2, path, data, len);
  g_assert_no_error (w.errors[0]);
  g_assert_no_error (w.errors[1]);
  g_assert_true (w.snapshots[0] == w.snapshots[1]);
  g_assert_cmpuint (w.snapshots[0]->read_id, ==, 1);
  g_assert_cmpuint (w.snapshots[0]->shared_by, ==, 2);
  g_assert_cmpuint (w.snapshots[0]->size, ==, len);
  g_assert_cmpint (fcntl (w.snapshots[0]->fd, F_GET_SEALS), ==, seals);

  ro = jmem_sealed_file_open_readonly (w.snapshots[0], NULL);
  g_assert_cmpint (ro, >=, 0);
  g_assert_cmpint (fcntl (ro, F_GETFL) & O_ACCMODE, ==, O_RDONLY);
  back = g_malloc0 (len + 1);
  g_assert_cmpint (pread (ro, back, len, 0), ==, (gssize) len);
  g_assert_cmpstr (back, ==, data);  /* its UIDs are 0 already */
  close (ro);
  waiting_clear (&w);

  /* A later call reads again. */
  g_assert_cmpint (unlink (path), ==, 0);
  g_assert_true (g_file_set_contents (path, data, (gssize) len, NULL));
  get_snapshots (reader, &w, 1, NULL, NULL, 0);
  g_assert_no_error (w.errors[0]);
  g_assert_cmpuint (w.snapshots[0]->read_id, ==, 2);
  g_assert_cmpuint (w.snapshots[0]->shared_by, ==, 1);
  waiting_clear (&w);

  small = jmem_sealed_reader_new (path, len - 1, JMEM_NVMAP_TABLE_ALLOCATIONS,
                                  JMEM_NVMAP_REDACT_UIDS);
  get_snapshots (small, &w, 1, NULL, NULL, 0);
  g_assert_error (w.errors[0], JMEM_ERROR, JMEM_ERROR_TOO_LARGE);
  waiting_clear (&w);

  absent = jmem_sealed_reader_new (missing, 1 << 20, JMEM_NVMAP_TABLE_ALLOCATIONS,
                                   JMEM_NVMAP_REDACT_UIDS);
  get_snapshots (absent, &w, 2, NULL, NULL, 0);
  g_assert_error (w.errors[0], JMEM_ERROR, JMEM_ERROR_NOT_AVAILABLE);
  g_assert_error (w.errors[1], JMEM_ERROR, JMEM_ERROR_NOT_AVAILABLE);
  g_assert_nonnull (strstr (w.errors[0]->message, missing));
  waiting_clear (&w);

  g_assert_cmpint (unlink (path), ==, 0);
  g_assert_cmpint (rmdir (dir), ==, 0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/helper/snapshot/uid-zeroed", test_uid_zeroed);
  g_test_add_func ("/helper/snapshot/long-tag", test_long_tag);
  g_test_add_func ("/helper/snapshot/reader", test_reader);
  return g_test_run ();
}
