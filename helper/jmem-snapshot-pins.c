/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "jmem-snapshot-pins.h"

#include <errno.h>
#include <glib-unix.h>
#include <sys/inotify.h>
#include <unistd.h>

#include "jmem-error.h"

/* One uid's memfd of a snapshot, by its inotify watch: the kernel gives one
 * watch per inode, so a second watch of the same memfd finds this one. */
typedef struct {
  gint64  uid;
  guint64 size;
} Pin;

struct _JmemSnapshotPins {
  GMutex      lock;
  guint64     max_per_uid;
  int         inotify_fd;
  guint       source_id;
  GHashTable *by_watch;  /* watch descriptor → Pin * */
  GHashTable *bytes;     /* gint64 * uid → guint64 *, while it pins any */
};

static void
uid_add (JmemSnapshotPins *pins,
         gint64            uid,
         gint64            delta)
{
  guint64 *bytes = g_hash_table_lookup (pins->bytes, &uid);

  if (bytes == NULL)
    {
      gint64 *key = g_new (gint64, 1);

      *key = uid;
      bytes = g_new0 (guint64, 1);
      g_hash_table_insert (pins->bytes, key, bytes);
    }
  *bytes += (guint64) delta;
  if (*bytes == 0)
    g_hash_table_remove (pins->bytes, &uid);
}

/* IN_IGNORED: the memfd's last descriptor and mapping are gone (its inode
 * is freed), and so is what it pinned. */
static gboolean
on_watch (gint         fd,
          GIOCondition condition,
          gpointer     user_data)
{
  JmemSnapshotPins *pins = user_data;
  char buf[4096] __attribute__ ((aligned (__alignof__ (struct inotify_event))));
  ssize_t n;

  while ((n = read (fd, buf, sizeof buf)) > 0)
    for (char *p = buf; p < buf + n; p += sizeof (struct inotify_event) + ((struct inotify_event *) p)->len)
      {
        const struct inotify_event *event = (const struct inotify_event *) p;
        Pin *pin;

        if (!(event->mask & IN_IGNORED))
          continue;
        g_mutex_lock (&pins->lock);
        pin = g_hash_table_lookup (pins->by_watch, GINT_TO_POINTER (event->wd));
        if (pin != NULL)
          {
            uid_add (pins, pin->uid, -(gint64) pin->size);
            g_hash_table_remove (pins->by_watch, GINT_TO_POINTER (event->wd));
          }
        g_mutex_unlock (&pins->lock);
      }
  return G_SOURCE_CONTINUE;
}

JmemSnapshotPins *
jmem_snapshot_pins_new (guint64   max_per_uid,
                        GError  **error)
{
  JmemSnapshotPins *pins;
  int fd = inotify_init1 (IN_NONBLOCK | IN_CLOEXEC);

  if (fd < 0)
    {
      int saved = errno;
      g_set_error (error, JMEM_ERROR, JMEM_ERROR_FAILED,
                   "cannot watch the snapshots handed out: inotify_init1: %s", g_strerror (saved));
      return NULL;
    }
  pins = g_new0 (JmemSnapshotPins, 1);
  g_mutex_init (&pins->lock);
  pins->max_per_uid = max_per_uid;
  pins->inotify_fd = fd;
  pins->by_watch = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  pins->bytes = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
  pins->source_id = g_unix_fd_add (fd, G_IO_IN, on_watch, pins);
  return pins;
}

void
jmem_snapshot_pins_free (JmemSnapshotPins *pins)
{
  if (pins == NULL)
    return;
  g_source_remove (pins->source_id);
  close (pins->inotify_fd);  /* ends every watch */
  g_hash_table_unref (pins->by_watch);
  g_hash_table_unref (pins->bytes);
  g_mutex_clear (&pins->lock);
  g_free (pins);
}

static int
watch (JmemSnapshotPins *pins,
       JmemSealedFile   *snapshot,
       GError          **error)
{
  g_autofree char *path = g_strdup_printf ("/proc/self/fd/%d", snapshot->fd);
  int wd = inotify_add_watch (pins->inotify_fd, path, IN_DELETE_SELF);

  if (wd < 0)
    {
      int saved = errno;
      g_set_error (error, JMEM_ERROR, JMEM_ERROR_FAILED,
                   "cannot watch the snapshot %s: %s", path, g_strerror (saved));
    }
  return wd;
}

static gboolean
admit (JmemSnapshotPins *pins,
       gint64            uid,
       guint64           size,
       GError          **error)
{
  guint64 *held = g_hash_table_lookup (pins->bytes, &uid);
  guint64 pinned = held != NULL ? *held : 0;

  if (pinned + size <= pins->max_per_uid)
    return TRUE;
  g_set_error (error, JMEM_ERROR, JMEM_ERROR_RATE_LIMITED,
               "uid %" G_GINT64_FORMAT " holds snapshot descriptors that pin %.1f MiB of memory, "
               "and one more would pass the %.1f MiB an account may pin: close the ones it no "
               "longer reads, then call again", uid, pinned / 1048576.0,
               pins->max_per_uid / 1048576.0);
  return FALSE;
}

/* Pins @snapshot (its own memfd, not pinned yet) for @uid as watch @wd. */
static void
pin (JmemSnapshotPins *pins,
     int               wd,
     gint64            uid,
     guint64           size)
{
  Pin *p = g_new0 (Pin, 1);

  p->uid = uid;
  p->size = size;
  g_hash_table_insert (pins->by_watch, GINT_TO_POINTER (wd), p);
  uid_add (pins, uid, (gint64) size);
}

static int
open_locked (JmemSnapshotPins  *pins,
             JmemSealedFile    *snapshot,
             gint64             uid,
             GError           **error)
{
  g_autoptr(JmemSealedFile) copy = NULL;
  int wd = watch (pins, snapshot, error);
  Pin *held;

  if (wd < 0)
    return -1;
  held = g_hash_table_lookup (pins->by_watch, GINT_TO_POINTER (wd));
  if (held != NULL && held->uid == uid)
    return jmem_sealed_file_open_readonly (snapshot, error);

  if (!admit (pins, uid, snapshot->size, error))
    {
      if (held == NULL)
        inotify_rm_watch (pins->inotify_fd, wd);
      return -1;
    }
  if (held == NULL)
    {
      pin (pins, wd, uid, snapshot->size);
      return jmem_sealed_file_open_readonly (snapshot, error);
    }

  /* Another uid holds this memfd: this one gets a copy, which it alone can
   * keep pinned. */
  copy = jmem_sealed_file_copy (snapshot, error);
  if (copy == NULL || (wd = watch (pins, copy, error)) < 0)
    return -1;
  pin (pins, wd, uid, copy->size);
  return jmem_sealed_file_open_readonly (copy, error);
}

int
jmem_snapshot_pins_open (JmemSnapshotPins  *pins,
                         JmemSealedFile    *snapshot,
                         gint64             uid,
                         GError           **error)
{
  int fd;

  g_mutex_lock (&pins->lock);
  fd = open_locked (pins, snapshot, uid, error);
  g_mutex_unlock (&pins->lock);
  return fd;
}

guint64
jmem_snapshot_pins_bytes (JmemSnapshotPins *pins,
                          gint64            uid)
{
  guint64 *bytes, n;

  g_mutex_lock (&pins->lock);
  bytes = g_hash_table_lookup (pins->bytes, &uid);
  n = bytes != NULL ? *bytes : 0;
  g_mutex_unlock (&pins->lock);
  return n;
}

gboolean
jmem_snapshot_pins_any (JmemSnapshotPins *pins)
{
  gboolean any;

  g_mutex_lock (&pins->lock);
  any = g_hash_table_size (pins->by_watch) > 0;
  g_mutex_unlock (&pins->lock);
  return any;
}
