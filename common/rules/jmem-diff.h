/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Comparing two snapshots (`jmem snapshot --json` documents): system memory
 * fields and per-process sizes before, after and the change. The result is
 * a JSON object whose shape is docs/diff.schema.json; `jmem diff`, `jmem
 * audit` and `jmem drop-caches` all print from it. */
#pragma once

#include <json-glib/json-glib.h>

#include "jmem-json-paths.h"

G_BEGIN_DECLS

#define JMEM_DIFF_SCHEMA_NAME    "jmem-diff"
#define JMEM_DIFF_SCHEMA_VERSION 1

/* Sizes above this (1 EiB in KiB) are not memory a machine has: the
 * document is rejected rather than risk overflowing a difference. */
#define JMEM_DIFF_MAX_KIB (G_GINT64_CONSTANT (1) << 50)

/* A saved snapshot larger than this is refused (JMEM_ERROR_TOO_LARGE). */
#define JMEM_DIFF_MAX_FILE_BYTES (64u * 1024u * 1024u)

/* The system rows of a full diff, in this order: meminfo field names, and
 * "NvMapTotal" (nvmap.total_kib) and "GpuUsed" (sum of gpu.devices[].memory_used_kib). */
extern const char *const jmem_diff_system_fields[];

/* The rows `jmem drop-caches` reports. */
extern const char *const jmem_diff_drop_fields[];

/* Reads and checks a snapshot file, through jmem_json_read_file()'s
 * strict reading. Errors name @path: G_IO_ERROR_NOT_FOUND when it does not
 * exist, G_IO_ERROR_NOT_REGULAR_FILE for a FIFO or a pipe (refused without
 * waiting on it), other G_IO_ERROR codes when it cannot be read,
 * JMEM_ERROR_INVALID_ARGUMENT when it is not strict JSON, holds more than
 * one document (a history says so), or is not a snapshot of a supported
 * version, JMEM_ERROR_TOO_LARGE above JMEM_DIFF_MAX_FILE_BYTES. */
JsonNode *jmem_diff_load_snapshot (const char *path,
                                   GError    **error);

/* The same for a document in memory (@len bytes of @data); @what names it
 * in errors ("FILE:12" for a line of a history). */
JsonNode *jmem_diff_parse_snapshot (const char *data,
                                    gsize       len,
                                    const char *what,
                                    GError    **error);

/* The same, building only @paths (jmem_json_read_paths()) of the document,
 * to which jmem_diff_add_checked_paths() must have added what the check
 * below reads: a snapshot is refused for the same reasons,
 * however little of it a reader keeps. */
JsonNode *jmem_diff_parse_snapshot_paths (const char          *data,
                                          gsize                len,
                                          const char          *what,
                                          const JmemJsonPaths *paths,
                                          GError             **error);

/* Adds to @paths every member jmem_diff_check_snapshot() reads, those it
 * requires whole and those it takes absent only where it would refuse them:
 * a tree read through @paths is refused for what the whole one is. */
void jmem_diff_add_checked_paths (JmemJsonPaths *paths);

/* Checks that @node is a snapshot this code can compare: the schema name and
 * version, and every field the comparison and the rules over time
 * (jmem-triage-history.h) read of the right type and range.
 * @what names the document in the error (a file name, "before"). */
gboolean jmem_diff_check_snapshot (JsonNode   *node,
                                   const char *what,
                                   GError    **error);

typedef enum {
  JMEM_DIFF_NONE           = 0,
  JMEM_DIFF_KERNEL_THREADS = 1 << 0,  /* compare kernel threads too */
} JmemDiffFlags;

/* Compares two checked snapshots; a new JSON object node (docs/diff.schema.json).
 * A process is the same in both when its PID and start time are
 * (start_time_ticks), whatever its name; when either snapshot lacks the
 * start time (an older jmem wrote it, or stat was unreadable), when its PID
 * and name are. Kernel threads are left out unless @flags has
 * JMEM_DIFF_KERNEL_THREADS: they come and go and rename themselves. */
JsonNode *jmem_diff_snapshots (JsonNode      *before,
                               JsonNode      *after,
                               JmemDiffFlags  flags);

/* Only the system rows for @fields (NULL-terminated, names as in
 * jmem_diff_system_fields): a JSON array of {field, before_kib, after_kib,
 * delta_kib}, unknown values null. @before and @after need only the
 * "memory.fields_kib", "nvmap.total_kib" and "gpu.devices" members. */
JsonNode *jmem_diff_system (JsonNode          *before,
                            JsonNode          *after,
                            const char *const *fields);

G_END_DECLS
