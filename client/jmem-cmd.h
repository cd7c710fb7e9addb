/* The jmem subcommands and their exit codes (sysexits.h values, see jmem(1)). */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

typedef enum {
  JMEM_EXIT_OK = 0,
  JMEM_EXIT_USAGE = 64,          /* bad command line */
  JMEM_EXIT_DATA_ERR = 65,       /* an input file is not what it must be */
  JMEM_EXIT_NO_INPUT = 66,       /* an input file is missing or unreadable */
  JMEM_EXIT_NO_DATA = 69,        /* nothing to report at all */
  JMEM_EXIT_INTERNAL = 70,       /* a bug */
  JMEM_EXIT_CANT_CREATE = 73,    /* cannot create the output */
  JMEM_EXIT_TEMP_FAIL = 75,      /* refused for now (rate limit): try again later */
  JMEM_EXIT_NOT_AUTHORIZED = 77, /* the command's main data was refused */
} JmemExit;

/* Each takes argv with argv[0] = the subcommand's name. */
int jmem_cmd_snapshot (int argc, char **argv);
int jmem_cmd_capture (int argc, char **argv);
int jmem_cmd_allocations (int argc, char **argv);
int jmem_cmd_triage (int argc, char **argv);
int jmem_cmd_diff (int argc, char **argv);
int jmem_cmd_drop_caches (int argc, char **argv);
int jmem_cmd_audit (int argc, char **argv);
int jmem_cmd_metrics (int argc, char **argv);

/* Calls the helper's DropCaches; on a refusal prints "jmem @command: why"
 * and what to do, and returns the exit status for it (77 not authorized, 75
 * rate-limited, 69 helper or polkit missing, 70 other), else JMEM_EXIT_OK. */
int jmem_cmd_call_drop_caches (const char *command,
                               guint       level,
                               gboolean    compact,
                               gboolean    allow_interactive,
                               GVariant  **result);

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

/* Prints the formatted line and a newline on stderr, escaped for a terminal
 * (jmem-text.h): messages quote file names, file contents and arguments. */
void jmem_cmd_printerr (const char *format,
                        ...) G_GNUC_PRINTF (1, 2);

/* Whether a human view on stdout may use colour (a terminal, NO_COLOR unset). */
gboolean jmem_cmd_use_color (void);

/* Writes all of @text to stdout; FALSE when it could not (closed pipe, full disk). */
gboolean jmem_cmd_write_stdout (const char *text, gsize len);

G_END_DECLS
