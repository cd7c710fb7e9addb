/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "jmem-output-human.h"

#include <math.h>
#include <string.h>

#include "jmem-action.h"
#include "jmem-meminfo.h"
#include "jmem-nvmap.h"
#include "jmem-nvsmi.h"
#include "jmem-output-accounting.h"
#include "jmem-output-table.h"
#include "jmem-text.h"
#include "jmem-triage.h"

#define SGR_BOLD   "\033[1m"
#define SGR_YELLOW "\033[33m"
#define SGR_DIM    "\033[2m"
#define SGR_RESET  "\033[0m"

typedef struct {
  GString *out;
  gboolean color;
  guint    width;
} Report;

/* Safe to print: valid UTF-8 first (escaping needs it), at most
 * JMEM_TEXT_MAX_FIELD_BYTES of it, then no control or hiding characters.
 * NULL becomes "-". */
static char *
esc (const char *text)
{
  g_autofree char *valid = NULL;
  g_autofree char *capped = NULL;

  if (text == NULL)
    return g_strdup ("-");
  valid = jmem_text_make_valid (text, -1);
  capped = jmem_text_cap_field (valid);
  return jmem_text_escape (capped);
}

/* A command line as the JSON carries it (its first
 * JMEM_TEXT_MAX_CMDLINE_BYTES), "…" marking a cut, escaped. */
static char *
esc_cmdline (const char *cmdline)
{
  g_autofree char *valid = jmem_text_make_valid (cmdline != NULL ? cmdline : "", -1);
  gboolean cut = FALSE;
  g_autofree char *capped = jmem_text_cap_bytes (valid, JMEM_TEXT_MAX_CMDLINE_BYTES, &cut);
  g_autofree char *shown = jmem_text_escape (capped);

  return cut ? g_strconcat (shown, "…", NULL) : g_steal_pointer (&shown);
}

/* The one size formatter (jmem-text.h); "-" when unknown. */
static char *
size_text (gint64 kib)
{
  return jmem_text_size (kib);
}

static gint64
u64_kib (guint64 kib)
{
  return kib > (guint64) G_MAXINT64 ? -1 : (gint64) kib;
}

static gint64
mib_to_kib (gint64 mib)
{
  return mib < 0 || mib > G_MAXINT64 / 1024 ? -1 : mib * 1024;
}

static void
heading (Report     *r,
         const char *title)
{
  g_string_append_printf (r->out, "\n%s%s%s\n",
                          r->color ? SGR_BOLD : "", title, r->color ? SGR_RESET : "");
}

/* An indented line of @pieces three blanks apart, going on at a deeper
 * indent where the next would pass the width. */
static void
add_pieces (Report             *r,
            const char * const *pieces)
{
  g_string_append (r->out, "  ");
  jmem_table_append_pieces (r->out, pieces, "   ", r->width, 2, JMEM_TABLE_INDENT);
}

/* An indented line of escaped @text, wrapped at the width. */
static void
add_text (Report     *r,
          const char *text)
{
  g_string_append (r->out, "  ");
  jmem_table_append_wrapped (r->out, text, r->width, 2, JMEM_TABLE_INDENT);
  g_string_append_c (r->out, '\n');
}

/* The Jetson-only parts a unified-memory system has none of, once: each
 * section says so where it would show one. */
static void
add_not_applying (Report             *r,
                  const JmemPlatform *platform)
{
  g_autoptr(GString) parts = g_string_new (NULL);
  g_autofree char *line = NULL;

  for (JmemJetsonPart part = 0; part < JMEM_JETSON_N_PARTS; part++)
    if (jmem_platform_not_applying (platform, part) != NULL)
      g_string_append_printf (parts, "%s%s", parts->len > 0 ? ", " : "",
                              jmem_jetson_part_to_string (part));
  line = g_strdup_printf ("unified-memory NVIDIA system, not a Jetson: its GPU shares the RAM; "
                          "does not apply on this system: %s", parts->str);
  add_text (r, line);
}

static void
add_header (Report             *r,
            const JmemSnapshot *s)
{
  const JmemIdentity *id = s->identity;
  const JmemPlatform *platform = s->platform;
  /* a GB10 has no device tree: its firmware names it (DMI) */
  g_autofree char *model = esc (id && id->model ? id->model
                                : platform && platform->name ? platform->name : "unknown model");
  gboolean jetson_parts = jmem_platform_not_applying (platform, JMEM_JETSON_PART_L4T) == NULL;
  g_autofree char *host = esc (s->hostname);
  g_autofree char *sku = esc (id ? id->sku : NULL);
  g_autofree char *variant = esc (id ? id->variant : NULL);
  g_autofree char *vsource = esc (id ? id->variant_source : NULL);
  g_autofree char *l4t = esc (s->release ? s->release->version : NULL);
  g_autofree char *kernel = esc (s->kernel_release);
  g_autofree char *target = esc (s->default_target);

  g_autofree char *p_host = g_strdup_printf ("host %s", host);
  g_autofree char *p_sku = g_strdup_printf ("sku %s", sku);
  g_autofree char *p_variant = NULL;
  g_autofree char *p_l4t = g_strdup_printf ("L4T %s", l4t);
  g_autofree char *p_kernel = g_strdup_printf ("kernel %s", kernel);
  g_autofree char *p_target = g_strdup_printf ("default target %s", target);
  g_autofree char *collected = NULL;
  g_autofree char *iso = NULL;

  g_string_append_printf (r->out, "%s%s%s\n",
                          r->color ? SGR_BOLD : "", model, r->color ? SGR_RESET : "");
  if (id != NULL && id->variant != NULL)
    p_variant = g_strdup_printf ("variant %s (from %s)", variant, vsource);
  else if (id != NULL && id->product_line != NULL && s->mem_total_kib > 0)
    {
      /* The memory-size fallback found no module MemTotal fits. */
      g_autofree char *mem = jmem_text_size (s->mem_total_kib);
      p_variant = g_strdup_printf ("variant unknown (MemTotal %s fits no known module)", mem);
    }
  {
    /* a sku and an L4T release are a Jetson's only: skipped where they
     * do not apply (the pieces end at the first NULL) */
    const char *ids[] = { p_host, p_sku, p_variant, NULL };
    const char *software[] = { p_l4t, p_kernel, p_target, NULL };
    guint first = jetson_parts ? 0 : 1;

    if (!jetson_parts)
      ids[1] = p_host;

    add_pieces (r, ids + first);
    add_pieces (r, software + first);
  }
  if (!jetson_parts)
    add_not_applying (r, platform);
  else if (!s->is_jetson)
    g_string_append_printf (r->out, "  not a Jetson: reporting what %s has\n",
                            s->sysroot != NULL ? "the capture" : "this machine");
  if (s->timestamp_unix > 0)
    {
      g_autoptr(GDateTime) dt = g_date_time_new_from_unix_utc (s->timestamp_unix);

      iso = dt ? g_date_time_format_iso8601 (dt) : NULL;
    }
  if (s->sysroot != NULL)
    {
      g_autofree char *root = esc (s->sysroot);

      collected = g_strdup_printf ("collected %s from the captured tree %s", iso ? iso : "-", root);
    }
  else
    collected = g_strdup_printf ("collected %s", iso ? iso : "-");
  add_text (r, collected);
}

static gint64
nvmap_total_kib (const JmemSnapshot *s)
{
  if (s->nvmap_clients != NULL && s->nvmap_clients->has_total)
    return u64_kib (s->nvmap_clients->total_kib);
  if (s->meminfo != NULL)
    return jmem_meminfo_get_kib (s->meminfo, "NvMapMemUsed");
  return -1;
}

static void
add_memory (Report             *r,
            const JmemSnapshot *s)
{
  const JmemMeminfo *m = s->meminfo;
  gint64 total, avail, swap_total, swap_free;
  g_autofree char *t_total = NULL, *t_avail = NULL, *t_used = NULL, *t_cached = NULL;
  g_autofree char *t_swap_used = NULL, *t_swap_total = NULL;
  g_autofree char *t_cma_total = NULL, *t_cma_free = NULL, *t_nvmap = NULL;

  heading (r, "Memory");
  if (m == NULL)
    {
      g_string_append (r->out, "  /proc/meminfo was not readable\n");
      return;
    }
  total = jmem_meminfo_get_kib (m, "MemTotal");
  avail = jmem_meminfo_get_kib (m, "MemAvailable");
  swap_total = jmem_meminfo_get_kib (m, "SwapTotal");
  swap_free = jmem_meminfo_get_kib (m, "SwapFree");
  t_total = size_text (total);
  t_avail = size_text (avail);
  t_used = size_text (total >= 0 && avail >= 0 ? total - avail : -1);
  t_cached = size_text (jmem_meminfo_get_kib (m, "Cached"));
  t_swap_total = size_text (swap_total);
  t_swap_used = size_text (swap_total >= 0 && swap_free >= 0 ? swap_total - swap_free : -1);
  t_cma_total = size_text (jmem_meminfo_get_kib (m, "CmaTotal"));
  t_cma_free = size_text (jmem_meminfo_get_kib (m, "CmaFree"));
  t_nvmap = size_text (nvmap_total_kib (s));

  {
    g_autofree char *p_total = g_strdup_printf ("MemTotal %s", t_total);
    g_autofree char *p_avail = g_strdup_printf ("MemAvailable %s", t_avail);
    g_autofree char *p_used = g_strdup_printf ("used %s", t_used);
    g_autofree char *p_cached = g_strdup_printf ("Cached %s", t_cached);
    g_autofree char *p_swap = g_strdup_printf ("swap used %s of %s", t_swap_used, t_swap_total);
    g_autofree char *p_cma = g_strdup_printf ("CMA %s (free %s)", t_cma_total, t_cma_free);
    g_autofree char *p_nvmap = g_strdup_printf ("NvMap %s", t_nvmap);
    const char *ram[] = { p_total, p_avail, p_used, p_cached, NULL };
    const char *more[] = { p_swap, p_cma, p_nvmap, NULL };

    add_pieces (r, ram);
    add_pieces (r, more);
  }
}

static void
add_gpu (Report             *r,
         const JmemSnapshot *s)
{
  g_autofree char *source = esc (s->gpu_source);

  heading (r, "GPU");
  g_string_append_printf (r->out, "  source %s (driver stack %s)\n",
                          source, jmem_gpu_stack_to_string (s->gpu_stack));
  for (guint i = 0; s->gpu_evidence != NULL && i < s->gpu_evidence->len; i++)
    {
      g_autofree char *evidence = esc (g_ptr_array_index (s->gpu_evidence, i));
      g_autofree char *line = g_strdup_printf ("evidence: %s", evidence);

      add_text (r, line);
    }
  for (guint i = 0; s->gpus != NULL && i < s->gpus->len; i++)
    {
      const JmemNvsmiGpu *g = g_ptr_array_index (s->gpus, i);
      g_autofree char *name = esc (g->name);
      g_autofree char *used = size_text (mib_to_kib (g->memory_used_mib));
      g_autofree char *gtotal = size_text (mib_to_kib (g->memory_total_mib));

      g_autofree char *line = NULL;

      /* nvgpu's nvidia-smi answers [N/A] for memory: say where the figure is */
      if (s->gpu_stack == JMEM_GPU_STACK_NVGPU && g->memory_used_mib < 0 && g->memory_total_mib < 0)
        {
          line = g_strdup_printf ("GPU %" G_GINT64_FORMAT " %s: nvidia-smi does not report "
                                  "memory on nvgpu;", g->index, name);
          /* the source on a line of its own where the first one fits */
          if (r->width == 0 || 2 + jmem_text_width (line) <= r->width)
            {
              add_text (r, line);
              g_string_append (r->out, "    NvMap (below) is the source\n");
            }
          else
            {
              g_autofree char *whole = g_strconcat (line, " NvMap (below) is the source", NULL);

              add_text (r, whole);
            }
        }
      else
        {
          line = g_strdup_printf ("GPU %" G_GINT64_FORMAT " %s: used %s of %s",
                                  g->index, name, used, gtotal);
          add_text (r, line);
        }
    }
  if (!s->gpu_apps_trusted && s->gpu_apps != NULL && s->gpu_apps->len > 0)
    add_text (r, "processes marked (untrusted) may be forged (see warnings): counted for none");
  for (guint i = 0; s->gpu_apps != NULL && i < s->gpu_apps->len; i++)
    {
      const JmemNvsmiApp *a = g_ptr_array_index (s->gpu_apps, i);
      g_autofree char *name = esc (a->process_name);
      g_autofree char *used = size_text (mib_to_kib (a->used_memory_mib));
      guint cols = r->width > 30 ? r->width - 30 : 0;

      g_string_append_printf (r->out, "  process %7" G_GINT64_FORMAT " %9s  ", a->pid, used);
      /* not a terminal: the name whole, nothing padded */
      if (r->width == 0)
        g_string_append (r->out, name);
      else
        {
          /* room for the marks after the name */
          guint marks = (!a->pid_exists ? 18 : 0) + (a->in_doubt ? 12 : 0);

          jmem_table_append_cell (r->out, name, marks > 0 && cols > marks + 2 ? cols - marks : cols);
        }
      if (!a->pid_exists)
        g_string_append (r->out, " (no such process)");
      if (a->in_doubt)
        g_string_append (r->out, " (untrusted)");
      jmem_table_end_line (r->out);
    }
}

static void
add_nvmap (Report             *r,
           const JmemSnapshot *s)
{
  g_autofree char *total = size_text (nvmap_total_kib (s));

  heading (r, "NvMap");
  if (!s->nvmap_readable && jmem_platform_not_applying (s->platform, JMEM_JETSON_PART_NVMAP))
    {
      g_autofree char *why = esc (jmem_platform_not_applying (s->platform, JMEM_JETSON_PART_NVMAP));
      g_autofree char *line = g_strdup_printf ("does not apply on this system: %s", why);

      add_text (r, line);
      return;
    }
  if (!s->nvmap_readable)
    {
      g_autofree char *why = esc (s->nvmap_error ? s->nvmap_error : "not read");
      g_autofree char *line = g_strdup_printf ("not readable: %s", why);

      add_text (r, line);
      return;
    }
  {
    g_autofree char *via = esc (s->nvmap_via);

    g_string_append_printf (r->out,
                            "  total %s (via %s)\n"
                            "  per-PID sizes are proportional shares of shared buffers\n"
                            "  and need not add up to the total\n",
                            total, via);
    if (s->nvmap_pids_host)
      g_string_append (r->out,
                       "  PIDs below are host PIDs: jmem runs in another PID\n"
                       "  namespace, so they are not matched to the processes\n"
                       "  listed here\n");
  }
  if (s->nvmap_by_pid != NULL && s->nvmap_by_pid->len > 0)
    {
      guint name_cols = 7;   /* "PROCESS" */

      for (guint i = 0; i < s->nvmap_by_pid->len; i++)
        {
          const JmemNvmapPidTotal *t = g_ptr_array_index (s->nvmap_by_pid, i);
          g_autofree char *name = esc (t->process);

          name_cols = jmem_table_widest (name_cols, name);
        }
      g_string_append_printf (r->out, "  %7s %9s %7s %s\n", "PID", "SIZE", "CLIENTS", "PROCESS");
      for (guint i = 0; i < s->nvmap_by_pid->len; i++)
        {
          const JmemNvmapPidTotal *t = g_ptr_array_index (s->nvmap_by_pid, i);
          g_autofree char *name = esc (t->process);
          g_autofree char *size = size_text (u64_kib (t->size_kib));
          /* a PID with NvMap memory but no /proc entry: leaked or exited */
          gboolean gone = !t->pid_exists && t->pid > 0;
          const char *note = gone ? " (no /proc entry)" : "";
          guint room = r->width == 0 ? G_MAXUINT
                       : r->width > 28 + strlen (note) ? r->width - 28 - (guint) strlen (note) : 1;

          g_string_append_printf (r->out, "  %7" G_GINT64_FORMAT " %9s %7u ",
                                  t->pid, size, t->n_clients);
          jmem_table_append_cell (r->out, name, MIN (name_cols, room));
          g_string_append (r->out, note);
          jmem_table_end_line (r->out);
        }
    }
  if (s->nvmap_unattributed_kib != -1)
    {
      gint64 u = s->nvmap_unattributed_kib;
      g_autofree char *un = size_text (u < 0 ? -u : u);

      g_string_append_printf (r->out, "  unattributed (total minus rows): %s%s\n",
                              u < 0 ? "-" : "", un);
    }
  if (s->nvmap_clients != NULL && s->nvmap_clients->n_malformed > 0)
    g_string_append_printf (r->out, "  %u malformed %s skipped\n", s->nvmap_clients->n_malformed,
                            jmem_text_plural (s->nvmap_clients->n_malformed, "line", "lines"));
}

static gint64
gpu_or_nvmap_kib (const JmemProcess *p)
{
  return MAX (p->gpu_kib, p->nvmap_kib);
}

/* The container's short id, as `docker ps` shows it; "-" outside one. */
static char *
container_text (const JmemProcess *p)
{
  g_autofree char *valid = NULL;

  if (p->container_id == NULL)
    return esc (p->container_runtime);
  valid = jmem_text_make_valid (p->container_id, -1);
  if (g_utf8_strlen (valid, -1) > 12)
    *g_utf8_offset_to_pointer (valid, 12) = '\0';
  return jmem_text_escape (valid);
}

/* The process table's columns, each as wide as its widest cell. */
typedef struct {
  guint pid, user, rss, pss, swap, gpu, container, name;
  gboolean show_swap, show_container;
} ProcColumns;

typedef struct {
  char *pid, *user, *rss, *pss, *swap, *gpu, *container, *name, *cmd;
} ProcCells;

static void
proc_cells_clear (ProcCells *c)
{
  g_free (c->pid); g_free (c->user); g_free (c->rss); g_free (c->pss); g_free (c->swap);
  g_free (c->gpu); g_free (c->container); g_free (c->name); g_free (c->cmd);
}

static void
proc_cells_init (ProcCells         *c,
                 const JmemProcess *p)
{
  c->pid = g_strdup_printf ("%" G_GINT64_FORMAT, p->pid);
  c->user = p->user != NULL ? esc (p->user)
            : p->uid >= 0 ? g_strdup_printf ("%" G_GINT64_FORMAT, p->uid)
            : g_strdup ("-");
  c->rss = size_text (p->rss_kib);
  c->pss = size_text (p->pss_kib);
  c->swap = size_text (p->swap_kib);
  c->gpu = size_text (gpu_or_nvmap_kib (p));
  c->container = container_text (p);
  c->name = esc (p->name);
  c->cmd = esc_cmdline (p->cmdline);
}

/* Appends the cells before NAME: PID USER RSS PSS [SWAP] GPU/NVMAP. */
static void
append_numbers (GString           *out,
                const ProcColumns *k,
                const ProcCells   *c,
                gboolean           cut_user)
{
  g_string_append (out, "  ");
  jmem_table_append_right (out, c->pid, k->pid);
  if (cut_user)
    jmem_table_append_cell (out, c->user, k->user);
  else
    jmem_table_append_padded (out, c->user, k->user);
  g_string_append_c (out, ' ');
  jmem_table_append_right (out, c->rss, k->rss);
  jmem_table_append_right (out, c->pss, k->pss);
  if (k->show_swap)
    jmem_table_append_right (out, c->swap, k->swap);
  jmem_table_append_right (out, c->gpu, k->gpu);
}

/* Appends [CONTAINER] NAME COMMAND, the command cut to @cmd_cols columns
 * (G_MAXUINT: whole). */
static void
append_texts (GString           *out,
              const ProcColumns *k,
              const ProcCells   *c,
              guint              cmd_cols)
{
  if (k->show_container)
    {
      jmem_table_append_padded (out, c->container, k->container);
      g_string_append_c (out, ' ');
    }
  jmem_table_append_padded (out, c->name, k->name);
  g_string_append (out, "  ");
  if (cmd_cols == G_MAXUINT)
    g_string_append (out, c->cmd);
  else
    jmem_table_append_cell (out, c->cmd, cmd_cols);
}

/* The table fits the width by the rules of jmem-output-table.h, COMMAND
 * being the last text. A width of 0 (not a terminal) cuts nothing. */
#define USER_MAX 8

static void
add_processes (Report             *r,
               const JmemSnapshot *s)
{
  guint shown = s->processes != NULL ? s->processes->len : 0;
  g_autofree char *title = g_strdup_printf ("Processes by footprint (%u of %u)",
                                            shown, MAX (s->n_processes_total, shown));
  g_autofree ProcCells *cells = NULL;
  ProcColumns k = { 3, 4, 3, 3, 4, 9, 9, 4, FALSE, FALSE };
  ProcCells head = { (char *) "PID", (char *) "USER", (char *) "RSS", (char *) "PSS",
                     (char *) "SWAP", (char *) "GPU/NVMAP", (char *) "CONTAINER",
                     (char *) "NAME", (char *) "COMMAND" };
  guint numbers, texts, cmd_cols = G_MAXUINT;
  gboolean two_lines = FALSE, cut = r->width > 0;

  heading (r, title);
  if (s->n_processes_vanished > 0)
    g_string_append_printf (r->out, "  %u %s while being read\n", s->n_processes_vanished,
                            jmem_text_plural (s->n_processes_vanished, "process exited", "processes exited"));
  if (shown == 0)
    return;

  cells = g_new0 (ProcCells, shown);
  for (guint i = 0; i < shown; i++)
    {
      const JmemProcess *p = g_ptr_array_index (s->processes, i);
      ProcCells *c = &cells[i];

      proc_cells_init (c, p);
      k.pid = jmem_table_widest (k.pid, c->pid);
      k.user = jmem_table_widest (k.user, c->user);
      k.rss = jmem_table_widest (k.rss, c->rss);
      k.pss = jmem_table_widest (k.pss, c->pss);
      k.swap = jmem_table_widest (k.swap, c->swap);
      k.gpu = jmem_table_widest (k.gpu, c->gpu);
      k.container = jmem_table_widest (k.container, c->container);
      k.name = jmem_table_widest (k.name, c->name);
      k.show_swap |= p->swap_kib > 0;
      k.show_container |= p->container_id != NULL || p->container_runtime != NULL;
    }
  if (cut)
    k.user = MIN (k.user, USER_MAX);

  numbers = 2 + k.pid + 1 + k.user + 1 + k.rss + 1 + k.pss + 1
            + (k.show_swap ? k.swap + 1 : 0) + k.gpu + 1;
  texts = (k.show_container ? k.container + 1 : 0) + k.name + 2;
  if (cut)
    {
      two_lines = jmem_table_two_lines (r->width, numbers, texts + JMEM_TABLE_MIN_LAST);
      if (two_lines)
        {
          /* a name wider than the line (escaped bytes) is cut as a last resort */
          guint before = JMEM_TABLE_INDENT + (k.show_container ? k.container + 1 : 0);

          if (before + k.name + 2 > r->width)
            k.name = r->width > before + 3 ? r->width - before - 2 : 1;
          cmd_cols = r->width > before + k.name + 2 ? r->width - before - k.name - 2 : 0;
        }
      else
        cmd_cols = r->width - numbers - texts;
    }

  for (gint i = -1; i < (gint) shown; i++)
    {
      const ProcCells *c = i < 0 ? &head : &cells[i];

      append_numbers (r->out, &k, c, cut);
      if (two_lines)
        {
          jmem_table_end_line (r->out);
          g_string_append_printf (r->out, "%*s", JMEM_TABLE_INDENT, "");
        }
      if (two_lines && jmem_text_width (c->name) > k.name)
        {
          g_autofree char *name = jmem_text_fit_width (c->name, k.name, TRUE);
          ProcCells cut_name = *c;

          cut_name.name = name;
          append_texts (r->out, &k, &cut_name, cmd_cols);
        }
      else
        append_texts (r->out, &k, c, cmd_cols);
      jmem_table_end_line (r->out);
    }
  for (guint i = 0; i < shown; i++)
    proc_cells_clear (&cells[i]);
}

static void
add_host (Report             *r,
          const JmemSnapshot *s)
{
  if (s->thermal != NULL && s->thermal->len > 0)
    {
      heading (r, "Thermal");
      for (guint i = 0; i < s->thermal->len; i++)
        {
          const JmemThermal *t = g_ptr_array_index (s->thermal, i);
          g_autofree char *type = esc (t->type ? t->type : t->zone);

          g_string_append (r->out, "  ");
          jmem_table_append_padded (r->out, type, 24);
          if (isfinite (t->celsius) && t->celsius <= JMEM_THERMAL_OFF_CELSIUS)
            g_string_append (r->out, " sensor off\n");
          else if (isfinite (t->celsius))
            g_string_append_printf (r->out, " %6.1f °C\n", t->celsius);
          else
            g_string_append (r->out, "      - °C\n");
        }
    }

  {
    g_autofree char *mode = esc (s->power_mode);
    const char *none = jmem_platform_not_applying (s->platform, JMEM_JETSON_PART_POWER_MODE);

    g_string_append_printf (r->out, "\nPower mode: %s\n",
                            s->power_mode ? mode : none ? "does not apply here (nvpmodel is a "
                                                          "Jetson's)"
                                                        : "unknown (no nvpmodel)");
  }

  if (s->disks != NULL && s->disks->len > 0)
    {
      heading (r, "Disks");
      for (guint i = 0; i < s->disks->len; i++)
        {
          const JmemDisk *d = g_ptr_array_index (s->disks, i);
          g_autofree char *mount = esc (d->mount_point);
          g_autofree char *dev = esc (d->device);
          g_autofree char *fstype = esc (d->fs_type);
          g_autofree char *used = size_text (u64_kib (d->used_kib));
          g_autofree char *size = size_text (u64_kib (d->size_kib));
          g_autofree char *avail = size_text (u64_kib (d->available_kib));

          g_autofree char *p_used = g_strdup_printf ("%s used of %s,", used, size);
          g_autofree char *p_free = g_strdup_printf ("%s free", avail);
          g_autofree char *p_dev = g_strdup_printf ("(%s, %s)", dev, fstype);
          const char *pieces[] = { p_used, p_free, p_dev, NULL };
          guint col = 2 + MAX (20, (guint) jmem_text_width (mount)) + 1;

          g_string_append (r->out, "  ");
          jmem_table_append_padded (r->out, mount, 20);
          g_string_append_c (r->out, ' ');
          /* further lines under the figures */
          jmem_table_append_pieces (r->out, pieces, " ", r->width, col, 2 + 20 + 1);
        }
    }

  heading (r, "Services that are active");
  if (s->services == NULL)
    {
      g_string_append (r->out, "  unknown: systemd was not reachable\n");
    }
  else
    {
      guint n_active = 0;

      for (guint i = 0; i < s->services->len; i++)
        {
          const JmemService *svc = g_ptr_array_index (s->services, i);
          g_autofree char *name = NULL;
          g_autofree char *state = NULL;

          if (g_strcmp0 (svc->active_state, "active") != 0)
            continue;
          name = esc (svc->name);
          state = esc (svc->unit_file_state);
          g_string_append (r->out, "  ");
          jmem_table_append_padded (r->out, name, 28);
          g_string_append_printf (r->out, " %s\n", state);
          n_active++;
        }
      if (n_active == 0)
        g_string_append (r->out, "  none of the services jmem checks is active\n");
    }
}

static void
add_tegrastats (Report             *r,
                const JmemSnapshot *s)
{
  const JmemTegrastats *t = s->tegrastats;
  g_autofree char *used = NULL, *total = NULL;

  if (t == NULL)
    return;
  heading (r, "tegrastats");
  used = size_text (mib_to_kib (t->ram_used_mib));
  total = size_text (mib_to_kib (t->ram_total_mib));
  g_string_append_printf (r->out, "  RAM %s of %s", used, total);
  if (t->lfb_blocks >= 0 && t->lfb_block_kib >= 0)
    {
      g_autofree char *block = size_text (t->lfb_block_kib);

      g_string_append_printf (r->out, "   largest free blocks %" G_GINT64_FORMAT " x %s",
                              t->lfb_blocks, block);
    }
  if (t->gr3d_freq_percent >= 0)
    g_string_append_printf (r->out, "   GR3D %" G_GINT64_FORMAT "%%", t->gr3d_freq_percent);
  if (t->emc_freq_percent >= 0)
    g_string_append_printf (r->out, "   EMC %" G_GINT64_FORMAT "%%", t->emc_freq_percent);
  g_string_append_c (r->out, '\n');
}

/* Message lines wrap at the width, their further lines indented under the
 * text; action lines ("→ …") under the text after the arrow. */
#define MESSAGE_HANG 4
#define ACTION_HANG  6

/* An action; an administrator's (the JSON's admin) says so first. */
static void
add_action (Report     *r,
            const char *escaped,
            gboolean    admin)
{
  g_autofree char *text = admin ? g_strconcat (JMEM_ACTION_ADMIN_MARK " ", escaped, NULL) : NULL;

  g_string_append_printf (r->out, "    %s→ ", r->color ? SGR_DIM : "");
  jmem_table_append_wrapped (r->out, admin ? text : escaped, r->width, ACTION_HANG, ACTION_HANG);
  g_string_append_printf (r->out, "%s\n", r->color ? SGR_RESET : "");
}

static void
add_warnings (Report             *r,
              const JmemSnapshot *s)
{
  if (s->warnings == NULL || s->warnings->len == 0)
    return;
  heading (r, "Warnings");
  for (guint i = 0; i < s->warnings->len; i++)
    {
      const JmemWarning *w = g_ptr_array_index (s->warnings, i);
      g_autofree char *source = esc (w->source);
      g_autofree char *message = esc (w->message);
      g_autofree char *line = g_strdup_printf ("%s: %s", source, message);

      g_string_append_printf (r->out, "  %s", r->color ? SGR_YELLOW : "");
      jmem_table_append_wrapped (r->out, line, r->width, 2, MESSAGE_HANG);
      g_string_append_printf (r->out, "%s\n", r->color ? SGR_RESET : "");
      if (w->action != NULL)
        {
          g_autofree char *action = esc (w->action);

          add_action (r, action, jmem_action_is_admin (w->action));
        }
    }
}

/* The triage findings, most severe first; "none" when triage found nothing. */
static void
add_findings (Report    *r,
              GPtrArray *findings)
{
  if (findings == NULL)
    return;
  heading (r, "Findings");
  if (findings->len == 0)
    g_string_append (r->out, "  none: nothing the triage rules look for\n");
  for (guint i = 0; i < findings->len; i++)
    {
      const JmemFinding *f = g_ptr_array_index (findings, i);
      g_autofree char *id = esc (f->id);
      g_autofree char *message = esc (f->message);
      g_autofree char *action = esc (f->action);

      g_autofree char *line = g_strdup_printf ("%s: %s", id, message);

      g_string_append_printf (r->out, "  %s%-8s%s ",
                              r->color && f->severity != JMEM_SEVERITY_INFO ? SGR_YELLOW : "",
                              jmem_severity_to_string (f->severity),
                              r->color && f->severity != JMEM_SEVERITY_INFO ? SGR_RESET : "");
      jmem_table_append_wrapped (r->out, line, r->width, 11, MESSAGE_HANG);
      g_string_append_c (r->out, '\n');
      if (f->action != NULL)
        add_action (r, action, f->admin);
    }
}

void
jmem_output_human_findings (GPtrArray *findings,
                            GString   *out,
                            gboolean   color,
                            guint      width)
{
  Report r = { out, color, jmem_table_clamp_width (width) };

  g_return_if_fail (out != NULL);
  add_findings (&r, findings);
}

void
jmem_output_human_snapshot_width (const JmemSnapshot *snapshot,
                                  GString            *out,
                                  gboolean            color,
                                  guint               width)
{
  Report r = { out, color, jmem_table_clamp_width (width) };

  g_return_if_fail (snapshot != NULL);
  g_return_if_fail (out != NULL);

  add_header (&r, snapshot);
  add_memory (&r, snapshot);
  jmem_output_human_accounting (out, snapshot, color, r.width);
  add_gpu (&r, snapshot);
  add_nvmap (&r, snapshot);
  add_processes (&r, snapshot);
  add_host (&r, snapshot);
  add_tegrastats (&r, snapshot);
  add_warnings (&r, snapshot);
  add_findings (&r, snapshot->findings);
}

void
jmem_output_human_snapshot (const JmemSnapshot *snapshot,
                            GString            *out,
                            gboolean            color)
{
  jmem_output_human_snapshot_width (snapshot, out, color, jmem_table_terminal_width ());
}
