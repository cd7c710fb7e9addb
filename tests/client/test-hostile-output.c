/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Every byte jmem prints, end to end: the built client on a copy of a
 * captured tree made hostile at test time (a command line with U+202E and
 * escape sequences, an NvMap CLIENT with one, a 1 MiB command line, a name of
 * wide characters), and on arguments and file names that carry them. */
#include <gio/gio.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <string.h>

#include "jmem-test.h"
#include "jmem-text.h"

#define RLO    "\xe2\x80\xae"             /* U+202E RIGHT-TO-LEFT OVERRIDE */
#define ESC_SEQ "\x1b]0;pwned\x07\x1b[2J" /* set the title, clear the screen */
#define WIDE   "名前テスト"               /* 10 columns in 5 characters */
#define COLUMNS_TEXT "100"

static const char *jmem_exe;

/* Runs jmem with the arguments (NULL-terminated) and COLUMNS=@columns; the
 * output is kept as bytes, whatever they are. */
static void
run_jmem (JmemTestRun *r, const char *columns, ...)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GSubprocessLauncher) launcher =
    g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE);
  const char *arg;
  va_list ap;

  g_ptr_array_add (argv, (char *) jmem_exe);
  va_start (ap, columns);
  while ((arg = va_arg (ap, const char *)) != NULL)
    g_ptr_array_add (argv, (char *) arg);
  va_end (ap);
  g_ptr_array_add (argv, NULL);
  g_subprocess_launcher_setenv (launcher, "COLUMNS", columns, TRUE);
  g_subprocess_launcher_unsetenv (launcher, "NO_COLOR");
  jmem_test_run_spawn (r, launcher, (const char *const *) argv->pdata);
}

/* Neither ESC, BEL, U+202E nor a C1 CSI in @text: only their escaped forms. */
static void
assert_no_raw (const char *what, const char *text)
{
  if (strchr (text, '\x1b') != NULL || strchr (text, '\x07') != NULL ||
      strstr (text, RLO) != NULL || strstr (text, "\xc2\x9b") != NULL)
    g_error ("%s: raw control or bidi bytes reach the terminal:\n%s", what, text);
}

static void
write_file (const char *dir, const char *rel, const char *data, gssize len)
{
  g_autofree char *path = g_build_filename (dir, rel, NULL);
  g_autoptr(GError) error = NULL;

  g_file_set_contents (path, data, len, &error);
  g_assert_no_error (error);
}

/* Replaces the first line of @rel starting with @prefix by @line. */
static void
replace_line (const char *dir, const char *rel, const char *prefix, const char *line)
{
  g_autofree char *path = g_build_filename (dir, rel, NULL);
  g_autofree char *data = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) lines = NULL;
  g_autofree char *joined = NULL;
  gboolean found = FALSE;

  g_file_get_contents (path, &data, NULL, &error);
  g_assert_no_error (error);
  lines = g_strsplit (data, "\n", -1);
  for (guint i = 0; lines[i] != NULL && !found; i++)
    if (g_str_has_prefix (lines[i], prefix))
      {
        g_free (lines[i]);
        lines[i] = g_strdup (line);
        found = TRUE;
      }
  g_assert_true (found);
  joined = g_strjoinv ("\n", lines);
  write_file (dir, rel, joined, -1);
}

/* A copy of the Orin tree, made hostile: PID 1731 (Xorg) runs a command
 * line with U+202E and escape sequences, its NvMap CLIENT holds an escape
 * sequence, the NvMap row of the exited PID 5120 (a triage finding) names
 * it with both, PID 950 has a 1 MiB command line of two-byte characters, and
 * PID 2831 is named in wide characters with a long command line. */
typedef struct {
  char *root;
  char *tree;
} Tree;

static void
tree_clear (Tree *t)
{
  if (t->root != NULL)
    {
      g_autoptr(GSubprocess) rm = g_subprocess_new (G_SUBPROCESS_FLAGS_NONE, NULL,
                                                   "rm", "-rf", "--", t->root, NULL);
      g_assert_nonnull (rm);
      g_assert_true (g_subprocess_wait_check (rm, NULL, NULL));
    }
  g_free (t->root);
  g_free (t->tree);
}
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Tree, tree_clear)

static void
tree_make (Tree *t)
{
  g_autofree char *src = jmem_test_fixture ("trees", "orin-agx-nvgpu", NULL);
  g_autoptr(GSubprocess) cp = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GString) huge = g_string_new ("a");
  static const char evil_cmdline[] = "/usr/bin/evil" RLO "cod.exe\0--title=" ESC_SEQ "\0";

  t->root = jmem_test_make_tmp ("jmem-hostile-XXXXXX", &error);
  g_assert_no_error (error);
  t->tree = g_build_filename (t->root, "tree", NULL);
  cp = g_subprocess_new (G_SUBPROCESS_FLAGS_NONE, &error, "cp", "-R", "--", src, t->tree, NULL);
  g_assert_no_error (error);
  g_assert_true (g_subprocess_wait_check (cp, NULL, &error));
  g_assert_no_error (error);

  write_file (t->tree, "proc/1731/cmdline", evil_cmdline, sizeof evil_cmdline - 1);
  replace_line (t->tree, "sys/kernel/debug/nvmap/iovmm/clients", "user                   gst-launch-1.0",
                "user                   gst" RLO "x" ESC_SEQ "     5120      20480K");
  replace_line (t->tree, "sys/kernel/debug/nvmap/iovmm/allocations", "user                             Xorg",
                "us" ESC_SEQ "er                         Xorg     1731      18140K");
  /* "a" then "é" (2 bytes) up to 1 MiB: byte 4096 falls inside a character */
  while (huge->len < 1024 * 1024)
    g_string_append (huge, "\xc3\xa9");
  write_file (t->tree, "proc/950/cmdline", huge->str, (gssize) huge->len);
  replace_line (t->tree, "proc/2831/status", "Name:", "Name:\t" WIDE);
  write_file (t->tree, "proc/2831/cmdline",
              "/usr/bin/gnome-shell\0--mode=user\0--a-long-option-that-runs-past-the-edge\0"
              "--and-another-one-to-be-sure\0", -1);
}

/* The line of the processes table for @pid. */
static char *
process_row (const char *out, const char *pid)
{
  const char *table = strstr (out, "\nProcesses by footprint");
  g_auto(GStrv) lines = NULL;
  g_autofree char *prefix = g_strdup_printf ("  %7s ", pid);

  g_assert_nonnull (table);
  lines = g_strsplit (table, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    if (g_str_has_prefix (lines[i], prefix))
      return g_strdup (lines[i]);
  g_error ("no row for PID %s in:\n%s", pid, table);
  return NULL;
}

static void
test_snapshot_human (void)
{
  g_auto(Tree) t = { 0 };
  g_auto(JmemTestRun) r = { 0 };
  g_autofree char *row = NULL;

  tree_make (&t);
  run_jmem (&r, "300", "snapshot", "--all", "--sysroot", t.tree, NULL);
  g_assert_cmpint (r.status, ==, 0);
  assert_no_raw ("jmem snapshot", r.out);
  assert_no_raw ("jmem snapshot (stderr)", r.err);
  row = process_row (r.out, "1731");
  g_assert_nonnull (strstr (row, "evil\\u202ecod.exe --title=\\x1b]0;pwned\\x07\\x1b[2J"));
}

static void
test_triage_human (void)
{
  g_auto(Tree) t = { 0 };
  g_auto(JmemTestRun) r = { 0 };

  tree_make (&t);
  run_jmem (&r, COLUMNS_TEXT, "triage", "--sysroot", t.tree, NULL);
  g_assert_cmpint (r.status, ==, 0);
  assert_no_raw ("jmem triage", r.out);
  assert_no_raw ("jmem triage (stderr)", r.err);
  g_assert_nonnull (strstr (r.out, "PID 5120 (gst\\u202ex\\x1b]0;pwned\\x07\\x1b[2J, no such process)"));
}

static void
test_allocations_client (void)
{
  g_auto(Tree) t = { 0 };
  g_auto(JmemTestRun) r = { 0 };
  g_auto(JmemTestRun) j = { 0 };
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GError) error = NULL;
  JsonObject *first;

  tree_make (&t);
  run_jmem (&r, COLUMNS_TEXT, "allocations", "--sysroot", t.tree, NULL);
  g_assert_cmpint (r.status, ==, 0);
  assert_no_raw ("jmem allocations", r.out);
  g_assert_nonnull (strstr (r.out, "Xorg  PID 1731  us\\x1b]0;pwned\\x07\\x1b[2Jer  "));

  /* the JSON keeps the exact bytes, escaped the JSON way */
  run_jmem (&j, COLUMNS_TEXT, "allocations", "--json", "--sysroot", t.tree, NULL);
  g_assert_cmpint (j.status, ==, 0);
  g_assert_null (strchr (j.out, '\x1b'));
  root = json_from_string (j.out, &error);
  g_assert_no_error (error);
  first = json_array_get_object_element (json_object_get_array_member (json_node_get_object (root), "clients"), 0);
  g_assert_cmpstr (json_object_get_string_member (first, "client"), ==, "us" ESC_SEQ "er");
}

static JsonObject *
process_by_pid (JsonNode *root, gint64 pid)
{
  JsonObject *procs = json_object_get_object_member (json_node_get_object (root), "processes");
  JsonArray *list = json_object_get_array_member (procs, "list");

  for (guint i = 0; i < json_array_get_length (list); i++)
    {
      JsonObject *p = json_array_get_object_element (list, i);

      if (json_object_get_int_member (p, "pid") == pid)
        return p;
    }
  g_error ("no process %" G_GINT64_FORMAT, pid);
  return NULL;
}

static void
test_cmdline_cap (void)
{
  g_auto(Tree) t = { 0 };
  g_auto(JmemTestRun) r = { 0 };
  g_auto(JmemTestRun) human = { 0 };
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *row = NULL;
  JsonObject *p;
  const char *cmd;

  tree_make (&t);
  run_jmem (&r, COLUMNS_TEXT, "snapshot", "--json", "--all", "--sysroot", t.tree, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpuint (strlen (r.out), <, 64 * 1024);
  jmem_test_assert_valid (r.out, "snapshot.schema.json");
  root = json_from_string (r.out, &error);
  g_assert_no_error (error);

  p = process_by_pid (root, 950);
  cmd = json_object_get_string_member (p, "cmdline");
  /* 4096 bytes would end inside an "é": the cut keeps 4095 */
  g_assert_cmpuint (strlen (cmd), ==, JMEM_TEXT_MAX_CMDLINE_BYTES - 1);
  g_assert_true (g_utf8_validate (cmd, -1, NULL));
  g_assert_true (g_str_has_prefix (cmd, "a\xc3\xa9\xc3\xa9"));
  g_assert_true (json_object_get_boolean_member (p, "cmdline_truncated"));
  /* a short one is whole and says so */
  p = process_by_pid (root, 1731);
  g_assert_false (json_object_get_boolean_member (p, "cmdline_truncated"));
  g_assert_cmpstr (json_object_get_string_member (p, "cmdline"), ==,
                   "/usr/bin/evil" RLO "cod.exe --title=" ESC_SEQ);

  /* on the widest terminal the human view stops at the same 4 KiB, with … */
  run_jmem (&human, "10000", "snapshot", "--width", "10000", "--all", "--sysroot", t.tree, NULL);
  g_assert_cmpint (human.status, ==, 0);
  row = process_row (human.out, "950");
  g_assert_true (g_str_has_suffix (row, "\xc3\xa9…"));
  g_assert_cmpuint (strlen (row), <, JMEM_TEXT_MAX_CMDLINE_BYTES + 200);
}

/* A row of the processes table cut to --width 132 (one line a
 * process there) is exactly that wide; a wide-character name keeps its column. */
static void
test_snapshot_aligned (void)
{
  g_auto(Tree) t = { 0 };
  g_auto(JmemTestRun) r = { 0 };
  g_autofree char *wide = NULL;
  g_autofree char *other = NULL;
  const char *name_at;

  tree_make (&t);
  run_jmem (&r, COLUMNS_TEXT, "snapshot", "--width", "132", "--all", "--sysroot", t.tree, NULL);
  g_assert_cmpint (r.status, ==, 0);
  wide = process_row (r.out, "2831");
  other = process_row (r.out, "950");
  /* NAME is as wide as the widest name (15 columns), then two blanks */
  g_assert_nonnull (strstr (wide, WIDE "       /usr/bin/gnome"));
  /* the long command is cut to end exactly at the width */
  g_assert_true (g_str_has_suffix (other, "…"));
  g_assert_cmpuint (jmem_text_width (other), ==, 132);
  /* and the name starts in the same column as the others' */
  name_at = strstr (wide, WIDE);
  g_assert_cmpuint (name_at - wide, ==, strstr (other, "nvargus") - other);
}

/* The diff's NAME column is 20 terminal columns wide, whatever the name. */
static void
test_diff_aligned (void)
{
  g_auto(Tree) t = { 0 };
  g_auto(JmemTestRun) before = { 0 };
  g_auto(JmemTestRun) after = { 0 };
  g_auto(JmemTestRun) diff = { 0 };
  g_autofree char *before_path = NULL;
  g_autofree char *after_path = NULL;
  g_auto(GStrv) lines = NULL;
  gsize header_width = 0;
  guint n_rows = 0;
  gboolean saw_wide = FALSE;

  tree_make (&t);
  run_jmem (&before, COLUMNS_TEXT, "snapshot", "--json", "--all", "--sysroot", t.tree, NULL);
  g_assert_cmpint (before.status, ==, 0);
  /* every process grows: each one is a row of "changed" */
  for (guint i = 0; i < 2; i++)
    {
      const char *pid = i == 0 ? "2831" : "1731";
      g_autofree char *rel = g_build_filename ("proc", pid, "smaps_rollup", NULL);

      replace_line (t.tree, rel, "Rss:", "Rss:             9999999 kB");
    }
  run_jmem (&after, COLUMNS_TEXT, "snapshot", "--json", "--all", "--sysroot", t.tree, NULL);
  g_assert_cmpint (after.status, ==, 0);
  before_path = g_build_filename (t.root, "before.json", NULL);
  after_path = g_build_filename (t.root, "after.json", NULL);
  write_file (t.root, "before.json", before.out, -1);
  write_file (t.root, "after.json", after.out, -1);

  run_jmem (&diff, COLUMNS_TEXT, "diff", before_path, after_path, NULL);
  g_assert_cmpint (diff.status, ==, 0);
  assert_no_raw ("jmem diff", diff.out);
  lines = g_strsplit (diff.out, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      if (g_str_has_prefix (lines[i], "     PID  NAME"))
        header_width = jmem_text_width (lines[i]);
      else if (header_width > 0 && lines[i][0] == ' ' && g_ascii_isdigit (lines[i][7]))
        {
          g_assert_cmpuint (jmem_text_width (lines[i]), ==, header_width);
          saw_wide |= strstr (lines[i], WIDE) != NULL;
          n_rows++;
        }
      else
        header_width = 0;
    }
  g_assert_cmpuint (n_rows, >=, 2);
  g_assert_true (saw_wide);
}

/* A snapshot file may hold a name of any length: the diff's JSON carries
 * at most 4 KiB of it, valid against its schema, and the table stays 20
 * columns wide. */
static void
test_diff_caps (void)
{
  g_auto(Tree) t = { 0 };
  g_auto(JmemTestRun) snap = { 0 };
  g_auto(JmemTestRun) json = { 0 };
  g_auto(JmemTestRun) human = { 0 };
  g_autoptr(JsonNode) before = NULL;
  g_autoptr(JsonNode) after = NULL;
  g_autoptr(JsonNode) diff = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *huge = g_strnfill (100000, 'n');
  g_autofree char *before_text = NULL;
  g_autofree char *after_text = NULL;
  g_autofree char *before_path = NULL;
  g_autofree char *after_path = NULL;
  JsonArray *list;
  JsonObject *gone;
  const char *name;

  tree_make (&t);
  run_jmem (&snap, COLUMNS_TEXT, "snapshot", "--json", "--all", "--sysroot", t.tree, NULL);
  g_assert_cmpint (snap.status, ==, 0);
  before = json_from_string (snap.out, &error);
  g_assert_no_error (error);
  list = json_object_get_array_member (json_object_get_object_member (json_node_get_object (before), "processes"), "list");
  json_object_set_string_member (json_array_get_object_element (list, 0), "name", huge);
  before_text = json_to_string (before, FALSE);
  /* the process exits: after is before without it */
  after = json_from_string (before_text, &error);
  g_assert_no_error (error);
  list = json_object_get_array_member (json_object_get_object_member (json_node_get_object (after), "processes"), "list");
  json_array_remove_element (list, 0);
  after_text = json_to_string (after, FALSE);
  before_path = g_build_filename (t.root, "before.json", NULL);
  after_path = g_build_filename (t.root, "after.json", NULL);
  write_file (t.root, "before.json", before_text, -1);
  write_file (t.root, "after.json", after_text, -1);

  run_jmem (&json, COLUMNS_TEXT, "diff", "--json", before_path, after_path, NULL);
  g_assert_cmpint (json.status, ==, 0);
  g_assert_cmpuint (strlen (json.out), <, 64 * 1024);
  diff = json_from_string (json.out, &error);
  g_assert_no_error (error);
  gone = json_array_get_object_element (json_object_get_array_member (
           json_object_get_object_member (json_node_get_object (diff), "processes"), "exited"), 0);
  name = json_object_get_string_member (gone, "name");
  g_assert_cmpuint (strlen (name), ==, JMEM_TEXT_MAX_FIELD_BYTES + strlen ("…"));
  g_assert_true (g_str_has_suffix (name, "n…"));
  jmem_test_assert_valid (json.out, "diff.schema.json");

  run_jmem (&human, COLUMNS_TEXT, "diff", before_path, after_path, NULL);
  g_assert_cmpint (human.status, ==, 0);
  g_assert_nonnull (strstr (human.out, "nnnnnnnnnnnnnnnnnnn… "));
  g_assert_null (strstr (human.out, "nnnnnnnnnnnnnnnnnnnn"));
}

/* Arguments and file names are echoed escaped on stderr. */
static void
test_errors_escaped (void)
{
  g_auto(JmemTestRun) command = { 0 };
  g_auto(JmemTestRun) option = { 0 };
  g_auto(JmemTestRun) file = { 0 };
  g_auto(JmemTestRun) extra = { 0 };
  g_autofree char *missing = g_build_filename (g_get_tmp_dir (), "jmem-no-such-" ESC_SEQ RLO ".json", NULL);

  run_jmem (&command, COLUMNS_TEXT, "snap" ESC_SEQ RLO, NULL);
  g_assert_cmpint (command.status, ==, 64);
  assert_no_raw ("unknown command", command.err);
  g_assert_nonnull (strstr (command.err, "snap\\x1b]0;pwned\\x07\\x1b[2J\\u202e"));

  run_jmem (&option, COLUMNS_TEXT, "snapshot", "--top", "1" ESC_SEQ, NULL);
  g_assert_cmpint (option.status, ==, 64);
  assert_no_raw ("bad option value", option.err);

  run_jmem (&extra, COLUMNS_TEXT, "snapshot", "x" ESC_SEQ RLO, NULL);
  g_assert_cmpint (extra.status, ==, 64);
  assert_no_raw ("unexpected argument", extra.err);

  run_jmem (&file, COLUMNS_TEXT, "diff", missing, missing, NULL);
  g_assert_cmpint (file.status, ==, 66);
  assert_no_raw ("missing file", file.err);
  g_assert_nonnull (strstr (file.err, "\\u202e"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  jmem_exe = g_getenv ("JMEM_EXE");
  g_assert_nonnull (jmem_exe);

  g_test_add_func ("/hostile-output/snapshot", test_snapshot_human);
  g_test_add_func ("/hostile-output/triage", test_triage_human);
  g_test_add_func ("/hostile-output/allocations-client", test_allocations_client);
  g_test_add_func ("/hostile-output/cmdline-cap", test_cmdline_cap);
  g_test_add_func ("/hostile-output/snapshot-aligned", test_snapshot_aligned);
  g_test_add_func ("/hostile-output/diff-aligned", test_diff_aligned);
  g_test_add_func ("/hostile-output/diff-caps", test_diff_caps);
  g_test_add_func ("/hostile-output/errors-escaped", test_errors_escaped);
  return g_test_run ();
}
