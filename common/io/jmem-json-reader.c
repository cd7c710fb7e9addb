/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Strict JSON: one pass without recursion checks every byte against
 * RFC 8259 and jmem's limits and builds the json-glib tree of what the
 * caller asked for. json-glib's own parser is not used: it would read the
 * text a second time, emit a signal per member, and build every member of
 * a history line whose rules read a few. */
#include "jmem-json-reader.h"

#include "jmem-error.h"

#include <math.h>
#include <stdarg.h>
#include <string.h>

/* An open object or array. */
typedef struct {
  JsonNode            *node;   /* being built; NULL when it is checked only */
  const JmemJsonPaths *paths;  /* what of it is built; NULL: all of it */
} Level;

typedef struct {
  const char *data;
  const char *p;
  const char *end;
  GError    **error;

  JsonNode            *root;
  Level                levels[JMEM_JSON_MAX_DEPTH];
  /* the value about to be read: whether it is built, what of it, and the
   * member it is the value of */
  gboolean             keep_next;
  const JmemJsonPaths *next_paths;
  const char          *name_open;   /* its name's token, decoded when needed */
  const char          *name_close;
  gboolean             name_escaped;
  char                *next_name;
  gboolean             escaped;     /* the last string read holds a backslash */
} Scan;

/* A number read: an integer, or any other number as a double. */
typedef struct {
  gboolean integer;
  gint64   int_value;
  double   double_value;
} Number;

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

/* A string from its opening quote at s->p; s->p ends after the closing one,
 * and s->escaped says whether a backslash was in it. */
static gboolean
scan_string (Scan *s)
{
  const char *open = s->p++;

  s->escaped = FALSE;
  while (s->p < s->end)
    {
      guchar c = (guchar) *s->p;

      /* the common case first: a byte that is itself */
      if (c >= 0x20 && c != '"' && c != '\\')
        {
          s->p++;
          continue;
        }
      if (c == '"')
        {
          s->p++;
          return TRUE;
        }
      if (c < 0x20)
        return fail_at (s, s->p, JMEM_ERROR_INVALID_ARGUMENT,
                        "control character 0x%02x inside a string: JSON needs it escaped", c);
      s->escaped = TRUE;
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

static gunichar
hex4 (const char *p)
{
  gunichar v = 0;

  for (int i = 0; i < 4; i++)
    v = v * 16 + (gunichar) g_ascii_xdigit_value (p[i]);
  return v;
}

/* The text of the string whose quotes are at @open and @close - 1, which
 * scan_string() passed: its escapes are well formed, and @escaped says
 * whether it has any. */
static char *
decode_string (const char *open, const char *close, gboolean escaped)
{
  const char *p = open + 1, *end = close - 1;
  GString *out;

  if (!escaped)
    return g_strndup (p, (gsize) (end - p));
  out = g_string_sized_new ((gsize) (end - p));
  while (p < end)
    {
      const char *bs = memchr (p, '\\', (gsize) (end - p));
      gunichar c;

      if (bs == NULL)
        {
          g_string_append_len (out, p, end - p);
          break;
        }
      g_string_append_len (out, p, bs - p);
      switch (bs[1])
        {
        case 'b': c = '\b'; break;
        case 'f': c = '\f'; break;
        case 'n': c = '\n'; break;
        case 'r': c = '\r'; break;
        case 't': c = '\t'; break;
        case 'u':
          c = hex4 (bs + 2);
          if (c >= 0xd800 && c <= 0xdbff)
            {
              gunichar low = hex4 (bs + 8);

              c = 0x10000 + ((c - 0xd800) << 10) + (low - 0xdc00);
              p = bs + 12;
            }
          else
            p = bs + 6;
          g_string_append_unichar (out, c);
          continue;
        default: c = (guchar) bs[1]; break;  /* '"', '\\', '/' */
        }
      g_string_append_c (out, (char) c);
      p = bs + 2;
    }
  return g_string_free (out, FALSE);
}

static gboolean
is_digit (const Scan *s, const char *p)
{
  return p < s->end && *p >= '0' && *p <= '9';
}

/* A number in JSON's grammar at s->p, into @number. An integer (no
 * fraction, no exponent) must fit in 64 bits, where json-glib would wrap
 * it; any other number must be finite as a double. */
static gboolean
scan_number (Scan *s, Number *number)
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
      guint64 magnitude = 0;

      if (n > limit_len || (n == limit_len && memcmp (digits, limit, n) > 0))
        return fail_at (s, start, JMEM_ERROR_TOO_LARGE,
                        "%.*s%s is outside the 64-bit integer range", (int) MIN (n + negative, 24),
                        start, n + negative > 24 ? "…" : "");
      for (const char *d = digits; d < s->p; d++)
        magnitude = magnitude * 10 + (guint64) (*d - '0');
      number->integer = TRUE;
      number->int_value = negative ? (gint64) (0 - magnitude) : (gint64) magnitude;
    }
  else
    {
      g_autofree char *text = g_strndup (start, (gsize) (s->p - start));
      double v = g_ascii_strtod (text, NULL);

      if (!isfinite (v))
        return fail_at (s, start, JMEM_ERROR_TOO_LARGE, "a number too large for a double");
      number->integer = FALSE;
      number->double_value = v;
    }
  return TRUE;
}

/* true, false or null: *@type is G_TYPE_BOOLEAN (*@truth its value) or
 * G_TYPE_NONE. */
static gboolean
scan_literal (Scan *s, GType *type, gboolean *truth)
{
  static const struct { const char *word; GType type; gboolean truth; } words[] = {
    { "true", G_TYPE_BOOLEAN, TRUE }, { "false", G_TYPE_BOOLEAN, FALSE }, { "null", G_TYPE_NONE, FALSE },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (words); i++)
    {
      gsize n = strlen (words[i].word);

      if ((gsize) (s->end - s->p) >= n && memcmp (s->p, words[i].word, n) == 0)
        {
          s->p += n;
          *type = words[i].type;
          *truth = words[i].truth;
          return TRUE;
        }
    }
  if (s->end - s->p >= 3 &&
      (g_ascii_strncasecmp (s->p, "nan", 3) == 0 || g_ascii_strncasecmp (s->p, "inf", 3) == 0))
    return fail_at (s, s->p, JMEM_ERROR_INVALID_ARGUMENT, "NaN and Infinity are not JSON numbers");
  return unexpected (s, "a value");
}

/* Whether the next value, an element of the array open at @depth, is built,
 * and what of it. */
static void
choose_element (Scan *s, guint depth)
{
  const Level *parent = &s->levels[depth - 1];

  s->keep_next = parent->node != NULL;
  s->next_paths = NULL;
  if (s->keep_next && parent->paths != NULL)
    s->next_paths = jmem_json_paths_child (parent->paths, NULL, 0, &s->keep_next);
}

/* The same for the value of the member named by the string token from
 * @open to @close, in the object open at @depth. A name the paths leave out
 * is never decoded. */
static void
choose_member (Scan *s, guint depth, const char *open, const char *close)
{
  const Level *parent = &s->levels[depth - 1];

  g_clear_pointer (&s->next_name, g_free);
  s->name_open = open;
  s->name_close = close;
  s->name_escaped = s->escaped;
  s->keep_next = parent->node != NULL;
  s->next_paths = NULL;
  if (!s->keep_next || parent->paths == NULL)
    return;
  if (!s->name_escaped)
    s->next_paths = jmem_json_paths_child (parent->paths, open + 1, (gsize) (close - open - 2),
                                           &s->keep_next);
  else
    {
      s->next_name = decode_string (open, close, TRUE);
      s->next_paths = jmem_json_paths_child (parent->paths, s->next_name, strlen (s->next_name),
                                             &s->keep_next);
    }
}

/* The name of the member whose value is read, decoded once. */
static const char *
next_name (Scan *s)
{
  if (s->next_name == NULL)
    s->next_name = decode_string (s->name_open, s->name_close, s->name_escaped);
  return s->next_name;
}

/* An object's member name and its colon; s->p is then at the value, which
 * choose_member() has chosen. */
static gboolean
scan_member_name (Scan *s, guint depth)
{
  const char *open;

  skip_space (s);
  if (s->p >= s->end || *s->p != '"')
    return unexpected (s, "a member name in double quotes");
  open = s->p;
  if (!scan_string (s))
    return FALSE;
  choose_member (s, depth, open, s->p);
  skip_space (s);
  if (s->p >= s->end || *s->p != ':')
    return unexpected (s, "':'");
  s->p++;
  return TRUE;
}

/* Puts @value, the value just read, where it belongs: the root, an
 * element, or the member chosen. */
static void
attach (Scan *s, guint depth, JsonNode *value)
{
  JsonNode *parent;

  if (depth == 0)
    {
      s->root = value;
      return;
    }
  parent = s->levels[depth - 1].node;
  if (JSON_NODE_HOLDS_OBJECT (parent))
    /* a name given twice keeps its last value, as json-glib's parser does */
    json_object_set_member (json_node_get_object (parent), next_name (s), value);
  else
    json_array_add_element (json_node_get_array (parent), value);
}

/* Whether the scalar about to be built (@type: G_TYPE_INT64, G_TYPE_BOOLEAN
 * or G_TYPE_NONE for null) is a checked member the check takes
 * (jmem_json_paths_drops()): then it is left out, and so is an earlier
 * value of the same name, which it replaces. */
static gboolean
drops (Scan *s, guint depth, GType type, gint64 value)
{
  JsonObject *parent;

  if (s->next_paths == NULL || depth == 0 || !JSON_NODE_HOLDS_OBJECT (s->levels[depth - 1].node) ||
      !jmem_json_paths_drops (s->next_paths, type, value))
    return FALSE;
  parent = json_node_get_object (s->levels[depth - 1].node);
  if (json_object_get_size (parent) > 0 && json_object_has_member (parent, next_name (s)))
    json_object_remove_member (parent, next_name (s));
  return TRUE;
}

/* The whole document: one value, whitespace around it. The open arrays and
 * objects are a stack of brackets, not of calls; what is built hangs from
 * s->root as it is read. */
static gboolean
scan_document (Scan *s, const JmemJsonPaths *paths)
{
  char open[JMEM_JSON_MAX_DEPTH];
  guint depth = 0;

  skip_space (s);
  if (s->p >= s->end)
    {
      g_set_error (s->error, JMEM_ERROR, JMEM_ERROR_NOT_AVAILABLE, "no JSON value, only whitespace");
      return FALSE;
    }
  s->keep_next = TRUE;
  s->next_paths = paths;
  for (;;)
    {
      JsonNode *value = NULL;
      JsonNode **build = s->keep_next ? &value : NULL;

      /* a value */
      skip_space (s);
      if (s->p >= s->end)
        return unexpected (s, "a value");
      switch (*s->p)
        {
        case '{':
        case '[':
          {
            gboolean is_object = *s->p == '{';
            Level *level = &s->levels[depth];

            if (depth == JMEM_JSON_MAX_DEPTH)
              return fail_at (s, s->p, JMEM_ERROR_TOO_LARGE,
                              "arrays and objects nested deeper than %d levels",
                              JMEM_JSON_MAX_DEPTH);
            level->node = NULL;
            level->paths = NULL;
            if (build != NULL)
              {
                level->node = json_node_new (is_object ? JSON_NODE_OBJECT : JSON_NODE_ARRAY);
                if (is_object)
                  json_node_take_object (level->node, json_object_new ());
                else
                  json_node_take_array (level->node, json_array_new ());
                if (s->next_paths != NULL && jmem_json_paths_filters (s->next_paths, is_object))
                  level->paths = s->next_paths;
                attach (s, depth, level->node);
              }
            open[depth++] = *s->p++;
            skip_space (s);
            if (s->p < s->end && *s->p == (is_object ? '}' : ']'))
              {
                s->p++;
                depth--;
                break;
              }
            if (!is_object)
              choose_element (s, depth);
            else if (!scan_member_name (s, depth))
              return FALSE;
            continue;
          }
        case '"':
          {
            const char *start = s->p;

            if (!scan_string (s))
              return FALSE;
            if (build != NULL)
              {
                g_autofree char *text = decode_string (start, s->p, s->escaped);

                value = json_node_init_string (json_node_alloc (), text);
              }
            break;
          }
        case '-': case '0': case '1': case '2': case '3': case '4':
        case '5': case '6': case '7': case '8': case '9':
          {
            Number number = { FALSE, 0, 0 };

            if (!scan_number (s, &number))
              return FALSE;
            if (build == NULL)
              break;
            if (!number.integer)
              value = json_node_init_double (json_node_alloc (), number.double_value);
            else if (!drops (s, depth, G_TYPE_INT64, number.int_value))
              value = json_node_init_int (json_node_alloc (), number.int_value);
            break;
          }
        case '+': case '.':
          return fail_at (s, s->p, JMEM_ERROR_INVALID_ARGUMENT,
                          "a number starting with '%c': JSON numbers start with '-' or a digit",
                          *s->p);
        default:
          {
            GType type = G_TYPE_NONE;
            gboolean truth = FALSE;

            if (!scan_literal (s, &type, &truth))
              return FALSE;
            if (build == NULL || drops (s, depth, type, truth))
              break;
            value = type == G_TYPE_BOOLEAN ? json_node_init_boolean (json_node_alloc (), truth)
                                           : json_node_init_null (json_node_alloc ());
            break;
          }
        }
      if (value != NULL)
        attach (s, depth, value);

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
              if (open[depth - 1] == '{')
                {
                  if (!scan_member_name (s, depth))
                    return FALSE;
                }
              else
                choose_element (s, depth);
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
jmem_json_read_paths (const char          *data,
                      gsize                len,
                      gsize                max_bytes,
                      const JmemJsonPaths *paths,
                      GError             **error)
{
  Scan s = { 0 };
  gboolean ok;

  g_return_val_if_fail (data != NULL || len == 0, NULL);

  /* an empty GByteArray's data is NULL: no arithmetic on it */
  if (data == NULL)
    data = "";
  s.data = s.p = data;
  s.end = data + len;
  s.error = error;

  if (len > max_bytes)
    {
      g_set_error (error, JMEM_ERROR, JMEM_ERROR_TOO_LARGE,
                   "%" G_GSIZE_FORMAT " bytes, more than the %" G_GSIZE_FORMAT " jmem reads",
                   len, max_bytes);
      return NULL;
    }
  ok = check_utf8 (&s) && scan_document (&s, paths);
  g_free (s.next_name);
  if (!ok)
    {
      g_clear_pointer (&s.root, json_node_unref);
      return NULL;
    }
  return s.root;
}

JsonNode *
jmem_json_read (const char *data,
                gsize       len,
                gsize       max_bytes,
                GError    **error)
{
  return jmem_json_read_paths (data, len, max_bytes, NULL, error);
}
