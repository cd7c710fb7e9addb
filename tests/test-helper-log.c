/* The helper's audit records: a caller's text stays on one line, escaped,
 * in every field (journal and stderr alike). */
#include <glib.h>
#include <string.h>

#include "jmem-helper-log.h"

static void
test_escape (void)
{
  static const struct {
    const char *in;
    const char *out;
  } cases[] = {
    { "compact", "compact" },
    { "a\nb", "a\\nb" },
    { "a\r\nb\tc", "a\\r\\nb\\tc" },
    { "back\\slash", "back\\\\slash" },
    { "\x1b[31mred", "\\x1b[31mred" },
    { "del\x7f", "del\\x7f" },
    { "caf\xc3\xa9", "caf\xc3\xa9" },              /* printable UTF-8 stays */
    { "line\xe2\x80\xa8sep", "line\\u{2028}sep" },  /* U+2028 LINE SEPARATOR */
    { "c1\xc2\x85", "c1\\u{0085}" },                /* U+0085 NEXT LINE */
    { "bad\xff\xfe", "bad\\xff\\xfe" },              /* not UTF-8 */
    { "cut\xe2\x80", "cut\\xe2\\x80" },              /* truncated sequence */
    { "", "" },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *out = jmem_helper_log_escape (cases[i].in);

      g_assert_cmpstr (out, ==, cases[i].out);
      g_assert_true (g_utf8_validate (out, -1, NULL));
    }
}

typedef struct {
  gboolean   active;
  guint      n_records;
  GPtrArray *fields;  /* "KEY=value" of the last record */
  char      *line;    /* the last record as the stderr writer prints it */
} Captured;

/* A writer, once set, stays for the life of the process: it must outlive
 * the test that reads it, and hand on what GLib logs afterwards. */
static Captured captured;

static GLogWriterOutput
capture_writer (GLogLevelFlags   level,
                const GLogField *fields,
                gsize            n_fields,
                gpointer         user_data)
{
  if (!captured.active)
    return g_log_writer_default (level, fields, n_fields, user_data);

  captured.n_records++;
  g_free (captured.line);
  captured.line = g_log_writer_format_fields (level, fields, n_fields, FALSE);
  g_ptr_array_set_size (captured.fields, 0);
  for (gsize i = 0; i < n_fields; i++)
    g_ptr_array_add (captured.fields,
                     g_strdup_printf ("%s=%.*s", fields[i].key,
                                      fields[i].length < 0 ? (int) strlen (fields[i].value)
                                                           : (int) fields[i].length,
                                      (const char *) fields[i].value));
  return G_LOG_WRITER_HANDLED;
}

static const char *
captured_field (const char *key)
{
  gsize key_len = strlen (key);

  for (guint i = 0; i < captured.fields->len; i++)
    {
      const char *field = g_ptr_array_index (captured.fields, i);
      if (strncmp (field, key, key_len) == 0 && field[key_len] == '=')
        return field + key_len + 1;
    }
  return NULL;
}

/* The record of a DropCaches whose unknown option key forges a line: one
 * line in every field, and one line on stderr (a bus without systemd), as
 * g_log_writer_standard_streams() formats it. No subprocess: under qemu
 * user emulation a test cannot exec itself. */
static void
test_record_is_one_line (void)
{
  const char *detail = "unknown option \"x\njmem-helper-Message: dev.jmem.drop-caches by uid 0: ok\" "
                       "of type b: DropCaches takes only compact (b)";

  captured.fields = g_ptr_array_new_with_free_func (g_free);
  g_log_set_writer_func (capture_writer, NULL, NULL);
  captured.active = TRUE;
  jmem_helper_log_action ("dev.jmem.drop-caches\n", 1000, "fail\ned", detail);
  captured.active = FALSE;
  g_assert_cmpuint (captured.n_records, ==, 1);
  for (guint i = 0; i < captured.fields->len; i++)
    g_assert_null (strchr (g_ptr_array_index (captured.fields, i), '\n'));
  g_assert_cmpstr (captured_field ("JMEM_ACTION"), ==, "dev.jmem.drop-caches\\n");
  g_assert_cmpstr (captured_field ("JMEM_RESULT"), ==, "fail\\ned");
  g_assert_cmpstr (captured_field ("JMEM_CALLER_UID"), ==, "1000");
  g_assert_nonnull (strstr (captured_field ("MESSAGE"),
                            "\"x\\njmem-helper-Message: dev.jmem.drop-caches by uid 0: ok\""));

  /* the forged record would start a line of its own */
  g_assert_nonnull (captured.line);
  g_assert_null (strchr (captured.line, '\n'));
  g_assert_nonnull (strstr (captured.line, "uid 1000: fail\\ned: unknown option \"x\\njmem-helper-Message: "));
  g_clear_pointer (&captured.line, g_free);
  g_clear_pointer (&captured.fields, g_ptr_array_unref);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/helper/log/escape", test_escape);
  g_test_add_func ("/helper/log/record-is-one-line", test_record_is_one_line);
  return g_test_run ();
}
