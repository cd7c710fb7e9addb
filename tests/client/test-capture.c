/* SPDX-License-Identifier: GPL-2.0-or-later */
/* jmem capture and --sysroot as the files they touch see them: a capture
 * run as root refuses directories others own or can write, makes 0600
 * files and 0700 directories, and writes nothing outside its directory
 * while someone swaps its subdirectories for links; a captured tree with
 * links, FIFOs or linked directories is read without leaving it or
 * hanging. Trees are copied from fixtures/trees/orin-agx-nvgpu into a
 * temporary directory and removed afterwards. */
#include <gio/gio.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jmem-test.h"

#include "jmem-capture.h"
#include "jmem-glib-compat.h"
#include "jmem-nvmap.h"
#include "jmem-root.h"
#include "jmem-text.h"

#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif

static void
remove_tree (const char *path)
{
  const char *argv[] = { "rm", "-rf", path, NULL };
  g_auto(JmemTestRun) r = { 0 };

  jmem_test_run_spawn (&r, NULL, argv);
  g_assert_cmpint (r.status, ==, 0);
}

/* A fresh copy of the Orin fixture tree under @base. */
static char *
copy_tree (const char *base)
{
  g_autofree char *src = jmem_test_fixture ("trees", "orin-agx-nvgpu", NULL);
  char *dst = g_build_filename (base, "tree", NULL);
  const char *argv[] = { "cp", "-a", src, dst, NULL };
  g_auto(JmemTestRun) r = { 0 };

  jmem_test_run_spawn (&r, NULL, argv);
  g_assert_cmpint (r.status, ==, 0);
  return dst;
}

/* `jmem snapshot --json --all --sysroot TREE`, killed after 20 s. */
static JsonNode *
snapshot_of (const char *tree, JmemTestRun *r)
{
  const char *args[] = { "snapshot", "--json", "--all", "--no-ask-password", "--sysroot", tree, NULL };
  g_autoptr(GError) error = NULL;
  JsonNode *node;

  jmem_test_run_jmem_within (r, 20, NULL, args);
  g_assert_cmpint (r->status, ==, 0);
  node = json_from_string (r->out, &error);
  g_assert_no_error (error);
  return node;
}

static gboolean
has_warning (JsonNode *root, const char *source, const char *needle)
{
  JsonArray *w = json_object_get_array_member (json_node_get_object (root), "warnings");

  for (guint i = 0; i < json_array_get_length (w); i++)
    {
      JsonObject *o = json_array_get_object_element (w, i);
      if (g_str_equal (json_object_get_string_member (o, "source"), source) &&
          strstr (json_object_get_string_member (o, "message"), needle) != NULL)
        return TRUE;
    }
  return FALSE;
}

static JsonObject *
process_by_pid (JsonNode *root, gint64 pid)
{
  JsonArray *list = json_object_get_array_member (
    json_object_get_object_member (json_node_get_object (root), "processes"), "list");

  for (guint i = 0; i < json_array_get_length (list); i++)
    {
      JsonObject *p = json_array_get_object_element (list, i);
      if (json_object_get_int_member (p, "pid") == pid)
        return p;
    }
  return NULL;
}

/* ---- --sysroot ---------------------------------------------------------- */

/* A link inside the tree to a file of this machine is not read. */
static void
test_sysroot_symlink_file (void)
{
  g_autofree char *base = jmem_test_make_tmp ("jmem-sysroot-XXXXXX", NULL);
  g_autofree char *tree = copy_tree (base);
  g_autofree char *secret = g_build_filename (base, "secret", NULL);
  g_autofree char *cmdline = g_build_filename (tree, "proc", "1731", "cmdline", NULL);
  g_autoptr(JsonNode) snap = NULL;
  g_auto(JmemTestRun) r = { 0 };
  JsonObject *p;

  g_assert_true (g_file_set_contents (secret, "LOCAL-SECRET-4f1e", -1, NULL));
  g_assert_cmpint (g_unlink (cmdline), ==, 0);
  g_assert_cmpint (symlink (secret, cmdline), ==, 0);

  snap = snapshot_of (tree, &r);
  g_assert_null (strstr (r.out, "LOCAL-SECRET-4f1e"));
  g_assert_true (has_warning (snap, "sysroot", "proc/1731/cmdline"));
  p = process_by_pid (snap, 1731);
  g_assert_nonnull (p);  /* the process itself is still reported */

  remove_tree (base);
}

/* A FIFO in place of proc/meminfo neither blocks nor is read. */
static void
test_sysroot_fifo (void)
{
  g_autofree char *base = jmem_test_make_tmp ("jmem-sysroot-XXXXXX", NULL);
  g_autofree char *tree = copy_tree (base);
  g_autofree char *meminfo = g_build_filename (tree, "proc", "meminfo", NULL);
  g_autoptr(JsonNode) snap = NULL;
  g_auto(JmemTestRun) r = { 0 };

  g_assert_cmpint (g_unlink (meminfo), ==, 0);
  g_assert_cmpint (mkfifo (meminfo, 0600), ==, 0);

  snap = snapshot_of (tree, &r);
  g_assert_true (has_warning (snap, "sysroot", "proc/meminfo is not a regular file"));
  g_assert_true (has_warning (snap, "meminfo", "no memory totals"));

  remove_tree (base);
}

/* A directory of the tree that is a link (here to a process directory
 * outside it) is not entered. */
static void
test_sysroot_symlink_dir (void)
{
  g_autofree char *base = jmem_test_make_tmp ("jmem-sysroot-XXXXXX", NULL);
  g_autofree char *tree = copy_tree (base);
  g_autofree char *pid_dir = g_build_filename (tree, "proc", "1731", NULL);
  g_autofree char *outside = g_build_filename (base, "1731", NULL);
  g_autoptr(JsonNode) snap = NULL;
  g_autoptr(JsonNode) before = NULL;
  g_auto(JmemTestRun) r0 = { 0 };
  g_auto(JmemTestRun) r = { 0 };

  /* The process is there while its directory is a real one. */
  before = snapshot_of (tree, &r0);
  g_assert_nonnull (process_by_pid (before, 1731));

  g_assert_cmpint (g_rename (pid_dir, outside), ==, 0);
  g_assert_cmpint (symlink (outside, pid_dir), ==, 0);
  snap = snapshot_of (tree, &r);
  g_assert_null (process_by_pid (snap, 1731));
  g_assert_true (has_warning (snap, "sysroot", "proc/1731 is a symbolic link"));

  remove_tree (base);
}

/* The whole proc/ a link: nothing to analyse, and the refusal says why. */
static void
test_sysroot_symlink_proc (void)
{
  g_autofree char *base = jmem_test_make_tmp ("jmem-sysroot-XXXXXX", NULL);
  g_autofree char *tree = copy_tree (base);
  g_autofree char *proc = g_build_filename (tree, "proc", NULL);
  g_autofree char *outside = g_build_filename (base, "proc", NULL);
  const char *args[] = { "snapshot", "--json", "--no-ask-password", "--sysroot", tree, NULL };
  g_auto(JmemTestRun) r = { 0 };

  g_assert_cmpint (g_rename (proc, outside), ==, 0);
  g_assert_cmpint (symlink (outside, proc), ==, 0);
  jmem_test_run_jmem_within (&r, 20, NULL, args);
  g_assert_cmpint (r.status, ==, 69);
  g_assert_nonnull (strstr (r.err, "proc is a symbolic link"));

  remove_tree (base);
}

/* ---- capture: the directory ------------------------------------------- */

static void
capture (const char *dir, JmemTestRun *r)
{
  const char *args[] = { "capture", "--no-ask-password", dir, NULL };

  jmem_test_run_jmem_within (r, 120, NULL, args);
}

static gboolean
dir_is_empty (const char *path)
{
  g_autoptr(GDir) d = g_dir_open (path, 0, NULL);

  g_assert_nonnull (d);
  return g_dir_read_name (d) == NULL;
}

/* Every directory 0700, every file 0600, the captured links only links. */
static void
check_modes (const char *path, guint *n_files, guint64 *n_bytes)
{
  g_autoptr(GDir) d = g_dir_open (path, 0, NULL);
  const char *name;

  g_assert_nonnull (d);
  while ((name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *child = g_build_filename (path, name, NULL);
      struct stat st;

      g_assert_cmpint (lstat (child, &st), ==, 0);
      if (S_ISDIR (st.st_mode))
        {
          if ((st.st_mode & 07777) != 0700)
            g_error ("%s has mode %04o, not 0700", child, st.st_mode & 07777);
          check_modes (child, n_files, n_bytes);
        }
      else if (S_ISREG (st.st_mode))
        {
          if ((st.st_mode & 07777) != 0600)
            g_error ("%s has mode %04o, not 0600", child, st.st_mode & 07777);
          (*n_files)++;
          *n_bytes += (guint64) st.st_size;
        }
      else
        g_assert_true (S_ISLNK (st.st_mode));
    }
}

/* stdout is one line: the files and bytes captured, and the command that
 * reads them, the directory written as @word. */
static void
assert_written_line (const char *out, const char *word,
                     guint n_files, guint64 n_bytes)
{
  g_autofree char *size = jmem_text_size ((gint64) ((n_bytes + 1023) / 1024));
  g_autofree char *expected =
    g_strdup_printf ("Wrote %u files (%s) to %s; analyse it with: jmem snapshot --sysroot %s\n",
                     n_files, size, word, word);

  g_assert_cmpstr (out, ==, expected);
}

static void
test_capture_modes (void)
{
  g_autofree char *base = jmem_test_make_tmp ("jmem-capture-XXXXXX", NULL);
  g_autofree char *dir = g_build_filename (base, "cap", NULL);
  g_auto(JmemTestRun) r = { 0 };
  struct stat st;
  guint n_files = 0;
  guint64 n_bytes = 0;
  mode_t old = umask (022);

  capture (dir, &r);
  umask (old);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpint (stat (dir, &st), ==, 0);
  g_assert_cmpuint (st.st_uid, ==, geteuid ());
  g_assert_cmpint (st.st_mode & 07777, ==, 0700);
  check_modes (dir, &n_files, &n_bytes);
  g_assert_cmpuint (n_files, >, 10);
  assert_written_line (r.out, dir, n_files, n_bytes);

  remove_tree (base);
}

static void
assert_refused (const char *dir, const char *why)
{
  g_auto(JmemTestRun) r = { 0 };

  capture (dir, &r);
  g_assert_cmpint (r.status, ==, 73);
  g_assert_cmpstr (r.out, ==, "");
  if (strstr (r.err, why) == NULL)
    g_error ("jmem capture %s said \"%s\", not why (%s)", dir, r.err, why);
}

/* An empty directory another user owns: that user could swap what root
 * writes into it. */
static void
test_capture_other_owner (void)
{
  g_autofree char *base = NULL;
  g_autofree char *dir = NULL;
  struct passwd *nobody = getpwnam ("nobody");

  if (geteuid () != 0 || nobody == NULL)
    {
      g_test_skip ("needs root and a \"nobody\" account to own a directory");
      return;
    }
  base = jmem_test_make_tmp ("jmem-capture-XXXXXX", NULL);
  dir = g_build_filename (base, "cap", NULL);
  g_assert_cmpint (g_mkdir (dir, 0700), ==, 0);
  g_assert_cmpint (chown (dir, nobody->pw_uid, nobody->pw_gid), ==, 0);

  assert_refused (dir, "belongs to uid");
  g_assert_true (dir_is_empty (dir));

  remove_tree (base);
}

static void
test_capture_group_writable (void)
{
  g_autofree char *base = jmem_test_make_tmp ("jmem-capture-XXXXXX", NULL);
  g_autofree char *dir = g_build_filename (base, "cap", NULL);

  g_assert_cmpint (g_mkdir (dir, 0700), ==, 0);
  g_assert_cmpint (chmod (dir, 0770), ==, 0);
  assert_refused (dir, "writable by its group or by others");
  g_assert_true (dir_is_empty (dir));

  g_assert_cmpint (chmod (dir, 0703), ==, 0);
  assert_refused (dir, "writable by its group or by others");
  g_assert_true (dir_is_empty (dir));

  remove_tree (base);
}

static void
test_capture_not_empty (void)
{
  g_autofree char *base = jmem_test_make_tmp ("jmem-capture-XXXXXX", NULL);
  g_autofree char *dir = g_build_filename (base, "cap", NULL);
  g_autofree char *file = g_build_filename (dir, "keep", NULL);
  g_autofree char *data = NULL;

  g_assert_cmpint (g_mkdir (dir, 0700), ==, 0);
  g_assert_true (g_file_set_contents (file, "mine", -1, NULL));
  assert_refused (dir, "not empty");
  g_assert_true (g_file_get_contents (file, &data, NULL, NULL));
  g_assert_cmpstr (data, ==, "mine");

  remove_tree (base);
}

/* DIR given as a link to an empty directory: the link is not followed. */
static void
test_capture_symlink_dir (void)
{
  g_autofree char *base = jmem_test_make_tmp ("jmem-capture-XXXXXX", NULL);
  g_autofree char *target = g_build_filename (base, "elsewhere", NULL);
  g_autofree char *dir = g_build_filename (base, "cap", NULL);

  g_assert_cmpint (g_mkdir (target, 0700), ==, 0);
  g_assert_cmpint (symlink (target, dir), ==, 0);
  assert_refused (dir, "symbolic link");
  g_assert_true (dir_is_empty (target));

  remove_tree (base);
}

/* An existing empty directory of the caller's is taken, and closed to others. */
static void
test_capture_own_empty (void)
{
  g_autofree char *base = jmem_test_make_tmp ("jmem-capture-XXXXXX", NULL);
  g_autofree char *dir = g_build_filename (base, "cap", NULL);
  g_auto(JmemTestRun) r = { 0 };
  struct stat st;

  g_assert_cmpint (g_mkdir (dir, 0755), ==, 0);
  capture (dir, &r);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpint (stat (dir, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 07777, ==, 0700);
  g_assert_false (dir_is_empty (dir));

  remove_tree (base);
}

/* A directory name a shell would split is quoted in the command shown. */
static void
test_capture_quoted (void)
{
  g_autofree char *base = jmem_test_make_tmp ("jmem-capture-XXXXXX", NULL);
  g_autofree char *dir = g_build_filename (base, "my cap", NULL);
  g_autofree char *word = g_strdup_printf ("'%s'", dir);
  g_auto(JmemTestRun) r = { 0 };
  guint n_files = 0;
  guint64 n_bytes = 0;

  capture (dir, &r);
  g_assert_cmpint (r.status, ==, 0);
  check_modes (dir, &n_files, &n_bytes);
  assert_written_line (r.out, word, n_files, n_bytes);

  remove_tree (base);
}

/* ---- capture: the swap attack ------------------------------------------ */

typedef struct {
  const char *dir;
  const char *outside;
  gint        stop;
  guint       n_swaps;
} Swapper;

/* Swaps each subdirectory jmem makes for a link to @outside and back, as
 * fast as it can, until told to stop. */
static gpointer
swap_loop (gpointer data)
{
  static const char * const names[] = { "proc", "etc", "sys", "jmem", "nvidia-smi" };
  Swapper *sw = data;

  while (!g_atomic_int_get (&sw->stop))
    for (gsize i = 0; i < G_N_ELEMENTS (names); i++)
      {
        g_autofree char *real = g_build_filename (sw->dir, names[i], NULL);
        g_autofree char *link = g_strdup_printf ("%s/.%s-link", sw->dir, names[i]);

        if (symlink (sw->outside, link) != 0 && errno != EEXIST)
          continue;
        if (renameat2 (AT_FDCWD, real, AT_FDCWD, link, RENAME_EXCHANGE) == 0)
          sw->n_swaps++;
      }
  return NULL;
}

static void
test_capture_swap_attack (void)
{
  g_autofree char *base = jmem_test_make_tmp ("jmem-capture-XXXXXX", NULL);
  g_autofree char *outside = g_build_filename (base, "outside", NULL);
  gint64 deadline = g_get_monotonic_time () + 20 * G_USEC_PER_SEC;
  guint n_swaps = 0, n_runs = 0, n_stopped = 0;

  g_assert_cmpint (g_mkdir (outside, 0700), ==, 0);
  while (n_runs < 5 || (n_swaps == 0 && g_get_monotonic_time () < deadline))
    {
      g_autofree char *dir = g_strdup_printf ("%s/cap%u", base, n_runs);
      Swapper sw = { dir, outside, 0, 0 };
      GThread *thread = g_thread_new ("swapper", swap_loop, &sw);
      g_auto(JmemTestRun) r = { 0 };

      capture (dir, &r);
      g_atomic_int_set (&sw.stop, 1);
      g_thread_join (thread);
      n_swaps += sw.n_swaps;
      n_runs++;

      /* Refusing to go on is fine; writing through the link is not. */
      g_assert_true (r.status == 0 || r.status == 73);
      n_stopped += r.status == 73;
      if (!dir_is_empty (outside))
        g_error ("jmem capture wrote outside %s through a swapped link (run %u)", dir, n_runs);
    }
  g_test_message ("%u swaps in %u captures, %u of which stopped at a swapped directory",
                  n_swaps, n_runs, n_stopped);
  g_assert_cmpuint (n_swaps, >, 0);

  remove_tree (base);
}

/* ---- capture: a file planted under a name jmem writes ------------------ */

/* A hard link planted where the capture writes a file (here by the
 * directory's owner, between two writes) to a file outside: the write
 * fails and the file outside is untouched. */
static void
test_capture_hard_link (void)
{
  g_autofree char *base = jmem_test_make_tmp ("jmem-capture-XXXXXX", NULL);
  g_autofree char *dir = g_build_filename (base, "cap", NULL);
  g_autofree char *sentinel = g_build_filename (base, "sentinel", NULL);
  g_autofree char *proc = g_build_filename (dir, "proc", NULL);
  g_autofree char *planted = g_build_filename (dir, "proc", "meminfo", NULL);
  g_autofree char *data = NULL;
  g_autoptr(JmemRoot) root = NULL;
  g_autoptr(GError) error = NULL;
  struct stat st;

  g_assert_true (g_file_set_contents (sentinel, "SENTINEL", -1, NULL));
  g_assert_cmpint (chmod (sentinel, 0640), ==, 0);
  root = jmem_root_create (dir, &error);
  g_assert_no_error (error);
  g_assert_cmpint (g_mkdir (proc, 0700), ==, 0);
  g_assert_cmpint (link (sentinel, planted), ==, 0);

  g_assert_false (jmem_root_write (root, "/proc/meminfo", "MemTotal: 1 kB\n", 15, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_EXISTS);
  data = NULL;
  g_assert_true (g_file_get_contents (sentinel, &data, NULL, NULL));
  g_assert_cmpstr (data, ==, "SENTINEL");
  g_assert_cmpint (stat (sentinel, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 07777, ==, 0640);

  remove_tree (base);
}

/* ---- reading a capture that was stopped before its end ------------------ */

static void
write_marker (const char *tree, const char *text)
{
  g_autofree char *path = g_build_filename (tree, "jmem", "capture-incomplete", NULL);

  g_assert_true (g_file_set_contents (path, text, -1, NULL));
}

static void
run_on (const char *tree, const char *command, JmemTestRun *r)
{
  const char *args[] = { command, "--no-ask-password", "--sysroot", tree, NULL };

  jmem_test_run_jmem_within (r, 60, NULL, args);
}

/* Every reader says what the marker says: the step the capture stopped in
 * and what it did not capture; allocations refuses what may be cut short. */
static void
test_incomplete_readers (void)
{
  g_autofree char *base = jmem_test_make_tmp ("jmem-capture-XXXXXX", NULL);
  g_autofree char *tree = copy_tree (base);
  static const char expected[] =
    "is an incomplete capture (it holds jmem/capture-incomplete): jmem capture was stopped "
    "(killed, or the disk was full) while writing NvMap, which may be partial; not captured: "
    "thermal zones, disk and service states";
  static const char * const quiet[] = { "metrics", "triage", "summary" };
  g_autoptr(JsonNode) before = NULL;
  g_autoptr(JsonNode) snap = NULL;
  g_auto(JmemTestRun) r0 = { 0 };
  g_auto(JmemTestRun) r = { 0 };

  /* a capture without the marker (as older jmem wrote them) reads as whole */
  before = snapshot_of (tree, &r0);
  g_assert_false (has_warning (before, "capture", "incomplete"));

  write_marker (tree, "plan host processes accounts programs nvmap thermal system\n"
                      "step nvmap       \n");
  snap = snapshot_of (tree, &r);
  g_assert_true (has_warning (snap, "capture", expected));
  {
    g_auto(JmemTestRun) human = { 0 };

    run_on (tree, "snapshot", &human);
    g_assert_cmpint (human.status, ==, 0);
    g_assert_nonnull (strstr (human.out, "capture: "));
    g_assert_nonnull (strstr (human.out, "make a new capture"));
  }
  {
    g_auto(JmemTestRun) alloc = { 0 };

    run_on (tree, "allocations", &alloc);
    g_assert_cmpint (alloc.status, ==, 69);
    g_assert_nonnull (strstr (alloc.err, "NvMap allocations are missing or cut short"));
  }
  for (gsize i = 0; i < G_N_ELEMENTS (quiet); i++)
    {
      g_auto(JmemTestRun) q = { 0 };

      run_on (tree, quiet[i], &q);
      g_assert_cmpint (q.status, ==, 0);
      if (strstr (q.err, expected) == NULL)
        g_error ("jmem %s said nothing of the incomplete capture: %s", quiet[i], q.err);
    }

  /* stopped after NvMap: its allocations are whole */
  write_marker (tree, "plan host processes accounts programs nvmap thermal system\n"
                      "step thermal     \n");
  {
    g_auto(JmemTestRun) alloc = { 0 };

    run_on (tree, "allocations", &alloc);
    g_assert_cmpint (alloc.status, ==, 0);
  }

  /* a marker naming no step jmem knows (hostile, or cut short) */
  write_marker (tree, "step \033[2J../../etc\n");
  {
    g_autoptr(JsonNode) odd = NULL;
    g_auto(JmemTestRun) r2 = { 0 };

    odd = snapshot_of (tree, &r2);
    g_assert_true (has_warning (odd, "capture", "at a step it does not name, so any part of "
                                                "it may be missing"));
    g_assert_null (strstr (r2.out, "../../etc"));
  }

  remove_tree (base);
}

/* ---- the copied iovmm/allocations ------------------------------------- */

static void
check_blanked (const char *fixture, const char *pointer)
{
  g_autofree char *path = jmem_test_fixture ("nvmap", fixture, NULL);
  g_autofree char *data = NULL;
  g_autofree char *copy = NULL;
  g_autoptr(JmemNvmapAllocations) before = NULL;
  g_autoptr(JmemNvmapAllocations) after = NULL;
  gsize len = 0;

  g_assert_true (g_file_get_contents (path, &data, &len, NULL));
  g_assert_nonnull (strstr (data, pointer));
  copy = g_memdup2 (data, len + 1);
  jmem_capture_blank_kernel_pointers (copy, len);
  g_assert_null (strstr (copy, pointer));

  /* Everything else reads as before. */
  before = jmem_nvmap_allocations_parse (data, len, NULL);
  after = jmem_nvmap_allocations_parse (copy, len, NULL);
  g_assert_nonnull (before);
  g_assert_nonnull (after);
  g_assert_cmpuint (after->n_malformed, ==, before->n_malformed);
  g_assert_cmpuint (after->clients->len, ==, before->clients->len);
  for (guint i = 0; i < before->clients->len; i++)
    {
      JmemNvmapClientHandles *b = g_ptr_array_index (before->clients, i);
      JmemNvmapClientHandles *a = g_ptr_array_index (after->clients, i);

      g_assert_cmpuint (a->handles->len, ==, b->handles->len);
      for (guint j = 0; j < b->handles->len; j++)
        {
          JmemNvmapHandle *hb = g_ptr_array_index (b->handles, j);
          JmemNvmapHandle *ha = g_ptr_array_index (a->handles, j);

          g_assert_cmpuint (ha->base, ==, hb->base);
          g_assert_cmpuint (ha->size_kib, ==, hb->size_kib);
          g_assert_cmpint (ha->from_hugetlbfs, ==, hb->from_hugetlbfs);
          g_assert_cmpstr (ha->tag, ==, hb->tag);
        }
    }
}

static void
test_allocations_pointers (void)
{
  check_blanked ("allocations.rendered-r38-hugetlbfs.txt", "ffff0000a1b2c3d4");
  check_blanked ("allocations.rendered-old-7col.txt", "e1b2c3d4");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_assert_nonnull (g_getenv ("JMEM_EXE"));

  g_test_add_func ("/sysroot/symlink-file", test_sysroot_symlink_file);
  g_test_add_func ("/sysroot/fifo", test_sysroot_fifo);
  g_test_add_func ("/sysroot/symlink-dir", test_sysroot_symlink_dir);
  g_test_add_func ("/sysroot/symlink-proc", test_sysroot_symlink_proc);
  g_test_add_func ("/capture/modes", test_capture_modes);
  g_test_add_func ("/capture/other-owner", test_capture_other_owner);
  g_test_add_func ("/capture/group-writable", test_capture_group_writable);
  g_test_add_func ("/capture/not-empty", test_capture_not_empty);
  g_test_add_func ("/capture/symlink-dir", test_capture_symlink_dir);
  g_test_add_func ("/capture/own-empty", test_capture_own_empty);
  g_test_add_func ("/capture/quoted", test_capture_quoted);
  g_test_add_func ("/capture/swap-attack", test_capture_swap_attack);
  g_test_add_func ("/capture/hard-link", test_capture_hard_link);
  g_test_add_func ("/capture/incomplete-readers", test_incomplete_readers);
  g_test_add_func ("/capture/allocations-pointers", test_allocations_pointers);
  return g_test_run ();
}
