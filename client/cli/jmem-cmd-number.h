/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The numeric options of every command, read and checked in one place as
 * GLib parses them: only plain decimal digits (a point too for seconds),
 * within the option's range, or a usage error that names the option and
 * what it takes. GLib's own int and double readers take "0x10", "+5",
 * " 5" and, for doubles, "-1" and "nan". */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum {
  JMEM_CMD_NUMBER_INT,      /* value: int * */
  JMEM_CMD_NUMBER_INT64,    /* value: gint64 * */
  JMEM_CMD_NUMBER_SECONDS,  /* value: double *; takes a fraction: 0.5 */
  JMEM_CMD_NUMBER_INT64_LIST,  /* value: GArray ** of gint64, one per time given */
} JmemCmdNumberType;

typedef struct {
  const char       *name;   /* the long option, without "--" */
  JmemCmdNumberType type;
  gpointer          value;  /* left as it was unless the option is given */
  double            min;
  double            max;
  const char       *takes;  /* for the message: "1 to 3600 seconds" */
  gboolean          given;  /* set when the option was on the command line */
} JmemCmdNumber;

/* --pid PID, into @value of @type (JMEM_CMD_NUMBER_INT64 or _INT64_LIST). */
#define JMEM_CMD_PID(type, value) \
  ((JmemCmdNumber) { "pid", (type), (value), 0, G_MAXUINT32, "a process ID, 0 to 4294967295" })

/* --level of drop-caches and audit, into the int @value. */
#define JMEM_CMD_LEVEL(value) \
  ((JmemCmdNumber) { "level", JMEM_CMD_NUMBER_INT, (value), 1, 3, "1, 2 or 3" })

/* --tegrastats SECONDS, into the int @value (0, no tegrastats, unless given). */
#define JMEM_CMD_TEGRASTATS(value) \
  ((JmemCmdNumber) { "tegrastats", JMEM_CMD_NUMBER_INT, (value), 1, 3600, "1 to 3600 seconds" })

/* The GOptionEntry for --@number->name, reading into @number (which must
 * outlive the parse): a value that is not a number in its range fails the
 * parse with "--NAME takes TAKES, not "VALUE"". */
GOptionEntry jmem_cmd_number_entry (JmemCmdNumber *number,
                                    const char    *description,
                                    const char    *arg_description);

/* Reads @text as --@name would: TRUE and *@value, or FALSE with @error
 * (G_OPTION_ERROR_BAD_VALUE) saying what the option takes. */
gboolean jmem_cmd_number_read (const JmemCmdNumber *number,
                               const char          *text,
                               double              *value,
                               GError             **error);

G_END_DECLS
