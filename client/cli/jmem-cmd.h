/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The jmem subcommands, and what they share: option checks, errors and
 * output. Exit statuses are JmemExit (jmem-advice.h, see jmem(1)). */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

#include "jmem-advice.h"
#include "jmem-ops-snapshot.h"

G_BEGIN_DECLS

/* Each takes argv with argv[0] = the subcommand's name. */
int jmem_cmd_snapshot (int argc, char **argv);
int jmem_cmd_capture (int argc, char **argv);
int jmem_cmd_allocations (int argc, char **argv);
int jmem_cmd_triage (int argc, char **argv);
int jmem_cmd_diff (int argc, char **argv);
int jmem_cmd_drop_caches (int argc, char **argv);
int jmem_cmd_audit (int argc, char **argv);
int jmem_cmd_headroom (int argc, char **argv);
int jmem_cmd_mcp (int argc, char **argv);
int jmem_cmd_watch (int argc, char **argv);
int jmem_cmd_summary (int argc, char **argv);
int jmem_cmd_metrics (int argc, char **argv);
int jmem_cmd_top (int argc, char **argv);
int jmem_cmd_plot (int argc, char **argv);

/* jmem_ops_snapshot(); on failure prints "@command: why" and sets
 * @exit_status (69 no data, 70 other). */
JmemSnapshot *jmem_cmd_collect (const char                   *command,
                                const JmemOpsSnapshotOptions *options,
                                int                          *exit_status);

/* Prints @snapshot's warnings that its capture is incomplete, as
 * "@command: ...", for the commands whose output shows no warnings. */
void jmem_cmd_print_capture_warnings (const char         *command,
                                      const JmemSnapshot *snapshot);

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

/* What `jmem drop-caches` prints of its document (@root, as
 * jmem_ops_drop_caches() returns it): the drop, the before/after table and
 * the notes, escaped for a terminal, the notes wrapped at @width columns
 * (0: whole lines). */
char *jmem_cmd_drop_caches_text (JsonNode   *root,
                                 int         level,
                                 gboolean    compact,
                                 const char *container,
                                 guint       width);

/* Prints "@command: " @error's message and, on a line "To fix: ...", what
 * to do (jmem_advice_for_error() for a command at a terminal), followed by
 * ", or " @without_helper (nullable) where no helper can answer; returns
 * the advice's exit status. */
int jmem_cmd_report_error (const char   *command,
                           const GError *error,
                           const char   *without_helper);

/* Parses @argv with @context and wants exactly @n_operands arguments after
 * the options (described by @operands, e.g. "one directory", for the
 * message; < 0: the caller checks them); prints what is wrong with a hint
 * on failure. --help prints the context's help fitted to the terminal
 * (jmem-output-help.h) and exits 0. */
gboolean jmem_cmd_parse (GOptionContext *context,
                         int            *argc,
                         char         ***argv,
                         int             n_operands,
                         const char     *operands);

/* Refuses an empty value of the file or directory option --@option (an
 * unset variable in a script), which must not fall back to a default or
 * to the live system: prints "--@option takes @takes, not an empty name"
 * and returns FALSE: exit with JMEM_EXIT_USAGE. */
gboolean jmem_cmd_check_name (const char *option,
                              const char *value,
                              const char *takes);

/* Reads @text, the value of the size option --@option, into @bytes (left
 * alone when @text is NULL). Prints why and returns FALSE when it is not a
 * size of @min bytes or more, as a person would type it (no blanks around
 * it): exit with JMEM_EXIT_USAGE. */
gboolean jmem_cmd_parse_size (const char *option,
                              const char *text,
                              guint64     min,
                              guint64    *bytes);

/* Prints the formatted line and a newline on stderr, escaped for a terminal
 * (jmem-text.h): messages quote file names, file contents and arguments;
 * wrapped at the terminal's width when stderr is one. */
void jmem_cmd_printerr (const char *format,
                        ...) G_GNUC_PRINTF (1, 2);

/* Whether a human view on stdout may use colour (a terminal, NO_COLOR unset). */
gboolean jmem_cmd_use_color (void);

/* Writes all of @text to stdout; when it cannot (a full disk, a closed
 * pipe) says so on stderr and returns FALSE: exit with JMEM_EXIT_CANT_CREATE. */
gboolean jmem_cmd_write_stdout (const char *text, gsize len);

/* jmem_cmd_write_stdout() of @text (escaped) with each of its lines
 * wrapped at the terminal's width, further lines indented by @hang; whole
 * lines when stdout is not a terminal. */
gboolean jmem_cmd_write_stdout_wrapped (const char *text,
                                        guint       hang);
/* @root as indented JSON and a newline on stdout (a --json output);
 * FALSE as jmem_cmd_write_stdout(). */
gboolean jmem_cmd_write_json (JsonNode *root);

G_END_DECLS
