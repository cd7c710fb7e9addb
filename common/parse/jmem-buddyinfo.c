/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "jmem-buddyinfo.h"

#include <string.h>

#include "jmem-error.h"
#include "jmem-text.h"

/* A zone's name is a short kernel identifier ("Normal", "Movable"). */
#define MAX_ZONE_NAME 32

static void
zone_free (JmemBuddyZone *zone)
{
  g_free (zone->zone);
  g_free (zone);
}

void
jmem_buddyinfo_free (JmemBuddyinfo *buddyinfo)
{
  if (buddyinfo == NULL)
    return;
  g_ptr_array_unref (buddyinfo->zones);
  g_free (buddyinfo);
}

/* The next blank-separated word of @line from *@pos, or FALSE at its end. */
static gboolean
next_word (const char *line, gsize len, gsize *pos, const char **word, gsize *word_len)
{
  gsize i = *pos;

  while (i < len && (line[i] == ' ' || line[i] == '\t'))
    i++;
  if (i == len)
    return FALSE;
  *word = line + i;
  while (i < len && line[i] != ' ' && line[i] != '\t')
    i++;
  *word_len = (gsize) (line + i - *word);
  *pos = i;
  return TRUE;
}

static gboolean
word_is (const char *word, gsize len, const char *want)
{
  return len == strlen (want) && memcmp (word, want, len) == 0;
}

static JmemBuddyZone *
parse_line (const char *line, gsize len)
{
  JmemBuddyZone *zone;
  const char *w;
  gsize pos = 0, n;
  guint64 node;

  if (!next_word (line, len, &pos, &w, &n) || !word_is (w, n, "Node") ||
      !next_word (line, len, &pos, &w, &n) || n < 2 || w[n - 1] != ',' ||
      !jmem_text_parse_decimal (w, n - 1, G_MAXUINT16, &node) ||
      !next_word (line, len, &pos, &w, &n) || !word_is (w, n, "zone") ||
      !next_word (line, len, &pos, &w, &n) || n > MAX_ZONE_NAME)
    return NULL;
  zone = g_new0 (JmemBuddyZone, 1);
  zone->node = (guint) node;
  zone->zone = jmem_text_make_valid (w, (gssize) n);
  while (next_word (line, len, &pos, &w, &n))
    {
      guint64 count;

      if (zone->n_orders == JMEM_BUDDY_MAX_ORDERS ||
          !jmem_text_parse_decimal (w, n, G_MAXINT64, &count))
        {
          zone_free (zone);
          return NULL;
        }
      zone->blocks[zone->n_orders++] = count;
    }
  if (zone->n_orders == 0)
    {
      zone_free (zone);
      return NULL;
    }
  return zone;
}

JmemBuddyinfo *
jmem_buddyinfo_parse (const char *data,
                      gsize       len,
                      GError    **error)
{
  g_autoptr(JmemBuddyinfo) b = g_new0 (JmemBuddyinfo, 1);
  gsize pos = 0;

  g_return_val_if_fail (data != NULL || len == 0, NULL);

  b->zones = g_ptr_array_new_with_free_func ((GDestroyNotify) zone_free);
  while (pos < len)
    {
      const char *line = data + pos;
      const char *nl = memchr (line, '\n', len - pos);
      gsize line_len = nl != NULL ? (gsize) (nl - line) : len - pos;
      JmemBuddyZone *zone;

      pos += line_len + 1;
      if (line_len == 0)
        continue;
      zone = parse_line (line, line_len);
      if (zone != NULL)
        g_ptr_array_add (b->zones, zone);
      else
        b->n_malformed++;
    }
  if (b->zones->len == 0)
    {
      g_set_error (error, JMEM_ERROR, JMEM_ERROR_FAILED,
                   "buddyinfo holds no zone line (%u malformed)", b->n_malformed);
      return NULL;
    }
  return g_steal_pointer (&b);
}
