/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "jmem-cmd-number.h"

#include <math.h>

/* GLib hands a callback the option's name, not its entry: the numbers of
 * the one command a process runs, by name. */
static GPtrArray *numbers;

/* Digits, and for seconds a point between digits: no sign, blank, base
 * prefix, exponent or word ("nan", "inf") for GLib's readers to take. */
static gboolean
is_plain_decimal (const char *text,
                  gboolean    fraction)
{
  const char *p = text;

  if (!g_ascii_isdigit (*p))
    return FALSE;
  while (g_ascii_isdigit (*p))
    p++;
  if (fraction && *p == '.' && g_ascii_isdigit (p[1]))
    for (p++; g_ascii_isdigit (*p); p++)
      ;
  return *p == '\0';
}

gboolean
jmem_cmd_number_read (const JmemCmdNumber *number,
                      const char          *text,
                      double              *value,
                      GError             **error)
{
  gboolean fraction = number->type == JMEM_CMD_NUMBER_SECONDS;

  if (is_plain_decimal (text, fraction))
    {
      *value = g_ascii_strtod (text, NULL);
      if (isfinite (*value) && *value >= number->min && *value <= number->max)
        return TRUE;
    }
  g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "--%s takes %s, not \"%s\"",
               number->name, number->takes, text);
  return FALSE;
}

static gboolean
read_arg (const char *option_name,
          const char *text,
          gpointer    data,
          GError    **error)
{
  const char *name = option_name + 2;  /* GLib passes "--NAME" */

  for (guint i = 0; numbers != NULL && i < numbers->len; i++)
    {
      JmemCmdNumber *number = g_ptr_array_index (numbers, i);
      double value;

      if (!g_str_equal (number->name, name))
        continue;
      if (!jmem_cmd_number_read (number, text, &value, error))
        return FALSE;
      if (number->type == JMEM_CMD_NUMBER_INT)
        *(int *) number->value = (int) value;
      else if (number->type == JMEM_CMD_NUMBER_INT64)
        *(gint64 *) number->value = (gint64) value;
      else if (number->type == JMEM_CMD_NUMBER_INT64_LIST)
        {
          GArray **list = number->value;
          gint64 item = (gint64) value;

          if (*list == NULL)
            *list = g_array_new (FALSE, FALSE, sizeof (gint64));
          g_array_append_val (*list, item);
        }
      else
        *(double *) number->value = value;
      number->given = TRUE;
      return TRUE;
    }
  g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_FAILED, "%s is not a number option", option_name);
  return FALSE;
}

GOptionEntry
jmem_cmd_number_entry (JmemCmdNumber *number,
                       const char    *description,
                       const char    *arg_description)
{
  if (numbers == NULL)
    numbers = g_ptr_array_new ();
  g_ptr_array_add (numbers, number);
  return (GOptionEntry) { number->name, 0, 0, G_OPTION_ARG_CALLBACK, (gpointer) read_arg,
                          description, arg_description };
}
