/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "jmem-capture-marker.h"

#include "jmem-config.h"

#include "jmem-file.h"
#include "jmem-write.h"

#include <errno.h>
#include <gio/gio.h>
#include <string.h>
#include <unistd.h>

static const struct {
  const char *name;  /* in the marker */
  const char *what;  /* in the reader's sentence */
} steps[JMEM_CAPTURE_N_STEPS] = {
  [JMEM_CAPTURE_STEP_HOST] = { "host", "memory totals and board identity" },
  [JMEM_CAPTURE_STEP_PROCESSES] = { "processes", "processes (proc/PID)" },
  [JMEM_CAPTURE_STEP_ACCOUNTS] = { "accounts", "account names (etc/passwd)" },
  [JMEM_CAPTURE_STEP_PROGRAMS] = { "programs", "nvidia-smi and nvpmodel outputs" },
  [JMEM_CAPTURE_STEP_NVMAP] = { "nvmap", "NvMap" },
  [JMEM_CAPTURE_STEP_THERMAL] = { "thermal", "thermal zones" },
  [JMEM_CAPTURE_STEP_SYSTEM] = { "system", "disk and service states" },
  [JMEM_CAPTURE_STEP_TEGRASTATS] = { "tegrastats", "the tegrastats line" },
};

#define HEADER \
  "This capture is incomplete until jmem capture removes this file, its last step\n" \
  "(" JMEM_DOCDIR "/capture-format.md).\n" \
  "\"plan\" lists its steps, \"step\" the one it was in.\n"

/* Wide enough for every step name: each record then has the same length
 * and overwrites the one before it exactly. */
#define STEP_WIDTH 12

/* A marker is a few lines; anything larger is not one jmem wrote. */
#define MARKER_MAX_BYTES 4096

struct _JmemCaptureMarker {
  JmemRoot *out;     /* not owned */
  int       fd;
  off_t     step_at; /* where the "step" record starts */
};

static gboolean
write_error (GError **error, int saved, JmemRoot *out)
{
  g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), "Cannot write %s%s: %s",
               jmem_root_get_path (out), JMEM_CAPTURE_MARKER_PATH, g_strerror (saved));
  return FALSE;
}

JmemCaptureMarker *
jmem_capture_marker_begin (JmemRoot *out,
                           gboolean  with_tegrastats,
                           GError  **error)
{
  g_autoptr(JmemCaptureMarker) marker = g_new0 (JmemCaptureMarker, 1);
  g_autoptr(GString) text = g_string_new (HEADER "plan");

  marker->out = out;
  marker->fd = jmem_root_create_file (out, JMEM_CAPTURE_MARKER_PATH, error);
  if (marker->fd < 0)
    return NULL;
  for (guint i = 0; i < JMEM_CAPTURE_N_STEPS; i++)
    if (i != JMEM_CAPTURE_STEP_TEGRASTATS || with_tegrastats)
      g_string_append_printf (text, " %s", steps[i].name);
  g_string_append_c (text, '\n');
  marker->step_at = (off_t) text->len;
  g_string_append_printf (text, "step %-*s\n", STEP_WIDTH, steps[0].name);
  if (!jmem_file_write_all (marker->fd, text->str, text->len))
    {
      write_error (error, errno, out);
      return NULL;
    }
  return g_steal_pointer (&marker);
}

gboolean
jmem_capture_marker_step (JmemCaptureMarker *marker,
                          JmemCaptureStep    step,
                          GError           **error)
{
  char record[STEP_WIDTH + 8];
  int len;

  g_return_val_if_fail (step < JMEM_CAPTURE_N_STEPS, FALSE);

  len = g_snprintf (record, sizeof record, "step %-*s\n", STEP_WIDTH, steps[step].name);
  /* in place: the same bytes of a block the file already has */
  if (pwrite (marker->fd, record, (size_t) len, marker->step_at) != len)
    return write_error (error, errno ? errno : EIO, marker->out);
  return TRUE;
}

gboolean
jmem_capture_marker_finish (JmemCaptureMarker *marker,
                            GError           **error)
{
  if (close (marker->fd) != 0)
    {
      marker->fd = -1;
      return write_error (error, errno, marker->out);
    }
  marker->fd = -1;
  /* The files first, then the marker's removal: after a power cut the
   * marker is gone only if everything it vouches for is on the disk. */
  return jmem_root_sync (marker->out, error) &&
         jmem_root_remove (marker->out, JMEM_CAPTURE_MARKER_PATH, error);
}

void
jmem_capture_marker_free (JmemCaptureMarker *marker)
{
  if (marker == NULL)
    return;
  if (marker->fd >= 0)
    close (marker->fd);
  g_free (marker);
}

/* ---- reading ---- */

/* The step named @word, or -1: the marker is read from a tree, which may
 * hold anything. */
static int
step_named (const char *word)
{
  for (guint i = 0; i < JMEM_CAPTURE_N_STEPS; i++)
    if (g_str_equal (word, steps[i].name))
      return (int) i;
  return -1;
}

/* "a, b, c": the items may hold "and" themselves */
static void
append_list (GString *out, GPtrArray *items)
{
  for (guint i = 0; i < items->len; i++)
    {
      if (i > 0)
        g_string_append (out, ", ");
      g_string_append (out, g_ptr_array_index (items, i));
    }
}

typedef struct {
  gboolean planned[JMEM_CAPTURE_N_STEPS];
  int      stopped;  /* the step it was in, or -1 */
} MarkerState;

/* FALSE when @tree holds no marker. */
static gboolean
read_marker (JmemRoot *tree, MarkerState *state)
{
  g_autofree char *data = NULL;
  g_auto(GStrv) lines = NULL;
  gboolean any_plan = FALSE;

  *state = (MarkerState) { .stopped = -1 };
  if (!jmem_root_exists (tree, JMEM_CAPTURE_MARKER_PATH))
    return FALSE;
  if (jmem_root_read (tree, JMEM_CAPTURE_MARKER_PATH, MARKER_MAX_BYTES, &data, NULL, NULL))
    lines = g_strsplit (data, "\n", -1);
  for (guint i = 0; lines != NULL && lines[i] != NULL; i++)
    {
      g_auto(GStrv) words = g_strsplit (lines[i], " ", -1);
      const char *key = words[0] != NULL ? words[0] : "";

      if (g_str_equal (key, "plan"))
        for (guint w = 1; words[w] != NULL; w++)
          {
            int step = step_named (words[w]);

            if (step >= 0)
              state->planned[step] = any_plan = TRUE;
          }
      else if (g_str_equal (key, "step") && words[1] != NULL)
        state->stopped = step_named (words[1]);
    }
  /* A marker cut short by a full disk: the steps every capture has. */
  if (!any_plan)
    for (guint i = 0; i < JMEM_CAPTURE_STEP_TEGRASTATS; i++)
      state->planned[i] = TRUE;
  return TRUE;
}

gboolean
jmem_capture_marker_lacks (JmemRoot        *tree,
                           JmemCaptureStep  step)
{
  MarkerState state;

  return read_marker (tree, &state) && (state.stopped < 0 || (guint) state.stopped <= step);
}

char *
jmem_capture_marker_describe (JmemRoot *tree)
{
  g_autoptr(GPtrArray) missing = g_ptr_array_new ();
  g_autoptr(GString) out = NULL;
  MarkerState state;

  if (!read_marker (tree, &state))
    return NULL;
  out = g_string_new (NULL);
  g_string_append_printf (out, "%s is an incomplete capture (it holds %s): jmem capture was "
                          "stopped (killed, or the disk was full) ",
                          jmem_root_get_path (tree), JMEM_CAPTURE_MARKER_NAME);
  if (state.stopped < 0)
    {
      g_string_append (out, "at a step it does not name, so any part of it may be missing");
      return g_string_free (g_steal_pointer (&out), FALSE);
    }
  g_string_append_printf (out, "while writing %s, which may be partial",
                          steps[state.stopped].what);
  for (guint i = (guint) state.stopped + 1; i < JMEM_CAPTURE_N_STEPS; i++)
    if (state.planned[i])
      g_ptr_array_add (missing, (gpointer) steps[i].what);
  if (missing->len > 0)
    {
      g_string_append (out, "; not captured: ");
      append_list (out, missing);
    }
  return g_string_free (g_steal_pointer (&out), FALSE);
}
