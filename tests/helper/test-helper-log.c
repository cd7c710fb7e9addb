/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The helper's audit records: a caller's text stays on one line, escaped,
 * in every field (journal and stderr alike); refusals are counted into a
 * line per uid and interval, and never crowd out an audit line. */
#include <glib.h>
#include <string.h>

#include "jmem-helper-log.h"
#include "jmem-refusal-log.h"
#include "jmem-text.h"

typedef struct {
  gboolean   active;
  guint      n_records;
  GPtrArray *fields;  /* "KEY=value" of the last record */
  char      *line;    /* the last record as the stderr writer prints it */
  GPtrArray *messages;  /* every record's MESSAGE, when set */
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
  if (captured.messages != NULL)
    for (gsize i = 0; i < n_fields; i++)
      if (g_str_equal (fields[i].key, "MESSAGE"))
        g_ptr_array_add (captured.messages, g_strdup (fields[i].value));
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

/* A caller's text reads in the journal as the client's human output shows
 * it: one spelling for every escaped character, so a name or an argument
 * grepped for in one is found in the other. */
static void
test_log_spelled_as_terminal (void)
{
  const char *hostile = "evil\xe2\x80\xae" "cod.exe\x1b]0;pwned\x07\r\n\t\\"
                        "\xc2\x85\xe2\x80\xa8\xef\xbb\xbf\xf3\xa0\x80\x81";
  const char *spelled = "evil\\u202ecod.exe\\x1b]0;pwned\\x07\\x0d\\n\\t\\\\"
                        "\\u0085\\u2028\\ufeff\\U000e0001";
  g_autofree char *terminal = jmem_text_for_terminal (hostile);
  g_autofree char *message = g_strconcat (spelled, " by uid 1000: failed: ", spelled, NULL);

  g_assert_cmpstr (terminal, ==, spelled);
  captured.fields = g_ptr_array_new_with_free_func (g_free);
  captured.active = TRUE;
  jmem_helper_log_action (hostile, 1000, "failed", hostile);
  captured.active = FALSE;
  g_assert_cmpstr (captured_field ("JMEM_ACTION"), ==, terminal);
  g_assert_cmpstr (captured_field ("MESSAGE"), ==, message);
  g_clear_pointer (&captured.line, g_free);
  g_clear_pointer (&captured.fields, g_ptr_array_unref);
}

/* ---- refusals ------------------------------------------------------------ */

#define S G_USEC_PER_SEC
#define INTERVAL (10 * S)

static void
capture_start (void)
{
  captured.fields = g_ptr_array_new_with_free_func (g_free);
  captured.messages = g_ptr_array_new_with_free_func (g_free);
  captured.n_records = 0;
  captured.active = TRUE;
}

static void
capture_stop (void)
{
  captured.active = FALSE;
  g_clear_pointer (&captured.line, g_free);
  g_clear_pointer (&captured.fields, g_ptr_array_unref);
  g_clear_pointer (&captured.messages, g_ptr_array_unref);
}

static guint
count_messages (const char *needle)
{
  guint n = 0;

  for (guint i = 0; i < captured.messages->len; i++)
    if (strstr (g_ptr_array_index (captured.messages, i), needle) != NULL)
      n++;
  return n;
}

/* The flood the review measured: one outsider refused 6,487 times in 4 s,
 * while a member of the group drops caches now and then. The outsider's
 * refusals make two lines, the first at once and one that counts the rest;
 * every audit line is there, in its place. */
static void
test_flood_is_one_line (void)
{
  g_autoptr(JmemRefusalLog) log = jmem_refusal_log_new (INTERVAL);
  const guint n = 6487;
  guint audits = 0;

  capture_start ();
  for (guint i = 0; i < n; i++)
    {
      gint64 now = (gint64) i * 4 * S / n;

      jmem_refusal_log_add (log, now, "dev.jmem.drop-caches", 1001,
                            i % 7 ? "challenge" : "rate-limited", "detail");
      if (i % 1000 == 500)
        {
          jmem_helper_log_action ("dev.jmem.drop-caches", 1000, "ok", NULL);
          audits++;
          /* the audit line is the last record: written now, not held */
          g_assert_cmpstr (g_ptr_array_index (captured.messages, captured.messages->len - 1), ==,
                           "dev.jmem.drop-caches by uid 1000: ok");
        }
      g_assert_cmpint (jmem_refusal_log_flush (log, now), ==, INTERVAL);
    }
  g_assert_cmpuint (count_messages ("by uid 1001"), ==, 1);
  g_assert_cmpuint (count_messages ("dev.jmem.drop-caches by uid 1000: ok"), ==, audits);

  /* the interval ends: one line that counts the rest, by result */
  g_assert_cmpint (jmem_refusal_log_flush (log, INTERVAL), ==, 2 * INTERVAL);
  g_assert_cmpuint (count_messages ("by uid 1001"), ==, 2);
  {
    const char *summary = g_ptr_array_index (captured.messages, captured.messages->len - 1);
    g_autofree char *rest = g_strdup_printf ("by uid 1001: summary: %u more refused in 10 s", n - 1);

    g_assert_nonnull (strstr (summary, rest));
    g_assert_nonnull (strstr (summary, "(challenge 5560, rate-limited 926); the last: "
                                       "dev.jmem.drop-caches: challenge: detail"));
  }
  g_assert_cmpuint (captured.messages->len, ==, 2 + audits);

  /* a quiet interval: the uid is forgotten, and its next refusal shows at once */
  g_assert_cmpint (jmem_refusal_log_flush (log, 2 * INTERVAL), ==, 0);
  jmem_refusal_log_add (log, 2 * INTERVAL + S, "dev.jmem.read-nvmap", 1001, "denied", NULL);
  g_assert_cmpuint (count_messages ("dev.jmem.read-nvmap by uid 1001: denied"), ==, 1);
  capture_stop ();
}

/* Each uid has its own interval: one caller's flood does not hide another's
 * first refusal, and a steady flood costs one line per interval. */
static void
test_per_uid_and_steady (void)
{
  g_autoptr(JmemRefusalLog) log = jmem_refusal_log_new (INTERVAL);

  capture_start ();
  for (gint64 t = 0; t < 35 * S; t += S / 10)
    {
      jmem_refusal_log_add (log, t, "dev.jmem.read-nvmap", 1001, "denied", NULL);
      jmem_refusal_log_flush (log, t);
    }
  jmem_refusal_log_add (log, 35 * S, "dev.jmem.read-nvmap", 1002, "denied", NULL);
  g_assert_cmpuint (count_messages ("dev.jmem.read-nvmap by uid 1002: denied"), ==, 1);
  /* 1001: the first line, then one per interval that ended (10, 20, 30 s) */
  g_assert_cmpuint (count_messages ("by uid 1001"), ==, 4);
  g_assert_cmpuint (count_messages ("99 more refused in 10 s"), ==, 1);
  g_assert_cmpuint (count_messages ("100 more refused in 10 s"), ==, 2);
  capture_stop ();
  /* freeing writes what is still counted */
  capture_start ();
  g_clear_pointer (&log, jmem_refusal_log_free);
  g_assert_cmpuint (count_messages ("by uid 1001: summary: 50 more refused"), ==, 1);
  g_assert_cmpuint (count_messages ("by uid 1002"), ==, 0);
  capture_stop ();
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_log_set_writer_func (capture_writer, NULL, NULL);
  g_test_add_func ("/helper/log/record-is-one-line", test_record_is_one_line);
  g_test_add_func ("/helper/log/spelled-as-terminal", test_log_spelled_as_terminal);
  g_test_add_func ("/helper/log/refusal-flood-is-one-line", test_flood_is_one_line);
  g_test_add_func ("/helper/log/refusals-per-uid-and-steady", test_per_uid_and_steady);
  return g_test_run ();
}
