/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The one size reader (jmem-size.c): what it takes, and every refusal with
 * a message that says why and what a size looks like. */
#include <string.h>

#include "jmem-error.h"
#include "jmem-size.h"

#define GIB (G_GUINT64_CONSTANT (1) << 30)

static void
test_accepted (void)
{
  static const struct { const char *text; guint64 bytes; } cases[] = {
    { "6G", 6 * GIB }, { "6GiB", 6 * GIB }, { "6gib", 6 * GIB }, { "6GB", 6 * GIB },
    { "6g", 6 * GIB }, { "6144M", 6 * GIB }, { "6144MiB", 6 * GIB }, { "6291456K", 6 * GIB },
    { "6 G", 6 * GIB }, { " 6G\n", 6 * GIB }, { "6\tGiB", 6 * GIB },
    { "1.5G", 3 * GIB / 2 }, { "0.5M", 512 * 1024 }, { ".5K", 512 },
    /* a fraction rounds up: a need is never read smaller */
    { "0.001K", 2 }, { "1.001K", 1026 },
    { "4096", 4096 }, { "4096B", 4096 }, { "4096b", 4096 }, { "0", 0 }, { "00012", 12 },
    { "512k", 512 * 1024 }, { "512KB", 512 * 1024 }, { "1T", G_GUINT64_CONSTANT (1) << 40 },
    { "4P", JMEM_SIZE_MAX_BYTES }, { "4096T", JMEM_SIZE_MAX_BYTES },
    { "4503599627370496", JMEM_SIZE_MAX_BYTES },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      guint64 bytes = 1;

      g_test_message ("%s", cases[i].text);
      g_assert_true (jmem_size_parse (cases[i].text, &bytes, &error));
      g_assert_no_error (error);
      g_assert_cmpuint (bytes, ==, cases[i].bytes);
    }
}

static void
test_refused (void)
{
  static const struct { const char *text; const char *why; } cases[] = {
    { "-1", "cannot be negative" },
    { "-6G", "cannot be negative" },
    { "+6G", "no sign" },
    { "1e999", "exponents" },
    { "1E9", "exponents" },
    { "6e-3G", "exponents" },
    { "6X", "unknown unit \"X\"" },
    { "6GiBs", "unknown unit \"GiBs\"" },
    { "6 gigabytes", "unknown unit" },
    { "6Gi", "unknown unit" },
    { "6KiB ", NULL },
    { "", "empty" },
    { "   ", "empty" },
    { "G", "does not start with a number" },
    { "0x10", "unknown unit \"x10\"" },
    { "5.G", "no digit after the decimal point" },
    { "1.2345G", "more than 3 digits" },
    { "1.5", "whole" },
    { "1.5B", "whole" },
    { "5G5", "unknown unit \"G5\"" },
    { "6 6G", "unknown unit" },
    /* 2^64, and past the 4 PiB any RAM has */
    { "18446744073709551616", "more than 4 PiB" },
    { "99999999999999999999999999", "more than 4 PiB" },
    { "4503599627370497", "more than 4 PiB" },
    { "4.001P", "more than 4 PiB" },
    { "5P", "more than 4 PiB" },
    { "16E", "unknown unit \"E\"" },
    { "\xff\xfe" "6G", "does not start with a number" },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      guint64 bytes = 7;
      gboolean ok;

      g_autofree char *shown = g_strescape (cases[i].text, NULL);

      g_test_message ("%s", shown);
      ok = jmem_size_parse (cases[i].text, &bytes, &error);
      if (cases[i].why == NULL)
        {
          /* trailing blanks are no part of the unit */
          g_assert_true (ok);
          continue;
        }
      g_assert_false (ok);
      g_assert_error (error, JMEM_ERROR, JMEM_ERROR_INVALID_ARGUMENT);
      g_assert_cmpuint (bytes, ==, 7);
      g_test_message ("  %s", error->message);
      g_assert_nonnull (strstr (error->message, cases[i].why));
      g_assert_nonnull (strstr (error->message, "6G, 6GiB, 6144M"));
      g_assert_true (g_utf8_validate (error->message, -1, NULL));
      g_assert_true (g_str_has_prefix (error->message, "\""));
    }
}

static void
test_null_and_long (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *long_text = g_strnfill (10000, '7');
  guint64 bytes;

  g_assert_false (jmem_size_parse (NULL, &bytes, &error));
  g_assert_nonnull (strstr (error->message, "empty"));
  g_clear_error (&error);
  /* a long text is quoted in part only */
  g_assert_false (jmem_size_parse (long_text, &bytes, &error));
  g_assert_cmpuint (strlen (error->message), <, 400);
}

/* A decimal unit's name is read as the binary unit, and the note says so;
 * a binary unit, bytes or a bare letter need no note. */
static void
test_unit_note (void)
{
  const struct {
    const char *text;
    const char *note;
  } cases[] = {
    { "4GB", "4 GB read as 4 GiB" },
    { "4gb", "4 GB read as 4 GiB" },
    { "1.5 mb", "1.5 MB read as 1.5 MiB" },
    { " 512KB ", "512 KB read as 512 KiB" },
    { "2TB", "2 TB read as 2 TiB" },
    { "4G", NULL },
    { "4GiB", NULL },
    { "4096", NULL },
    { "4096B", NULL },
    { "GB", NULL },
    { "", NULL },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *note = jmem_size_unit_note (cases[i].text);

      g_assert_cmpstr (note, ==, cases[i].note);
    }
  g_assert_null (jmem_size_unit_note (NULL));
}

/* What a printed command is given reads back to the same size, in the
 * largest unit that divides it. */
static void
test_option_text (void)
{
  static const struct { gint64 kib; const char *text; } cases[] = {
    { 6 * 1024 * 1024, "6G" }, { 7680 * 1024, "7680M" }, { 512 * 1024, "512M" },
    { 100, "100K" }, { 1, "1K" }, { 0, "0K" },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *text = jmem_size_option_text (cases[i].kib);
      g_autoptr(GError) error = NULL;
      guint64 bytes = 0;

      g_assert_cmpstr (text, ==, cases[i].text);
      g_assert_true (jmem_size_parse (text, &bytes, &error));
      g_assert_no_error (error);
      g_assert_cmpuint (bytes, ==, (guint64) cases[i].kib * 1024);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/size/accepted", test_accepted);
  g_test_add_func ("/size/refused", test_refused);
  g_test_add_func ("/size/null-and-long", test_null_and_long);
  g_test_add_func ("/size/unit-note", test_unit_note);
  g_test_add_func ("/size/option-text", test_option_text);
  return g_test_run ();
}
