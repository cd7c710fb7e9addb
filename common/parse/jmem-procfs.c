/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "jmem-procfs.h"

#include "jmem-error.h"
#include "jmem-text.h"

#include <string.h>

/* Splits @data into lines (without the newline); @func is called per line
 * and returns FALSE once it has all it wants. */
typedef gboolean (*LineFunc) (const char *line, gsize len, gpointer user_data);

static void
for_each_line (const char *data, gsize len, LineFunc func, gpointer user_data)
{
  const char *p = data, *end = data + len;

  while (p < end)
    {
      const char *nl = memchr (p, '\n', (gsize) (end - p));
      const char *line_end = nl != NULL ? nl : end;

      if (!func (p, (gsize) (line_end - p), user_data))
        break;
      p = nl != NULL ? nl + 1 : end;
    }
}

/* A decimal number, optionally followed by " kB"; -1 when it is anything
 * else (garbage, a sign, too large for gint64). */
static gint64
parse_number (const char *s, gsize len, gboolean want_kib)
{
  const char *end = s + len;
  gint64 v = 0;
  const char *digits;

  while (s < end && (*s == ' ' || *s == '\t'))
    s++;
  digits = s;
  while (s < end && g_ascii_isdigit (*s))
    {
      int d = *s - '0';
      if (v > (G_MAXINT64 - d) / 10)
        return -1;
      v = v * 10 + d;
      s++;
    }
  if (s == digits)
    return -1;
  if (want_kib)
    {
      if (end - s != 3 || memcmp (s, " kB", 3) != 0)
        return -1;
      s += 3;
    }
  else
    {
      /* "Uid:" carries four tab-separated ids; the first is the real one. */
      if (s < end && *s != '\t' && *s != ' ')
        return -1;
    }
  return v;
}

/* The length of a "Key: value" line's key, or 0 when it has no colon.
 * Found once per line, it lets the key tables compare lengths before bytes:
 * these files are read for every process. */
static gsize
line_key_len (const char *line, gsize len)
{
  const char *colon = memchr (line, ':', len);

  return colon != NULL ? (gsize) (colon - line) : 0;
}

#define KEY(literal) literal, sizeof literal - 1

/* Key ":" value; returns the value part when the line's key (of length
 * @line_klen, from line_key_len()) is @key. */
static gboolean
line_has_key (const char *line, gsize len, gsize line_klen,
              const char *key, gsize klen,
              const char **value, gsize *value_len)
{
  if (line_klen != klen || klen == 0 || memcmp (line, key, klen) != 0)
    return FALSE;
  *value = line + klen + 1;
  *value_len = len - klen - 1;
  return TRUE;
}

/* ---- /proc/PID/status ---- */

void
jmem_proc_status_free (JmemProcStatus *status)
{
  if (status == NULL)
    return;
  g_free (status->name);
  g_free (status);
}

/* fs/proc/array.c writes the name with seq_escape_str(..., ESCAPE_SPACE |
 * ESCAPE_SPECIAL, "\n\\"): only newline (as \n) and backslash (as \\) are
 * escaped; every other byte, invalid UTF-8 included, goes out as it is. */
static char *
unescape_name (const char *s, gsize len)
{
  g_autoptr(GString) raw = g_string_sized_new (len);

  for (gsize i = 0; i < len; i++)
    {
      if (s[i] == '\\' && i + 1 < len && (s[i + 1] == 'n' || s[i + 1] == '\\'))
        {
          g_string_append_c (raw, s[i + 1] == 'n' ? '\n' : '\\');
          i++;
        }
      else
        g_string_append_c (raw, s[i]);
    }
  return jmem_text_make_valid (raw->str, (gssize) raw->len);
}

typedef struct {
  JmemProcStatus *status;
  gboolean        seen_name;
  guint           n_lines_after_threads;
} StatusCtx;

static gboolean
status_line (const char *line, gsize len, gpointer user_data)
{
  StatusCtx *ctx = user_data;
  JmemProcStatus *st = ctx->status;
  gsize klen = line_key_len (line, len);
  const char *v;
  gsize vlen;
  static const struct {
    const char *key;
    gsize key_len;
    gsize offset;
    gboolean kib;
  } numbers[] = {
    { KEY ("Pid"), G_STRUCT_OFFSET (JmemProcStatus, pid), FALSE },
    { KEY ("PPid"), G_STRUCT_OFFSET (JmemProcStatus, ppid), FALSE },
    { KEY ("Uid"), G_STRUCT_OFFSET (JmemProcStatus, uid), FALSE },
    { KEY ("VmRSS"), G_STRUCT_OFFSET (JmemProcStatus, vm_rss_kib), TRUE },
    { KEY ("RssAnon"), G_STRUCT_OFFSET (JmemProcStatus, rss_anon_kib), TRUE },
    { KEY ("RssFile"), G_STRUCT_OFFSET (JmemProcStatus, rss_file_kib), TRUE },
    { KEY ("RssShmem"), G_STRUCT_OFFSET (JmemProcStatus, rss_shmem_kib), TRUE },
    { KEY ("VmSwap"), G_STRUCT_OFFSET (JmemProcStatus, vm_swap_kib), TRUE },
    { KEY ("Threads"), G_STRUCT_OFFSET (JmemProcStatus, threads), FALSE },
  };

  /* The first Name: line wins; the kernel writes it first and escapes the
   * newlines a name could hold, so no later line can come from a name. */
  if (line_has_key (line, len, klen, KEY ("Name"), &v, &vlen))
    {
      if (!ctx->seen_name)
        {
          if (vlen > 0 && v[0] == '\t')
            v++, vlen--;
          st->name = unescape_name (v, vlen);
          ctx->seen_name = TRUE;
        }
      return TRUE;
    }
  if (!ctx->seen_name)
    return TRUE;

  if (line_has_key (line, len, klen, KEY ("NSpid"), &v, &vlen))
    {
      if (st->ns_pid_levels == 0)
        for (gsize i = 0; i < vlen; i++)
          if (g_ascii_isdigit (v[i]) && (i == 0 || !g_ascii_isdigit (v[i - 1])))
            st->ns_pid_levels++;
      return TRUE;
    }

  if (line_has_key (line, len, klen, KEY ("State"), &v, &vlen))
    {
      while (vlen > 0 && (*v == '\t' || *v == ' '))
        v++, vlen--;
      if (st->state == '?' && vlen > 0 && g_ascii_isalpha (*v) &&
          (vlen == 1 || v[1] == ' '))
        st->state = *v;
      return TRUE;
    }

  for (gsize i = 0; i < G_N_ELEMENTS (numbers); i++)
    {
      if (line_has_key (line, len, klen, numbers[i].key, numbers[i].key_len, &v, &vlen))
        {
          gint64 *field = G_STRUCT_MEMBER_P (st, numbers[i].offset);

          if (*field == -1)
            *field = parse_number (v, vlen, numbers[i].kib);
          return TRUE;
        }
    }
  /* Once every key is in, stop: the signal masks, capabilities and CPU
   * lists after Threads are most of the file. */
  for (gsize i = 0; i < G_N_ELEMENTS (numbers); i++)
    if (G_STRUCT_MEMBER (gint64, st, numbers[i].offset) == -1)
      return TRUE;
  return st->state == '?';
}

JmemProcStatus *
jmem_proc_status_parse (const char *data, gsize len, GError **error)
{
  g_autoptr(JmemProcStatus) st = g_new0 (JmemProcStatus, 1);
  StatusCtx ctx = { st, FALSE };

  g_return_val_if_fail (data != NULL || len == 0, NULL);

  st->state = '?';
  st->pid = st->ppid = st->uid = -1;
  st->vm_rss_kib = st->rss_anon_kib = st->rss_file_kib = -1;
  st->rss_shmem_kib = st->vm_swap_kib = st->threads = -1;

  for_each_line (data, len, status_line, &ctx);
  if (!ctx.seen_name)
    {
      g_set_error_literal (error, JMEM_ERROR, JMEM_ERROR_FAILED,
                           "status has no Name: line");
      return NULL;
    }
  return g_steal_pointer (&st);
}

/* ---- /proc/PID/stat ---- */

/* A whole token of decimal digits, at most G_MAXINT64; -1 otherwise. */
static gint64
stat_number (const char *s, gsize len)
{
  gint64 v = 0;

  if (len == 0)
    return -1;
  for (gsize i = 0; i < len; i++)
    {
      int d = s[i] - '0';

      if (!g_ascii_isdigit (s[i]) || v > (G_MAXINT64 - d) / 10)
        return -1;
      v = v * 10 + d;
    }
  return v;
}

static gboolean
stat_failed (JmemProcStat *out, GError **error, const char *why)
{
  *out = (JmemProcStat) { -1, '?', -1, 0, -1 };
  g_set_error (error, JMEM_ERROR, JMEM_ERROR_FAILED, "stat %s", why);
  return FALSE;
}

gboolean
jmem_proc_stat_parse (const char *data, gsize len, JmemProcStat *out, GError **error)
{
  const char *open, *close = NULL, *p, *end = data + len;
  guint field = 3;
  gint64 flags = -1;

  g_return_val_if_fail (data != NULL || len == 0, FALSE);

  *out = (JmemProcStat) { -1, '?', -1, 0, -1 };
  open = len > 0 ? memchr (data, '(', len) : NULL;
  if (open == NULL)
    return stat_failed (out, error, "has no (name)");
  for (const char *c = open; c < end; c++)
    if (*c == ')')
      close = c;
  if (close == NULL || open == data || open[-1] != ' ')
    return stat_failed (out, error, "has no (name)");
  out->pid = stat_number (data, (gsize) (open - 1 - data));
  if (out->pid < 0)
    return stat_failed (out, error, "has no PID");

  /* Space-separated after the name; the kernel ends the line with "\n". */
  for (p = close + 1; p < end && field <= 22; field++)
    {
      const char *tok;

      if (*p != ' ')
        break;
      tok = ++p;
      while (p < end && *p != ' ' && *p != '\n')
        p++;
      switch (field)
        {
        case 3:
          if (p - tok != 1 || !g_ascii_isalpha (*tok))
            return stat_failed (out, error, "has no state");
          out->state = *tok;
          break;
        case 4:
          out->ppid = stat_number (tok, (gsize) (p - tok));
          break;
        case 9:
          flags = stat_number (tok, (gsize) (p - tok));
          break;
        case 22:
          out->start_time_ticks = stat_number (tok, (gsize) (p - tok));
          break;
        default:
          break;
        }
    }
  if (field <= 22 || out->ppid < 0 || flags < 0 || flags > G_MAXUINT32 ||
      out->start_time_ticks < 0)
    return stat_failed (out, error, "is truncated or holds a field that is not a number");
  out->flags = (guint64) flags;
  return TRUE;
}

/* ---- /proc/PID/statm ---- */

gboolean
jmem_proc_statm_parse (const char *data, gsize len, JmemProcStatm *out, GError **error)
{
  gint64 fields[7];
  const char *p = data, *end = data + len;

  g_return_val_if_fail (data != NULL || len == 0, FALSE);

  *out = (JmemProcStatm) { 0 };
  if (len > 0 && end[-1] == '\n')
    end--;
  for (guint i = 0; i < G_N_ELEMENTS (fields); i++)
    {
      const char *tok = p;

      while (p < end && *p != ' ')
        p++;
      fields[i] = stat_number (tok, (gsize) (p - tok));
      if (fields[i] < 0 || (i + 1 < G_N_ELEMENTS (fields) ? p >= end : p != end))
        {
          g_set_error_literal (error, JMEM_ERROR, JMEM_ERROR_FAILED,
                               "statm is not seven numbers separated by spaces");
          return FALSE;
        }
      p++;
    }
  out->size = (guint64) fields[0];
  out->resident = (guint64) fields[1];
  out->shared = (guint64) fields[2];
  out->text = (guint64) fields[3];
  out->data = (guint64) fields[5];
  return TRUE;
}

/* ---- /proc/PID/smaps_rollup ---- */

typedef struct {
  JmemSmapsRollup *out;
  guint            n_found;
} RollupCtx;

static gboolean
rollup_line (const char *line, gsize len, gpointer user_data)
{
  RollupCtx *ctx = user_data;
  gsize klen = line_key_len (line, len);
  const char *v;
  gsize vlen;
  static const struct {
    const char *key;
    gsize key_len;
    gsize offset;
  } keys[] = {
    { KEY ("Rss"), G_STRUCT_OFFSET (JmemSmapsRollup, rss_kib) },
    { KEY ("Pss"), G_STRUCT_OFFSET (JmemSmapsRollup, pss_kib) },
    { KEY ("Pss_Anon"), G_STRUCT_OFFSET (JmemSmapsRollup, pss_anon_kib) },
    { KEY ("Pss_File"), G_STRUCT_OFFSET (JmemSmapsRollup, pss_file_kib) },
    { KEY ("Pss_Shmem"), G_STRUCT_OFFSET (JmemSmapsRollup, pss_shmem_kib) },
    { KEY ("Swap"), G_STRUCT_OFFSET (JmemSmapsRollup, swap_kib) },
    { KEY ("SwapPss"), G_STRUCT_OFFSET (JmemSmapsRollup, swap_pss_kib) },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (keys); i++)
    {
      if (line_has_key (line, len, klen, keys[i].key, keys[i].key_len, &v, &vlen))
        {
          gint64 *field = G_STRUCT_MEMBER_P (ctx->out, keys[i].offset);

          if (*field == -1)
            {
              *field = parse_number (v, vlen, TRUE);
              if (*field >= 0)
                ctx->n_found++;
            }
          return TRUE;
        }
    }
  return TRUE;
}

gboolean
jmem_smaps_rollup_parse (const char *data, gsize len,
                         JmemSmapsRollup *out, GError **error)
{
  RollupCtx ctx = { out, 0 };

  g_return_val_if_fail (data != NULL || len == 0, FALSE);
  g_return_val_if_fail (out != NULL, FALSE);

  out->rss_kib = out->pss_kib = out->pss_anon_kib = out->pss_file_kib = -1;
  out->pss_shmem_kib = out->swap_kib = out->swap_pss_kib = -1;

  for_each_line (data, len, rollup_line, &ctx);
  if (out->pss_kib < 0)
    {
      /* Kernel threads have an empty smaps_rollup. */
      g_set_error_literal (error, JMEM_ERROR, JMEM_ERROR_NOT_AVAILABLE,
                           "smaps_rollup has no Pss: line");
      return FALSE;
    }
  return TRUE;
}

/* ---- /proc/PID/cgroup ---- */

void
jmem_cgroup_info_clear (JmemCgroupInfo *info)
{
  if (info == NULL)
    return;
  g_clear_pointer (&info->runtime, g_free);
  g_clear_pointer (&info->id, g_free);
  g_clear_pointer (&info->cgroup, g_free);
}

/* Container ids are 64 hex digits; accept shortened ones down to 12. */
static gboolean
is_hex_id (const char *s, gsize len)
{
  if (len < 12 || len > 64)
    return FALSE;
  for (gsize i = 0; i < len; i++)
    if (!g_ascii_isxdigit (s[i]) || g_ascii_isupper (s[i]))
      return FALSE;
  return TRUE;
}

/* "<prefix><hex>" or "<prefix><hex>.scope" */
static gboolean
match_prefixed (const char *comp, const char *prefix, char **id)
{
  gsize plen = strlen (prefix), len = strlen (comp);

  if (len <= plen || strncmp (comp, prefix, plen) != 0)
    return FALSE;
  comp += plen;
  len -= plen;
  if (g_str_has_suffix (comp, ".scope"))
    len -= strlen (".scope");
  if (!is_hex_id (comp, len))
    return FALSE;
  *id = g_strndup (comp, len);
  return TRUE;
}

/* Runtime and id from one cgroup path, most specific form first. */
static gboolean
container_from_path (const char *path, char **runtime, char **id)
{
  g_auto(GStrv) comps = g_strsplit (path, "/", -1);
  guint n = g_strv_length (comps);
  static const struct {
    const char *prefix;
    const char *runtime;
  } prefixed[] = {
    { "docker-", "docker" },
    { "cri-containerd-", "containerd" },
    { "crio-", "crio" },
    { "libpod-", "podman" },
  };
  gboolean kube = FALSE;

  for (guint i = n; i-- > 0;)
    {
      const char *comp = comps[i];
      const char *colon;

      for (gsize k = 0; k < G_N_ELEMENTS (prefixed); k++)
        if (match_prefixed (comp, prefixed[k].prefix, id))
          {
            *runtime = g_strdup (prefixed[k].runtime);
            return TRUE;
          }
      /* systemd cgroup driver under containerd: "...:cri-containerd:<hex>" */
      colon = strstr (comp, ":cri-containerd:");
      if (colon != NULL && is_hex_id (colon + 16, strlen (colon + 16)))
        {
          *runtime = g_strdup ("containerd");
          *id = g_strdup (colon + 16);
          return TRUE;
        }
      if (i > 0 && g_str_equal (comps[i - 1], "docker") &&
          is_hex_id (comp, strlen (comp)))
        {
          *runtime = g_strdup ("docker");
          *id = g_strdup (comp);
          return TRUE;
        }
    }

  for (guint i = 0; i < n; i++)
    if (g_str_has_prefix (comps[i], "kubepods"))
      kube = TRUE;
  if (kube && n > 0 && is_hex_id (comps[n - 1], strlen (comps[n - 1])))
    {
      *runtime = g_strdup ("kubepods");
      *id = g_strdup (comps[n - 1]);
      return TRUE;
    }
  return FALSE;
}

/* A line's path, in place: most processes share a few paths ("/" in every
 * v1 hierarchy), so only distinct ones are copied and examined. */
typedef struct {
  const char *path;
  gsize       len;
} CgroupPath;

typedef struct {
  GArray *v2;     /* CgroupPath of "0::" lines */
  GArray *v1;     /* CgroupPath of the other lines */
  guint   n_malformed;
} CgroupCtx;

static gboolean
cgroup_line (const char *line, gsize len, gpointer user_data)
{
  CgroupCtx *ctx = user_data;
  const char *c1, *c2;
  CgroupPath path;

  if (len == 0)
    return TRUE;
  c1 = memchr (line, ':', len);
  c2 = c1 != NULL ? memchr (c1 + 1, ':', len - (gsize) (c1 + 1 - line)) : NULL;
  if (c1 == NULL || c2 == NULL || c1 == line || c2 + 1 >= line + len ||
      c2[1] != '/')
    {
      ctx->n_malformed++;
      return TRUE;
    }
  path.path = c2 + 1;
  path.len = (gsize) (line + len - path.path);
  g_array_append_val (c1 - line == 1 && line[0] == '0' && c2 == c1 + 1 ? ctx->v2 : ctx->v1, path);
  return TRUE;
}

/* Whether container_from_path() could find anything in @path: every form it
 * knows names its runtime. Most processes are in no container, and this
 * spares them the split and the copies. */
static gboolean
may_name_container (const char *path, gsize len)
{
  static const char *const runtimes[] = { "docker", "containerd", "crio", "libpod", "kubepods" };

  for (gsize k = 0; k < G_N_ELEMENTS (runtimes); k++)
    if (memmem (path, len, runtimes[k], strlen (runtimes[k])) != NULL)
      return TRUE;
  return FALSE;
}

static gboolean
seen_before (GArray * const *order, gsize o, guint i)
{
  const CgroupPath *p = &g_array_index (order[o], CgroupPath, i);

  for (gsize po = 0; po <= o; po++)
    for (guint pi = 0; pi < (po < o ? order[po]->len : i); pi++)
      {
        const CgroupPath *q = &g_array_index (order[po], CgroupPath, pi);

        if (q->len == p->len && memcmp (q->path, p->path, p->len) == 0)
          return TRUE;
      }
  return FALSE;
}

gboolean
jmem_cgroup_parse (const char *data, gsize len,
                   JmemCgroupInfo *out, GError **error)
{
  g_autoptr(GArray) v2 = g_array_new (FALSE, FALSE, sizeof (CgroupPath));
  g_autoptr(GArray) v1 = g_array_new (FALSE, FALSE, sizeof (CgroupPath));
  CgroupCtx ctx = { v2, v1, 0 };
  GArray *order[] = { v2, v1 };
  const CgroupPath *first;

  g_return_val_if_fail (data != NULL || len == 0, FALSE);
  g_return_val_if_fail (out != NULL, FALSE);

  memset (out, 0, sizeof *out);
  for_each_line (data, len, cgroup_line, &ctx);
  if (v2->len == 0 && v1->len == 0)
    {
      g_set_error (error, JMEM_ERROR, JMEM_ERROR_FAILED,
                   "cgroup holds no readable line (%u malformed)",
                   ctx.n_malformed);
      return FALSE;
    }

  for (gsize o = 0; o < G_N_ELEMENTS (order); o++)
    for (guint i = 0; i < order[o]->len; i++)
      {
        const CgroupPath *p = &g_array_index (order[o], CgroupPath, i);
        g_autofree char *path = NULL;

        /* the root holds no container */
        if (p->len <= 1 || !may_name_container (p->path, p->len) || seen_before (order, o, i))
          continue;
        /* The path is valid UTF-8 from here on: it may end up in JSON. */
        path = jmem_text_make_valid (p->path, (gssize) p->len);
        if (container_from_path (path, &out->runtime, &out->id))
          {
            out->cgroup = g_steal_pointer (&path);
            return TRUE;
          }
      }

  first = &g_array_index (v2->len > 0 ? v2 : v1, CgroupPath, 0);
  out->cgroup = jmem_text_make_valid (first->path, (gssize) first->len);
  return TRUE;
}

char *
jmem_cgroup_unit (const char *cgroup)
{
  static const char prefix[] = "/system.slice/";
  const char *name, *end;
  gsize len;

  if (cgroup == NULL || !g_str_has_prefix (cgroup, prefix))
    return NULL;
  name = cgroup + strlen (prefix);
  end = strchr (name, '/');
  len = end != NULL ? (gsize) (end - name) : strlen (name);
  /* a unit name is at most 255 bytes (systemd's UNIT_NAME_MAX) */
  if (len <= strlen (".service") || len > 255 ||
      memcmp (name + len - strlen (".service"), ".service", strlen (".service")) != 0)
    return NULL;
  return jmem_text_make_valid (name, (gssize) len);
}

/* ---- /proc/PID/cmdline ---- */

char *
jmem_cmdline_parse (const char *data, gsize len)
{
  g_autoptr(GString) out = g_string_new (NULL);
  const char *p = data, *end = data + len;

  if (data == NULL)
    return g_strdup ("");

  /* Empty arguments (runs of NULs, e.g. after setproctitle) are skipped so
   * the words stay joined by single spaces. */
  while (p < end)
    {
      const char *nul = memchr (p, '\0', (gsize) (end - p));
      const char *arg_end = nul != NULL ? nul : end;

      if (arg_end > p)
        {
          g_autofree char *arg = jmem_text_make_valid (p, arg_end - p);

          if (out->len > 0)
            g_string_append_c (out, ' ');
          g_string_append (out, arg);
        }
      p = nul != NULL ? nul + 1 : end;
    }
  return g_string_free (g_steal_pointer (&out), FALSE);
}
