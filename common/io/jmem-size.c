/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "jmem-size.h"

#include <string.h>

#include "jmem-error.h"
#include "jmem-text.h"

/* At most this much of a refused text is quoted back. */
#define QUOTED_BYTES 40

#define MAX_FRACTION_DIGITS 3

static const struct {
  char     letter;
  guint    shift;
} units[] = {
  { 'k', 10 }, { 'm', 20 }, { 'g', 30 }, { 't', 40 }, { 'p', 50 },
};

static gboolean G_GNUC_PRINTF (3, 4)
refuse (const char *text, GError **error, const char *why, ...)
{
  g_autofree char *valid = jmem_text_make_valid (text, -1);
  g_autofree char *quoted = jmem_text_cap_bytes (valid, QUOTED_BYTES, NULL);
  g_autofree char *reason = NULL;
  va_list ap;

  va_start (ap, why);
  reason = g_strdup_vprintf (why, ap);
  va_end (ap);
  g_set_error (error, JMEM_ERROR, JMEM_ERROR_INVALID_ARGUMENT, "\"%s\" is not a size: %s; %s",
               quoted, reason, JMEM_SIZE_HINT);
  return FALSE;
}

/* The shift of @unit ("G", "gib", "MB", "" ...), or -1. "B" alone and ""
 * are bytes (0). */
static int
unit_shift (const char *unit)
{
  gsize n = strlen (unit);

  if (n == 0 || (n == 1 && g_ascii_tolower (unit[0]) == 'b'))
    return 0;
  for (gsize i = 0; i < G_N_ELEMENTS (units); i++)
    {
      if (g_ascii_tolower (unit[0]) != units[i].letter)
        continue;
      if (n == 1 || (n == 2 && g_ascii_tolower (unit[1]) == 'b') ||
          (n == 3 && g_ascii_tolower (unit[1]) == 'i' && g_ascii_tolower (unit[2]) == 'b'))
        return (int) units[i].shift;
    }
  return -1;
}

gboolean
jmem_size_parse (const char *text,
                 guint64    *bytes,
                 GError    **error)
{
  const char *p, *digits, *end;
  g_autofree char *trimmed = NULL;
  guint64 whole = 0, fraction = 0, scale = 1, value;
  guint n_fraction = 0;
  int shift;

  g_return_val_if_fail (bytes != NULL, FALSE);

  if (text == NULL)
    text = "";
  trimmed = g_strstrip (g_strdup (text));
  p = trimmed;
  if (*p == '\0')
    return refuse (text, error, "it is empty");
  if (*p == '-' || *p == '+')
    return refuse (text, error, "%s", *p == '-' ? "a size cannot be negative" : "no sign is needed");
  digits = p;
  while (g_ascii_isdigit (*p))
    {
      /* below 2^52 before each digit: no overflow */
      whole = whole * 10 + (guint64) (*p++ - '0');
      if (whole > JMEM_SIZE_MAX_BYTES)
        return refuse (text, error, "more than 4 PiB, larger than any RAM");
    }
  if (p == digits && *p != '.')
    return refuse (text, error, "it does not start with a number");
  if (*p == '.')
    {
      p++;
      if (!g_ascii_isdigit (*p))
        return refuse (text, error, "no digit after the decimal point");
      while (g_ascii_isdigit (*p))
        {
          if (++n_fraction > MAX_FRACTION_DIGITS)
            return refuse (text, error, "more than %d digits after the decimal point",
                           MAX_FRACTION_DIGITS);
          fraction = fraction * 10 + (guint64) (*p++ - '0');
          scale *= 10;
        }
    }
  while (*p == ' ' || *p == '\t')
    p++;
  end = p;
  if (g_ascii_tolower (*end) == 'e' && (g_ascii_isdigit (end[1]) || end[1] == '+' || end[1] == '-'))
    return refuse (text, error, "exponents are not sizes");
  shift = unit_shift (end);
  if (shift < 0)
    {
      g_autofree char *valid = jmem_text_make_valid (end, -1);
      g_autofree char *unit = jmem_text_cap_bytes (valid, QUOTED_BYTES / 2, NULL);

      return refuse (text, error, "unknown unit \"%s\" (K, M, G, T or P, with or without B "
                     "or iB)", unit);
    }
  if (n_fraction > 0 && shift == 0)
    return refuse (text, error, "a number of bytes is whole");
  if (whole > (JMEM_SIZE_MAX_BYTES >> shift))
    return refuse (text, error, "more than 4 PiB, larger than any RAM");
  value = whole << shift;
  /* fraction < 1000 and shift <= 50: no overflow; rounded up, so that a
   * need is never read smaller than it was given */
  value += ((fraction << shift) + scale - 1) / scale;
  if (value > JMEM_SIZE_MAX_BYTES)
    return refuse (text, error, "more than 4 PiB, larger than any RAM");
  *bytes = value;
  return TRUE;
}

char *
jmem_size_unit_note (const char *text)
{
  g_autofree char *trimmed = g_strstrip (g_strdup (text != NULL ? text : ""));
  const char *unit = trimmed;
  int digits;

  while (g_ascii_isdigit (*unit) || *unit == '.')
    unit++;
  digits = (int) (unit - trimmed);
  while (*unit == ' ' || *unit == '\t')
    unit++;
  /* "GB", "gb", "Gb": a decimal unit by its name, read as the binary one */
  if (digits == 0 || strlen (unit) != 2 || g_ascii_tolower (unit[1]) != 'b' || unit_shift (unit) <= 0)
    return NULL;
  return g_strdup_printf ("%.*s %cB read as %.*s %ciB", digits, trimmed, g_ascii_toupper (unit[0]),
                          digits, trimmed, g_ascii_toupper (unit[0]));
}

char *
jmem_size_option_text (gint64 kib)
{
  if (kib > 0 && kib % (1024 * 1024) == 0)
    return g_strdup_printf ("%" G_GINT64_FORMAT "G", kib / (1024 * 1024));
  if (kib > 0 && kib % 1024 == 0)
    return g_strdup_printf ("%" G_GINT64_FORMAT "M", kib / 1024);
  return g_strdup_printf ("%" G_GINT64_FORMAT "K", MAX (kib, 0));
}
