#include "jmem-output-human.h"

#include <math.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "jmem-meminfo.h"
#include "jmem-nvmap.h"
#include "jmem-nvsmi.h"
#include "jmem-text.h"
#include "jmem-triage.h"

#define DEFAULT_WIDTH 80
#define MIN_WIDTH     60

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
  return jmem_text_escape_for_terminal (capped);
}

/* A command line as the JSON carries it (its first
 * JMEM_TEXT_MAX_CMDLINE_BYTES), "…" marking a cut, escaped. */
static char *
esc_cmdline (const char *cmdline)
{
  g_autofree char *valid = jmem_text_make_valid (cmdline != NULL ? cmdline : "", -1);
  gboolean cut = FALSE;
  g_autofree char *capped = jmem_text_cap_bytes (valid, JMEM_TEXT_MAX_CMDLINE_BYTES, &cut);
  g_autofree char *shown = jmem_text_escape_for_terminal (capped);

  return cut ? g_strconcat (shown, "…", NULL) : g_steal_pointer (&shown);
}

/* Appends @escaped cut and left-aligned to exactly @cols terminal columns. */
static void
append_cell (GString    *out,
             const char *escaped,
             guint       cols)
{
  g_autofree char *cell = jmem_text_fit_width (escaped, cols, TRUE);

  g_string_append (out, cell);
}

/* Appends @escaped whole, then blanks up to @cols columns (printf's "%-*s"
 * by display width). */
static void
append_padded (GString    *out,
               const char *escaped,
               guint       cols)
{
  g_string_append (out, escaped);
  for (gsize w = jmem_text_width (escaped); w < cols; w++)
    g_string_append_c (out, ' ');
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

/* Ends a table row without the blanks that padded its last cell. */
static void
end_line (Report *r)
{
  while (r->out->len > 0 && r->out->str[r->out->len - 1] == ' ')
    g_string_truncate (r->out, r->out->len - 1);
  g_string_append_c (r->out, '\n');
}

static void
add_header (Report             *r,
            const JmemSnapshot *s)
{
  const JmemIdentity *id = s->identity;
  g_autofree char *model = esc (id && id->model ? id->model : "unknown model");
  g_autofree char *host = esc (s->hostname);
  g_autofree char *sku = esc (id ? id->sku : NULL);
  g_autofree char *variant = esc (id ? id->variant : NULL);
  g_autofree char *vsource = esc (id ? id->variant_source : NULL);
  g_autofree char *l4t = esc (s->release ? s->release->version : NULL);
  g_autofree char *kernel = esc (s->kernel_release);
  g_autofree char *target = esc (s->default_target);

  g_string_append_printf (r->out, "%s%s%s\n",
                          r->color ? SGR_BOLD : "", model, r->color ? SGR_RESET : "");
  g_string_append_printf (r->out, "  host %s   sku %s", host, sku);
  if (id != NULL && id->variant != NULL)
    g_string_append_printf (r->out, "   variant %s (from %s)", variant, vsource);
  else if (id != NULL && id->product_line != NULL && s->mem_total_kib > 0)
    {
      /* The memory-size fallback found no module MemTotal fits. */
      g_autofree char *mem = jmem_text_size (s->mem_total_kib);
      g_string_append_printf (r->out, "   variant unknown (MemTotal %s fits no known module)", mem);
    }
  g_string_append_printf (r->out, "\n  L4T %s   kernel %s   default target %s\n", l4t, kernel, target);
  if (!s->is_jetson)
    g_string_append_printf (r->out, "  not a Jetson: reporting what %s has\n",
                            s->sysroot != NULL ? "the capture" : "this machine");
  if (s->timestamp_unix > 0)
    {
      g_autoptr(GDateTime) dt = g_date_time_new_from_unix_utc (s->timestamp_unix);
      g_autofree char *iso = dt ? g_date_time_format_iso8601 (dt) : NULL;

      g_string_append_printf (r->out, "  collected %s", iso ? iso : "-");
    }
  else
    {
      g_string_append (r->out, "  collected -");
    }
  if (s->sysroot != NULL)
    {
      g_autofree char *root = esc (s->sysroot);

      g_string_append_printf (r->out, " from the captured tree %s", root);
    }
  g_string_append_c (r->out, '\n');
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

  g_string_append_printf (r->out, "  MemTotal %s   MemAvailable %s   used %s   Cached %s\n",
                          t_total, t_avail, t_used, t_cached);
  g_string_append_printf (r->out, "  swap used %s of %s   CMA %s (free %s)   NvMap %s\n",
                          t_swap_used, t_swap_total, t_cma_total, t_cma_free, t_nvmap);
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
      g_autofree char *line = esc (g_ptr_array_index (s->gpu_evidence, i));

      g_string_append_printf (r->out, "  evidence: %s\n", line);
    }
  for (guint i = 0; s->gpus != NULL && i < s->gpus->len; i++)
    {
      const JmemNvsmiGpu *g = g_ptr_array_index (s->gpus, i);
      g_autofree char *name = esc (g->name);
      g_autofree char *used = size_text (mib_to_kib (g->memory_used_mib));
      g_autofree char *gtotal = size_text (mib_to_kib (g->memory_total_mib));

      /* nvgpu's nvidia-smi answers [N/A] for memory: say where the figure is */
      if (s->gpu_stack == JMEM_GPU_STACK_NVGPU && g->memory_used_mib < 0 && g->memory_total_mib < 0)
        g_string_append_printf (r->out, "  GPU %" G_GINT64_FORMAT " %s: nvidia-smi does not report "
                                "memory on nvgpu;\n    NvMap (below) is the source\n", g->index, name);
      else
        g_string_append_printf (r->out, "  GPU %" G_GINT64_FORMAT " %s: used %s of %s\n",
                                g->index, name, used, gtotal);
    }
  if (!s->gpu_apps_trusted && s->gpu_apps != NULL && s->gpu_apps->len > 0)
    g_string_append (r->out, "  processes below are untrusted (see warnings): counted for none\n");
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
        append_cell (r->out, name, !a->pid_exists && cols > 20 ? cols - 18 : cols);
      if (!a->pid_exists)
        g_string_append (r->out, " (no such process)");
      end_line (r);
    }
}

static guint
widest (guint       cols,
        const char *escaped)
{
  return MAX (cols, (guint) jmem_text_width (escaped));
}

static void
add_nvmap (Report             *r,
           const JmemSnapshot *s)
{
  g_autofree char *total = size_text (nvmap_total_kib (s));

  heading (r, "NvMap");
  if (!s->nvmap_readable)
    {
      g_autofree char *why = esc (s->nvmap_error ? s->nvmap_error : "not read");

      g_string_append_printf (r->out, "  not readable: %s\n", why);
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

          name_cols = widest (name_cols, name);
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
          append_cell (r->out, name, MIN (name_cols, room));
          g_string_append (r->out, note);
          end_line (r);
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
  return jmem_text_escape_for_terminal (valid);
}

/* The process table's columns, each as wide as its widest cell. */
typedef struct {
  guint pid, user, rss, pss, swap, gpu, container, name;
  gboolean show_swap, show_container;
} ProcColumns;

/* Appends @text right-aligned in @cols columns, then a blank. */
static void
append_right (GString    *out,
              const char *text,
              guint       cols)
{
  for (gsize w = jmem_text_width (text); w < cols; w++)
    g_string_append_c (out, ' ');
  g_string_append (out, text);
  g_string_append_c (out, ' ');
}

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
  append_right (out, c->pid, k->pid);
  if (cut_user)
    append_cell (out, c->user, k->user);
  else
    append_padded (out, c->user, k->user);
  g_string_append_c (out, ' ');
  append_right (out, c->rss, k->rss);
  append_right (out, c->pss, k->pss);
  if (k->show_swap)
    append_right (out, c->swap, k->swap);
  append_right (out, c->gpu, k->gpu);
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
      append_padded (out, c->container, k->container);
      g_string_append_c (out, ' ');
    }
  append_padded (out, c->name, k->name);
  g_string_append (out, "  ");
  if (cmd_cols == G_MAXUINT)
    g_string_append (out, c->cmd);
  else
    append_cell (out, c->cmd, cmd_cols);
}

/* The table fits the width: one line a process while COMMAND keeps at least
 * PROC_MIN_COMMAND columns, else two (the numbers, then the names indented),
 * so that no field is lost. A width of 0 (not a terminal) cuts nothing. */
#define PROC_MIN_COMMAND 20
#define PROC_TWO_LINE_BELOW 64
#define PROC_INDENT 4
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
      k.pid = widest (k.pid, c->pid);
      k.user = widest (k.user, c->user);
      k.rss = widest (k.rss, c->rss);
      k.pss = widest (k.pss, c->pss);
      k.swap = widest (k.swap, c->swap);
      k.gpu = widest (k.gpu, c->gpu);
      k.container = widest (k.container, c->container);
      k.name = widest (k.name, c->name);
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
      two_lines = r->width < PROC_TWO_LINE_BELOW
                  || numbers + texts + PROC_MIN_COMMAND > r->width;
      if (two_lines)
        {
          /* a name wider than the line (escaped bytes) is cut as a last resort */
          guint before = PROC_INDENT + (k.show_container ? k.container + 1 : 0);

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
          end_line (r);
          g_string_append_printf (r->out, "%*s", PROC_INDENT, "");
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
      end_line (r);
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
          append_padded (r->out, type, 24);
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

    g_string_append_printf (r->out, "\nPower mode: %s\n", s->power_mode ? mode : "unknown (no nvpmodel)");
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

          g_string_append (r->out, "  ");
          append_padded (r->out, mount, 20);
          g_string_append_printf (r->out, " %s used of %s, %s free (%s, %s)\n",
                                  used, size, avail, dev, fstype);
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
          append_padded (r->out, name, 28);
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

      g_string_append_printf (r->out, "  %s%s: %s%s\n",
                              r->color ? SGR_YELLOW : "", source, message,
                              r->color ? SGR_RESET : "");
      if (w->action != NULL)
        {
          g_autofree char *action = esc (w->action);

          g_string_append_printf (r->out, "    %s→ %s%s\n",
                                  r->color ? SGR_DIM : "", action, r->color ? SGR_RESET : "");
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

      g_string_append_printf (r->out, "  %s%-8s%s %s: %s\n",
                              r->color && f->severity != JMEM_SEVERITY_INFO ? SGR_YELLOW : "",
                              jmem_severity_to_string (f->severity),
                              r->color && f->severity != JMEM_SEVERITY_INFO ? SGR_RESET : "",
                              id, message);
      if (f->action != NULL)
        g_string_append_printf (r->out, "    %s→ %s%s\n",
                                r->color ? SGR_DIM : "", action, r->color ? SGR_RESET : "");
    }
}

void
jmem_output_human_findings (GPtrArray *findings,
                            GString   *out,
                            gboolean   color)
{
  Report r = { out, color, DEFAULT_WIDTH };

  g_return_if_fail (out != NULL);
  add_findings (&r, findings);
}

void
jmem_output_human_snapshot_width (const JmemSnapshot *snapshot,
                                  GString            *out,
                                  gboolean            color,
                                  guint               width)
{
  Report r = { out, color, width == 0 ? 0 : MAX (width, MIN_WIDTH) };

  g_return_if_fail (snapshot != NULL);
  g_return_if_fail (out != NULL);

  add_header (&r, snapshot);
  add_memory (&r, snapshot);
  add_gpu (&r, snapshot);
  add_nvmap (&r, snapshot);
  add_processes (&r, snapshot);
  add_host (&r, snapshot);
  add_tegrastats (&r, snapshot);
  add_warnings (&r, snapshot);
  add_findings (&r, snapshot->findings);
}

guint
jmem_output_human_terminal_width (void)
{
  struct winsize ws = { 0 };
  const char *columns;

  /* a pipe or a file gets whole lines */
  if (!isatty (STDOUT_FILENO))
    return 0;
  if (ioctl (STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
    return ws.ws_col;
  columns = g_getenv ("COLUMNS");
  if (columns != NULL)
    {
      guint64 n = 0;

      if (g_ascii_string_to_unsigned (columns, 10, 1, 10000, &n, NULL))
        return (guint) n;
    }
  return DEFAULT_WIDTH;
}

void
jmem_output_human_snapshot (const JmemSnapshot *snapshot,
                            GString            *out,
                            gboolean            color)
{
  jmem_output_human_snapshot_width (snapshot, out, color, jmem_output_human_terminal_width ());
}
