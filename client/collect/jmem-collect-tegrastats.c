/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "jmem-collect-private.h"

#include "jmem-names.h"
#include "jmem-run.h"

#include <string.h>

/* The last complete line of @out, or NULL. */
static char *
last_line (const char *out)
{
  g_auto(GStrv) lines = g_strsplit (out, "\n", -1);
  guint n = g_strv_length (lines);

  /* A line without its newline may have been cut when the tool was stopped. */
  for (guint i = n >= 1 ? n - 1 : 0; i-- > 0;)
    if (lines[i][0] != '\0')
      return g_strdup (lines[i]);
  return NULL;
}

void
jmem_collect_tegrastats (JmemCollectContext *ctx)
{
  JmemSnapshot *s = ctx->snapshot;
  guint seconds = ctx->options->tegrastats_seconds;
  g_autofree char *line = NULL;
  g_autoptr(GError) error = NULL;

  /* asked for on a system without it: the report says why, no warning */
  if (jmem_platform_not_applying (s->platform, JMEM_JETSON_PART_TEGRASTATS) != NULL)
    return;
  if (ctx->root != NULL)
    {
      g_autofree char *data = NULL;
      gsize len = 0;

      if (!jmem_root_read (ctx->files, "/tegrastats/line.txt", JMEM_MAX_SMALL_BYTES, &data, &len, &error))
        {
          jmem_snapshot_add_warning (s, "tegrastats", NULL,
                                     "the capture holds no tegrastats/line.txt");
          return;
        }
      line = last_line (data);
      if (line == NULL && len > 0)
        line = g_strdup (data);
    }
  else
    {
      guint interval_ms = MIN (seconds * 1000, 1000u);
      g_autofree char *interval = g_strdup_printf ("%u", interval_ms);
      const char *argv[] = { "tegrastats", "--interval", interval, NULL };
      JmemRunResult r;

      /* tegrastats never exits on its own: it is stopped at the deadline. */
      if (!jmem_run (argv, seconds * 1000 + 500, JMEM_MAX_PROC_BYTES, &r, &error))
        {
          jmem_snapshot_add_warning (s, "tegrastats",
                                     s->is_jetson ? "install tegrastats (package nvidia-l4t-tools)" : NULL,
                                     "tegrastats could not run: %s", error->message);
          return;
        }
      line = last_line (r.out);
      jmem_run_result_clear (&r);
    }

  if (line == NULL)
    {
      jmem_snapshot_add_warning (s, "tegrastats", NULL,
                                 "tegrastats printed no line within %u s", seconds);
      return;
    }
  g_strchomp (line);
  s->tegrastats = jmem_tegrastats_parse (line, strlen (line), &error);
  if (s->tegrastats == NULL)
    jmem_snapshot_add_warning (s, "tegrastats", NULL, "tegrastats line not understood: %s",
                               error->message);
}
