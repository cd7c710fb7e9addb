/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "jmem-nvmap-reader.h"

#include <errno.h>
#include <fcntl.h>
#include <gio/gio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jmem-error.h"
#include "jmem-file.h"

/* A piece of the file: the text a walk holds at once, with the end of the
 * row before it. A longer row (a hostile tag) grows it. */
#define PIECE_BYTES (64 * 1024)

struct _JmemNvmapAllocationsReader {
  int                   fd;         /* -1 for parsed rows */
  char                 *name;
  gsize                 max_bytes;
  guint64               pid_namespace;
  gboolean              check_unchanged;
  struct stat           first;      /* the file as the first walk found it */
  JmemNvmapAllocations *parsed;
};

JmemNvmapAllocationsReader *
jmem_nvmap_allocations_reader_new_fd (int         fd,
                                      const char *name,
                                      gsize       max_bytes,
                                      guint64     pid_namespace)
{
  JmemNvmapAllocationsReader *r = g_new0 (JmemNvmapAllocationsReader, 1);
  int seals = fcntl (fd, F_GET_SEALS);

  g_return_val_if_fail (fd >= 0, NULL);
  r->fd = fd;
  r->name = g_strdup (name);
  r->max_bytes = max_bytes;
  r->pid_namespace = pid_namespace;
  /* a file someone else may write: every walk must find it as the first did */
  r->check_unchanged = seals < 0 || (seals & F_SEAL_WRITE) == 0;
  if (r->check_unchanged && fstat (fd, &r->first) != 0)
    memset (&r->first, 0, sizeof r->first);
  return r;
}

JmemNvmapAllocationsReader *
jmem_nvmap_allocations_reader_new_copy (int         fd,
                                        const char *name,
                                        gsize       max_bytes,
                                        guint64     pid_namespace,
                                        GError    **error)
{
  g_autofree char *piece = g_malloc (PIECE_BYTES);
  gsize total = 0;
  int copy;

  copy = memfd_create ("jmem-nvmap-allocations", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (copy < 0)
    {
      int saved = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   "Cannot copy %s: memfd_create: %s", name, g_strerror (saved));
      return NULL;
    }
  for (;;)
    {
      ssize_t n = read (fd, piece, PIECE_BYTES);
      int saved = errno;

      if (n < 0 && saved == EINTR)
        continue;
      if (n < 0)
        {
          close (copy);
          g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                       "Cannot read %s: %s", name, g_strerror (saved));
          return NULL;
        }
      if (n == 0)
        break;
      total += (gsize) n;
      if (total > max_bytes)
        {
          close (copy);
          g_set_error (error, JMEM_ERROR, JMEM_ERROR_TOO_LARGE,
                       "%s is larger than the %" G_GSIZE_FORMAT " bytes jmem accepts",
                       name, max_bytes);
          return NULL;
        }
      if (!jmem_file_write_all (copy, piece, (gsize) n))
        {
          saved = errno;
          close (copy);
          g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                       "Cannot copy %s: %s", name, g_strerror (saved));
          return NULL;
        }
    }
  /* the copy is the one read: nothing writes it again */
  (void) fcntl (copy, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL);
  return jmem_nvmap_allocations_reader_new_fd (copy, name, max_bytes, pid_namespace);
}

JmemNvmapAllocationsReader *
jmem_nvmap_allocations_reader_new_parsed (JmemNvmapAllocations *allocations)
{
  JmemNvmapAllocationsReader *r = g_new0 (JmemNvmapAllocationsReader, 1);

  g_return_val_if_fail (allocations != NULL, NULL);
  r->fd = -1;
  r->parsed = allocations;
  r->pid_namespace = allocations->pid_namespace;
  return r;
}

void
jmem_nvmap_allocations_reader_free (JmemNvmapAllocationsReader *reader)
{
  if (reader == NULL)
    return;
  if (reader->fd >= 0)
    close (reader->fd);
  g_free (reader->name);
  jmem_nvmap_allocations_free (reader->parsed);
  g_free (reader);
}

/* ---- walking ---------------------------------------------------------- */

static gboolean
same_file (const struct stat *a, const struct stat *b)
{
  return a->st_size == b->st_size &&
         a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
         a->st_ctim.tv_sec == b->st_ctim.tv_sec && a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

/* A file written between two walks (or during one) would give one output
 * rows that do not match its summary. */
static gboolean
check_unchanged (const JmemNvmapAllocationsReader *r,
                 GError                          **error)
{
  struct stat now;

  if (!r->check_unchanged)
    return TRUE;
  if (fstat (r->fd, &now) == 0 && same_file (&now, &r->first))
    return TRUE;
  g_set_error (error, JMEM_ERROR, JMEM_ERROR_FAILED,
               "%s changed while jmem read it: read it again once nothing writes it", r->name);
  return FALSE;
}

static gboolean
walk_fd (JmemNvmapAllocationsReader *r,
         JmemNvmapAllocationsParser *parser,
         GError                    **error)
{
  gsize size = PIECE_BYTES, held = 0;
  g_autofree char *buf = g_malloc (size);
  off_t offset = 0;

  for (;;)
    {
      ssize_t n;
      gsize used;

      if (held == size)
        {
          /* one row longer than the piece */
          size *= 2;
          buf = g_realloc (buf, size);
        }
      n = pread (r->fd, buf + held, size - held, offset);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          int saved = errno;
          g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                       "Cannot read %s: %s", r->name, g_strerror (saved));
          return FALSE;
        }
      offset += n;
      if ((guint64) offset > r->max_bytes)
        {
          g_set_error (error, JMEM_ERROR, JMEM_ERROR_TOO_LARGE,
                       "%s is larger than the %" G_GSIZE_FORMAT " bytes jmem accepts",
                       r->name, r->max_bytes);
          return FALSE;
        }
      held += (gsize) n;
      used = jmem_nvmap_allocations_parser_feed (parser, buf, held, n == 0);
      if (n == 0 || jmem_nvmap_allocations_parser_done (parser))
        return TRUE;
      memmove (buf, buf + used, held - used);
      held -= used;
    }
}

static JmemNvmapClient *
client_copy (const JmemNvmapClient *c)
{
  return jmem_nvmap_client_new (c->client, c->process, c->pid, c->size_kib);
}

static JmemNvmapHandle *
handle_copy (const JmemNvmapHandle *h)
{
  JmemNvmapHandle *copy = g_new (JmemNvmapHandle, 1);

  *copy = *h;
  copy->tag = g_strdup (h->tag);
  return copy;
}

/* The visitor owns what it is given: copies of the rows kept. */
static void
walk_parsed (const JmemNvmapAllocations        *a,
             const JmemNvmapAllocationsVisitor *visitor,
             gpointer                           user_data,
             JmemNvmapAllocations              *summary)
{
  for (guint i = 0; i < a->clients->len; i++)
    {
      const JmemNvmapClientHandles *ch = g_ptr_array_index (a->clients, i);

      visitor->client (client_copy (ch->client), user_data);
      for (guint j = 0; j < ch->handles->len; j++)
        visitor->handle (handle_copy (g_ptr_array_index (ch->handles, j)), user_data);
    }
  summary->has_total = a->has_total;
  summary->total_kib = a->total_kib;
  summary->n_malformed = a->n_malformed;
  summary->has_hugetlbfs_column = a->has_hugetlbfs_column;
  summary->has_map_columns = a->has_map_columns;
  summary->layout = a->layout;
}

gboolean
jmem_nvmap_allocations_reader_walk (JmemNvmapAllocationsReader        *reader,
                                    const JmemNvmapAllocationsVisitor *visitor,
                                    gpointer                           user_data,
                                    JmemNvmapAllocations              *summary,
                                    GError                           **error)
{
  g_autoptr(JmemNvmapAllocationsParser) parser = NULL;

  g_return_val_if_fail (reader != NULL && visitor != NULL && summary != NULL, FALSE);

  summary->pid_namespace = reader->pid_namespace;
  if (reader->parsed != NULL)
    {
      walk_parsed (reader->parsed, visitor, user_data, summary);
      return TRUE;
    }
  parser = jmem_nvmap_allocations_parser_new (visitor, user_data);
  return check_unchanged (reader, error) &&
         walk_fd (reader, parser, error) &&
         check_unchanged (reader, error) &&
         jmem_nvmap_allocations_parser_finish (parser, summary, error);
}

JmemNvmapAllocations *
jmem_nvmap_allocations_reader_parse (JmemNvmapAllocationsReader *reader,
                                     GError                    **error)
{
  g_autoptr(JmemNvmapAllocations) out = jmem_nvmap_allocations_new ();

  if (!jmem_nvmap_allocations_reader_walk (reader, jmem_nvmap_allocations_collector (), out,
                                           out, error))
    return NULL;
  return g_steal_pointer (&out);
}
