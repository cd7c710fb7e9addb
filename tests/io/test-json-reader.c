/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The strict JSON reader every command uses on outside input: what it
 * takes, what it refuses (each of json-glib's lenient forms), its limits,
 * its depth limit on a thread with a small stack, the tree it builds (the
 * one json-glib's parser builds, or the members a caller names), and the
 * opening of a file a user names. */
#include <gio/gio.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "jmem-error.h"
#include "jmem-file.h"
#include "jmem-json-reader.h"
#include "jmem-test.h"

#define MAX_BYTES (1024 * 1024)

static JsonNode *
read_ok (const char *text)
{
  g_autoptr(GError) error = NULL;
  JsonNode *node = jmem_json_read (text, strlen (text), MAX_BYTES, &error);

  if (node == NULL)
    g_error ("%s: refused: %s", text, error->message);
  return node;
}

static void
test_accepts (void)
{
  g_autoptr(JsonNode) doc = read_ok (" {\"a\": [1, -0, 2.5e-3, 1E+2, true, false, null],"
                                     "\r\n\t\"s\": \"q\\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\ud83d\\ude00\"} ");
  g_autoptr(JsonNode) max = read_ok ("9223372036854775807");
  g_autoptr(JsonNode) min = read_ok ("-9223372036854775808");
  g_autoptr(JsonNode) tiny = read_ok ("1e-400");
  JsonObject *o = json_node_get_object (doc);
  JsonArray *a = json_object_get_array_member (o, "a");

  g_assert_cmpuint (json_array_get_length (a), ==, 7);
  g_assert_cmpint (json_array_get_int_element (a, 0), ==, 1);
  g_assert_cmpfloat (json_array_get_double_element (a, 2), ==, 2.5e-3);
  g_assert_cmpstr (json_object_get_string_member (o, "s"), ==, "q\"\\/\b\f\n\r\t\xc3\xa9\xf0\x9f\x98\x80");
  /* the ends of the 64-bit range are read as themselves */
  g_assert_cmpint (json_node_get_int (max), ==, G_MAXINT64);
  g_assert_cmpint (json_node_get_int (min), ==, G_MININT64);
  g_assert_cmpfloat (json_node_get_double (tiny), ==, 0.0);
}

/* An empty buffer may come without one (an empty GByteArray's data). */
static void
test_null_empty (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) node = jmem_json_read (NULL, 0, MAX_BYTES, &error);

  g_assert_null (node);
  g_assert_error (error, JMEM_ERROR, JMEM_ERROR_NOT_AVAILABLE);
}

typedef struct {
  const char *name;
  const char *text;
  gssize      len;          /* -1: strlen */
  int         code;
  const char *message;      /* a part of it */
} Refusal;

static void
test_refuses (void)
{
  const Refusal cases[] = {
    /* json-glib accepts these three; JSON has none of them */
    { "line comment", "{\"a\": 1 // one\n}", -1, JMEM_ERROR_INVALID_ARGUMENT, "line 1, column 9: a comment" },
    { "block comment", "/* c */ {}", -1, JMEM_ERROR_INVALID_ARGUMENT, "a comment" },
    { "comment after", "{} /* c */", -1, JMEM_ERROR_INVALID_ARGUMENT, "column 4: a comment" },
    { "single quotes", "{\"a\": 'b'}", -1, JMEM_ERROR_INVALID_ARGUMENT, "column 7: a single quote" },
    { "single-quoted name", "{'a': 1}", -1, JMEM_ERROR_INVALID_ARGUMENT, "a single quote" },
    { "hexadecimal", "{\"id\": 0x10}", -1, JMEM_ERROR_INVALID_ARGUMENT, "hexadecimal" },
    { "leading zero", "[012]", -1, JMEM_ERROR_INVALID_ARGUMENT, "leading zero" },
    { "plus", "[+1]", -1, JMEM_ERROR_INVALID_ARGUMENT, "starting with '+'" },
    { "bare fraction", "[.5]", -1, JMEM_ERROR_INVALID_ARGUMENT, "starting with '.'" },
    { "no fraction digits", "[1.]", -1, JMEM_ERROR_INVALID_ARGUMENT, "after the decimal point" },
    { "no exponent digits", "[1e]", -1, JMEM_ERROR_INVALID_ARGUMENT, "in the exponent" },
    { "NaN", "[NaN]", -1, JMEM_ERROR_INVALID_ARGUMENT, "NaN" },
    { "Infinity", "[Infinity]", -1, JMEM_ERROR_INVALID_ARGUMENT, "Infinity" },
    { "trailing comma", "[1,]", -1, JMEM_ERROR_INVALID_ARGUMENT, "trailing comma" },
    { "trailing comma in object", "{\"a\":1,}", -1, JMEM_ERROR_INVALID_ARGUMENT, "trailing comma" },
    { "bare word", "[yes]", -1, JMEM_ERROR_INVALID_ARGUMENT, "'y' where a value was expected" },
    { "unquoted name", "{a: 1}", -1, JMEM_ERROR_INVALID_ARGUMENT, "member name in double quotes" },
    { "missing colon", "{\"a\" 1}", -1, JMEM_ERROR_INVALID_ARGUMENT, "':'" },
    { "missing comma", "[1 2]", -1, JMEM_ERROR_INVALID_ARGUMENT, "',' or ']'" },
    { "unclosed", "{\"a\": [1", -1, JMEM_ERROR_INVALID_ARGUMENT, "ends where" },
    { "unclosed string", "[\"abc", -1, JMEM_ERROR_INVALID_ARGUMENT, "never closed" },
    /* two values: json-glib keeps the first and drops the second */
    { "two values on a line", "{\"id\":1} {\"id\":2}", -1, JMEM_ERROR_INVALID_ARGUMENT, "column 10: more after the end" },
    { "two values glued", "{}{}", -1, JMEM_ERROR_INVALID_ARGUMENT, "more after the end" },
    { "two lines", "{\"a\":1}\n{\"a\":2}\n", -1, JMEM_ERROR_INVALID_ARGUMENT, "line 2, column 1: more after the end" },
    { "raw newline in string", "[\"a\nb\"]", -1, JMEM_ERROR_INVALID_ARGUMENT, "control character 0x0a inside a string" },
    { "raw tab in string", "[\"a\tb\"]", -1, JMEM_ERROR_INVALID_ARGUMENT, "control character 0x09" },
    { "bad escape", "[\"\\x41\"]", -1, JMEM_ERROR_INVALID_ARGUMENT, "a backslash before 'x' is not a JSON escape" },
    { "short \\u", "[\"\\u12\"]", -1, JMEM_ERROR_INVALID_ARGUMENT, "'u' escape needs four hexadecimal digits" },
    /* json-glib would cut the string at the NUL */
    { "escaped NUL", "{\"method\":\"ping\\u0000x\"}", -1, JMEM_ERROR_INVALID_ARGUMENT, "U+0000 (NUL)" },
    /* json-glib would make bytes that are not UTF-8 of these */
    { "lone high surrogate", "[\"\\ud800\"]", -1, JMEM_ERROR_INVALID_ARGUMENT, "first half" },
    { "high surrogate then text", "[\"\\ud800x\\udc00\"]", -1, JMEM_ERROR_INVALID_ARGUMENT, "first half" },
    { "high surrogate then high", "[\"\\ud800\\ud800\"]", -1, JMEM_ERROR_INVALID_ARGUMENT, "first half" },
    { "lone low surrogate", "[\"\\udc00\"]", -1, JMEM_ERROR_INVALID_ARGUMENT, "second half" },
    { "not UTF-8", "[\"\xff\"]", -1, JMEM_ERROR_INVALID_ARGUMENT, "0xff is not UTF-8" },
    { "encoded surrogate", "[\"\xed\xa0\x80\"]", -1, JMEM_ERROR_INVALID_ARGUMENT, "not UTF-8" },
    { "NUL byte", "[1]\0[2]", 7, JMEM_ERROR_INVALID_ARGUMENT, "a NUL byte" },
    { "control outside", "[1,\x01 2]", -1, JMEM_ERROR_INVALID_ARGUMENT, "control character 0x01" },
    { "form feed as space", "[1,\f2]", -1, JMEM_ERROR_INVALID_ARGUMENT, "control character 0x0c" },
    /* valid JSON past jmem's limits; json-glib wraps these integers */
    { "2^63", "{\"id\":9223372036854775808}", -1, JMEM_ERROR_TOO_LARGE, "9223372036854775808 is outside the 64-bit integer range" },
    { "2^64", "{\"id\":18446744073709551616}", -1, JMEM_ERROR_TOO_LARGE, "outside the 64-bit integer range" },
    { "-2^63-1", "[-9223372036854775809]", -1, JMEM_ERROR_TOO_LARGE, "outside the 64-bit integer range" },
    { "long integer", "[100000000000000000000000000000000000000000000]", -1, JMEM_ERROR_TOO_LARGE, "…" },
    { "huge double", "[1e400]", -1, JMEM_ERROR_TOO_LARGE, "too large for a double" },
    { "huge negative double", "[-1.5e309]", -1, JMEM_ERROR_TOO_LARGE, "too large for a double" },
    { "empty", "", -1, JMEM_ERROR_NOT_AVAILABLE, "only whitespace" },
    { "blank", " \r\n\t", -1, JMEM_ERROR_NOT_AVAILABLE, "only whitespace" },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      gsize len = cases[i].len < 0 ? strlen (cases[i].text) : (gsize) cases[i].len;
      g_autoptr(JsonNode) node = jmem_json_read (cases[i].text, len, MAX_BYTES, &error);

      if (node != NULL)
        g_error ("%s: accepted", cases[i].name);
      g_assert_nonnull (error);
      if (!g_error_matches (error, JMEM_ERROR, cases[i].code) ||
          strstr (error->message, cases[i].message) == NULL)
        g_error ("%s: \"%s\" (code %d), expected code %d with \"%s\"", cases[i].name,
                 error->message, error->code, cases[i].code, cases[i].message);
    }
}

static char *
nested (guint depth, const char *inner)
{
  GString *s = g_string_new (NULL);

  for (guint i = 0; i < depth; i++)
    g_string_append (s, i % 2 ? "{\"k\":" : "[");
  g_string_append (s, inner);
  for (guint i = depth; i > 0; i--)
    g_string_append (s, (i - 1) % 2 ? "}" : "]");
  return g_string_free (s, FALSE);
}

static void
test_limits (void)
{
  g_autofree char *deepest = nested (JMEM_JSON_MAX_DEPTH, "1");
  g_autofree char *deeper = nested (JMEM_JSON_MAX_DEPTH + 1, "1");
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) ok = read_ok (deepest);
  g_autoptr(JsonNode) refused = jmem_json_read (deeper, strlen (deeper), MAX_BYTES, &error);
  g_autoptr(JsonNode) big = NULL;

  g_assert_nonnull (ok);
  g_assert_null (refused);
  g_assert_error (error, JMEM_ERROR, JMEM_ERROR_TOO_LARGE);
  g_assert_nonnull (strstr (error->message, "nested deeper than 64 levels"));
  g_clear_error (&error);

  /* the size is checked first: a byte over is refused */
  big = jmem_json_read ("[1,2]", 5, 4, &error);
  g_assert_null (big);
  g_assert_error (error, JMEM_ERROR, JMEM_ERROR_TOO_LARGE);
  g_assert_nonnull (strstr (error->message, "more than the 4"));
  g_clear_error (&error);
  big = jmem_json_read ("[1,2]", 5, 5, &error);
  g_assert_no_error (error);
  g_assert_nonnull (big);
}

/* A thread whose stack is small enough that json-glib alone dies on deep
 * nesting: the reader must refuse such input there and read its deepest
 * documents there. 64 KiB, or the least a thread may have (128 KiB on
 * aarch64). */
#define SMALL_STACK MAX ((gsize) PTHREAD_STACK_MIN, 64 * 1024)

typedef struct {
  const char *text;
  gsize       len;
  gboolean    raw;        /* json-glib without the reader */
  gboolean    parsed;
  int         code;
} Job;

static void *
run_job (void *data)
{
  Job *job = data;
  g_autoptr(GError) error = NULL;

  if (job->raw)
    {
      g_autoptr(JsonParser) parser = json_parser_new ();

      job->parsed = json_parser_load_from_data (parser, job->text, (gssize) job->len, NULL);
      return NULL;
    }
  {
    g_autoptr(JsonNode) node = jmem_json_read (job->text, job->len, 64 * MAX_BYTES, &error);

    job->parsed = node != NULL;
    job->code = error != NULL ? error->code : -1;
  }
  return NULL;
}

static void
run_on_small_stack (Job *job)
{
  pthread_attr_t attr;
  pthread_t thread;

  g_assert_cmpint (pthread_attr_init (&attr), ==, 0);
  g_assert_cmpint (pthread_attr_setstacksize (&attr, SMALL_STACK), ==, 0);
  g_assert_cmpint (pthread_create (&thread, &attr, run_job, job), ==, 0);
  g_assert_cmpint (pthread_join (thread, NULL), ==, 0);
  pthread_attr_destroy (&attr);
}

static void
test_small_stack (void)
{
  gsize n = 200 * 1024;
  g_autofree char *brackets = g_malloc (n);
  g_autofree char *deepest = nested (JMEM_JSON_MAX_DEPTH, "\"x\"");
  Job deep = { brackets, n, FALSE, TRUE, -1 };
  Job max = { deepest, strlen (deepest), FALSE, FALSE, -1 };
  pid_t child;
  int status;

  /* one line of 200 KB of nested brackets, as sent to `jmem mcp`: valid
   * JSON, so that only the depth refuses it */
  memset (brackets, '[', n / 2);
  memset (brackets + n / 2, ']', n / 2);
  run_on_small_stack (&deep);
  g_assert_false (deep.parsed);
  g_assert_cmpint (deep.code, ==, JMEM_ERROR_TOO_LARGE);
  run_on_small_stack (&max);
  g_assert_true (max.parsed);

  /* the same stack is too small for json-glib on that line: without the
   * reader's check first, the process dies */
  child = fork ();
  g_assert_cmpint (child, >=, 0);
  if (child == 0)
    {
      Job raw = { brackets, n, TRUE, FALSE, -1 };

      /* quiet: the crash is the expected outcome */
      if (freopen ("/dev/null", "w", stderr) == NULL)
        _exit (3);
      run_on_small_stack (&raw);
      _exit (raw.parsed ? 10 : 11);
    }
  g_assert_cmpint (waitpid (child, &status, 0), ==, child);
  g_assert_false (WIFEXITED (status) && (WEXITSTATUS (status) == 10 || WEXITSTATUS (status) == 11));
}

/* A FIFO named as a file is refused at once, not waited on for a writer;
 * a directory is named as one; a regular file is read whole. */
static void
test_file (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = jmem_test_make_tmp ("jmem-json-reader-XXXXXX", &error);
  g_autofree char *fifo = g_build_filename (dir, "fifo", NULL);
  g_autofree char *file = g_build_filename (dir, "doc.json", NULL);
  g_autofree char *data = NULL;
  gsize len = 0;

  g_assert_no_error (error);
  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  alarm (10);   /* a blocking open would otherwise hang the test */
  g_assert_false (jmem_file_read_regular_capped (fifo, MAX_BYTES, &data, &len, &error));
  alarm (0);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_REGULAR_FILE);
  g_assert_true (g_str_has_prefix (error->message, fifo));
  g_assert_nonnull (strstr (error->message, "a FIFO or pipe, not a regular file"));
  g_clear_error (&error);

  g_assert_false (jmem_file_read_regular_capped (dir, MAX_BYTES, &data, &len, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_IS_DIRECTORY);
  g_clear_error (&error);

  g_assert_true (g_file_set_contents (file, "{\"a\": 1}\n", -1, NULL));
  g_assert_true (jmem_file_read_regular_capped (file, MAX_BYTES, &data, &len, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (len, ==, 9);
  g_assert_cmpstr (data, ==, "{\"a\": 1}\n");

  g_unlink (fifo);
  g_unlink (file);
  g_rmdir (dir);
}

/* The tree is the one json-glib's parser builds from the same text: the
 * same kinds of values (an integer an int64, any other number a double),
 * the same strings once the escapes are read, the members in their order,
 * and a member named twice holding its last value. */
static void
test_same_tree (void)
{
  g_autofree char *history = jmem_test_fixture ("history", "history.reference-growing.jsonl", NULL);
  g_autofree char *snapshot = NULL;
  const char *texts[] = {
    "{\"a\": [1, -0, 2.5e-3, 1E+2, -7, 0.0, 12345678901234, true, false, null, {}, []],"
    " \"s\": \"q\\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\ud83d\\ude00 \\u0041\\u20ac\","
    " \"\\u006eame\": \"\xc3\xa9t\xc3\xa9\", \"dup\": 1, \"dup\": [2]}",
    "[[[\"deep\", {\"x\": {\"y\": -9223372036854775808}}]]]",
    "\"just a string\"",
    "3.25",
    "null",
  };

  /* a recorded snapshot: its first line */
  g_assert_true (g_file_get_contents (history, &snapshot, NULL, NULL));
  *strchr (snapshot, '\n') = '\0';
  for (guint i = 0; i <= G_N_ELEMENTS (texts); i++)
    {
      const char *text = i < G_N_ELEMENTS (texts) ? texts[i] : snapshot;
      g_autoptr(JsonParser) parser = json_parser_new ();
      g_autoptr(JsonNode) ours = read_ok (text);
      g_autofree char *ours_text = NULL, *theirs_text = NULL;
      JsonNode *theirs;

      g_assert_true (json_parser_load_from_data (parser, text, -1, NULL));
      theirs = json_parser_get_root (parser);
      g_assert_true (json_node_equal (ours, theirs));
      ours_text = json_to_string (ours, TRUE);
      theirs_text = json_to_string (theirs, TRUE);
      g_assert_cmpstr (ours_text, ==, theirs_text);
    }
}

static JsonNode *
read_paths (const char *text, const char *const *paths)
{
  g_autoptr(JmemJsonPaths) compiled = jmem_json_paths_new (paths);
  g_autoptr(GError) error = NULL;
  JsonNode *node = jmem_json_read_paths (text, strlen (text), MAX_BYTES, compiled, &error);

  g_assert_no_error (error);
  return node;
}

static char *
read_paths_text (const char *text, const char *const *paths)
{
  g_autoptr(JsonNode) node = read_paths (text, paths);

  return json_to_string (node, FALSE);
}

/* Only the members named are built; the objects and arrays on the way keep
 * what leads to them; a value that is not the kind a path expects is kept
 * whole; a name written with escapes is still that name; and the members
 * left out are still checked as JSON. */
static void
test_paths (void)
{
  const char *doc = "{\"schema\":\"x\",\"big\":{\"a\":[1,2],\"b\":\"no\"},"
                    "\"rows\":[{\"pid\":1,\"cmd\":\"long\"},7,{\"cmd\":\"c\"}],"
                    "\"m\":{\"keep\":{\"all\":[1,{\"of\":2}]},\"drop\":3},"
                    "\"notobj\":[1,2],\"notarr\":{\"k\":1},\"\\u0065sc\":{\"v\":1,\"w\":2}}";
  const char *const paths[] = { "schema", "rows[].pid", "m.keep", "notobj.k", "notarr[].x", "esc.v",
                                "absent.x", NULL };
  const char *const everything[] = { "", NULL };
  const char *const whole_beats_part[] = { "m.keep.all", "m", NULL };
  g_autofree char *kept = read_paths_text (doc, paths);
  g_autofree char *all = read_paths_text (doc, everything);
  g_autofree char *whole = read_paths_text (doc, whole_beats_part);
  g_autofree char *full = NULL;
  g_autoptr(JsonNode) full_node = read_ok (doc);

  g_assert_cmpstr (kept, ==, "{\"schema\":\"x\",\"rows\":[{\"pid\":1},7,{}],"
                             "\"m\":{\"keep\":{\"all\":[1,{\"of\":2}]}},"
                             "\"notobj\":[1,2],\"notarr\":{\"k\":1},\"esc\":{\"v\":1}}");
  full = json_to_string (full_node, FALSE);
  g_assert_cmpstr (all, ==, full);
  g_assert_cmpstr (whole, ==, "{\"m\":{\"keep\":{\"all\":[1,{\"of\":2}]},\"drop\":3}}");

  /* "*": every member no other step names */
  {
    const char *const stars[] = { "f.*", "f.b.x", NULL };
    g_autofree char *got = read_paths_text ("{\"f\":{\"a\":1,\"b\":{\"x\":2,\"y\":3}},\"g\":4}",
                                            stars);

    g_assert_cmpstr (got, ==, "{\"f\":{\"a\":1,\"b\":{\"x\":2}}}");
  }

  /* what is not built is still read as strictly */
  {
    const char *bad[] = {
      "{\"schema\":\"x\",\"big\":{\"a\":[1,2,]}}",
      "{\"schema\":\"x\",\"big\":'single'}",
      "{\"schema\":\"x\",\"big\":{\"n\":99999999999999999999}}",
      "{\"schema\":\"x\",\"big\":\"\\ud800\"}",
      "{\"schema\":\"x\",\"big\":\"\xff\"}",
      "{\"schema\":\"x\"} {}",
    };
    g_autoptr(JmemJsonPaths) compiled = jmem_json_paths_new (paths);

    for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
      {
        g_autoptr(GError) whole_error = NULL;
        g_autoptr(GError) paths_error = NULL;
        g_autoptr(JsonNode) a = jmem_json_read (bad[i], strlen (bad[i]), MAX_BYTES, &whole_error);
        g_autoptr(JsonNode) b = jmem_json_read_paths (bad[i], strlen (bad[i]), MAX_BYTES, compiled,
                                                      &paths_error);

        g_assert_null (a);
        g_assert_null (b);
        g_assert_nonnull (whole_error);
        g_assert_error (paths_error, whole_error->domain, whole_error->code);
        g_assert_cmpstr (paths_error->message, ==, whole_error->message);
      }
  }
}

/* A member a check reads and the reader does not is built only when the
 * check would refuse it, as the last of its name decides. */
static void
test_paths_unless (void)
{
  struct { const char *text, *built; } cases[] = {
    { "{\"n\":{\"size\":5,\"flag\":true,\"other\":1}}", "{\"n\":{}}" },
    { "{\"n\":{\"size\":null,\"flag\":null}}", "{\"n\":{}}" },
    { "{\"n\":{\"size\":-1,\"flag\":\"x\"}}", "{\"n\":{\"size\":-1,\"flag\":\"x\"}}" },
    { "{\"n\":{\"size\":101,\"flag\":0}}", "{\"n\":{\"size\":101,\"flag\":0}}" },
    { "{\"n\":{\"size\":1.5}}", "{\"n\":{\"size\":1.5}}" },
    { "{\"n\":{\"size\":{\"x\":1},\"flag\":[true]}}", "{\"n\":{\"size\":{\"x\":1},\"flag\":[true]}}" },
    { "{\"n\":{\"size\":\"5\"}}", "{\"n\":{\"size\":\"5\"}}" },
    /* a name given twice: the last value is the one a check sees */
    { "{\"n\":{\"size\":-1,\"size\":5}}", "{\"n\":{}}" },
    { "{\"n\":{\"size\":5,\"size\":-1}}", "{\"n\":{\"size\":-1}}" },
    { "{\"n\":{\"\\u0073ize\":-1,\"size\":5}}", "{\"n\":{}}" },
    /* not an object where the path goes through one: kept whole */
    { "{\"n\":[1,2]}", "{\"n\":[1,2]}" },
    { "{\"n\":7}", "{\"n\":7}" },
  };
  const char *const kept[] = { "n.kept", NULL };
  g_autoptr(JmemJsonPaths) paths = jmem_json_paths_new (kept);

  jmem_json_paths_add_unless_int (paths, "n.size", 0, 100);
  jmem_json_paths_add_unless_boolean (paths, "n.flag");
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(JsonNode) node = jmem_json_read_paths (cases[i].text, strlen (cases[i].text), MAX_BYTES,
                                                       paths, &error);
      g_autofree char *got = NULL;

      g_assert_no_error (error);
      got = json_to_string (node, FALSE);
      g_assert_cmpstr (got, ==, cases[i].built);
    }

  /* a path the reader reads is built whatever the check would say */
  {
    const char *const size[] = { "n.size", NULL };
    g_autoptr(GError) error = NULL;
    g_autoptr(JsonNode) node = NULL;
    g_autofree char *got = NULL;

    jmem_json_paths_add (paths, size);
    node = jmem_json_read_paths ("{\"n\":{\"size\":5}}", 16, MAX_BYTES, paths, &error);
    g_assert_no_error (error);
    got = json_to_string (node, FALSE);
    g_assert_cmpstr (got, ==, "{\"n\":{\"size\":5}}");
  }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/json-reader/accepts", test_accepts);
  g_test_add_func ("/json-reader/refuses", test_refuses);
  g_test_add_func ("/json-reader/same-tree", test_same_tree);
  g_test_add_func ("/json-reader/paths", test_paths);
  g_test_add_func ("/json-reader/paths-unless", test_paths_unless);
  g_test_add_func ("/json-reader/null-empty", test_null_empty);
  g_test_add_func ("/json-reader/limits", test_limits);
  g_test_add_func ("/json-reader/small-stack", test_small_stack);
  g_test_add_func ("/json-reader/file", test_file);
  return g_test_run ();
}
