/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "jmem-collect-private.h"

#include "jmem-names.h"
#include "jmem-nvml.h"
#include "jmem-nvml-record.h"
#include "jmem-nvsmi.h"
#include "jmem-procfs.h"
#include "jmem-run.h"
#include "jmem-text.h"

#include <string.h>

/* One nvidia-smi query, live or from DIR/nvidia-smi/NAME.csv and
 * NAME.exit-status ("0", "not-found", "timeout", or a number). Returns the
 * output, or NULL with the evidence saying why not. */
static char *
run_query (JmemCollectContext *ctx, const char *name, const char *query, gsize *len)
{
  JmemSnapshot *s = ctx->snapshot;
  g_autoptr(GError) error = NULL;

  if (ctx->root != NULL)
    {
      g_autofree char *csv = g_strdup_printf ("/nvidia-smi/%s.csv", name);
      g_autofree char *status_path = g_strdup_printf ("/nvidia-smi/%s.exit-status", name);
      g_autofree char *status = jmem_root_read_text (ctx->files, status_path, NULL);
      char *data = NULL;

      if (status != NULL && !g_str_equal (status, "0"))
        {
          g_ptr_array_add (s->gpu_evidence,
                           g_strdup_printf ("nvidia-smi %s: %s (captured)", query,
                                            g_str_equal (status, "not-found") ?
                                              "not installed" : status));
          return NULL;
        }
      if (!jmem_root_read (ctx->files, csv, JMEM_MAX_PROC_BYTES, &data, len, &error))
        {
          g_ptr_array_add (s->gpu_evidence,
                           g_strdup_printf ("nvidia-smi %s: not in the capture", query));
          return NULL;
        }
      return data;
    }
  else
    {
      const char *argv[] = { "nvidia-smi", query, JMEM_NVSMI_FORMAT, NULL };
      JmemRunResult r;

      if (!jmem_run (argv, ctx->timeout_ms, JMEM_MAX_PROC_BYTES, &r, &error))
        {
          g_ptr_array_add (s->gpu_evidence,
                           g_error_matches (error, G_SPAWN_ERROR, G_SPAWN_ERROR_NOENT) ?
                             g_strdup_printf ("nvidia-smi %s: not installed", query) :
                             g_strdup_printf ("nvidia-smi %s: %s", query, error->message));
          return NULL;
        }
      if (r.timed_out)
        {
          g_ptr_array_add (s->gpu_evidence,
                           g_strdup_printf ("nvidia-smi %s: no answer within %u ms, killed",
                                            query, ctx->timeout_ms));
          jmem_snapshot_add_warning (s, "gpu", "check the GPU driver: sudo dmesg | grep -i nv",
                                     "nvidia-smi did not answer within %u ms and was killed",
                                     ctx->timeout_ms);
          jmem_run_result_clear (&r);
          return NULL;
        }
      if (r.exit_status != 0)
        {
          g_ptr_array_add (s->gpu_evidence,
                           g_strdup_printf ("nvidia-smi %s: exit status %d", query, r.exit_status));
          jmem_run_result_clear (&r);
          return NULL;
        }
      *len = r.out_len;
      return r.out;
    }
}

static void
add_output_evidence (JmemSnapshot *s, const char *label, const char *data, gsize len)
{
  g_autofree char *text = jmem_text_make_valid (data, (gssize) len);
  g_auto(GStrv) lines = g_strsplit (text, "\n", 16);

  for (guint i = 0; lines[i] != NULL; i++)
    if (lines[i][0] != '\0')
      g_ptr_array_add (s->gpu_evidence, g_strdup_printf ("%s: %s", label, g_strchomp (lines[i])));
}

/* What /proc says of a PID nvidia-smi listed, for judging its rows. */
typedef enum {
  NAMES_CLEAN,
  NAMES_NEWLINE,     /* its name or command line holds a newline */
  NAMES_UNREADABLE,  /* exited since nvidia-smi answered, hidden (hidepid), not captured */
  NAMES_LISTED_TWICE,/* the PID has a row for this GPU already: one is forged */
} NamesCheck;

/* The name (status, as the kernel gives it: /proc/PID/comm is not in a
 * capture) and the command line of @pid. */
static NamesCheck
check_names (JmemCollectContext *ctx, gint64 pid)
{
  g_autofree char *status_path = g_strdup_printf ("/proc/%" G_GINT64_FORMAT "/status", pid);
  g_autofree char *cmdline_path = g_strdup_printf ("/proc/%" G_GINT64_FORMAT "/cmdline", pid);
  g_autofree char *status = NULL;
  g_autofree char *cmdline = NULL;
  g_autoptr(JmemProcStatus) parsed = NULL;
  gsize status_len = 0, cmdline_len = 0;

  if (!jmem_root_read (ctx->files, status_path, JMEM_MAX_PROC_BYTES, &status, &status_len, NULL) ||
      !jmem_root_read (ctx->files, cmdline_path, JMEM_MAX_PROC_BYTES, &cmdline, &cmdline_len, NULL))
    return NAMES_UNREADABLE;
  parsed = jmem_proc_status_parse (status, status_len, NULL);
  if (parsed == NULL || parsed->name == NULL)
    return NAMES_UNREADABLE;
  if (strchr (parsed->name, '\n') != NULL || memchr (cmdline, '\n', cmdline_len) != NULL)
    return NAMES_NEWLINE;
  return NAMES_CLEAN;
}

/* nvidia-smi does not quote fields and prints the name last, so a process
 * whose name holds a newline can end its own row and print rows of its
 * choosing after it (for a live PID, under its real name, with any size).
 * Rows before it are nvidia-smi's own. The first row whose process cannot
 * be vouched for (a newline in its name, or a name that cannot be read) is
 * returned; a PID listed twice on one GPU proves a forgery even where every
 * name looks clean now (the forger renamed itself), by an unknown row: then
 * the row of its second listing is. apps->len when all are vouched for. */
static guint
first_in_doubt (JmemCollectContext *ctx, GPtrArray *apps, NamesCheck *check)
{
  g_autoptr(GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  for (guint i = 0; i < apps->len; i++)
    {
      const JmemNvsmiApp *a = g_ptr_array_index (apps, i);
      char *key = g_strdup_printf ("%" G_GINT64_FORMAT " %s", a->pid, a->gpu_uuid);

      if (!g_hash_table_add (seen, key))
        {
          *check = NAMES_LISTED_TWICE;
          return i;
        }
      *check = check_names (ctx, a->pid);
      if (*check != NAMES_CLEAN)
        return i;
    }
  *check = NAMES_CLEAN;
  return apps->len;
}

/* How to find the process whose name holds a newline. */
static char *
newline_action (JmemCollectContext *ctx, gint64 pid)
{
  /* in a capture the PID names no process on this machine */
  return ctx->root != NULL
    ? g_strdup_printf ("see which process it was: the capture's proc/%" G_GINT64_FORMAT
                       "/status and cmdline", pid)
    : g_strdup_printf ("see which process it is: ps -o pid,user,args -p %" G_GINT64_FORMAT, pid);
}

/* Marks the rows after @first in doubt, or all of them after a repeat, and
 * says why. */
static void
doubt_apps (JmemCollectContext *ctx, GPtrArray *apps, guint first, NamesCheck check)
{
  JmemSnapshot *s = ctx->snapshot;
  const JmemNvsmiApp *a = g_ptr_array_index (apps, first);
  guint from = check == NAMES_LISTED_TWICE ? 0 : first + 1;
  guint n = apps->len - from;
  g_autofree char *action = NULL;
  g_autofree char *why = NULL;

  for (guint i = from; i < apps->len; i++)
    ((JmemNvsmiApp *) g_ptr_array_index (apps, i))->in_doubt = TRUE;
  if (n == 0)
    return;
  s->gpu_apps_trusted = FALSE;
  switch (check)
    {
    case NAMES_NEWLINE:
      action = newline_action (ctx, a->pid);
      why = g_strdup_printf ("the name or command line of PID %" G_GINT64_FORMAT " holds a "
                             "newline, which can forge the rows after its own", a->pid);
      break;
    case NAMES_UNREADABLE:
      action = g_strdup (ctx->root != NULL
                           ? "capture again: the process was gone before its files were read"
                           : "run jmem again; if it persists, /proc hides other users' "
                             "processes (hidepid) or jmem runs in another PID namespace: run "
                             "it on the host, as root or in /proc's gid= group");
      why = g_strdup_printf ("the name and command line of PID %" G_GINT64_FORMAT " could not be "
                             "read (it exited after nvidia-smi answered, or /proc hides it), so no "
                             "newline in them, which can forge the rows after its own, can be "
                             "ruled out", a->pid);
      break;
    case NAMES_LISTED_TWICE:
    case NAMES_CLEAN:
    default:
      why = g_strdup_printf ("PID %" G_GINT64_FORMAT " is listed twice for one GPU: a name "
                             "forged a row, which may be any of them", a->pid);
      break;
    }
  jmem_snapshot_add_warning (s, "gpu", action,
                             "nvidia-smi --query-compute-apps answer untrusted from row %u: %s; "
                             "%u %s shown but give no process GPU memory", from + 1, why, n,
                             jmem_text_plural (n, "row is", "rows are"));
}

/* Malformed lines cannot be placed: a name may have made them anywhere.
 * The process whose name holds a newline, if one is listed, is named. */
static void
doubt_malformed (JmemCollectContext *ctx, GPtrArray *apps, guint n_malformed, guint first,
                 NamesCheck check)
{
  JmemSnapshot *s = ctx->snapshot;
  gboolean named = first < apps->len && check == NAMES_NEWLINE;
  gint64 pid = named ? ((const JmemNvsmiApp *) g_ptr_array_index (apps, first))->pid : 0;
  g_autofree char *action = named ? newline_action (ctx, pid) : NULL;
  g_autofree char *culprit = named
    ? g_strdup_printf (", and the name or command line of PID %" G_GINT64_FORMAT " holds a newline",
                       pid)
    : NULL;

  for (guint i = 0; i < apps->len; i++)
    ((JmemNvsmiApp *) g_ptr_array_index (apps, i))->in_doubt = TRUE;
  s->gpu_apps_trusted = FALSE;
  jmem_snapshot_add_warning (s, "gpu", action,
                             "nvidia-smi --query-compute-apps answer untrusted: %u malformed %s%s; "
                             "its rows are shown but give no process GPU memory", n_malformed,
                             jmem_text_plural (n_malformed, "line", "lines"), culprit ? culprit : "");
}

/* NVML's answer (live, or recorded by jmem capture) as the GPUs and their
 * processes; FALSE (@why_not says why) leaves it to nvidia-smi. */
static gboolean
use_nvml (JmemCollectContext *ctx, JmemNvmlAnswer *answer, GPtrArray *why_not)
{
  JmemSnapshot *s = ctx->snapshot;
  guint n_unlisted;

  for (guint i = 0; i < answer->evidence->len; i++)
    g_ptr_array_add (s->gpu_evidence, g_strdup (g_ptr_array_index (answer->evidence, i)));
  s->gpu_stack = jmem_nvsmi_stack_from_gpus (answer->gpus);
  /* an nvgpu board's memory is in NvMap: nvidia-smi's path handles it */
  if (s->gpu_stack != JMEM_GPU_STACK_UNIFIED)
    {
      s->gpu_stack = JMEM_GPU_STACK_NONE;
      g_ptr_array_set_size (s->gpu_evidence, 0);
      g_ptr_array_add (why_not, g_strdup ("nvml: not the unified stack, nvidia-smi asked instead"));
      return FALSE;
    }
  g_ptr_array_extend_and_steal (s->gpus, g_steal_pointer (&answer->gpus));
  /* rows for a GPU not listed count for nobody, whatever their source */
  n_unlisted = jmem_nvsmi_apps_keep_listed (answer->apps, s->gpus);
  if (n_unlisted > 0)
    jmem_snapshot_add_warning (s, "gpu", NULL,
                               "%u NVML process %s a GPU NVML did not list: not counted",
                               n_unlisted, jmem_text_plural (n_unlisted, "row names", "rows name"));
  g_ptr_array_add (s->gpu_evidence, g_strdup ("source: nvml"));
  g_ptr_array_add (s->gpu_evidence,
                   g_strdup_printf ("stack: %s", jmem_gpu_stack_to_string (s->gpu_stack)));
  /* NVML answers in structures: no name can forge a row, so they stay trusted */
  g_ptr_array_extend_and_steal (s->gpu_apps, g_steal_pointer (&answer->apps));
  ctx->gpu_apps_read = TRUE;
  return TRUE;
}

/* The GPUs and their processes from NVML, without starting a program. */
static gboolean
collect_nvml (JmemCollectContext *ctx, GPtrArray *why_not)
{
  g_auto(JmemNvmlAnswer) answer = { 0 };

  if (!jmem_nvml_query (&answer))
    {
      g_ptr_array_extend_and_steal (why_not, g_steal_pointer (&answer.evidence));
      return FALSE;
    }
  return use_nvml (ctx, &answer, why_not);
}

/* NVML's answer as a capture recorded it; a capture without one (nvgpu,
 * no NVML, an older jmem) leaves it to nvidia-smi's recorded text. */
static gboolean
collect_nvml_recorded (JmemCollectContext *ctx, GPtrArray *why_not)
{
  g_auto(JmemNvmlAnswer) answer = { 0 };
  g_autoptr(GError) error = NULL;
  g_autofree char *data = NULL;
  gsize len = 0;

  if (!jmem_root_read (ctx->files, JMEM_NVML_RECORD_PATH, JMEM_MAX_PROC_BYTES, &data, &len, NULL))
    return FALSE;
  if (!jmem_nvml_record_parse (data, len, &answer.gpus, &answer.apps, &error))
    {
      g_ptr_array_add (why_not, g_strdup_printf ("nvml (captured): %s", error->message));
      return FALSE;
    }
  answer.evidence = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (answer.evidence,
                   g_strdup_printf ("nvml: the answer recorded in the capture (%s), %u processes",
                                    &JMEM_NVML_RECORD_PATH[1], answer.apps->len));
  return use_nvml (ctx, &answer, why_not);
}

static gboolean collect_nvsmi (JmemCollectContext *ctx);

void
jmem_collect_gpu (JmemCollectContext *ctx)
{
  JmemSnapshot *s = ctx->snapshot;
  g_autoptr(GPtrArray) why_not = g_ptr_array_new_with_free_func (g_free);
  gboolean answered;

  s->gpu_stack = JMEM_GPU_STACK_NONE;
  if (ctx->root == NULL ? collect_nvml (ctx, why_not) : collect_nvml_recorded (ctx, why_not))
    return;
  answered = collect_nvsmi (ctx);
  /* after nvidia-smi's own lines, which readers look at first; nvidia-smi
   * is named the source only where it answered */
  if (why_not->len > 0)
    {
      g_ptr_array_extend_and_steal (s->gpu_evidence, g_steal_pointer (&why_not));
      if (answered)
        g_ptr_array_add (s->gpu_evidence, g_strdup ("source: nvidia-smi"));
    }
}

/* One --query-compute-apps answer (@name: its file in a capture), without
 * the rows for GPUs --query-gpu did not list; NULL when there is none. */
static GPtrArray *
ask_apps (JmemCollectContext *ctx, const char *name, guint *n_malformed)
{
  JmemSnapshot *s = ctx->snapshot;
  g_autoptr(GError) error = NULL;
  g_autofree char *data = NULL;
  g_autoptr(GPtrArray) apps = NULL;
  guint n_unlisted;
  gsize len = 0;

  data = run_query (ctx, name, JMEM_NVSMI_QUERY_APPS, &len);
  if (data == NULL)
    return NULL;
  *n_malformed = 0;
  apps = jmem_nvsmi_apps_parse (data, len, n_malformed, &error);
  if (apps == NULL)
    {
      jmem_snapshot_add_warning (s, "gpu", NULL, "nvidia-smi compute-apps output not understood: %s",
                                 error->message);
      return NULL;
    }
  n_unlisted = jmem_nvsmi_apps_keep_listed (apps, s->gpus);
  if (n_unlisted > 0)
    jmem_snapshot_add_warning (s, "gpu", NULL,
                               "%u nvidia-smi --query-compute-apps %s a GPU --query-gpu did "
                               "not list: not counted", n_unlisted,
                               jmem_text_plural (n_unlisted, "row names", "rows name"));
  return g_steal_pointer (&apps);
}

/* Live, nvidia-smi can always be asked again; a capture holds a second
 * answer only where its first listed a process that had gone. */
static gboolean
may_ask_again (JmemCollectContext *ctx)
{
  g_autofree char *data = NULL;

  return ctx->root == NULL ||
         jmem_root_read (ctx->files, "/nvidia-smi/" JMEM_NVSMI_APPS_AGAIN ".csv",
                         JMEM_MAX_PROC_BYTES, &data, NULL, NULL);
}

/* The GPUs and their processes from nvidia-smi (live or captured); FALSE
 * when it printed no GPU list (not installed, failed, killed). */
static gboolean
collect_nvsmi (JmemCollectContext *ctx)
{
  JmemSnapshot *s = ctx->snapshot;
  g_autofree char *gpu_data = NULL;
  g_autoptr(GPtrArray) gpus = NULL;
  g_autoptr(GPtrArray) apps = NULL;
  g_autoptr(GError) error = NULL;
  guint n_malformed = 0, first;
  NamesCheck check;
  gboolean kept;
  gsize len = 0;

  kept = jmem_collect_boot_probe (ctx, "query-gpu", &gpu_data, &len);
  if (kept && gpu_data == NULL)
    {
      g_ptr_array_add (s->gpu_evidence,
                       g_strdup ("nvidia-smi: not installed (probed once for this boot)"));
      return FALSE;
    }
  if (!kept)
    gpu_data = run_query (ctx, "query-gpu", JMEM_NVSMI_QUERY_GPU, &len);
  if (gpu_data == NULL)
    {
      if (ctx->root == NULL && s->gpu_evidence->len > 0 &&
          g_str_has_suffix (g_ptr_array_index (s->gpu_evidence, s->gpu_evidence->len - 1),
                            ": not installed"))
        jmem_collect_boot_keep_probe (ctx, "query-gpu", NULL, 0);
      return FALSE;
    }
  add_output_evidence (s, "query-gpu", gpu_data, len);

  gpus = jmem_nvsmi_gpus_parse (gpu_data, len, &n_malformed, &error);
  if (gpus == NULL)
    {
      jmem_snapshot_add_warning (s, "gpu", NULL, "nvidia-smi output not understood: %s",
                                 error->message);
      return FALSE;
    }
  if (n_malformed > 0)
    jmem_snapshot_add_warning (s, "gpu", NULL, "%u malformed nvidia-smi --query-gpu %s",
                               n_malformed, jmem_text_plural (n_malformed, "line", "lines"));
  s->gpu_stack = jmem_nvsmi_stack_from_gpus (gpus);
  /* on nvgpu the probe reports no memory figures (all [N/A]) and per-process
   * GPU memory is NvMap's: the answer holds for the boot, and later
   * snapshots start no program for it */
  if (s->gpu_stack == JMEM_GPU_STACK_NVGPU && !kept)
    jmem_collect_boot_keep_probe (ctx, "query-gpu", gpu_data, len);
  g_ptr_array_extend_and_steal (s->gpus, g_steal_pointer (&gpus));
  g_ptr_array_add (s->gpu_evidence,
                   g_strdup_printf ("stack: %s", jmem_gpu_stack_to_string (s->gpu_stack)));
  if (kept)
    {
      g_ptr_array_add (s->gpu_evidence,
                       g_strdup ("probed once for this boot: the GPU list and driver stack do "
                                 "not change before a reboot"));
      return TRUE;
    }
  if (s->gpus->len == 0)
    return TRUE;

  apps = ask_apps (ctx, "query-compute-apps", &n_malformed);
  if (apps == NULL)
    return TRUE;
  first = first_in_doubt (ctx, apps, &check);
  /* churn: a listed process exited before its name was read. The driver
   * drops it from its next answer, so one more question usually gets rows
   * that can all be vouched for; its answer replaces the first. */
  if (first < apps->len && check == NAMES_UNREADABLE && n_malformed == 0 && may_ask_again (ctx))
    {
      const JmemNvsmiApp *gone = g_ptr_array_index (apps, first);
      gint64 gone_pid = gone->pid;
      guint again_malformed = 0;
      g_autoptr(GPtrArray) again = ask_apps (ctx, JMEM_NVSMI_APPS_AGAIN, &again_malformed);

      if (again != NULL)
        {
          g_ptr_array_add (s->gpu_evidence,
                           g_strdup_printf ("query-compute-apps: asked twice, PID %" G_GINT64_FORMAT
                                            " could not be read after the first answer",
                                            gone_pid));
          g_clear_pointer (&apps, g_ptr_array_unref);
          apps = g_steal_pointer (&again);
          n_malformed = again_malformed;
          first = first_in_doubt (ctx, apps, &check);
        }
    }
  if (n_malformed > 0)
    doubt_malformed (ctx, apps, n_malformed, first, check);
  else if (first < apps->len)
    doubt_apps (ctx, apps, first, check);
  g_ptr_array_add (s->gpu_evidence,
                   g_strdup_printf ("query-compute-apps: %u processes", apps->len));
  g_ptr_array_extend_and_steal (s->gpu_apps, g_steal_pointer (&apps));
  /* a malformed line may have been a real row: who is unlisted is unknown */
  ctx->gpu_apps_read = n_malformed == 0;
  return TRUE;
}
