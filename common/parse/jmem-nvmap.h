/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Parsers for the NvMap debugfs files (see fixtures/nvmap and docs/field-guide.md). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum {
  JMEM_NVMAP_LAYOUT_UNKNOWN,
  JMEM_NVMAP_LAYOUT_KERNEL,       /* the kernel's fixed columns (r32..r38) */
  JMEM_NVMAP_LAYOUT_KERNEL_NOTE,  /* 2011-2014 kernels: fixed columns and a "Note:" after total */
  JMEM_NVMAP_LAYOUT_LOOSE,        /* rows not in fixed columns: parsed by whitespace */
} JmemNvmapLayout;

const char *jmem_nvmap_layout_to_string (JmemNvmapLayout layout);

/* One row of iovmm/clients: one open of /dev/nvmap. */
typedef struct {
  char    *client;    /* "user", "nvhost", ... */
  char    *process;   /* the task's comm, valid UTF-8 (see jmem-text.h) */
  guint32  pid;       /* host PID namespace; 0 for kernel clients */
  guint64  size_kib;  /* proportional share of the client's handles */
} JmemNvmapClient;

typedef struct {
  GPtrArray       *clients;       /* JmemNvmapClient, in file order */
  gboolean         has_total;
  guint64          total_kib;     /* the "total" line: all handles, orphans included */
  guint            n_malformed;   /* lines that were neither header, row nor total */
  JmemNvmapLayout  layout;
  guint64          pid_namespace; /* the rows' PID namespace (jmem-pid-namespace.h); 0 unknown */
} JmemNvmapClients;

/* Copies @client and @process, which must already be valid UTF-8. */
JmemNvmapClient *jmem_nvmap_client_new (const char *client,
                                        const char *process,
                                        guint32     pid,
                                        guint64     size_kib);
void jmem_nvmap_client_free (JmemNvmapClient *client);
void jmem_nvmap_clients_free (JmemNvmapClients *clients);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (JmemNvmapClient, jmem_nvmap_client_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (JmemNvmapClients, jmem_nvmap_clients_free)

/* Parses iovmm/clients. Fails (JMEM_ERROR_FAILED, with a message saying what
 * was expected) only when the data is not an NvMap clients file at all;
 * damaged lines are counted in n_malformed. */
JmemNvmapClients *jmem_nvmap_clients_parse (const char *data,
                                            gsize       len,
                                            GError    **error);

/* One handle row of iovmm/allocations (the kernel-pointer UID column dropped). */
typedef struct {
  guint64  base;
  guint64  size_kib;
  guint32  flags;
  guint32  refs;
  guint32  dupes;
  guint32  pins;
  guint32  kmaps;
  guint32  umaps;
  guint32  share;
  gint32   from_hugetlbfs;  /* 0 or 1; -1 where the kernel has no such column */
  char    *tag;             /* valid UTF-8, may be empty */
} JmemNvmapHandle;

typedef struct {
  JmemNvmapClient *client;
  GPtrArray       *handles;  /* JmemNvmapHandle */
} JmemNvmapClientHandles;

typedef struct {
  GPtrArray *clients;        /* JmemNvmapClientHandles, in file order */
  gboolean   has_total;
  guint64    total_kib;
  guint      n_malformed;
  gboolean   has_hugetlbfs_column;
  gboolean   has_map_columns;  /* FALSE on 2011-2014 kernels: kmaps, umaps, share read 0 */
  JmemNvmapLayout layout;
  guint64    pid_namespace;    /* as in JmemNvmapClients */
} JmemNvmapAllocations;

void jmem_nvmap_allocations_free (JmemNvmapAllocations *allocations);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (JmemNvmapAllocations, jmem_nvmap_allocations_free)

JmemNvmapAllocations *jmem_nvmap_allocations_parse (const char *data,
                                                    gsize       len,
                                                    GError    **error);

/* Each client row and each of its handles as it is read; the callee owns
 * them (free with jmem_nvmap_client_free() and jmem_nvmap_handle_free()). */
typedef struct {
  void (*client) (JmemNvmapClient *client, gpointer user_data);
  void (*handle) (JmemNvmapHandle *handle, gpointer user_data);
} JmemNvmapAllocationsVisitor;

void jmem_nvmap_handle_free (JmemNvmapHandle *handle);

/* No client yet: what the collector below fills. */
JmemNvmapAllocations *jmem_nvmap_allocations_new (void);

/* The visitor that keeps every row in the JmemNvmapAllocations given as
 * its user_data, as jmem_nvmap_allocations_parse() does. */
const JmemNvmapAllocationsVisitor *jmem_nvmap_allocations_collector (void);

/* jmem_nvmap_allocations_parse() without keeping the rows: they go to
 * @visitor, so a big file costs one row of memory at a time. @summary gets
 * every field but clients (left alone). */
gboolean jmem_nvmap_allocations_visit (const char                        *data,
                                       gsize                              len,
                                       const JmemNvmapAllocationsVisitor *visitor,
                                       gpointer                           user_data,
                                       JmemNvmapAllocations              *summary,
                                       GError                           **error);

/* jmem_nvmap_allocations_visit() for a file that comes in pieces (read
 * from a descriptor), so that not even its text is held whole. */
typedef struct _JmemNvmapAllocationsParser JmemNvmapAllocationsParser;

JmemNvmapAllocationsParser *jmem_nvmap_allocations_parser_new (const JmemNvmapAllocationsVisitor *visitor,
                                                               gpointer                           user_data);
void jmem_nvmap_allocations_parser_free (JmemNvmapAllocationsParser *parser);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (JmemNvmapAllocationsParser, jmem_nvmap_allocations_parser_free)

/* Parses the rows @data holds whole and returns how many of its bytes they
 * took; the rest (a row cut by the end of the piece) must come again at
 * the start of the next call's @data, followed by more of the file. With
 * @at_end, @data is all that is left of the file and is taken whole. The
 * rows are the same whatever the pieces. */
gsize jmem_nvmap_allocations_parser_feed (JmemNvmapAllocationsParser *parser,
                                          const char                 *data,
                                          gsize                       len,
                                          gboolean                    at_end);

/* Whether the parser reads no more (past the note of 2011-2014 kernels):
 * the rest of the file need not be read. */
gboolean jmem_nvmap_allocations_parser_done (const JmemNvmapAllocationsParser *parser);

/* After the last piece: @summary as jmem_nvmap_allocations_visit() gives
 * it, or its error. */
gboolean jmem_nvmap_allocations_parser_finish (JmemNvmapAllocationsParser *parser,
                                               JmemNvmapAllocations       *summary,
                                               GError                    **error);

/* stats/total_memory: one decimal number of bytes. */
gboolean jmem_nvmap_total_memory_parse (const char *data,
                                        gsize       len,
                                        guint64    *bytes,
                                        GError    **error);

/* ---- iovmm/maps: the CPU mappings of each client's handles ---- */

/* One CPU mapping of an NvMap buffer: [start, end) in the process's
 * address space, as /proc/PID/smaps names it. */
typedef struct {
  guint64 start;
  guint64 end;
} JmemNvmapVma;

typedef struct {
  JmemNvmapClient *client;
  guint64          mapped_kib;  /* the handles' MAPSIZE: what of them this client maps */
  guint            n_handles;
  GArray          *vmas;        /* JmemNvmapVma, as printed (one per VMA of each handle) */
} JmemNvmapClientMaps;

typedef struct {
  GPtrArray       *clients;    /* JmemNvmapClientMaps, in file order */
  gboolean         has_total;
  guint64          total_kib;
  guint            n_malformed;
  JmemNvmapLayout  layout;
  guint64          pid_namespace;  /* as in JmemNvmapClients */
} JmemNvmapMaps;

void jmem_nvmap_maps_free (JmemNvmapMaps *maps);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (JmemNvmapMaps, jmem_nvmap_maps_free)

/* Parses iovmm/maps (docs/nvmap-formats.md): client rows, handle rows
 * ending in their mapped size, and a row per VMA ("start-end size"). Fails
 * only when the data is not a maps file at all. */
JmemNvmapMaps *jmem_nvmap_maps_parse (const char *data,
                                      gsize       len,
                                      GError    **error);

/* What the RAM accounting reads beside the clients. */
typedef struct {
  JmemNvmapMaps *maps;             /* iovmm/maps; NULL unread */
  gint64         free_size_bytes;  /* iovmm/free_size; -1 unread (R36 and later have it) */
  gint64         pool_pages;       /* page_pool_available_pages + page_pool_pages_to_zero; -1 */
  gint64         pool_to_zero;     /* of them, pages waiting to be zeroed; -1 */
  gint64         page_size;        /* the kernel's page size in bytes; -1 unknown */
} JmemNvmapExtras;

#define JMEM_NVMAP_EXTRAS_INIT { NULL, -1, -1, -1, -1 }

void jmem_nvmap_extras_clear (JmemNvmapExtras *extras);

/* iovmm/free_size: "Max allocatable IOVMM memory: N bytes". Fails for the
 * kernel's "Error while fetching ..." line and anything else. */
gboolean jmem_nvmap_free_size_parse (const char *data,
                                     gsize       len,
                                     guint64    *bytes,
                                     GError    **error);

/* One decimal number and a newline, as debugfs_create_u32/u64 print
 * (pagepool/page_pool_available_pages, ..._pages_to_zero). */
gboolean jmem_nvmap_counter_parse (const char *data,
                                   gsize       len,
                                   guint64    *value,
                                   GError    **error);

G_END_DECLS
