/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "jmem-helper-snapshot.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "jmem-error.h"
#include "jmem-file.h"
#include "jmem-nvmap-redact.h"

struct _JmemSealedReader {
  gatomicrefcount    ref;
  char              *path;
  gsize              max_bytes;
  JmemNvmapTableFile file;
  JmemNvmapRedact    redact;
  GMutex          lock;
  GPtrArray      *waiters;  /* GTask: the calls the read in flight answers */
  guint64         reads;
};

/* ---- snapshots ---------------------------------------------------------- */

typedef struct {
  JmemSealedFile   public;
  gatomicrefcount ref;
} Snapshot;

JmemSealedFile *
jmem_sealed_file_ref (JmemSealedFile *snapshot)
{
  g_atomic_ref_count_inc (&((Snapshot *) snapshot)->ref);
  return snapshot;
}

void
jmem_sealed_file_unref (JmemSealedFile *snapshot)
{
  if (snapshot == NULL || !g_atomic_ref_count_dec (&((Snapshot *) snapshot)->ref))
    return;
  if (snapshot->fd >= 0)
    close (snapshot->fd);
  g_free (snapshot);
}

int
jmem_sealed_file_open_readonly (JmemSealedFile  *snapshot,
                             GError       **error)
{
  g_autofree char *path = g_strdup_printf ("/proc/self/fd/%d", snapshot->fd);
  int fd = open (path, O_RDONLY | O_CLOEXEC);

  if (fd >= 0)
    return fd;
  /* No /proc here: a duplicate still refuses every write (F_SEAL_WRITE),
   * it only shares its offset, which readers leave alone (pread). */
  g_debug ("cannot reopen the snapshot read-only (%s): %s", path, g_strerror (errno));
  fd = fcntl (snapshot->fd, F_DUPFD_CLOEXEC, 3);
  if (fd < 0)
    {
      int saved = errno;
      g_set_error (error, JMEM_ERROR, JMEM_ERROR_FAILED,
                   "cannot pass the snapshot on: %s", g_strerror (saved));
    }
  return fd;
}

static const unsigned seals = F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL;

static Snapshot *
snapshot_new (GError **error)
{
  Snapshot *s = g_new0 (Snapshot, 1);

  g_atomic_ref_count_init (&s->ref);
  s->public.fd = memfd_create ("jmem-nvmap-snapshot", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (s->public.fd < 0)
    {
      int saved = errno;
      g_set_error (error, JMEM_ERROR, JMEM_ERROR_FAILED, "memfd_create: %s", g_strerror (saved));
      jmem_sealed_file_unref (&s->public);
      return NULL;
    }
  return s;
}

static gboolean
snapshot_seal (Snapshot  *s,
               GError   **error)
{
  if (fcntl (s->public.fd, F_ADD_SEALS, seals) == 0)
    return TRUE;
  {
    int saved = errno;
    g_set_error (error, JMEM_ERROR, JMEM_ERROR_FAILED, "cannot seal the snapshot: %s",
                 g_strerror (saved));
  }
  return FALSE;
}

JmemSealedFile *
jmem_sealed_file_copy (JmemSealedFile  *snapshot,
                       GError         **error)
{
  g_autofree char *chunk = g_malloc (64 * 1024);
  Snapshot *s = snapshot_new (error);
  gsize done = 0;

  if (s == NULL)
    return NULL;
  while (done < snapshot->size)
    {
      ssize_t n = pread (snapshot->fd, chunk, MIN (64 * 1024, snapshot->size - done), (off_t) done);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0 || !jmem_file_write_all (s->public.fd, chunk, (gsize) n))
        {
          int saved = n == 0 ? EIO : errno;
          g_set_error (error, JMEM_ERROR, JMEM_ERROR_FAILED, "cannot copy the snapshot: %s",
                       g_strerror (saved));
          jmem_sealed_file_unref (&s->public);
          return NULL;
        }
      done += (gsize) n;
    }
  if (!snapshot_seal (s, error))
    {
      jmem_sealed_file_unref (&s->public);
      return NULL;
    }
  s->public.size = snapshot->size;
  s->public.read_id = snapshot->read_id;
  s->public.shared_by = snapshot->shared_by;
  return &s->public;
}

static JmemSealedFile *
read_snapshot (const JmemSealedReader *reader,
               GError                **error)
{
  const char *path = reader->path;
  gsize max_bytes = reader->max_bytes;
  g_autoptr(GByteArray) held = g_byte_array_sized_new (64 * 1024);
  JmemNvmapRedactor redactor;
  Snapshot *s;
  gsize total = 0;
  int in, saved;

  in = open (path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
  if (in < 0)
    {
      saved = errno;
      if (saved == ENOENT)
        g_set_error (error, JMEM_ERROR, JMEM_ERROR_NOT_AVAILABLE,
                     "NvMap is not present on this kernel: %s does not exist "
                     "(no nvgpu NvMap, or debugfs not mounted)", path);
      else
        g_set_error (error, JMEM_ERROR, JMEM_ERROR_FAILED, "Cannot open %s: %s",
                     path, g_strerror (saved));
      return NULL;
    }

  s = snapshot_new (error);
  if (s == NULL)
    {
      close (in);
      return NULL;
    }

  /* What the caller must not see is taken out of each piece before it is
   * written: the file is never held whole, only the line a piece cuts. */
  jmem_nvmap_redactor_init (&redactor, reader->file, reader->redact);
  for (;;)
    {
      gsize was = held->len, used;
      ssize_t n;

      g_byte_array_set_size (held, (guint) (was + 64 * 1024));
      n = read (in, held->data + was, 64 * 1024);
      saved = errno;
      g_byte_array_set_size (held, (guint) (was + (n > 0 ? (gsize) n : 0)));
      if (n < 0 && saved == EINTR)
        continue;
      if (n < 0)
        {
          g_set_error (error, JMEM_ERROR, JMEM_ERROR_FAILED, "Cannot read %s: %s",
                       path, g_strerror (saved));
          goto fail;
        }
      total += (gsize) n;
      if (total > max_bytes)
        {
          g_set_error (error, JMEM_ERROR, JMEM_ERROR_TOO_LARGE,
                       "%s is larger than the %" G_GSIZE_FORMAT " bytes jmem accepts",
                       path, max_bytes);
          goto fail;
        }
      used = jmem_nvmap_redactor_feed (&redactor, (char *) held->data, held->len, n == 0);
      if (!jmem_file_write_all (s->public.fd, held->data, used))
        {
          saved = errno;
          g_set_error (error, JMEM_ERROR, JMEM_ERROR_FAILED, "cannot write the snapshot: %s",
                       g_strerror (saved));
          goto fail;
        }
      g_byte_array_remove_range (held, 0, (guint) used);
      if (n == 0)
        break;
    }

  if (!snapshot_seal (s, error))
    goto fail;
  close (in);
  s->public.size = total;
  return &s->public;

fail:
  close (in);
  jmem_sealed_file_unref (&s->public);
  return NULL;
}

/* ---- one read at a time -------------------------------------------------- */


static JmemSealedReader *
reader_ref (JmemSealedReader *reader)
{
  g_atomic_ref_count_inc (&reader->ref);
  return reader;
}

static void
reader_unref (JmemSealedReader *reader)
{
  if (!g_atomic_ref_count_dec (&reader->ref))
    return;
  g_ptr_array_unref (reader->waiters);
  g_mutex_clear (&reader->lock);
  g_free (reader->path);
  g_free (reader);
}

JmemSealedReader *
jmem_sealed_reader_new (const char         *path,
                        gsize               max_bytes,
                        JmemNvmapTableFile  file,
                        JmemNvmapRedact     redact)
{
  JmemSealedReader *reader = g_new0 (JmemSealedReader, 1);

  g_atomic_ref_count_init (&reader->ref);
  reader->path = g_strdup (path);
  reader->max_bytes = max_bytes;
  reader->file = file;
  reader->redact = redact;
  g_mutex_init (&reader->lock);
  reader->waiters = g_ptr_array_new ();
  return reader;
}

void
jmem_sealed_reader_free (JmemSealedReader *reader)
{
  if (reader != NULL)
    reader_unref (reader);  /* a read in flight keeps it until it ends */
}

static void
read_in_thread (GTask        *task,
                gpointer      source_object,
                gpointer      task_data,
                GCancellable *cancellable)
{
  JmemSealedReader *reader = task_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(JmemSealedFile) snapshot = read_snapshot (reader, &error);
  g_autoptr(GPtrArray) waiters = NULL;

  /* Calls that arrive from here on start the next read: this one's data
   * may already be older than they are. */
  g_mutex_lock (&reader->lock);
  waiters = g_steal_pointer (&reader->waiters);
  reader->waiters = g_ptr_array_new ();
  if (snapshot != NULL)
    {
      snapshot->read_id = ++reader->reads;
      snapshot->shared_by = waiters->len;
    }
  g_mutex_unlock (&reader->lock);

  for (guint i = 0; i < waiters->len; i++)
    {
      g_autoptr(GTask) waiter = g_ptr_array_index (waiters, i);

      if (snapshot != NULL)
        g_task_return_pointer (waiter, jmem_sealed_file_ref (snapshot),
                               (GDestroyNotify) jmem_sealed_file_unref);
      else
        g_task_return_error (waiter, g_error_copy (error));
    }
  g_task_return_boolean (task, TRUE);
}

void
jmem_sealed_reader_get_async (JmemSealedReader  *reader,
                                GAsyncReadyCallback  callback,
                                gpointer             user_data)
{
  GTask *waiter = g_task_new (NULL, NULL, callback, user_data);
  gboolean start;

  g_task_set_source_tag (waiter, jmem_sealed_reader_get_async);
  g_mutex_lock (&reader->lock);
  g_ptr_array_add (reader->waiters, waiter);
  start = reader->waiters->len == 1;
  g_mutex_unlock (&reader->lock);

  if (start)
    {
      g_autoptr(GTask) read = g_task_new (NULL, NULL, NULL, NULL);

      g_task_set_task_data (read, reader_ref (reader), (GDestroyNotify) reader_unref);
      g_task_run_in_thread (read, read_in_thread);
    }
}

JmemSealedFile *
jmem_sealed_reader_get_finish (GAsyncResult  *result,
                                 GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}
