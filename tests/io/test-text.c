/* SPDX-License-Identifier: GPL-2.0-or-later */
/* jmem-text: what reaches a terminal and how wide it is there. */
#include <string.h>

#include "jmem-text.h"

static void
assert_escaped (const char *in, const char *want)
{
  g_autofree char *got = jmem_text_escape (in);

  g_assert_cmpstr (got, ==, want);
}

static void
test_escape_controls (void)
{
  assert_escaped ("plain name", "plain name");
  assert_escaped ("a\nb\tc\\d", "a\\nb\\tc\\\\d");
  assert_escaped ("a\r\nb", "a\\x0d\\nb");
  assert_escaped ("\x1b[31mred\x1b[0m", "\\x1b[31mred\\x1b[0m");
  assert_escaped ("\x01\x1f", "\\x01\\x1f");
  assert_escaped ("del\x7f", "del\\x7f");
  /* C1 controls in their UTF-8 form: U+0080, U+0085 (NEL), U+009B (CSI), U+009F */
  assert_escaped ("\xc2\x80\xc2\x85\xc2\x9b\xc2\x9f", "\\u0080\\u0085\\u009b\\u009f");
  /* the first character after C1 is printable */
  assert_escaped ("\xc2\xa0", "\xc2\xa0");
}

static void
test_escape_hiding (void)
{
  static const struct { gunichar c; const char *want; } cases[] = {
    { 0x061c, "\\u061c" },
    { 0x200b, "\\u200b" }, { 0x200e, "\\u200e" }, { 0x200f, "\\u200f" },
    { 0x2028, "\\u2028" }, { 0x2029, "\\u2029" },
    { 0x202a, "\\u202a" }, { 0x202e, "\\u202e" },
    { 0x2060, "\\u2060" }, { 0x2064, "\\u2064" },
    { 0x2066, "\\u2066" }, { 0x2069, "\\u2069" },
    { 0xfeff, "\\ufeff" },
    /* by class: the soft hyphen and other format characters, private use,
     * code points with no character; beyond U+FFFF eight digits */
    { 0x00ad, "\\u00ad" }, { 0x206a, "\\u206a" },
    { 0x0378, "\\u0378" }, { 0x2065, "\\u2065" }, { 0xfefe, "\\ufefe" }, { 0xe000, "\\ue000" },
    { 0xe0001, "\\U000e0001" }, { 0xe007f, "\\U000e007f" }, { 0xf0000, "\\U000f0000" },
  };
  /* neighbours of the ranges are ordinary text, and so are the replacement
   * character and characters beyond U+FFFF */
  static const gunichar kept[] = { 0x200a, 0x2010, 0x2027, 0x202f, 0x205f, 0xfefc, 0xfffd, 0x1f600 };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      char in[16] = "x";
      g_autofree char *want = g_strconcat ("x", cases[i].want, "y", NULL);

      g_unichar_to_utf8 (cases[i].c, in + 1);
      strcat (in, "y");
      assert_escaped (in, want);
    }
  for (gsize i = 0; i < G_N_ELEMENTS (kept); i++)
    {
      char in[8] = { 0 };

      g_unichar_to_utf8 (kept[i], in);
      assert_escaped (in, in);
    }
  /* the classic: a right-to-left override that makes "exe.doc" read "cod.exe" */
  assert_escaped ("evil\xe2\x80\xae" "cod.exe", "evil\\u202ecod.exe");
}

/* A log line keeps what a caller sent: each byte that starts no character
 * is written as the byte it is, and what follows it reads as before. */
static void
test_escape_not_utf8 (void)
{
  static const struct { const char *in, *want; } cases[] = {
    { "caf\xc3\xa9", "caf\xc3\xa9" },
    { "bad\xff\xfe", "bad\\xff\\xfe" },
    { "cut\xe2\x80", "cut\\xe2\\x80" },
    { "\xe2\x80\xae\xe2\x80" "x\x1b", "\\u202e\\xe2\\x80x\\x1b" },
    { "overlong\xc0\xaf", "overlong\\xc0\\xaf" },
    /* the byte 0x85 and the character U+0085 (NEL) read differently */
    { "\x85|\xc2\x85", "\\x85|\\u0085" },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *got = jmem_text_escape (cases[i].in);

      g_assert_cmpstr (got, ==, cases[i].want);
      g_assert_true (g_utf8_validate (got, -1, NULL));
    }
}

static void
test_for_terminal (void)
{
  g_autofree char *invalid = jmem_text_for_terminal ("a\xff\xfe" "b\x1b");
  g_autofree char *none = jmem_text_for_terminal (NULL);

  /* invalid bytes become U+FFFD first, so nothing raw survives */
  g_assert_cmpstr (invalid, ==, "a\xef\xbf\xbd\xef\xbf\xbd" "b\\x1b");
  g_assert_cmpstr (none, ==, "");
}

static void
test_width (void)
{
  g_assert_cmpuint (jmem_text_width (""), ==, 0);
  g_assert_cmpuint (jmem_text_width ("abc"), ==, 3);
  g_assert_cmpuint (jmem_text_width ("\xef\xbf\xbd\xef\xbf\xbd"), ==, 2);        /* U+FFFD U+FFFD */
  g_assert_cmpuint (jmem_text_width ("名前"), ==, 4);                               /* CJK: wide */
  g_assert_cmpuint (jmem_text_width ("ｗ"), ==, 2);                                 /* fullwidth Latin */
  g_assert_cmpuint (jmem_text_width ("e\xcc\x81"), ==, 1);                          /* e + combining acute */
  g_assert_cmpuint (jmem_text_width ("…"), ==, 1);
}

static void
assert_fit (const char *in, gsize cols, gboolean pad, const char *want)
{
  g_autofree char *got = jmem_text_fit_width (in, cols, pad);

  g_assert_cmpstr (got, ==, want);
  if (pad)
    g_assert_cmpuint (jmem_text_width (got), ==, cols);
  else
    g_assert_cmpuint (jmem_text_width (got), <=, cols);
}

static void
test_fit_width (void)
{
  assert_fit ("abc", 5, TRUE, "abc  ");
  assert_fit ("abc", 5, FALSE, "abc");
  assert_fit ("abc", 3, TRUE, "abc");
  assert_fit ("abcdef", 4, TRUE, "abc…");
  assert_fit ("abcdef", 1, TRUE, "…");
  assert_fit ("abcdef", 0, TRUE, "");
  /* wide characters count twice: 名前 fills 4 columns exactly */
  assert_fit ("名前", 4, TRUE, "名前");
  assert_fit ("名前", 6, TRUE, "名前  ");
  /* a cut that falls inside a wide character leaves a blank, not a half */
  assert_fit ("名前テスト", 6, TRUE, "名前… ");
  assert_fit ("名前テスト", 6, FALSE, "名前…");
  assert_fit ("名前テスト", 7, TRUE, "名前テ…");
  assert_fit ("\xef\xbf\xbd\xef\xbf\xbd" "abc", 4, TRUE, "\xef\xbf\xbd\xef\xbf\xbd" "a…");
}

static void
test_cap_bytes (void)
{
  gboolean cut = TRUE;
  g_autofree char *same = jmem_text_cap_bytes ("abcd", 4, &cut);
  g_autofree char *ascii = NULL;
  g_autofree char *mid = NULL;
  g_autofree char *field = NULL;
  g_autoptr(GString) big = g_string_new ("a");

  g_assert_cmpstr (same, ==, "abcd");
  g_assert_false (cut);
  ascii = jmem_text_cap_bytes ("abcdef", 4, &cut);
  g_assert_cmpstr (ascii, ==, "abcd");
  g_assert_true (cut);
  /* "aé€": 1 + 2 + 3 bytes; a cap at 4 or 5 bytes falls inside "€" */
  mid = jmem_text_cap_bytes ("a\xc3\xa9\xe2\x82\xac", 5, &cut);
  g_assert_cmpstr (mid, ==, "a\xc3\xa9");
  g_assert_true (cut);
  g_clear_pointer (&mid, g_free);
  mid = jmem_text_cap_bytes ("a\xc3\xa9\xe2\x82\xac", 2, &cut);
  g_assert_cmpstr (mid, ==, "a");

  for (guint i = 0; i < JMEM_TEXT_MAX_FIELD_BYTES; i++)
    g_string_append (big, "\xc3\xa9");
  field = jmem_text_cap_field (big->str);
  g_assert_true (g_utf8_validate (field, -1, NULL));
  g_assert_true (g_str_has_suffix (field, "…"));
  g_assert_cmpuint (strlen (field), <=, JMEM_TEXT_MAX_FIELD_BYTES + strlen ("…"));
  g_assert_cmpuint (strlen (field), >=, JMEM_TEXT_MAX_FIELD_BYTES - 1);
}

static void
test_parse_numbers (void)
{
  guint64 v = 0;

  g_assert_true (jmem_text_parse_decimal ("18446744073709551615", 20, G_MAXUINT64, &v));
  g_assert_cmpuint (v, ==, G_MAXUINT64);
  g_assert_false (jmem_text_parse_decimal ("18446744073709551616", 20, G_MAXUINT64, &v));
  g_assert_true (jmem_text_parse_decimal ("4294967295", 10, G_MAXUINT32, &v));
  g_assert_false (jmem_text_parse_decimal ("4294967296", 10, G_MAXUINT32, &v));
  g_assert_true (jmem_text_parse_decimal ("1", 1, 1, &v));
  g_assert_false (jmem_text_parse_decimal ("2", 1, 1, &v));
  /* every byte a digit: no sign, space, or empty */
  g_assert_false (jmem_text_parse_decimal ("", 0, G_MAXUINT64, &v));
  g_assert_false (jmem_text_parse_decimal ("+1", 2, G_MAXUINT64, &v));
  g_assert_false (jmem_text_parse_decimal (" 1", 2, G_MAXUINT64, &v));
  g_assert_false (jmem_text_parse_decimal ("1x", 2, G_MAXUINT64, &v));
  /* only @n bytes are read */
  g_assert_true (jmem_text_parse_decimal ("12junk", 2, G_MAXUINT64, &v));
  g_assert_cmpuint (v, ==, 12);

  g_assert_true (jmem_text_parse_hex ("ffffffffffffffff", 16, G_MAXUINT64, &v));
  g_assert_cmpuint (v, ==, G_MAXUINT64);
  g_assert_false (jmem_text_parse_hex ("10000000000000000", 17, G_MAXUINT64, &v));
  g_assert_true (jmem_text_parse_hex ("00000000ffff8a00", 16, G_MAXUINT64, &v));
  g_assert_cmpuint (v, ==, 0xffff8a00);
  g_assert_true (jmem_text_parse_hex ("FFFFFFFF", 8, G_MAXUINT32, &v));
  g_assert_false (jmem_text_parse_hex ("100000000", 9, G_MAXUINT32, &v));
  g_assert_false (jmem_text_parse_hex ("0x10", 4, G_MAXUINT64, &v));
  g_assert_false (jmem_text_parse_hex ("", 0, G_MAXUINT64, &v));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/text/escape/controls", test_escape_controls);
  g_test_add_func ("/text/escape/hiding", test_escape_hiding);
  g_test_add_func ("/text/escape/not-utf8", test_escape_not_utf8);
  g_test_add_func ("/text/for-terminal", test_for_terminal);
  g_test_add_func ("/text/width", test_width);
  g_test_add_func ("/text/fit-width", test_fit_width);
  g_test_add_func ("/text/cap-bytes", test_cap_bytes);
  g_test_add_func ("/text/parse-numbers", test_parse_numbers);
  return g_test_run ();
}
