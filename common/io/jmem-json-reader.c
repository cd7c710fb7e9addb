/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Strict JSON: a scanner without recursion checks every byte against
 * RFC 8259 and jmem's limits, then json-glib builds the tree. */
#include "jmem-json-reader.h"

#include "jmem-error.h"

#include <math.h>
#include <stdarg.h>
#include <string.h>

typedef struct {
  const char *data;
  const char *p;
  const char *end;
  GError    **error;
} Scan;

/* Line and column (in characters, both from 1) of @at, for messages. */
static void
locate (const Scan *s, const char *at, guint *line, guint *column)
{
  *line = 1;
  *column = 1;
  for (const char *c = s->data; c < at; c++)
    {
      if (*c == '\n')
        {
          (*line)++;
          *column = 1;
        }
      else if (((guchar) *c & 0xc0) != 0x80)
        (*column)++;
    }
}

static gboolean
fail_at (Scan *s, const char *at, JmemError code, const char *format, ...) G_GNUC_PRINTF (4, 5);

static gboolean
fail_at (Scan *s, const char *at, JmemError code, const char *format, ...)
{
  g_autofree char *text = NULL;
  guint line, column;
  va_list ap;

  va_start (ap, format);
  text = g_strdup_vprintf (format, ap);
  va_end (ap);
  locate (s, at, &line, &column);
  /* one line (an MCP message, a line of a history) needs no line number */
  if (memchr (s->data, '\n', (gsize) (s->end - s->data)) == NULL)
    g_set_error (s->error, JMEM_ERROR, code, "column %u: %s", column, text);
  else
    g_set_error (s->error, JMEM_ERROR, code, "line %u, column %u: %s", line, column, text);
  return FALSE;
}

static void
skip_space (Scan *s)
{
  while (s->p < s->end && (*s->p == ' ' || *s->p == '\t' || *s->p == '\n' || *s->p == '\r'))
    s->p++;
}

/* What a character that cannot start a value most likely is, said the
 * JSON way: the lenient forms json-glib would have accepted. */
static gboolean
unexpected (Scan *s, const char *expected)
{
  const char *at = s->p;

  if (at >= s->end)
    return fail_at (s, at, JMEM_ERROR_INVALID_ARGUMENT, "the text ends where %s was expected",
                    expected);
  if (*at == '/' && at + 1 < s->end && (at[1] == '/' || at[1] == '*'))
    return fail_at (s, at, JMEM_ERROR_INVALID_ARGUMENT, "a comment: JSON has none");
  if (*at == '\'')
    return fail_at (s, at, JMEM_ERROR_INVALID_ARGUMENT,
                    "a single quote: JSON strings take double quotes");
  if ((guchar) *at < 0x20 || *at == 0x7f)
    return fail_at (s, at, JMEM_ERROR_INVALID_ARGUMENT,
                    "control character 0x%02x where %s was expected", (guchar) *at, expected);
  return fail_at (s, at, JMEM_ERROR_INVALID_ARGUMENT, "'%.*s' where %s was expected",
                  (int) g_utf8_skip[(guchar) *at], at, expected);
}

/* Four hexadecimal digits after "\u" at @p; -1 when they are not. */
static int
read_u_escape (const Scan *s, const char *p)
{
  int v = 0;

  if (s->end - p < 4)
    return -1;
  for (int i = 0; i < 4; i++)
    {
      int d = g_ascii_xdigit_value (p[i]);

      if (d < 0)
        return -1;
      v = v * 16 + d;
    }
  return v;
}

/* A string from its opening quote at s->p; s->p ends after the closing one. */
static gboolean
scan_string (Scan *s)
{
  const char *open = s->p++;

  while (s->p < s->end)
    {
      guchar c = (guchar) *s->p;

      if (c == '"')
        {
          s->p++;
          return TRUE;
        }
      if (c < 0x20)
        return fail_at (s, s->p, JMEM_ERROR_INVALID_ARGUMENT,
                        "control character 0x%02x inside a string: JSON needs it escaped", c);
      if (c != '\\')
        {
          s->p++;
          continue;
        }
      if (s->p + 1 >= s->end)
        break;
      switch (s->p[1])
        {
        case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't':
          s->p += 2;
          continue;
        case 'u':
          break;
        default:
          return fail_at (s, s->p, JMEM_ERROR_INVALID_ARGUMENT,
                          "a backslash before '%.*s' is not a JSON escape",
                          (int) g_utf8_skip[(guchar) s->p[1]], s->p + 1);
        }
      {
        int unit = read_u_escape (s, s->p + 2);

        if (unit < 0)
          return fail_at (s, s->p, JMEM_ERROR_INVALID_ARGUMENT,
                          "a 'u' escape needs four hexadecimal digits");
        if (unit == 0)
          return fail_at (s, s->p, JMEM_ERROR_INVALID_ARGUMENT,
                          "U+0000 (NUL) inside a string: jmem reads no string that holds one");
        if (unit >= 0xdc00 && unit <= 0xdfff)
          return fail_at (s, s->p, JMEM_ERROR_INVALID_ARGUMENT,
                          "U+%04X is the second half of a UTF-16 surrogate pair without the "
                          "first: no character", (guint) unit);
        if (unit >= 0xd800 && unit <= 0xdbff)
          {
            int low = s->end - s->p >= 12 && s->p[6] == '\\' && s->p[7] == 'u'
                        ? read_u_escape (s, s->p + 8) : -1;

            if (low < 0xdc00 || low > 0xdfff)
              return fail_at (s, s->p, JMEM_ERROR_INVALID_ARGUMENT,
                              "U+%04X is the first half of a UTF-16 surrogate pair without the "
                              "second: no character", (guint) unit);
            s->p += 6;
          }
        s->p += 6;
      }
    }
  return fail_at (s, open, JMEM_ERROR_INVALID_ARGUMENT, "a string that is never closed");
}

static gboolean
is_digit (const Scan *s, const char *p)
{
  return p < s->end && *p >= '0' && *p <= '9';
}

/* A number in JSON's grammar at s->p. An integer (no fraction, no
 * exponent) must fit in 64 bits, where json-glib would wrap it; any other
 * number must be finite as a double. */
static gboolean
scan_number (Scan *s)
{
  const char *start = s->p, *digits;
  gboolean negative = FALSE, integer = TRUE;

  if (*s->p == '-')
    {
      negative = TRUE;
      s->p++;
    }
  digits = s->p;
  if (!is_digit (s, s->p))
    return unexpected (s, "a digit");
  if (*s->p == '0' && s->p + 1 < s->end && (s->p[1] == 'x' || s->p[1] == 'X'))
    return fail_at (s, start, JMEM_ERROR_INVALID_ARGUMENT,
                    "a hexadecimal number: JSON numbers are decimal");
  if (*s->p == '0' && is_digit (s, s->p + 1))
    return fail_at (s, start, JMEM_ERROR_INVALID_ARGUMENT,
                    "a number with a leading zero: JSON has no octal");
  while (is_digit (s, s->p))
    s->p++;
  if (s->p < s->end && *s->p == '.')
    {
      integer = FALSE;
      s->p++;
      if (!is_digit (s, s->p))
        return unexpected (s, "a digit after the decimal point");
      while (is_digit (s, s->p))
        s->p++;
    }
  if (s->p < s->end && (*s->p == 'e' || *s->p == 'E'))
    {
      integer = FALSE;
      s->p++;
      if (s->p < s->end && (*s->p == '+' || *s->p == '-'))
        s->p++;
      if (!is_digit (s, s->p))
        return unexpected (s, "a digit in the exponent");
      while (is_digit (s, s->p))
        s->p++;
    }

  if (integer)
    {
      /* |INT64_MIN| is one more than INT64_MAX */
      const char *limit = negative ? "9223372036854775808" : "9223372036854775807";
      gsize n = (gsize) (s->p - digits), limit_len = strlen (limit);

      if (n > limit_len || (n == limit_len && memcmp (digits, limit, n) > 0))
        return fail_at (s, start, JMEM_ERROR_TOO_LARGE,
                        "%.*s%s is outside the 64-bit integer range", (int) MIN (n + negative, 24),
                        start, n + negative > 24 ? "…" : "");
    }
  else
    {
      g_autofree char *text = g_strndup (start, (gsize) (s->p - start));
      double v = g_ascii_strtod (text, NULL);

      if (!isfinite (v))
        return fail_at (s, start, JMEM_ERROR_TOO_LARGE, "a number too large for a double");
    }
  return TRUE;
}

static gboolean
scan_literal (Scan *s)
{
  static const char * const words[] = { "true", "false", "null" };

  for (gsize i = 0; i < G_N_ELEMENTS (words); i++)
    {
      gsize n = strlen (words[i]);

      if ((gsize) (s->end - s->p) >= n && memcmp (s->p, words[i], n) == 0)
        {
          s->p += n;
          return TRUE;
        }
    }
  if (s->end - s->p >= 3 &&
      (g_ascii_strncasecmp (s->p, "nan", 3) == 0 || g_ascii_strncasecmp (s->p, "inf", 3) == 0))
    return fail_at (s, s->p, JMEM_ERROR_INVALID_ARGUMENT, "NaN and Infinity are not JSON numbers");
  return unexpected (s, "a value");
}

/* An object's member name and its colon; s->p is then at the value. */
static gboolean
scan_member_name (Scan *s)
{
  skip_space (s);
  if (s->p >= s->end || *s->p != '"')
    return unexpected (s, "a member name in double quotes");
  if (!scan_string (s))
    return FALSE;
  skip_space (s);
  if (s->p >= s->end || *s->p != ':')
    return unexpected (s, "':'");
  s->p++;
  return TRUE;
}

/* The whole document: one value, whitespace around it. The open arrays and
 * objects are a stack of brackets, not of calls. */
static gboolean
scan_document (Scan *s)
{
  char open[JMEM_JSON_MAX_DEPTH];
  guint depth = 0;

  skip_space (s);
  if (s->p >= s->end)
    {
      g_set_error (s->error, JMEM_ERROR, JMEM_ERROR_NOT_AVAILABLE, "no JSON value, only whitespace");
      return FALSE;
    }
  for (;;)
    {
      /* a value */
      skip_space (s);
      if (s->p >= s->end)
        return unexpected (s, "a value");
      switch (*s->p)
        {
        case '{':
        case '[':
          if (depth == JMEM_JSON_MAX_DEPTH)
            return fail_at (s, s->p, JMEM_ERROR_TOO_LARGE,
                            "arrays and objects nested deeper than %d levels",
                            JMEM_JSON_MAX_DEPTH);
          open[depth++] = *s->p++;
          skip_space (s);
          if (s->p < s->end && *s->p == (open[depth - 1] == '{' ? '}' : ']'))
            {
              s->p++;
              depth--;
              break;
            }
          if (open[depth - 1] == '{' && !scan_member_name (s))
            return FALSE;
          continue;
        case '"':
          if (!scan_string (s))
            return FALSE;
          break;
        case '-': case '0': case '1': case '2': case '3': case '4':
        case '5': case '6': case '7': case '8': case '9':
          if (!scan_number (s))
            return FALSE;
          break;
        case '+': case '.':
          return fail_at (s, s->p, JMEM_ERROR_INVALID_ARGUMENT,
                          "a number starting with '%c': JSON numbers start with '-' or a digit",
                          *s->p);
        default:
          if (!scan_literal (s))
            return FALSE;
          break;
        }

      /* after a value: the end of its containers, or the next one */
      for (;;)
        {
          char close;

          skip_space (s);
          if (depth == 0)
            {
              if (s->p < s->end && *s->p == '/')
                return unexpected (s, "the end");
              if (s->p < s->end)
                return fail_at (s, s->p, JMEM_ERROR_INVALID_ARGUMENT,
                                "more after the end of the JSON value: one value is read, "
                                "not two");
              return TRUE;
            }
          close = open[depth - 1] == '{' ? '}' : ']';
          if (s->p < s->end && *s->p == close)
            {
              s->p++;
              depth--;
              continue;
            }
          if (s->p < s->end && *s->p == ',')
            {
              s->p++;
              skip_space (s);
              if (s->p < s->end && (*s->p == '}' || *s->p == ']'))
                return fail_at (s, s->p, JMEM_ERROR_INVALID_ARGUMENT,
                                "a comma before '%c': JSON has no trailing commas", *s->p);
              if (open[depth - 1] == '{' && !scan_member_name (s))
                return FALSE;
              break;
            }
          return unexpected (s, close == '}' ? "',' or '}'" : "',' or ']'");
        }
    }
}

/* Where the first byte that is not UTF-8 (or a NUL byte) is. */
static gboolean
check_utf8 (Scan *s)
{
  const char *bad = NULL;

  if (g_utf8_validate (s->data, (gssize) (s->end - s->data), &bad))
    return TRUE;
  if (*bad == '\0')
    return fail_at (s, bad, JMEM_ERROR_INVALID_ARGUMENT, "a NUL byte: JSON is text");
  return fail_at (s, bad, JMEM_ERROR_INVALID_ARGUMENT, "byte 0x%02x is not UTF-8 here",
                  (guchar) *bad);
}

JsonNode *
jmem_json_read (const char *data,
                gsize       len,
                gsize       max_bytes,
                GError    **error)
{
  Scan s;
  g_autoptr(JsonParser) parser = NULL;
  g_autoptr(GError) local = NULL;
  JsonNode *root;

  g_return_val_if_fail (data != NULL || len == 0, NULL);

  /* an empty GByteArray's data is NULL: no arithmetic on it */
  if (data == NULL)
    data = "";
  s = (Scan) { data, data, data + len, error };

  if (len > max_bytes)
    {
      g_set_error (error, JMEM_ERROR, JMEM_ERROR_TOO_LARGE,
                   "%" G_GSIZE_FORMAT " bytes, more than the %" G_GSIZE_FORMAT " jmem reads",
                   len, max_bytes);
      return NULL;
    }
  if (!check_utf8 (&s) || !scan_document (&s))
    return NULL;

  /* What passed is JSON that json-glib reads the same way. */
  parser = json_parser_new ();
  if (!json_parser_load_from_data (parser, data, (gssize) len, &local))
    {
      g_set_error (error, JMEM_ERROR, JMEM_ERROR_INVALID_ARGUMENT, "%s", local->message);
      return NULL;
    }
  root = json_parser_steal_root (parser);
  if (root == NULL)
    g_set_error (error, JMEM_ERROR, JMEM_ERROR_NOT_AVAILABLE, "no JSON value, only whitespace");
  return root;
}
