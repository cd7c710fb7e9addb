/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The options that choose what a command shows and where it reads from,
 * declared and checked once for every command: --json, --top N, --all,
 * --width N, --no-ask-password and --sysroot DIR. */
#pragma once

#include <glib.h>

#include "jmem-cmd-number.h"

G_BEGIN_DECLS

typedef enum {
  JMEM_VIEW_JSON    = 1 << 0,
  JMEM_VIEW_TOP     = 1 << 1,  /* --top N */
  JMEM_VIEW_ALL     = 1 << 2,  /* --all, which excludes --top */
  JMEM_VIEW_WIDTH   = 1 << 3,
  JMEM_VIEW_NO_ASK  = 1 << 4,
  JMEM_VIEW_SYSROOT = 1 << 5,
} JmemViewFlags;

/* A command's own wording of an option's help; NULL for the usual one. */
typedef struct {
  const char *json;
  const char *top;
  const char *all;
  const char *width;
  const char *sysroot;
} JmemViewHelp;

typedef struct {
  JmemViewFlags flags;
  int           default_top;
  gboolean      json;
  int           top;                /* checked: the count, < 0 for every one */
  gboolean      top_given;          /* checked: --top was on the command line */
  gboolean      all;
  int           width;              /* checked: columns, 0 for a pipe (whole lines) */
  gboolean      no_ask;
  char         *sysroot;            /* NULL: the live system */
  gboolean      allow_interactive;  /* checked: polkit may ask (a terminal, no --no-ask-password) */
  int           status;             /* the exit status when the parse or check failed */
  JmemCmdNumber top_number;
  JmemCmdNumber width_number;
} JmemView;

/* Adds the options @flags names to @context (@help: nullable); @default_top
 * is what --top is without the option. */
void jmem_view_init (JmemView           *view,
                     GOptionContext     *context,
                     JmemViewFlags       flags,
                     int                 default_top,
                     const JmemViewHelp *help);

/* After parsing: checks the values and settles the defaults; prints what
 * is wrong with a hint and returns FALSE otherwise, @view's status saying
 * with what to exit: a usage error, or no data where --sysroot names no
 * directory (the one message and status of every command). */
gboolean jmem_view_check (JmemView *view);

void jmem_view_clear (JmemView *view);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (JmemView, jmem_view_clear)

G_END_DECLS
