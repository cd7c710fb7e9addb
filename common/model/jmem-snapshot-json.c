/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "jmem-snapshot-json.h"

#include <math.h>
#include <string.h>

#include "jmem-accounting.h"
#include "jmem-action.h"
#include "jmem-config.h"
#include "jmem-json-writer.h"
#include "jmem-text.h"
#include "jmem-finding.h"

static void
add_bool (JmemJsonWriter *b,
          const char     *name,
          gboolean        value)
{
  jmem_json_writer_set_member_name (b, name);
  jmem_json_writer_add_boolean_value (b, value ? TRUE : FALSE);
}

/* Every string goes through here: the parsers promise valid UTF-8, but a
 * broken promise must cost a U+FFFD, never an invalid document. No string
 * is longer than JMEM_TEXT_MAX_FIELD_BYTES (plus the "…" marking a cut). */
static void
add_string (JmemJsonWriter *b,
            const char     *name,
            const char     *value)
{
  g_autofree char *valid = NULL;

  if (name != NULL)
    jmem_json_writer_set_member_name (b, name);
  if (value == NULL)
    {
      jmem_json_writer_add_null_value (b);
      return;
    }
  if (G_UNLIKELY (!g_utf8_validate (value, -1, NULL)))
    {
      g_debug ("jmem-snapshot-json: member %s held invalid UTF-8", name ? name : "(array)");
      value = valid = jmem_text_make_valid (value, -1);
    }
  if (strlen (value) > JMEM_TEXT_MAX_FIELD_BYTES)
    {
      g_autofree char *capped = jmem_text_cap_field (value);

      jmem_json_writer_add_string_value (b, capped);
      return;
    }
  jmem_json_writer_add_string_value (b, value);
}

/* "cmdline" cut to JMEM_TEXT_MAX_CMDLINE_BYTES and "cmdline_truncated": a
 * command line is the one string a process makes as long as it likes. */
static void
add_cmdline (JmemJsonWriter *b,
             const char     *cmdline)
{
  g_autofree char *valid = NULL;
  g_autofree char *capped = NULL;
  gboolean cut = FALSE;

  if (cmdline == NULL)
    {
      add_string (b, "cmdline", NULL);
      add_bool (b, "cmdline_truncated", FALSE);
      return;
    }
  valid = jmem_text_make_valid (cmdline, -1);
  capped = jmem_text_cap_bytes (valid, JMEM_TEXT_MAX_CMDLINE_BYTES, &cut);
  jmem_json_writer_set_member_name (b, "cmdline");
  jmem_json_writer_add_string_value (b, capped);
  add_bool (b, "cmdline_truncated", cut);
}

/* The model's "unknown" is -1 (any negative for a size or count): null. */
static void
add_int_or_null (JmemJsonWriter *b,
                 const char     *name,
                 gint64          value)
{
  jmem_json_writer_add_size_member (b, name, value);
}

/* JSON integers here are signed 64-bit; anything larger cannot be true. */
static void
add_uint (JmemJsonWriter *b,
          const char     *name,
          guint64         value)
{
  jmem_json_writer_set_member_name (b, name);
  if (value > (guint64) G_MAXINT64)
    jmem_json_writer_add_null_value (b);
  else
    jmem_json_writer_add_int_value (b, (gint64) value);
}

/* nvidia-smi and tegrastats report MiB; the output speaks KiB. */
static void
add_mib_as_kib (JmemJsonWriter *b,
                const char     *name,
                gint64          mib)
{
  jmem_json_writer_set_member_name (b, name);
  if (mib < 0 || mib > G_MAXINT64 / 1024)
    jmem_json_writer_add_null_value (b);
  else
    jmem_json_writer_add_int_value (b, mib * 1024);
}

static void
add_celsius (JmemJsonWriter *b,
             const char     *name,
             double          celsius)
{
  jmem_json_writer_set_member_name (b, name);
  if (!isfinite (celsius))
    jmem_json_writer_add_null_value (b);
  else
    jmem_json_writer_add_double_value (b, celsius);
}

static void
add_collected (JmemJsonWriter     *b,
               const JmemSnapshot *s)
{
  jmem_json_writer_set_member_name (b, "collected");
  jmem_json_writer_begin_object (b);
  add_string (b, "hostname", s->hostname);

  jmem_json_writer_set_member_name (b, "timestamp");
  if (s->timestamp_unix > 0)
    {
      g_autoptr(GDateTime) dt = g_date_time_new_from_unix_utc (s->timestamp_unix);
      g_autofree char *iso = dt ? g_date_time_format_iso8601 (dt) : NULL;

      if (iso != NULL)
        jmem_json_writer_add_string_value (b, iso);
      else
        jmem_json_writer_add_null_value (b);
    }
  else
    {
      jmem_json_writer_add_null_value (b);
    }
  /* 0 is what an unset snapshot holds; no real collection happens at the epoch. */
  add_int_or_null (b, "timestamp_unix", s->timestamp_unix > 0 ? s->timestamp_unix : -1);
  add_int_or_null (b, "uptime_s", s->uptime_seconds);
  add_string (b, "sysroot", s->sysroot);
  add_bool (b, "is_jetson", s->is_jetson);
  jmem_json_writer_end_object (b);
}

/* What kind of system, told from what, and the Jetson-only parts that do
 * not apply on it with why; absent before the platform is recognised. */
static void
add_platform (JmemJsonWriter     *b,
              const JmemPlatform *p)
{
  if (p == NULL)
    return;
  jmem_json_writer_set_member_name (b, "platform");
  jmem_json_writer_begin_object (b);
  add_string (b, "kind", jmem_platform_kind_to_string (p->kind));
  add_string (b, "dmi_vendor", p->vendor);
  add_string (b, "dmi_product", p->name);
  add_string (b, "dmi_board", p->board);
  jmem_json_writer_set_member_name (b, "evidence");
  jmem_json_writer_begin_array (b);
  for (guint i = 0; i < p->evidence->len; i++)
    add_string (b, NULL, g_ptr_array_index (p->evidence, i));
  jmem_json_writer_end_array (b);
  jmem_json_writer_set_member_name (b, "not_applying");
  jmem_json_writer_begin_array (b);
  for (JmemJetsonPart part = 0; part < JMEM_JETSON_N_PARTS; part++)
    {
      const char *why = jmem_platform_not_applying (p, part);

      if (why == NULL)
        continue;
      jmem_json_writer_begin_object (b);
      add_string (b, "part", jmem_jetson_part_to_string (part));
      add_string (b, "why", why);
      jmem_json_writer_end_object (b);
    }
  jmem_json_writer_end_array (b);
  jmem_json_writer_end_object (b);
}

static void
add_identity (JmemJsonWriter     *b,
              const JmemSnapshot *s)
{
  const JmemIdentity *id = s->identity;
  const JmemTegraRelease *rel = s->release;

  jmem_json_writer_set_member_name (b, "identity");
  jmem_json_writer_begin_object (b);
  add_string (b, "sku", id ? id->sku : NULL);
  add_string (b, "generation", id ? id->generation : NULL);
  add_string (b, "product_line", id ? id->product_line : NULL);
  add_string (b, "variant", id ? id->variant : NULL);
  add_string (b, "variant_source", id ? id->variant_source : NULL);
  add_string (b, "model", id ? id->model : NULL);
  add_int_or_null (b, "mem_total_kib", s->mem_total_kib);
  add_string (b, "l4t_version", rel ? rel->version : NULL);

  jmem_json_writer_set_member_name (b, "l4t");
  if (rel != NULL)
    {
      jmem_json_writer_begin_object (b);
      add_string (b, "major", rel->major);
      add_string (b, "revision", rel->revision);
      add_string (b, "gcid", rel->gcid);
      add_string (b, "board", rel->board);
      add_string (b, "date", rel->date);
      add_string (b, "kernel_variant", rel->kernel_variant);
      jmem_json_writer_end_object (b);
    }
  else
    {
      jmem_json_writer_add_null_value (b);
    }
  add_string (b, "default_target", s->default_target);
  add_string (b, "kernel_release", s->kernel_release);
  add_platform (b, s->platform);
  jmem_json_writer_end_object (b);
}

static gint64
meminfo_kib (const JmemMeminfo *m,
             const char        *name)
{
  return m != NULL ? jmem_meminfo_get_kib (m, name) : -1;
}

/* a - b when both are known, else -1. */
static gint64
known_difference (gint64 a,
                  gint64 b)
{
  return a >= 0 && b >= 0 ? a - b : -1;
}

static void
add_memory (JmemJsonWriter     *b,
            const JmemSnapshot *s)
{
  const JmemMeminfo *m = s->meminfo;
  gint64 total = meminfo_kib (m, "MemTotal");
  gint64 avail = meminfo_kib (m, "MemAvailable");
  gint64 swap_total = meminfo_kib (m, "SwapTotal");
  gint64 swap_free = meminfo_kib (m, "SwapFree");

  jmem_json_writer_set_member_name (b, "memory");
  jmem_json_writer_begin_object (b);
  add_bool (b, "readable", m != NULL);
  add_int_or_null (b, "malformed_lines", m ? (gint64) m->n_malformed : -1);

  /* The few numbers a person asks for first, derived from the fields below. */
  jmem_json_writer_set_member_name (b, "summary");
  jmem_json_writer_begin_object (b);
  add_int_or_null (b, "mem_total_kib", total);
  add_int_or_null (b, "mem_available_kib", avail);
  add_int_or_null (b, "used_kib", known_difference (total, avail));
  add_int_or_null (b, "cached_kib", meminfo_kib (m, "Cached"));
  add_int_or_null (b, "swap_total_kib", swap_total);
  add_int_or_null (b, "swap_used_kib", known_difference (swap_total, swap_free));
  add_int_or_null (b, "cma_total_kib", meminfo_kib (m, "CmaTotal"));
  add_int_or_null (b, "cma_free_kib", meminfo_kib (m, "CmaFree"));
  add_int_or_null (b, "nvmap_mem_used_kib", meminfo_kib (m, "NvMapMemUsed"));
  jmem_json_writer_end_object (b);

  /* Every /proc/meminfo line under the kernel's own name: kB lines in
   * fields_kib, unit-less counts (HugePages_Total, ...) in counts. */
  jmem_json_writer_set_member_name (b, "fields_kib");
  jmem_json_writer_begin_object (b);
  for (guint i = 0; m != NULL && m->fields != NULL && i < m->fields->len; i++)
    {
      const JmemMeminfoField *f = &g_array_index (m->fields, JmemMeminfoField, i);
      g_autofree char *name = jmem_text_make_valid (f->name, -1);

      if (f->is_kib)
        add_uint (b, name, f->value);
    }
  jmem_json_writer_end_object (b);

  jmem_json_writer_set_member_name (b, "counts");
  jmem_json_writer_begin_object (b);
  for (guint i = 0; m != NULL && m->fields != NULL && i < m->fields->len; i++)
    {
      const JmemMeminfoField *f = &g_array_index (m->fields, JmemMeminfoField, i);
      g_autofree char *name = jmem_text_make_valid (f->name, -1);

      if (!f->is_kib)
        add_uint (b, name, f->value);
    }
  jmem_json_writer_end_object (b);
  jmem_json_writer_end_object (b);
}

static void
add_gpu (JmemJsonWriter     *b,
         const JmemSnapshot *s)
{
  jmem_json_writer_set_member_name (b, "gpu");
  jmem_json_writer_begin_object (b);
  add_string (b, "stack", jmem_gpu_stack_to_string (s->gpu_stack));
  add_string (b, "source", s->gpu_source);
  add_bool (b, "processes_trusted", s->gpu_apps_trusted);

  jmem_json_writer_set_member_name (b, "evidence");
  jmem_json_writer_begin_array (b);
  for (guint i = 0; s->gpu_evidence != NULL && i < s->gpu_evidence->len; i++)
    add_string (b, NULL, g_ptr_array_index (s->gpu_evidence, i));
  jmem_json_writer_end_array (b);

  jmem_json_writer_set_member_name (b, "devices");
  jmem_json_writer_begin_array (b);
  for (guint i = 0; s->gpus != NULL && i < s->gpus->len; i++)
    {
      const JmemNvsmiGpu *g = g_ptr_array_index (s->gpus, i);

      jmem_json_writer_begin_object (b);
      add_int_or_null (b, "index", g->index);
      add_string (b, "uuid", g->uuid);
      add_string (b, "name", g->name);
      add_mib_as_kib (b, "memory_total_kib", g->memory_total_mib);
      add_mib_as_kib (b, "memory_used_kib", g->memory_used_mib);
      add_mib_as_kib (b, "memory_free_kib", g->memory_free_mib);
      jmem_json_writer_end_object (b);
    }
  jmem_json_writer_end_array (b);

  jmem_json_writer_set_member_name (b, "processes");
  jmem_json_writer_begin_array (b);
  for (guint i = 0; s->gpu_apps != NULL && i < s->gpu_apps->len; i++)
    {
      const JmemNvsmiApp *a = g_ptr_array_index (s->gpu_apps, i);

      jmem_json_writer_begin_object (b);
      add_int_or_null (b, "pid", a->pid);
      add_string (b, "gpu_uuid", a->gpu_uuid);
      add_mib_as_kib (b, "used_memory_kib", a->used_memory_mib);
      add_string (b, "process_name", a->process_name);
      add_bool (b, "pid_exists", a->pid_exists);
      add_bool (b, "trusted", !a->in_doubt);
      jmem_json_writer_end_object (b);
    }
  jmem_json_writer_end_array (b);
  jmem_json_writer_end_object (b);
}

static void
add_nvmap (JmemJsonWriter     *b,
           const JmemSnapshot *s)
{
  const JmemNvmapClients *c = s->nvmap_clients;

  jmem_json_writer_set_member_name (b, "nvmap");
  jmem_json_writer_begin_object (b);
  add_bool (b, "readable", s->nvmap_readable);
  add_string (b, "via", s->nvmap_via);
  add_string (b, "pid_namespace", !s->nvmap_readable ? NULL : s->nvmap_pids_host ? "host" : "own");
  add_string (b, "error", s->nvmap_error);
  if (c != NULL && c->has_total)
    add_uint (b, "total_kib", c->total_kib);
  else
    add_int_or_null (b, "total_kib", -1);
  add_int_or_null (b, "stats_total_bytes", s->nvmap_stats_total_bytes);

  jmem_json_writer_set_member_name (b, "clients");
  jmem_json_writer_begin_array (b);
  for (guint i = 0; c != NULL && c->clients != NULL && i < c->clients->len; i++)
    {
      const JmemNvmapClient *row = g_ptr_array_index (c->clients, i);

      jmem_json_writer_begin_object (b);
      add_string (b, "client", row->client);
      add_string (b, "process", row->process);
      add_uint (b, "pid", row->pid);
      add_uint (b, "size_kib", row->size_kib);
      jmem_json_writer_end_object (b);
    }
  jmem_json_writer_end_array (b);

  jmem_json_writer_set_member_name (b, "by_pid");
  jmem_json_writer_begin_array (b);
  for (guint i = 0; s->nvmap_by_pid != NULL && i < s->nvmap_by_pid->len; i++)
    {
      const JmemNvmapPidTotal *t = g_ptr_array_index (s->nvmap_by_pid, i);

      jmem_json_writer_begin_object (b);
      add_int_or_null (b, "pid", t->pid);
      add_string (b, "process", t->process);
      add_uint (b, "n_clients", t->n_clients);
      add_uint (b, "size_kib", t->size_kib);
      if (s->nvmap_pids_host)  /* not looked up: this /proc is not theirs */
        {
          jmem_json_writer_set_member_name (b, "pid_exists");
          jmem_json_writer_add_null_value (b);
        }
      else
        add_bool (b, "pid_exists", t->pid_exists);
      jmem_json_writer_end_object (b);
    }
  jmem_json_writer_end_array (b);

  /* Negative is meaningful here (rows above the total); only -1 is unknown. */
  jmem_json_writer_set_member_name (b, "unattributed_kib");
  if (s->nvmap_unattributed_kib == -1)
    jmem_json_writer_add_null_value (b);
  else
    jmem_json_writer_add_int_value (b, s->nvmap_unattributed_kib);
  add_int_or_null (b, "malformed_lines", c ? (gint64) c->n_malformed : -1);
  add_string (b, "layout", c ? jmem_nvmap_layout_to_string (c->layout) : NULL);
  jmem_json_writer_end_object (b);
}

static void
add_process (JmemJsonWriter    *b,
             const JmemProcess *p)
{
  char state[2] = { p->state, '\0' };

  jmem_json_writer_begin_object (b);
  add_int_or_null (b, "pid", p->pid);
  add_string (b, "name", p->name);
  add_string (b, "user", p->user);
  add_int_or_null (b, "uid", p->uid);
  add_string (b, "state", g_ascii_isgraph (p->state) && p->state != '?' ? state : NULL);
  add_int_or_null (b, "rss_kib", p->rss_kib);
  add_int_or_null (b, "pss_kib", p->pss_kib);
  add_int_or_null (b, "swap_kib", p->swap_kib);
  add_int_or_null (b, "nvmap_kib", p->nvmap_kib);
  add_int_or_null (b, "gpu_kib", p->gpu_kib);
  add_int_or_null (b, "nvmap_mapped_kib", p->nvmap_mapped_kib);
  add_string (b, "nvmap_mapped_source", p->nvmap_mapped_source);
  add_int_or_null (b, "footprint_kib", p->footprint_kib);
  add_string (b, "footprint_base", p->footprint_kib < 0 ? NULL : p->footprint_pss ? "pss" : "rss");

  jmem_json_writer_set_member_name (b, "container");
  if (p->container_runtime != NULL || p->container_id != NULL)
    {
      jmem_json_writer_begin_object (b);
      add_string (b, "runtime", p->container_runtime);
      add_string (b, "id", p->container_id);
      jmem_json_writer_end_object (b);
    }
  else
    {
      jmem_json_writer_add_null_value (b);
    }
  add_string (b, "unit", p->unit);
  add_cmdline (b, p->cmdline);
  /* PID and start time together name one process for as long as it lives. */
  add_int_or_null (b, "start_time_ticks", p->start_time_ticks);
  jmem_json_writer_set_member_name (b, "kernel_thread");
  if (p->kernel_thread < 0)
    jmem_json_writer_add_null_value (b);
  else
    jmem_json_writer_add_boolean_value (b, p->kernel_thread > 0);
  /* only from a sampler (jmem watch, top, metrics --interval): a one-shot
   * snapshot reads everything it shows */
  if (p->pss_age_samples >= 0)
    {
      jmem_json_writer_set_member_name (b, "pss_age_samples");
      jmem_json_writer_add_int_value (b, p->pss_age_samples);
    }
  jmem_json_writer_end_object (b);
}

static void
add_processes (JmemJsonWriter     *b,
               const JmemSnapshot *s)
{
  guint shown = s->processes != NULL ? s->processes->len : 0;

  jmem_json_writer_set_member_name (b, "processes");
  jmem_json_writer_begin_object (b);
  add_uint (b, "total", MAX (s->n_processes_total, shown));
  add_uint (b, "shown", shown);
  add_uint (b, "vanished", s->n_processes_vanished);
  jmem_json_writer_set_member_name (b, "list");
  jmem_json_writer_begin_array (b);
  for (guint i = 0; i < shown; i++)
    add_process (b, g_ptr_array_index (s->processes, i));
  jmem_json_writer_end_array (b);
  jmem_json_writer_end_object (b);
}

static void
add_host (JmemJsonWriter     *b,
          const JmemSnapshot *s)
{
  jmem_json_writer_set_member_name (b, "thermal");
  jmem_json_writer_begin_array (b);
  for (guint i = 0; s->thermal != NULL && i < s->thermal->len; i++)
    {
      const JmemThermal *t = g_ptr_array_index (s->thermal, i);

      jmem_json_writer_begin_object (b);
      add_string (b, "zone", t->zone);
      add_string (b, "type", t->type);
      add_celsius (b, "celsius", t->celsius);
      jmem_json_writer_end_object (b);
    }
  jmem_json_writer_end_array (b);

  add_string (b, "power_mode", s->power_mode);

  jmem_json_writer_set_member_name (b, "disks");
  jmem_json_writer_begin_array (b);
  for (guint i = 0; s->disks != NULL && i < s->disks->len; i++)
    {
      const JmemDisk *d = g_ptr_array_index (s->disks, i);

      jmem_json_writer_begin_object (b);
      add_string (b, "mount_point", d->mount_point);
      add_string (b, "device", d->device);
      add_string (b, "fs_type", d->fs_type);
      add_uint (b, "size_kib", d->size_kib);
      add_uint (b, "used_kib", d->used_kib);
      add_uint (b, "available_kib", d->available_kib);
      jmem_json_writer_end_object (b);
    }
  jmem_json_writer_end_array (b);

  jmem_json_writer_set_member_name (b, "services");
  if (s->services != NULL)
    {
      jmem_json_writer_begin_array (b);
      for (guint i = 0; i < s->services->len; i++)
        {
          const JmemService *svc = g_ptr_array_index (s->services, i);

          jmem_json_writer_begin_object (b);
          add_string (b, "name", svc->name);
          add_string (b, "load_state", svc->load_state);
          add_string (b, "active_state", svc->active_state);
          add_string (b, "unit_file_state", svc->unit_file_state);
          jmem_json_writer_end_object (b);
        }
      jmem_json_writer_end_array (b);
    }
  else
    {
      jmem_json_writer_add_null_value (b);
    }
}

/* A GArray of gint64 where -1 (cpu "off", no reading) is null. */
static void
add_int_array (JmemJsonWriter *b,
               const char     *name,
               const GArray   *values)
{
  jmem_json_writer_set_member_name (b, name);
  jmem_json_writer_begin_array (b);
  for (guint i = 0; values != NULL && i < values->len; i++)
    {
      gint64 v = g_array_index (values, gint64, i);

      if (v < 0)
        jmem_json_writer_add_null_value (b);
      else
        jmem_json_writer_add_int_value (b, v);
    }
  jmem_json_writer_end_array (b);
}

static void
add_tegrastats (JmemJsonWriter     *b,
                const JmemSnapshot *s)
{
  const JmemTegrastats *t = s->tegrastats;

  jmem_json_writer_set_member_name (b, "tegrastats");
  if (t == NULL)
    {
      jmem_json_writer_add_null_value (b);
      return;
    }
  jmem_json_writer_begin_object (b);
  add_string (b, "timestamp", t->timestamp);
  add_mib_as_kib (b, "ram_used_kib", t->ram_used_mib);
  add_mib_as_kib (b, "ram_total_kib", t->ram_total_mib);
  add_int_or_null (b, "lfb_blocks", t->lfb_blocks);
  add_int_or_null (b, "lfb_block_kib", t->lfb_block_kib);
  add_mib_as_kib (b, "swap_used_kib", t->swap_used_mib);
  add_mib_as_kib (b, "swap_total_kib", t->swap_total_mib);
  add_mib_as_kib (b, "swap_cached_kib", t->swap_cached_mib);
  add_int_or_null (b, "emc_freq_percent", t->emc_freq_percent);
  add_int_or_null (b, "emc_freq_mhz", t->emc_freq_mhz);
  add_int_or_null (b, "gr3d_freq_percent", t->gr3d_freq_percent);
  add_int_array (b, "gr3d_freq_mhz", t->gr3d_freq_mhz);
  add_int_array (b, "cpu_percent", t->cpu_percent);

  jmem_json_writer_set_member_name (b, "temps");
  jmem_json_writer_begin_array (b);
  for (guint i = 0; t->temps != NULL && i < t->temps->len; i++)
    {
      const JmemTegrastatsTemp *temp = g_ptr_array_index (t->temps, i);

      jmem_json_writer_begin_object (b);
      add_string (b, "name", temp->name);
      add_celsius (b, "celsius", temp->celsius);
      jmem_json_writer_end_object (b);
    }
  jmem_json_writer_end_array (b);

  jmem_json_writer_set_member_name (b, "rails");
  jmem_json_writer_begin_array (b);
  for (guint i = 0; t->rails != NULL && i < t->rails->len; i++)
    {
      const JmemTegrastatsRail *r = g_ptr_array_index (t->rails, i);

      jmem_json_writer_begin_object (b);
      add_string (b, "name", r->name);
      add_int_or_null (b, "current_mw", r->current_mw);
      add_int_or_null (b, "average_mw", r->average_mw);
      jmem_json_writer_end_object (b);
    }
  jmem_json_writer_end_array (b);
  add_uint (b, "unknown_tokens", t->n_unknown_tokens);
  jmem_json_writer_end_object (b);
}

static void
add_warnings (JmemJsonWriter     *b,
              const JmemSnapshot *s)
{
  jmem_json_writer_set_member_name (b, "warnings");
  jmem_json_writer_begin_array (b);
  for (guint i = 0; s->warnings != NULL && i < s->warnings->len; i++)
    {
      const JmemWarning *w = g_ptr_array_index (s->warnings, i);

      jmem_json_writer_begin_object (b);
      add_string (b, "source", w->source);
      add_string (b, "message", w->message);
      add_string (b, "action", w->action);
      add_bool (b, "admin", jmem_action_is_admin (w->action));
      jmem_json_writer_end_object (b);
    }
  jmem_json_writer_end_array (b);
}

/* ---- the accounting: where the RAM is (docs/accounting.md) ---- */

static void
add_reconciliation (JmemJsonWriter *b, const JmemReconciliation *r)
{
  jmem_json_writer_set_member_name (b, "reconciliation");
  jmem_json_writer_begin_object (b);
  add_int_or_null (b, "processes", r->n_processes);
  add_int_or_null (b, "processes_without_pss", r->n_without_pss);
  add_int_or_null (b, "pss_without_nvmap_kib", r->pss_kib);
  add_int_or_null (b, "rss_without_pss_kib", r->rss_without_pss_kib);
  add_int_or_null (b, "kernel_mapped_kib", r->kernel_mapped_kib);
  add_int_or_null (b, "nvmap_shares_kib", r->nvmap_shares_kib);
  add_int_or_null (b, "nvmap_kib", r->nvmap_kib);
  add_int_or_null (b, "gpu_kib", r->gpu_kib);
  add_int_or_null (b, "used_kib", r->used_kib);
  add_int_or_null (b, "by_processes_kib", r->by_processes_kib);
  /* a difference: may be negative, unknown without used_kib */
  jmem_json_writer_set_member_name (b, "held_by_no_process_kib");
  if (r->used_kib >= 0)
    jmem_json_writer_add_int_value (b, r->held_by_no_process_kib);
  else
    jmem_json_writer_add_null_value (b);
  jmem_json_writer_end_object (b);
}

static void
add_accounting (JmemJsonWriter       *b,
                const JmemAccounting *a)
{
  if (a == NULL || a->mem_total_kib <= 0)
    {
      jmem_json_writer_add_null_value (b);
      return;
    }
  jmem_json_writer_begin_object (b);
  add_int_or_null (b, "mem_total_kib", a->mem_total_kib);
  add_int_or_null (b, "physical_kib", a->physical_kib);
  add_string (b, "physical_source", a->physical_source);
  add_string (b, "physical_note", a->physical_note);
  add_int_or_null (b, "firmware_reserved_kib", a->firmware_reserved_kib);

  jmem_json_writer_set_member_name (b, "buckets");
  jmem_json_writer_begin_array (b);
  for (guint i = 0; i < JMEM_N_BUCKETS; i++)
    {
      const JmemBucket *bk = &a->buckets[i];

      jmem_json_writer_begin_object (b);
      add_string (b, "name", jmem_accounting_bucket_name (bk->id));
      add_string (b, "label", jmem_accounting_bucket_label (bk->id));
      add_int_or_null (b, "kib", bk->kib);
      add_string (b, "fields", bk->fields);
      add_string (b, "source", bk->source);
      add_string (b, "note", bk->note);
      add_bool (b, "estimate", bk->estimate);
      jmem_json_writer_end_object (b);
    }
  jmem_json_writer_end_array (b);
  add_int_or_null (b, "accounted_kib", a->accounted_kib);
  jmem_json_writer_set_member_name (b, "unexplained_kib");  /* negative: an overlap */
  jmem_json_writer_add_int_value (b, a->unexplained_kib);
  add_bool (b, "overlap", a->unexplained_kib < 0);

  jmem_json_writer_set_member_name (b, "nvmap");
  jmem_json_writer_begin_object (b);
  add_string (b, "source", a->nvmap_source);
  add_int_or_null (b, "total_kib", a->nvmap_total_kib);
  add_int_or_null (b, "hugetlbfs_kib", a->nvmap_hugetlbfs_kib);
  add_int_or_null (b, "iovmm_allocatable_kib", a->nvmap_iovmm_allocatable_kib);
  jmem_json_writer_end_object (b);
  add_int_or_null (b, "hugetlb_free_kib", a->hugetlb_free_kib);
  jmem_json_writer_set_member_name (b, "gpu");
  jmem_json_writer_begin_object (b);
  add_int_or_null (b, "reported_kib", a->gpu_reported_kib);
  add_int_or_null (b, "exited_kib", a->gpu_reported_kib >= 0 ? a->gpu_exited_kib : -1);
  add_int_or_null (b, "hugetlb_overlap_kib", a->gpu_hugetlb_overlap_kib);
  jmem_json_writer_end_object (b);
  add_int_or_null (b, "cma_total_kib", a->cma_total_kib);
  add_int_or_null (b, "cma_free_kib", a->cma_free_kib);
  add_reconciliation (b, &a->reconciliation);
  jmem_json_writer_set_member_name (b, "notes");
  jmem_json_writer_begin_array (b);
  for (guint i = 0; i < a->notes->len; i++)
    add_string (b, NULL, g_ptr_array_index (a->notes, i));
  jmem_json_writer_end_array (b);
  jmem_json_writer_end_object (b);
}

/* ---- the headroom: can this board still allocate N (docs/headroom.md) ---- */

static void
add_headroom_terms (JmemJsonWriter *b, const JmemHeadroom *h)
{
  jmem_json_writer_set_member_name (b, "terms");
  jmem_json_writer_begin_array (b);
  for (guint i = 0; i < JMEM_HEADROOM_N_TERMS; i++)
    {
      const JmemHeadroomTerm *t = &h->terms[i];

      jmem_json_writer_begin_object (b);
      add_string (b, "name", jmem_headroom_term_name (t->id));
      add_string (b, "label", jmem_headroom_term_label (t->id));
      add_string (b, "part", i < JMEM_HEADROOM_FIRST_RECLAIM_TERM ? "now" : "reclaim");
      add_string (b, "sign", t->subtract ? "-" : "+");
      add_int_or_null (b, "kib", t->kib);
      add_string (b, "fields", t->fields);
      add_string (b, "source", t->source);
      add_string (b, "note", t->note);
      jmem_json_writer_end_object (b);
    }
  jmem_json_writer_end_array (b);
}

static void
add_headroom_zones (JmemJsonWriter *b, const JmemHeadroom *h)
{
  jmem_json_writer_set_member_name (b, "zones");
  jmem_json_writer_begin_array (b);
  for (guint i = 0; i < h->zones->len; i++)
    {
      const JmemHeadroomZone *z = g_ptr_array_index (h->zones, i);

      jmem_json_writer_begin_object (b);
      add_int_or_null (b, "node", z->node);
      add_string (b, "zone", z->zone);
      add_int_or_null (b, "free_kib", z->free_kib);
      add_int_or_null (b, "largest_order", z->largest_order);
      add_uint (b, "largest_blocks", z->largest_order >= 0 ? z->largest_blocks : 0);
      add_int_or_null (b, "largest_block_kib", z->largest_order >= 0 ? z->largest_block_kib : -1);
      add_int_or_null (b, "huge_free_kib", z->huge_free_kib);
      jmem_json_writer_end_object (b);
    }
  jmem_json_writer_end_array (b);
}

static void
add_headroom_people (JmemJsonWriter *b, const JmemHeadroom *h)
{
  jmem_json_writer_set_member_name (b, "holders");
  jmem_json_writer_begin_array (b);
  for (guint i = 0; i < h->holders->len; i++)
    {
      const JmemHeadroomHolder *hd = g_ptr_array_index (h->holders, i);

      jmem_json_writer_begin_object (b);
      add_int_or_null (b, "pid", hd->pid);
      add_string (b, "name", hd->name);
      add_string (b, "user", hd->user);
      add_string (b, "unit", hd->unit);
      add_int_or_null (b, "footprint_kib", hd->footprint_kib);
      add_int_or_null (b, "nvmap_kib", hd->nvmap_kib);
      add_int_or_null (b, "gpu_kib", hd->gpu_kib);
      jmem_json_writer_end_object (b);
    }
  jmem_json_writer_end_array (b);
  jmem_json_writer_set_member_name (b, "services");
  jmem_json_writer_begin_array (b);
  for (guint i = 0; i < h->services->len; i++)
    {
      const JmemHeadroomService *sv = g_ptr_array_index (h->services, i);

      jmem_json_writer_begin_object (b);
      add_string (b, "unit", sv->unit);
      add_int_or_null (b, "kib", sv->kib);
      add_int_or_null (b, "processes", sv->n_processes);
      add_bool (b, "desktop", sv->desktop);
      jmem_json_writer_end_object (b);
    }
  jmem_json_writer_end_array (b);
}

static void
add_strings (JmemJsonWriter *b, const char *name, GPtrArray *strings)
{
  jmem_json_writer_set_member_name (b, name);
  jmem_json_writer_begin_array (b);
  for (guint i = 0; i < strings->len; i++)
    add_string (b, NULL, g_ptr_array_index (strings, i));
  jmem_json_writer_end_array (b);
}

static void
add_headroom (JmemJsonWriter     *b,
              const JmemHeadroom *h)
{
  if (h == NULL)
    {
      jmem_json_writer_add_null_value (b);
      return;
    }
  jmem_json_writer_begin_object (b);
  add_int_or_null (b, "need_kib", h->need_kib);
  add_string (b, "verdict", jmem_headroom_verdict_name (h->verdict));
  add_int_or_null (b, "shortfall_kib", h->verdict == JMEM_HEADROOM_NO_NEED ? -1 : h->shortfall_kib);
  add_int_or_null (b, "allocatable_now_kib", h->allocatable_now_kib);
  add_int_or_null (b, "allocatable_after_reclaim_kib", h->allocatable_after_reclaim_kib);
  add_int_or_null (b, "drop_caches_kib", h->allocatable_now_kib >= 0 ? h->drop_caches_kib : -1);
  add_headroom_terms (b, h);
  add_int_or_null (b, "page_size_bytes", h->page_size);
  add_int_or_null (b, "largest_free_block_kib", h->largest_free_block_kib);
  add_uint (b, "largest_free_blocks", h->largest_free_blocks);
  add_string (b, "largest_free_block_zone", h->largest_free_block_zone);
  add_int_or_null (b, "buddy_free_kib", h->buddy_free_kib);
  add_int_or_null (b, "huge_free_kib", h->huge_free_kib);
  add_bool (b, "fragmented", h->fragmented);
  add_headroom_zones (b, h);
  add_int_or_null (b, "cma_total_kib", h->cma_total_kib);
  add_int_or_null (b, "cma_free_kib", h->cma_free_kib);
  add_int_or_null (b, "hugetlb_total_kib", h->hugetlb_total_kib);
  add_int_or_null (b, "hugetlb_free_kib", h->hugetlb_free_kib);
  add_bool (b, "gpu_carveout", h->gpu_carveout);
  add_int_or_null (b, "swap_free_kib", h->swap_free_kib);
  jmem_json_writer_set_member_name (b, "zram_ratio");
  if (h->zram_ratio > 0)
    jmem_json_writer_add_double_value (b, (double) (gint64) (h->zram_ratio * 100.0 + 0.5) / 100.0);
  else
    jmem_json_writer_add_null_value (b);
  add_bool (b, "zram_ratio_assumed", h->zram_ratio_assumed);
  add_int_or_null (b, "nvmap_free_size_kib", h->nvmap_free_size_kib);
  add_int_or_null (b, "app_note_kib", h->app_note_kib);
  add_string (b, "app_note_fields", h->app_note_fields);
  add_headroom_people (b, h);
  /* each with whether it is a step for an administrator */
  jmem_json_writer_set_member_name (b, "actions");
  jmem_json_writer_begin_array (b);
  for (guint i = 0; i < h->actions->len; i++)
    {
      const char *action = g_ptr_array_index (h->actions, i);

      jmem_json_writer_begin_object (b);
      add_string (b, "action", action);
      add_bool (b, "admin", jmem_action_is_admin (action));
      jmem_json_writer_end_object (b);
    }
  jmem_json_writer_end_array (b);
  add_strings (b, "notes", h->notes);
  jmem_json_writer_end_object (b);
}

JsonNode *
jmem_headroom_to_json (const JmemHeadroom *headroom)
{
  JmemJsonWriter *b = jmem_json_writer_new (FALSE);
  g_autofree char *text = NULL;
  g_autoptr(GError) error = NULL;
  JsonNode *root;

  add_headroom (b, headroom);
  text = jmem_json_writer_free_to_string (b);
  root = json_from_string (text, &error);
  /* the writer's own output */
  g_assert_no_error (error);
  return root;
}

static void
write_snapshot (JmemJsonWriter     *b,
                const JmemSnapshot *snapshot)
{
  jmem_json_writer_begin_object (b);
  add_string (b, "schema", JMEM_SNAPSHOT_SCHEMA_NAME);
  jmem_json_writer_set_member_name (b, "schema_version");
  jmem_json_writer_add_int_value (b, JMEM_SNAPSHOT_SCHEMA_VERSION);
  add_string (b, "jmem_version", JMEM_VERSION);
  add_collected (b, snapshot);
  add_identity (b, snapshot);
  add_memory (b, snapshot);
  add_gpu (b, snapshot);
  add_nvmap (b, snapshot);
  add_processes (b, snapshot);
  jmem_json_writer_set_member_name (b, "accounting");
  add_accounting (b, snapshot->accounting);
  jmem_json_writer_set_member_name (b, "headroom");
  add_headroom (b, snapshot->headroom);
  add_host (b, snapshot);
  add_tegrastats (b, snapshot);
  add_warnings (b, snapshot);
  jmem_json_writer_set_member_name (b, "findings");
  if (snapshot->findings != NULL)
    {
      g_autoptr(JsonNode) findings = jmem_findings_to_json (snapshot->findings);

      jmem_json_writer_add_node (b, findings);
    }
  else
    jmem_json_writer_add_null_value (b);
  jmem_json_writer_end_object (b);
}

/* The tree is the text read back: one writer for both, so the document a
 * program gets from jmem_snapshot_to_json() is the one printed. */
JsonNode *
jmem_snapshot_to_json (const JmemSnapshot *snapshot)
{
  g_autofree char *text = NULL;
  g_autoptr(GError) error = NULL;
  JsonNode *root;

  g_return_val_if_fail (snapshot != NULL, NULL);

  text = jmem_snapshot_to_json_string (snapshot, FALSE);
  root = json_from_string (text, &error);
  /* The writer's own output: failing to read it back is a bug in jmem. */
  g_assert_no_error (error);
  return root;
}

char *
jmem_snapshot_to_json_string (const JmemSnapshot *snapshot,
                              gboolean            pretty)
{
  JmemJsonWriter *b;

  g_return_val_if_fail (snapshot != NULL, NULL);

  b = jmem_json_writer_new (pretty);
  write_snapshot (b, snapshot);
  return jmem_json_writer_free_to_string (b);
}
