/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "jmem-tegrastats.h"

#include "jmem-error.h"
#include "jmem-text.h"

#include <stdlib.h>
#include <string.h>

/* tegrastats prints space-separated tokens whose set changes with every
 * release; what we do not know is counted and skipped, never fatal. */

static void
rail_free (gpointer data)
{
  JmemTegrastatsRail *rail = data;

  g_free (rail->name);
  g_free (rail);
}

static void
temp_free (gpointer data)
{
  JmemTegrastatsTemp *temp = data;

  g_free (temp->name);
  g_free (temp);
}

void
jmem_tegrastats_free (JmemTegrastats *stats)
{
  if (stats == NULL)
    return;
  g_free (stats->timestamp);
  g_clear_pointer (&stats->gr3d_freq_mhz, g_array_unref);
  g_clear_pointer (&stats->cpu_percent, g_array_unref);
  g_clear_pointer (&stats->temps, g_ptr_array_unref);
  g_clear_pointer (&stats->rails, g_ptr_array_unref);
  g_free (stats);
}

/* Reads a non-negative decimal at *p, moving past it; FALSE when there are
 * no digits or it does not fit. */
static gboolean
take_number (const char **p, gint64 *out)
{
  const char *s = *p;
  gint64 v = 0;

  if (!g_ascii_isdigit (*s))
    return FALSE;
  for (; g_ascii_isdigit (*s); s++)
    {
      int d = *s - '0';
      if (v > (G_MAXINT64 - d) / 10)
        return FALSE;
      v = v * 10 + d;
    }
  *p = s;
  *out = v;
  return TRUE;
}

static gboolean
take_literal (const char **p, const char *lit)
{
  gsize n = strlen (lit);

  if (strncmp (*p, lit, n) != 0)
    return FALSE;
  *p += n;
  return TRUE;
}

/* "20642/62817MB" */
static gboolean
parse_used_total (const char *s, gint64 *used, gint64 *total)
{
  gint64 a, b;

  if (!take_number (&s, &a) || !take_literal (&s, "/") ||
      !take_number (&s, &b) || !take_literal (&s, "MB") || *s != '\0')
    return FALSE;
  *used = a;
  *total = b;
  return TRUE;
}

/* "1x2MB)", "34x4MB)", "847x4MB)"; a bare size "252kB)" is one block. */
static gboolean
parse_lfb (const char *s, gint64 *blocks, gint64 *block_kib)
{
  gint64 n = 1, size;
  const char *q = s;

  if (take_number (&q, &n) && take_literal (&q, "x"))
    s = q;
  else
    n = 1;
  if (!take_number (&s, &size))
    return FALSE;
  if (take_literal (&s, "MB"))
    {
      if (size > G_MAXINT64 / 1024)
        return FALSE;
      size *= 1024;
    }
  else if (!take_literal (&s, "kB"))
    return FALSE;
  if (!take_literal (&s, ")") || *s != '\0')
    return FALSE;
  *blocks = n;
  *block_kib = size;
  return TRUE;
}

/* "[23%@2201,off,0%]" or "[0%,0%]@1734" (the shared clock is dropped). */
static gboolean
parse_cpu (const char *s, GArray *out)
{
  const char *close;
  g_autofree char *inner = NULL;
  g_auto(GStrv) cores = NULL;

  if (s[0] != '[' || (close = strchr (s, ']')) == NULL)
    return FALSE;
  if (close[1] != '\0')
    {
      const char *q = close + 1;
      gint64 mhz;

      if (!take_literal (&q, "@") || !take_number (&q, &mhz) || *q != '\0')
        return FALSE;
    }
  inner = g_strndup (s + 1, (gsize) (close - s - 1));
  cores = g_strsplit (inner, ",", -1);
  g_array_set_size (out, 0);
  for (guint i = 0; cores[i] != NULL; i++)
    {
      const char *q = cores[i];
      gint64 pct = -1, mhz;

      if (!g_str_equal (q, "off"))
        {
          if (!take_number (&q, &pct) || !take_literal (&q, "%"))
            return FALSE;
          if (take_literal (&q, "@") && !take_number (&q, &mhz))
            return FALSE;
          if (*q != '\0')
            return FALSE;
        }
      g_array_append_val (out, pct);
    }
  return TRUE;
}

/* "3%@3199", "0%", "@314", "12%@[1300,1300]", "@[314,314,314]" */
static gboolean
parse_freq (const char *s, gint64 *percent, GArray *mhz)
{
  gint64 pct = -1, v;

  g_array_set_size (mhz, 0);
  if (g_ascii_isdigit (*s))
    {
      if (!take_number (&s, &pct) || !take_literal (&s, "%"))
        return FALSE;
    }
  if (take_literal (&s, "@"))
    {
      if (take_literal (&s, "["))
        {
          do
            {
              if (!take_number (&s, &v))
                return FALSE;
              g_array_append_val (mhz, v);
            }
          while (take_literal (&s, ","));
          if (!take_literal (&s, "]"))
            return FALSE;
        }
      else
        {
          if (!take_number (&s, &v))
            return FALSE;
          g_array_append_val (mhz, v);
        }
    }
  if (*s != '\0' || (pct < 0 && mhz->len == 0))
    return FALSE;
  *percent = pct;
  return TRUE;
}

/* "5139mW/5139mW/5139mW", "1962mW/1962mW", "3567/3567" (older releases) */
static gboolean
parse_rail_value (const char *s, gint64 *cur, gint64 *avg)
{
  gint64 v[3];
  guint n = 0;

  do
    {
      if (n == 3 || !take_number (&s, &v[n]))
        return FALSE;
      take_literal (&s, "mW");
      n++;
    }
  while (take_literal (&s, "/"));
  if (*s != '\0')
    return FALSE;
  *cur = v[0];
  *avg = n > 1 ? v[1] : -1;
  return TRUE;
}

/* "cpu@52.968C", "cpu@52.968C/52.968C" (current/max), "PLL@41C" */
static gboolean
parse_temp (const char *s, JmemTegrastatsTemp **out)
{
  const char *at = strchr (s, '@');
  char *end = NULL;
  double c;

  if (at == NULL || at == s || !g_ascii_isdigit (at[1]))
    return FALSE;
  for (const char *q = s; q < at; q++)
    if (!g_ascii_isalnum (*q) && *q != '_')
      return FALSE;
  c = g_ascii_strtod (at + 1, &end);
  if (end == NULL || *end != 'C')
    return FALSE;
  end++;
  if (*end == '/')
    {
      char *end2 = NULL;

      g_ascii_strtod (end + 1, &end2);
      if (end2 == end + 1 || *end2 != 'C')
        return FALSE;
      end = end2 + 1;
    }
  if (*end != '\0' || c < -273.15 || c > 1000.0)
    return FALSE;
  *out = g_new0 (JmemTegrastatsTemp, 1);
  (*out)->name = g_strndup (s, (gsize) (at - s));
  (*out)->celsius = c;
  return TRUE;
}

static gboolean
is_upper_name (const char *s)
{
  if (!g_ascii_isupper (*s))
    return FALSE;
  for (; *s != '\0'; s++)
    if (!g_ascii_isupper (*s) && !g_ascii_isdigit (*s) && *s != '_')
      return FALSE;
  return TRUE;
}

/* An engine's value: "off", "@314", "174", "0%@998". */
static gboolean
is_engine_value (const char *s)
{
  gint64 v;
  g_autoptr(GArray) mhz = g_array_new (FALSE, FALSE, sizeof (gint64));

  const char *q = s;

  if (g_str_equal (s, "off"))
    return TRUE;
  if (take_number (&q, &v) && *q == '\0')
    return TRUE;
  return parse_freq (s, &v, mhz);
}

static gboolean
is_timestamp (const char *date, const char *time)
{
  static const char date_shape[] = "dd-dd-dddd";
  static const char time_shape[] = "dd:dd:dd";

  if (strlen (date) != strlen (date_shape) || strlen (time) != strlen (time_shape))
    return FALSE;
  for (gsize i = 0; date_shape[i] != '\0'; i++)
    if (date_shape[i] == 'd' ? !g_ascii_isdigit (date[i]) : date[i] != date_shape[i])
      return FALSE;
  for (gsize i = 0; time_shape[i] != '\0'; i++)
    if (time_shape[i] == 'd' ? !g_ascii_isdigit (time[i]) : time[i] != time_shape[i])
      return FALSE;
  return TRUE;
}

JmemTegrastats *
jmem_tegrastats_parse (const char *line, gsize len, GError **error)
{
  g_autoptr(JmemTegrastats) st = g_new0 (JmemTegrastats, 1);
  g_autofree char *text = NULL;
  g_auto(GStrv) raw = NULL;
  g_autoptr(GPtrArray) tok = g_ptr_array_new ();
  guint known = 0;

  g_return_val_if_fail (line != NULL || len == 0, NULL);

  st->ram_used_mib = st->ram_total_mib = st->lfb_blocks = st->lfb_block_kib = -1;
  st->swap_used_mib = st->swap_total_mib = st->swap_cached_mib = -1;
  st->emc_freq_percent = st->emc_freq_mhz = st->gr3d_freq_percent = -1;
  st->gr3d_freq_mhz = g_array_new (FALSE, FALSE, sizeof (gint64));
  st->cpu_percent = g_array_new (FALSE, FALSE, sizeof (gint64));
  st->temps = g_ptr_array_new_with_free_func (temp_free);
  st->rails = g_ptr_array_new_with_free_func (rail_free);

  /* Names end up in JSON: make the whole line valid UTF-8 first. */
  text = jmem_text_make_valid (line, (gssize) len);
  raw = g_strsplit_set (text, " \t\r\n", -1);
  for (guint i = 0; raw[i] != NULL; i++)
    if (raw[i][0] != '\0')
      g_ptr_array_add (tok, raw[i]);
  g_ptr_array_add (tok, NULL);

#define TOK(k) ((const char *) g_ptr_array_index (tok, (k)))
  for (guint i = 0; TOK (i) != NULL;)
    {
      const char *t = TOK (i), *next = TOK (i + 1);
      JmemTegrastatsTemp *temp = NULL;
      gint64 a, b;

      if (i == 0 && next != NULL && is_timestamp (t, next))
        {
          st->timestamp = g_strdup_printf ("%s %s", t, next);
          i += 2, known++;
        }
      else if (g_str_equal (t, "RAM") && next != NULL &&
               parse_used_total (next, &st->ram_used_mib, &st->ram_total_mib))
        {
          i += 2, known++;
          if (TOK (i) != NULL && g_str_equal (TOK (i), "(lfb") && TOK (i + 1) != NULL &&
              parse_lfb (TOK (i + 1), &st->lfb_blocks, &st->lfb_block_kib))
            i += 2;
        }
      else if (g_str_equal (t, "SWAP") && next != NULL &&
               parse_used_total (next, &st->swap_used_mib, &st->swap_total_mib))
        {
          i += 2, known++;
          if (TOK (i) != NULL && g_str_equal (TOK (i), "(cached") && TOK (i + 1) != NULL)
            {
              const char *q = TOK (i + 1);
              if (take_number (&q, &a) && g_str_equal (q, "MB)"))
                {
                  st->swap_cached_mib = a;
                  i += 2;
                }
            }
        }
      else if (g_str_equal (t, "IRAM") && next != NULL && strchr (next, '/') != NULL)
        {
          /* "IRAM 0/252kB(lfb 252kB)": on-chip RAM, not system memory. */
          i += 2, known++;
          if (strstr (next, "(lfb") != NULL && TOK (i) != NULL &&
              g_str_has_suffix (TOK (i), ")"))
            i++;
        }
      else if ((g_str_equal (t, "CPU") || g_str_equal (t, "cpu")) && next != NULL &&
               parse_cpu (next, st->cpu_percent))
        i += 2, known++;
      else if ((g_str_equal (t, "EMC_FREQ") || g_str_equal (t, "EMC")) && next != NULL)
        {
          g_autoptr(GArray) mhz = g_array_new (FALSE, FALSE, sizeof (gint64));

          if (parse_freq (next, &a, mhz) && mhz->len <= 1)
            {
              st->emc_freq_percent = a;
              st->emc_freq_mhz = mhz->len == 1 ? g_array_index (mhz, gint64, 0) : -1;
              i += 2, known++;
            }
          else
            i++, st->n_unknown_tokens++;
        }
      else if ((g_str_equal (t, "GR3D_FREQ") || g_str_equal (t, "GR3D")) && next != NULL &&
               parse_freq (next, &st->gr3d_freq_percent, st->gr3d_freq_mhz))
        i += 2, known++;
      else if (g_str_equal (t, "MTS") && next != NULL && g_str_equal (next, "fg") &&
               TOK (i + 2) != NULL && TOK (i + 3) != NULL && TOK (i + 4) != NULL)
        i += 5, known++; /* "MTS fg 0% bg 0%" (r32) */
      else if (is_upper_name (t) && next != NULL &&
               (strchr (next, '/') != NULL || strstr (next, "mW") != NULL) &&
               parse_rail_value (next, &a, &b))
        {
          JmemTegrastatsRail *rail = g_new0 (JmemTegrastatsRail, 1);

          rail->name = g_strdup (t);
          rail->current_mw = a;
          rail->average_mw = b;
          g_ptr_array_add (st->rails, rail);
          i += 2, known++;
        }
      else if (is_upper_name (t) && next != NULL && is_engine_value (next))
        i += 2, known++; /* NVENC0 off, APE 174, NVDEC0_FREQ @314 ... */
      else if (parse_temp (t, &temp))
        {
          g_ptr_array_add (st->temps, temp);
          i++, known++;
        }
      else
        i++, st->n_unknown_tokens++;
    }
#undef TOK

  if (known == 0)
    {
      g_set_error (error, JMEM_ERROR, JMEM_ERROR_FAILED,
                   "not a tegrastats line (%u unknown tokens)", st->n_unknown_tokens);
      return NULL;
    }
  return g_steal_pointer (&st);
}
