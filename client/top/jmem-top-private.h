/* SPDX-License-Identifier: GPL-2.0-or-later */
/* jmem top's state, shared by the loop (jmem-top.c) and the screen
 * (jmem-top-screen.c). */
#pragma once

#include <glib.h>

#include "jmem-top.h"
#include "jmem-top-view.h"

G_BEGIN_DECLS

typedef enum {
  JMEM_TOP_MODE_TABLE,
  JMEM_TOP_MODE_FILTER,        /* typing the filter */
  JMEM_TOP_MODE_CONFIRM_DROP,  /* asked whether to drop caches */
  JMEM_TOP_MODE_POPUP,         /* help, allocations, what a drop freed */
} JmemTopMode;

typedef struct {
  const JmemTopOptions *options;
  const JmemTopBackend *backend;
  gboolean              unicode;      /* the locale is UTF-8: block characters */

  JmemFrame            *live;         /* the newest live sample */
  guint                 replay_index; /* the replayed frame shown */
  double                speed;        /* replay: times real time, + and - change it */
  JmemTopTrends        *trends;
  guint                 n_samples;

  JmemTopViewOptions    view;
  char                 *filter;
  GPtrArray            *rows;         /* JmemTopRow of the frame shown */
  char                 *selected_key; /* the row the selection follows */
  guint                 selected;
  guint                 first_row;    /* the row at the top of the table */
  guint                 table_rows;   /* rows the table had room for when last drawn */
  gboolean              paused;

  JmemTopMode           mode;
  GString              *input;        /* the filter being typed */
  char                 *message;      /* the status line's note */
  gboolean              message_is_error;
  char                 *popup_title;
  GPtrArray            *popup_lines;  /* char*, escaped */
  guint                 popup_scroll;
} JmemTopState;

/* The frame shown: the live one or the replayed one; NULL before any.
 * Inline with the state, so that the screen needs nothing of the loop. */
static inline const JmemFrame *
jmem_top_state_frame (const JmemTopState *state)
{
  if (state->options->replay != NULL)
    return jmem_top_replay_get_n (state->options->replay) > 0
             ? jmem_top_replay_get (state->options->replay, state->replay_index) : NULL;
  return state->live;
}

/* Draws everything (the popup over the table) and updates the terminal. */
void jmem_top_screen_draw (JmemTopState *state);

/* The help popup's lines. */
GPtrArray *jmem_top_screen_help (const JmemTopState *state);

G_END_DECLS
