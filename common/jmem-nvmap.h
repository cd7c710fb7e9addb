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

/* jmem_nvmap_allocations_parse() without keeping the rows: they go to
 * @visitor, so a big file costs one row of memory at a time. @summary gets
 * every field but clients (left alone). */
gboolean jmem_nvmap_allocations_visit (const char                        *data,
                                       gsize                              len,
                                       const JmemNvmapAllocationsVisitor *visitor,
                                       gpointer                           user_data,
                                       JmemNvmapAllocations              *summary,
                                       GError                           **error);

/* stats/total_memory: one decimal number of bytes. */
gboolean jmem_nvmap_total_memory_parse (const char *data,
                                        gsize       len,
                                        guint64    *bytes,
                                        GError    **error);

G_END_DECLS
