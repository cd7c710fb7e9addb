/* jmem summary: the five numbers a person glances at, on one line. */
#include "jmem-cmd.h"

#include "jmem-text.h"

#include <string.h>
#include <unistd.h>

/* "7.4 GiB", "n/a" when unknown. */
static char *
size_text (gint64 kib)
{
  g_autofree char *text = NULL;
  g_auto(GStrv) parts = NULL;

  if (kib < 0)
    return g_strdup ("n/a");
  text = g_format_size_full ((guint64) kib * 1024, G_FORMAT_SIZE_IEC_UNITS);
  /* GLib puts a no-break space between number and unit: plain text greps better */
  parts = g_strsplit (text, "\u00a0", -1);
  return g_strjoinv (" ", parts);
}

static gint64
nvmap_kib (const JmemSnapshot *s)
{
  if (s->nvmap_clients != NULL && s->nvmap_clients->has_total)
    return (gint64) MIN (s->nvmap_clients->total_kib, (guint64) G_MAXINT64 / 1024);
  return s->meminfo != NULL ? jmem_meminfo_get_kib (s->meminfo, "NvMapMemUsed") : -1;
}

/* Rows for a GPU that query-gpu did not list are not this board's memory. */
static gboolean
gpu_listed (const JmemSnapshot *s, const char *uuid)
{
  for (guint i = 0; uuid != NULL && s->gpus != NULL && i < s->gpus->len; i++)
    {
      const JmemNvsmiGpu *g = g_ptr_array_index (s->gpus, i);

      if (g->uuid != NULL && g_str_equal (g->uuid, uuid))
        return TRUE;
    }
  return FALSE;
}

/* nvidia-smi's used memory over every GPU, else (Thor reports none) the sum
 * of its trusted per-process rows; -1 when neither is known. */
static gint64
gpu_kib (const JmemSnapshot *s)
{
  gint64 sum = -1;

  for (guint i = 0; s->gpus != NULL && i < s->gpus->len; i++)
    {
      const JmemNvsmiGpu *g = g_ptr_array_index (s->gpus, i);

      if (g->memory_used_mib >= 0 && g->memory_used_mib < G_MAXINT64 / (1024 * 1024))
        sum = (sum < 0 ? 0 : sum) + g->memory_used_mib * 1024;
    }
  if (sum >= 0 || !s->gpu_apps_trusted)
    return sum;
  for (guint i = 0; s->gpu_apps != NULL && i < s->gpu_apps->len; i++)
    {
      const JmemNvsmiApp *app = g_ptr_array_index (s->gpu_apps, i);

      if (app->used_memory_mib >= 0 && app->used_memory_mib < G_MAXINT32 &&
          gpu_listed (s, app->gpu_uuid))
        sum = (sum < 0 ? 0 : sum) + app->used_memory_mib * 1024;
    }
  return sum;
}

/* The accounting's largest use of RAM, the remainder included: where to
 * look first. */
static char *
largest_bucket (const JmemSnapshot *s)
{
  const JmemAccounting *a = s->accounting;
  const JmemBucket *b = a != NULL ? jmem_accounting_largest_used (a) : NULL;
  g_autofree char *size = NULL;

  if (a == NULL || (b == NULL && a->unexplained_kib <= 0))
    return g_strdup ("n/a");
  if (b == NULL || a->unexplained_kib > b->kib)
    {
      size = size_text (a->unexplained_kib);
      return g_strdup_printf ("unexplained %s", size);
    }
  size = size_text (b->kib);
  return g_strdup_printf ("%s %s", jmem_accounting_bucket_label (b->id), size);
}

/* The line, valid UTF-8 and escaped for a terminal. */
static char *
summary_line (const JmemSnapshot *s)
{
  gint64 total = s->meminfo ? jmem_meminfo_get_kib (s->meminfo, "MemTotal") : -1;
  gint64 avail = s->meminfo ? jmem_meminfo_get_kib (s->meminfo, "MemAvailable") : -1;
  g_autofree char *t = size_text (total);
  g_autofree char *a = size_text (avail);
  g_autofree char *n = size_text (nvmap_kib (s));
  g_autofree char *g = size_text (gpu_kib (s));
  g_autofree char *top = NULL;
  g_autofree char *line = NULL;
  g_autofree char *largest = largest_bucket (s);

  if (s->processes != NULL && s->processes->len > 0)
    {
      const JmemProcess *p = g_ptr_array_index (s->processes, 0);
      g_autofree char *f = size_text (p->footprint_kib);

      top = g_strdup_printf ("PID %" G_GINT64_FORMAT " (%s) %s", p->pid,
                             p->name ? p->name : "?", f);
    }
  line = g_strdup_printf ("total %s, available %s, NvMap %s, GPU %s, top %s, largest bucket: %s",
                          t, a, n, g, top ? top : "n/a", largest);
  return jmem_text_for_terminal (line);
}

typedef struct {
  JmemCollectOptions options;
  gboolean           timestamps;
} Summary;

static int
summary_sample (guint index, gpointer data)
{
  Summary *sum = data;
  g_autoptr(JmemSnapshot) s = NULL;
  g_autofree char *line = NULL;
  g_autofree char *out = NULL;
  int status = JMEM_EXIT_OK;

  s = jmem_cmd_collect ("jmem summary", &sum->options, &status);
  if (s == NULL)
    return status;
  line = summary_line (s);
  if (sum->timestamps)
    {
      g_autoptr(GDateTime) now = g_date_time_new_now_local ();
      g_autofree char *hms = g_date_time_format (now, "%H:%M:%S");

      out = g_strdup_printf ("%s %s\n", hms, line);
    }
  else
    {
      out = g_strconcat (line, "\n", NULL);
    }
  if (!jmem_cmd_write_stdout (out, strlen (out)))
    return JMEM_EXIT_CANT_CREATE;
  return JMEM_EXIT_OK;
}

int
jmem_cmd_summary (int argc, char **argv)
{
  gboolean no_ask = FALSE;
  int watch = 0;
  g_autofree char *sysroot = NULL;
  GOptionEntry entries[] = {
    { "watch", 0, 0, G_OPTION_ARG_INT, &watch, "Print a line every S seconds until Ctrl-C", "S" },
    { "sysroot", 0, 0, G_OPTION_ARG_FILENAME, &sysroot, "Read a tree written by jmem capture", "DIR" },
    { "no-ask-password", 0, 0, G_OPTION_ARG_NONE, &no_ask, "Never let polkit ask for a password", NULL },
    { NULL },
  };
  g_autoptr(GOptionContext) context = g_option_context_new ("- memory on one line");
  g_autoptr(JmemCollectBoot) boot = jmem_collect_boot_new ();
  Summary sum = { 0 };

  g_option_context_add_main_entries (context, entries, NULL);
  g_option_context_set_description (context,
    "The line: MemTotal, MemAvailable, NvMap in use (the NvMap total, else meminfo's\n"
    "NvMapMemUsed), GPU memory used by nvidia-smi's GPUs, and the process with the largest\n"
    "footprint; n/a where a source is unreadable. --watch puts the local time first.\n"
    "Exit status: 0 ok, 64 usage error, 69 no data (an empty or missing --sysroot),\n"
    "70 internal error.");
  if (!jmem_cmd_parse (context, &argc, &argv, 0, NULL))
    return JMEM_EXIT_USAGE;
  if (watch < 0 || watch > 86400)
    {
      g_printerr ("jmem summary: --watch takes 1 to 86400 seconds\n");
      return JMEM_EXIT_USAGE;
    }
  sum.options.sysroot = sysroot;
  sum.options.top = 1;
  sum.options.allow_interactive = !no_ask && isatty (STDIN_FILENO);
  sum.timestamps = watch > 0;
  sum.options.boot = boot;
  if (watch == 0)
    return summary_sample (0, &sum);
  return jmem_cmd_repeat ((guint) watch, 0, summary_sample, &sum);
}
