/* The jmem subcommands and their exit codes (sysexits.h values, see jmem(1)). */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

#include "jmem-advice.h"
#include "jmem-collect.h"
#include "jmem-diff.h"
#include "jmem-nvmap.h"
#include "jmem-snapshot.h"

G_BEGIN_DECLS

/* Each takes argv with argv[0] = the subcommand's name. */
int jmem_cmd_snapshot (int argc, char **argv);
int jmem_cmd_capture (int argc, char **argv);
int jmem_cmd_allocations (int argc, char **argv);
int jmem_cmd_triage (int argc, char **argv);
int jmem_cmd_diff (int argc, char **argv);
int jmem_cmd_drop_caches (int argc, char **argv);
int jmem_cmd_audit (int argc, char **argv);
int jmem_cmd_mcp (int argc, char **argv);
int jmem_cmd_watch (int argc, char **argv);
int jmem_cmd_summary (int argc, char **argv);
int jmem_cmd_metrics (int argc, char **argv);

/* jmem_collect_snapshot(); on failure prints "@command: why" and sets
 * @exit_status (69 no data, 70 other). */
JmemSnapshot *jmem_cmd_collect (const char               *command,
                                const JmemCollectOptions *options,
                                int                      *exit_status);

/* One sample of a repeating command (@index counts from 0); returns
 * JMEM_EXIT_OK to go on, any other status to stop with it. */
typedef int (*JmemCmdSampleFunc) (guint index, gpointer user_data);

/* Calls @func at once and then every @interval_s seconds, @count times in
 * all (0: until SIGINT or SIGTERM, which end it after the sample in
 * progress); returns the last status @func returned (JMEM_EXIT_OK after a
 * signal). */
int jmem_cmd_repeat (guint             interval_s,
                     guint             count,
                     JmemCmdSampleFunc func,
                     gpointer          user_data);

/* What the commands and the MCP tools (jmem-mcp-tools.c) both compute. */

/* The snapshot triage looks at (every process, a capture's recorded
 * tegrastats line), with its findings; NULL with JMEM_ERROR_NOT_AVAILABLE
 * when @sysroot holds no capture. @boot (nullable) keeps per-boot facts. */
JmemSnapshot *jmem_cmd_triage_collect (const char      *sysroot,
                                       guint            tegrastats_seconds,
                                       gboolean         allow_interactive,
                                       JmemCollectBoot *boot,
                                       GError         **error);

/* The jmem-triage document (docs/triage.schema.json) of @findings. */
JsonNode *jmem_cmd_triage_json (GPtrArray *findings);

/* NvMap allocations from the capture @sysroot, debugfs or the helper;
 * *via names the source. */
JmemNvmapAllocations *jmem_cmd_read_allocations (const char  *sysroot,
                                                 gboolean     allow_interactive,
                                                 const char **via,
                                                 GError     **error);

/* The jmem-allocations document (docs/allocations.schema.json): only
 * process @pid when >= 0; at most @limit handles when >= 0, the others
 * summed up by tag in "omitted". */
JsonNode *jmem_cmd_allocations_json (const JmemNvmapAllocations *allocations,
                                     const char                 *via,
                                     gint64                      pid,
                                     gint64                      limit);

/* Drops caches through the helper between two readings of the system's
 * memory: the jmem-drop-caches document (docs/drop-caches.schema.json), or
 * NULL with the helper's refusal (its code; the message starts "caches were
 * not dropped: "). */
JsonNode *jmem_cmd_drop_caches_json (int         level,
                                     gboolean    compact,
                                     gboolean    allow_interactive,
                                     const char *container,
                                     GError    **error);

/* Snapshot, drop caches at @level (or, when @no_drop, wait @wait_seconds),
 * snapshot again: the jmem-audit document (docs/audit.schema.json) with
 * the @top largest processes of each snapshot (every one when < 0). NULL
 * with the error: a refused drop (the helper's code) or a snapshot that
 * could not be taken (JMEM_CLIENT_ERROR_SNAPSHOT_FAILED). @boot (nullable)
 * keeps per-boot facts; @diff_flags go to jmem_diff_snapshots(). */
JsonNode *jmem_cmd_audit_json (int              level,
                               gboolean         compact,
                               gboolean         no_drop,
                               guint            wait_seconds,
                               int              top,
                               gboolean         allow_interactive,
                               const char      *container,
                               JmemCollectBoot *boot,
                               JmemDiffFlags    diff_flags,
                               GError         **error);

/* Calls the helper's DropCaches, or fails with its error ("caches were not
 * dropped: why"; JMEM_CLIENT_ERROR_NO_COMPACTION where @compact cannot be). */
gboolean jmem_cmd_call_drop_caches (guint       level,
                                    gboolean    compact,
                                    gboolean    allow_interactive,
                                    GVariant  **result,
                                    GError    **error);

/* Prints "@command: " @error's message and, on a line "To fix: ...", what
 * to do (jmem_advice_for_error() for a command at a terminal), followed by
 * ", or " @without_helper (nullable) where no helper can answer; returns
 * the advice's exit status. */
int jmem_cmd_report_error (const char   *command,
                           const GError *error,
                           const char   *without_helper);

/* The "level", "compact" and "helper_result" members that drop-caches and
 * audit both write (docs/drop-caches.schema.json). */
void jmem_cmd_add_drop_json (JsonBuilder *builder,
                             int          level,
                             gboolean     compact,
                             GVariant    *result);

/* The "container" member: {evidence, note}, or null when @evidence is NULL. */
void jmem_cmd_add_container_json (JsonBuilder *builder,
                                  const char  *evidence);

/* Parses @argv with @context and wants exactly @n_operands arguments after
 * the options (described by @operands, e.g. "one directory", for the
 * message); prints what is wrong with a hint on failure. */
gboolean jmem_cmd_parse (GOptionContext *context,
                         int            *argc,
                         char         ***argv,
                         int             n_operands,
                         const char     *operands);

/* The --tegrastats value before parsing: the option was not given. */
#define JMEM_CMD_TEGRASTATS_UNSET G_MININT

/* Checks a parsed --tegrastats (an int that started as
 * JMEM_CMD_TEGRASTATS_UNSET): 1 to 3600 seconds, or unset, which becomes 0
 * (do not run tegrastats). Prints why and returns FALSE otherwise. */
gboolean jmem_cmd_check_tegrastats (int *seconds);

/* The --width value before parsing: the option was not given. */
#define JMEM_CMD_WIDTH_UNSET -1

/* Checks a parsed --width (an int that started as JMEM_CMD_WIDTH_UNSET):
 * 60 to 10000 columns, or unset, which becomes the terminal's width
 * (jmem_table_terminal_width(), 0 for a pipe). Prints why and returns FALSE
 * otherwise. */
gboolean jmem_cmd_check_width (int *width);

/* Prints the formatted line and a newline on stderr, escaped for a terminal
 * (jmem-text.h): messages quote file names, file contents and arguments. */
void jmem_cmd_printerr (const char *format,
                        ...) G_GNUC_PRINTF (1, 2);

/* Whether a human view on stdout may use colour (a terminal, NO_COLOR unset). */
gboolean jmem_cmd_use_color (void);

/* Writes all of @text to stdout; FALSE when it could not (closed pipe, full disk). */
gboolean jmem_cmd_write_stdout (const char *text, gsize len);

G_END_DECLS
