/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The one reader of the NvMap debugfs tables (iovmm/clients, allocations,
 * maps), line by line: what each line is, told by its position and shape,
 * never by a word inside it. The parsers of jmem-nvmap.c and the helper's
 * redaction (jmem-nvmap-redact.h) both walk a file through it, so a line
 * the client reads as a handle row is one the helper saw as one.
 *
 * The headers are read once, where the kernel prints them: the file's
 * first line ("CLIENT PROCESS PID SIZE") and, in allocations and maps, the
 * line after it ("BASE SIZE ... UID ..."). Anywhere else a line holding
 * the same words (a process name or a tag holding a newline) is damage. */
#pragma once

#include <glib.h>

#include "jmem-nvmap.h"

G_BEGIN_DECLS

/* Handle and VMA rows start with two empty columns: "%-18s %-18s " of "". */
#define JMEM_NVMAP_HANDLE_INDENT 38

typedef enum {
  JMEM_NVMAP_TABLE_CLIENTS,
  JMEM_NVMAP_TABLE_ALLOCATIONS,
  JMEM_NVMAP_TABLE_MAPS,
} JmemNvmapTableFile;

typedef enum {
  JMEM_NVMAP_LINE_HEADER,    /* one of the headers at the top */
  JMEM_NVMAP_LINE_CLIENT,    /* a client row: client, process, pid, size_kib */
  JMEM_NVMAP_LINE_TOTAL,     /* the total (kept in the table; a second one is damage) */
  JMEM_NVMAP_LINE_BLANK,     /* the end of a client's rows */
  JMEM_NVMAP_LINE_INDENTED,  /* starts with a blank: a handle or VMA row, or damage */
  JMEM_NVMAP_LINE_OTHER,     /* the note of 2011-2014 kernels, or damage (counted) */
} JmemNvmapLineKind;

typedef struct {
  JmemNvmapLineKind kind;
  const char       *text;      /* the line, without its newline */
  gsize             len;
  char             *client;    /* JMEM_NVMAP_LINE_CLIENT: owned, valid UTF-8 */
  char             *process;
  guint32           pid;
  guint64           size_kib;  /* a client's or the total's */
} JmemNvmapLine;

typedef struct {
  JmemNvmapTableFile file;
  guint    n_lines;        /* lines read */
  gboolean in_headers;     /* nothing but headers read yet */
  gboolean seen_header;    /* a header was read */
  gboolean kernel_header;  /* the first line is the kernel's clients header, to the byte */
  gboolean handle_header;  /* the handle header was read (allocations, maps) */
  gboolean has_maps;       /* allocations: KMAPS UMAPS SHARE (absent on 2011-2014 kernels) */
  gboolean has_huge;       /* allocations: FROM_HUGETLBFS (2025 driver) */
  gboolean seen_note;
  gboolean has_total;
  guint64  total_kib;
  guint    n_fixed;        /* rows in the kernel's fixed columns */
  guint    n_loose;        /* rows read by whitespace */
  guint    n_malformed;
} JmemNvmapTable;

void jmem_nvmap_table_init (JmemNvmapTable     *table,
                            JmemNvmapTableFile  file);

/* Reads the line at the start of @data (@len > 0) into @line and returns
 * the bytes it took, its newline included. A client row in the kernel's
 * fixed columns is one 59-byte record whatever its PROCESS holds, newlines
 * included. Free @line's strings with jmem_nvmap_line_clear(). */
gsize jmem_nvmap_table_next (JmemNvmapTable *table,
                             const char     *data,
                             gsize           len,
                             JmemNvmapLine  *line);

void jmem_nvmap_line_clear (JmemNvmapLine *line);

/* The client a JMEM_NVMAP_LINE_CLIENT line names, its strings taken from
 * @line. */
JmemNvmapClient *jmem_nvmap_line_steal_client (JmemNvmapLine *line);

/* Whether @data holds all that jmem_nvmap_table_next() reads of it when
 * more of the file follows: a fixed record, or a line with its newline. */
gboolean jmem_nvmap_table_line_complete (const char *data,
                                         gsize       len);

/* The place of the UID (a kernel pointer) among a handle row's tokens
 * after its indent, BASE being 0, as the handle header sets it. */
guint jmem_nvmap_table_uid_token (const JmemNvmapTable *table);

/* Whether @text starts with the two empty columns of a handle or VMA row. */
gboolean jmem_nvmap_line_is_handle_shaped (const char *text,
                                           gsize       len);

JmemNvmapLayout jmem_nvmap_table_layout (const JmemNvmapTable *table);

/* ---- pieces of a line, for the parsers ---- */

typedef struct {
  const char *s;
  gsize       len;
} JmemNvmapToken;

gboolean jmem_nvmap_is_blank (char c);
gboolean jmem_nvmap_all_blank (const char *s,
                               gsize       n);
/* The next blank-separated token of @line from *@i. */
gboolean jmem_nvmap_next_token (const char     *line,
                                gsize           len,
                                gsize          *i,
                                JmemNvmapToken *tok);
/* "<digits>K" */
gboolean jmem_nvmap_parse_kib (const char *s,
                               gsize       n,
                               guint64    *out);

/* Where a VMA row's two addresses stand in its line. */
typedef struct {
  gsize start_at, start_end;
  gsize end_at, end_end;
} JmemNvmapVmaSpans;

/* A VMA row of iovmm/maps: "%-12lx-%12lx %6lluK" after blank columns.
 * @spans may be NULL. */
gboolean jmem_nvmap_vma_parse (const char        *line,
                               gsize              len,
                               JmemNvmapVma      *vma,
                               JmemNvmapVmaSpans *spans);

G_END_DECLS
