/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Reading an NvMap debugfs file into a sealed memfd, one read at a time:
 * calls that arrive while the file is being read wait for that read and
 * share its snapshot instead of reading it again. */
#pragma once

#include <gio/gio.h>

#include "jmem-nvmap-redact.h"

G_BEGIN_DECLS

/* An immutable copy of the file with what its reader redacts taken out
 * (jmem-nvmap-redact.h): sealed against writing, growing and shrinking, and the seals
 * sealed. */
typedef struct {
  int     fd;         /* the memfd (read-write for the helper; mmap it read-only) */
  gsize   size;
  guint64 read_id;    /* this helper's reads of the file, counted from 1 */
  guint   shared_by;  /* the calls this read answers */
} JmemSealedFile;

JmemSealedFile *jmem_sealed_file_ref (JmemSealedFile *snapshot);
void jmem_sealed_file_unref (JmemSealedFile *snapshot);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (JmemSealedFile, jmem_sealed_file_unref)

/* A sealed copy of @snapshot in a memfd of its own, with the same size,
 * read_id and shared_by. */
JmemSealedFile *jmem_sealed_file_copy (JmemSealedFile  *snapshot,
                                       GError         **error);

/* A new read-only open of the memfd, for a caller: its own file offset,
 * and no write access even were the seals gone. Without /proc, a duplicate
 * of the sealed descriptor. */
int jmem_sealed_file_open_readonly (JmemSealedFile  *snapshot,
                                    GError         **error);

typedef struct _JmemSealedReader JmemSealedReader;

/* Reads @path (a fixed debugfs path, a @file table), refusing with
 * JMEM_ERROR_TOO_LARGE beyond @max_bytes and with JMEM_ERROR_NOT_AVAILABLE
 * when it is absent, and takes @redact out of each read. */
JmemSealedReader *jmem_sealed_reader_new (const char         *path,
                                          gsize               max_bytes,
                                          JmemNvmapTableFile  file,
                                          JmemNvmapRedact     redact);
void jmem_sealed_reader_free (JmemSealedReader *reader);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (JmemSealedReader, jmem_sealed_reader_free)

/* Joins the read in flight, or starts one in a thread; @callback runs in
 * the thread-default main context of the caller. */
void jmem_sealed_reader_get_async (JmemSealedReader    *reader,
                                   GAsyncReadyCallback  callback,
                                   gpointer             user_data);
JmemSealedFile *jmem_sealed_reader_get_finish (GAsyncResult  *result,
                                               GError       **error);

G_END_DECLS
