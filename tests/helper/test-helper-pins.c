/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What one account can pin with the snapshot descriptors the helper hands
 * out: a caller that keeps every descriptor of 30 snapshots open holds at
 * most JMEM_SNAPSHOT_PINS_MAX_PER_UID bytes of memfds, the calls beyond
 * are refused with RateLimited, and closing them frees the room again. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gio/gio.h>
#include <glib/gstdio.h>

#include "jmem-error.h"
#include "jmem-helper-snapshot.h"
#include "jmem-snapshot-pins.h"
#include "jmem-test.h"

/* A quarter of the largest file: the bound holds twelve of them. */
#define FILE_BYTES (JMEM_MAX_DEBUGFS_BYTES / 4)
#define CALLS      30
#define PATIENCE_S 30

typedef struct {
  JmemSealedFile *snapshot;
  gboolean        done;
} Read;

static void
on_read (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Read *r = user_data;
  g_autoptr(GError) error = NULL;

  r->snapshot = jmem_sealed_reader_get_finish (result, &error);
  g_assert_no_error (error);
  r->done = TRUE;
}

/* A new read of the file, as each call of the helper makes one. */
static JmemSealedFile *
read_one (JmemSealedReader *reader)
{
  Read r = { NULL, FALSE };

  jmem_sealed_reader_get_async (reader, on_read, &r);
  while (!r.done)
    g_main_context_iteration (NULL, TRUE);
  return r.snapshot;
}

static void
close_all (GArray *fds)
{
  for (guint i = 0; i < fds->len; i++)
    close (g_array_index (fds, int, i));
  g_array_set_size (fds, 0);
}

static void
wait_unpinned (JmemSnapshotPins *pins, gint64 uid)
{
  gint64 deadline = g_get_monotonic_time () + PATIENCE_S * G_USEC_PER_SEC;

  while (jmem_snapshot_pins_bytes (pins, uid) > 0 && g_get_monotonic_time () < deadline)
    if (!g_main_context_iteration (NULL, FALSE))
      g_usleep (10 * 1000);
  g_assert_cmpuint (jmem_snapshot_pins_bytes (pins, uid), ==, 0);
}

static void
test_bound (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = NULL;
  g_autofree char *data = g_malloc (FILE_BYTES);
  g_autoptr(JmemSealedReader) reader = NULL;
  g_autoptr(JmemSnapshotPins) pins = jmem_snapshot_pins_new (JMEM_SNAPSHOT_PINS_MAX_PER_UID, &error);
  g_autoptr(GArray) fds = g_array_new (FALSE, FALSE, sizeof (int));
  g_autoptr(GArray) other = g_array_new (FALSE, FALSE, sizeof (int));
  guint refused = 0;
  int fd;

  g_assert_no_error (error);
  fd = g_file_open_tmp ("jmem-test-pins-XXXXXX", &path, &error);
  g_assert_no_error (error);
  memset (data, 'x', FILE_BYTES);
  for (gsize i = 79; i < FILE_BYTES; i += 80)
    data[i] = '\n';
  g_assert_true (g_file_set_contents (path, data, FILE_BYTES, &error));
  close (fd);
  reader = jmem_sealed_reader_new (path, JMEM_MAX_DEBUGFS_BYTES, JMEM_NVMAP_TABLE_ALLOCATIONS,
                                   JMEM_NVMAP_REDACT_UIDS);

  /* one account that keeps every descriptor */
  for (guint i = 0; i < CALLS; i++)
    {
      g_autoptr(JmemSealedFile) snapshot = read_one (reader);
      g_autoptr(GError) call_error = NULL;

      fd = jmem_snapshot_pins_open (pins, snapshot, 1000, &call_error);
      if (fd < 0)
        {
          g_assert_error (call_error, JMEM_ERROR, JMEM_ERROR_RATE_LIMITED);
          if (refused++ == 0)
            g_test_message ("call %u: %s", i + 1, call_error->message);
          g_assert_nonnull (strstr (call_error->message, "96.0 MiB"));
          continue;
        }
      g_assert_no_error (call_error);
      g_array_append_val (fds, fd);
      if (i > 0)
        continue;

      /* the same read again costs this account nothing more */
      fd = jmem_snapshot_pins_open (pins, snapshot, 1000, &call_error);
      g_assert_no_error (call_error);
      g_array_append_val (fds, fd);
      g_assert_cmpuint (jmem_test_fds_distinct_bytes (fds), ==, FILE_BYTES);

      /* another account given the same read gets a memfd of its own: it
       * cannot keep the first one's pinned */
      fd = jmem_snapshot_pins_open (pins, snapshot, 1001, &call_error);
      g_assert_no_error (call_error);
      g_array_append_val (other, fd);
      g_array_append_val (other, g_array_index (fds, int, 0));
      g_assert_cmpuint (jmem_test_fds_distinct_bytes (other), ==, 2 * FILE_BYTES);
      g_array_set_size (other, 1);
    }
  g_test_message ("%u descriptors kept, %u calls refused: they pin %" G_GUINT64_FORMAT
                  " bytes (bound %" G_GUINT64_FORMAT ")", fds->len, refused, jmem_test_fds_distinct_bytes (fds),
                  (guint64) JMEM_SNAPSHOT_PINS_MAX_PER_UID);
  g_assert_cmpuint (fds->len, ==, JMEM_SNAPSHOT_PINS_MAX_PER_UID / FILE_BYTES + 1);
  g_assert_cmpuint (jmem_test_fds_distinct_bytes (fds), <=, JMEM_SNAPSHOT_PINS_MAX_PER_UID);
  g_assert_cmpuint (jmem_test_fds_distinct_bytes (fds), ==, jmem_snapshot_pins_bytes (pins, 1000));
  g_assert_cmpuint (refused, ==, CALLS - (fds->len - 1));
  g_assert_cmpuint (jmem_test_fds_distinct_bytes (other), ==, FILE_BYTES);
  g_assert_cmpuint (jmem_snapshot_pins_bytes (pins, 1001), ==, FILE_BYTES);
  g_assert_true (jmem_snapshot_pins_any (pins));

  /* closed, they pin nothing, and the account may call again */
  close_all (fds);
  wait_unpinned (pins, 1000);
  {
    g_autoptr(JmemSealedFile) snapshot = read_one (reader);

    fd = jmem_snapshot_pins_open (pins, snapshot, 1000, &error);
    g_assert_no_error (error);
    g_array_append_val (fds, fd);
  }
  close_all (fds);
  close_all (other);
  wait_unpinned (pins, 1000);
  wait_unpinned (pins, 1001);
  g_assert_false (jmem_snapshot_pins_any (pins));
  g_unlink (path);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/helper/pins/bound", test_bound);
  return g_test_run ();
}
