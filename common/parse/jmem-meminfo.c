/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "jmem-meminfo.h"

#include "jmem-error.h"

#include <string.h>

/* /proc/meminfo: "Name:<spaces>value[ kB]" per line (fs/proc/meminfo.c). Counts
 * such as HugePages_Total carry no unit. */

static void
field_clear (gpointer data)
{
  JmemMeminfoField *field = data;

  g_clear_pointer (&field->name, g_free);
}

void
jmem_meminfo_free (JmemMeminfo *meminfo)
{
  if (meminfo == NULL)
    return;
  g_clear_pointer (&meminfo->fields, g_array_unref);
  g_free (meminfo);
}

static gboolean
name_is_valid (const char *name, gsize len)
{
  if (len == 0 || len > 64)
    return FALSE;
  for (gsize i = 0; i < len; i++)
    {
      char c = name[i];
      if (!g_ascii_isalnum (c) && c != '_' && c != '(' && c != ')')
        return FALSE;
    }
  return TRUE;
}

/* Digits only; refuses signs, empty strings and values above G_MAXINT64. */
static gboolean
parse_value (const char *s, gsize len, guint64 *out)
{
  guint64 v = 0;

  if (len == 0 || len > 20)
    return FALSE;
  for (gsize i = 0; i < len; i++)
    {
      if (!g_ascii_isdigit (s[i]))
        return FALSE;
      if (v > (G_MAXINT64 - (guint64) (s[i] - '0')) / 10)
        return FALSE;
      v = v * 10 + (guint64) (s[i] - '0');
    }
  *out = v;
  return TRUE;
}

static gboolean
parse_line (const char *line, gsize len, JmemMeminfoField *field)
{
  const char *colon = memchr (line, ':', len);
  const char *p, *end = line + len;
  const char *num;
  guint64 value;
  gboolean is_kib = FALSE;

  if (colon == NULL || !name_is_valid (line, (gsize) (colon - line)))
    return FALSE;
  p = colon + 1;
  while (p < end && (*p == ' ' || *p == '\t'))
    p++;
  num = p;
  while (p < end && g_ascii_isdigit (*p))
    p++;
  if (!parse_value (num, (gsize) (p - num), &value))
    return FALSE;
  while (p < end && *p == ' ')
    p++;
  if (end - p == 2 && memcmp (p, "kB", 2) == 0)
    {
      is_kib = TRUE;
      p += 2;
    }
  if (p != end)
    return FALSE;

  field->name = g_strndup (line, (gsize) (colon - line));
  field->value = value;
  field->is_kib = is_kib;
  return TRUE;
}

JmemMeminfo *
jmem_meminfo_parse (const char *data,
                    gsize       len,
                    GError    **error)
{
  g_autoptr(JmemMeminfo) meminfo = g_new0 (JmemMeminfo, 1);
  const char *p = data, *end = data + len;

  g_return_val_if_fail (data != NULL || len == 0, NULL);

  meminfo->fields = g_array_new (FALSE, TRUE, sizeof (JmemMeminfoField));
  g_array_set_clear_func (meminfo->fields, field_clear);

  while (p < end)
    {
      const char *nl = memchr (p, '\n', (gsize) (end - p));
      const char *line_end = nl != NULL ? nl : end;
      JmemMeminfoField field = { NULL, 0, FALSE };

      /* The kernel ends every line with a newline: one without was cut. */
      if (line_end > p)
        {
          if (nl != NULL && parse_line (p, (gsize) (line_end - p), &field))
            g_array_append_val (meminfo->fields, field);
          else
            meminfo->n_malformed++;
        }
      p = nl != NULL ? nl + 1 : end;
    }

  if (meminfo->fields->len == 0)
    {
      g_set_error (error, JMEM_ERROR, JMEM_ERROR_FAILED,
                   "meminfo holds no readable field (%u malformed lines)",
                   meminfo->n_malformed);
      return NULL;
    }
  return g_steal_pointer (&meminfo);
}

gint64
jmem_meminfo_get_kib (const JmemMeminfo *meminfo,
                      const char        *name)
{
  g_return_val_if_fail (meminfo != NULL, -1);
  g_return_val_if_fail (name != NULL, -1);

  for (guint i = 0; i < meminfo->fields->len; i++)
    {
      const JmemMeminfoField *field =
        &g_array_index (meminfo->fields, JmemMeminfoField, i);

      if (field->is_kib && g_str_equal (field->name, name))
        return (gint64) field->value;
    }
  return -1;
}
