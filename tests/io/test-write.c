/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Every file jmem writes, as the files see it (common/io/jmem-write.c and its
 * writers: capture, metrics --textfile, watch --output and its trim, the
 * per-boot cache). Any user: the fixed modes whatever the umask, a FIFO
 * refused at once, a directory given as a link (with a trailing slash too)
 * refused, and only a killed run's own temporary files removed. As root,
 * against a real unprivileged account: directories the account owns are
 * refused, the account swapping the directory for a link while root writes
 * gets nothing written outside, and files it plants (set-id) are neither
 * continued nor copied in mode; root's own history that its group or others
 * may write is not continued. */
#include <errno.h>
#include <fcntl.h>
#include <gio/gio.h>
#include <glib/gstdio.h>
#include <grp.h>
#include <signal.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "jmem-write.h"
#include "test-account.h"
#include "jmem-test.h"
#include "test-run.h"

#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif

/* the prefix of this run's account (test-account.h) */
#define ACCOUNT "jmem-test-write"

static char *orin;

static guint
count_entries (const char *dir)
{
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  guint n = 0;

  g_assert_nonnull (d);
  while (g_dir_read_name (d) != NULL)
    n++;
  return n;
}

static void
assert_empty (const char *dir, const char *what)
{
  if (count_entries (dir) != 0)
    g_error ("%s: jmem wrote into %s", what, dir);
}

/* ---- any user: the module ----------------------------------------------- */

static mode_t
mode_of (const char *path)
{
  struct stat st;

  g_assert_cmpint (lstat (path, &st), ==, 0);
  return st.st_mode & 07777;
}

/* The mode a format needs, never the umask's: 0644 for the textfile (read
 * by node_exporter's account), 0600 for everything else. */
static void
test_modes (void)
{
  g_autofree char *base = test_make_tmp ();
  g_autofree char *prom = g_build_filename (base, "jmem.prom", NULL);
  g_autofree char *history = g_build_filename (base, "h.jsonl", NULL);
  const mode_t umasks[] = { 0, 022, 077, 0277 };

  for (gsize i = 0; i < G_N_ELEMENTS (umasks); i++)
    {
      g_autoptr(JmemWriteDir) dir = NULL;
      g_autoptr(GError) error = NULL;
      mode_t old = umask (umasks[i]);
      int fd;

      dir = jmem_write_dir_open (base, JMEM_WRITE_DIR_DEFAULT, &error);
      g_assert_no_error (error);
      g_assert_true (jmem_write_replace (dir, "jmem.prom", "x 1\n", 4, 0644, &error));
      g_assert_no_error (error);
      fd = jmem_write_open_append (dir, "h.jsonl", 0600, &error);
      g_assert_no_error (error);
      close (fd);
      umask (old);
      g_assert_cmpint (mode_of (prom), ==, 0644);
      g_assert_cmpint (mode_of (history), ==, 0600);
      g_assert_cmpint (g_unlink (history), ==, 0);
    }
  test_remove_tree (base);
}

/* A FIFO given as the file to continue is refused at once: opening one to
 * write would wait for a reader forever. */
static void
test_fifo (void)
{
  g_autofree char *base = test_make_tmp ();
  g_autofree char *fifo = g_build_filename (base, "f", NULL);
  g_autoptr(JmemWriteDir) dir = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  dir = jmem_write_dir_open (base, JMEM_WRITE_DIR_DEFAULT, &error);
  g_assert_no_error (error);
  alarm (10);  /* a regression blocks in open() */
  g_assert_cmpint (jmem_write_open_append (dir, "f", 0600, &error), ==, -1);
  alarm (0);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_REGULAR_FILE);
  g_assert_nonnull (strstr (error->message, "is a FIFO, not a regular file"));
  test_remove_tree (base);
}

/* A directory given as a link is refused, "LINK/" as well: a trailing
 * slash makes open() follow a link despite O_NOFOLLOW. */
static void
test_dir_link (void)
{
  g_autofree char *base = test_make_tmp ();
  g_autofree char *target = g_build_filename (base, "target", NULL);
  g_autofree char *link = g_build_filename (base, "link", NULL);
  g_autofree char *link_slash = g_strconcat (link, "/", NULL);
  g_autofree char *history = g_build_filename (link, "h.jsonl", NULL);
  const char *textfile[] = { "metrics", "--no-ask-password", "--sysroot", orin, "--textfile",
                             link_slash, NULL };
  const char *watch[] = { "watch", "--sysroot", orin, "--count", "1", "--output", history, NULL };
  const char *capture[] = { "capture", "--no-ask-password", link_slash, NULL };

  g_assert_cmpint (g_mkdir (target, 0700), ==, 0);
  g_assert_cmpint (symlink (target, link), ==, 0);
  {
    g_auto(JmemTestRun) r = { 0 };

    jmem_test_run_jmem_within (&r, 120, NULL, textfile);
    g_assert_cmpint (r.status, ==, 73);
    g_assert_nonnull (strstr (r.err, "is a symbolic link"));
  }
  {
    g_auto(JmemTestRun) r = { 0 };

    jmem_test_run_jmem_within (&r, 120, NULL, watch);
    g_assert_cmpint (r.status, ==, 73);
    g_assert_nonnull (strstr (r.err, "is a symbolic link"));
  }
  {
    g_auto(JmemTestRun) r = { 0 };

    jmem_test_run_jmem_within (&r, 120, NULL, capture);
    g_assert_cmpint (r.status, ==, 73);
    g_assert_nonnull (strstr (r.err, "is a symbolic link"));
  }
  assert_empty (target, "a directory given as a link");
  test_remove_tree (base);
}

/* What the next writer of NAME removes: its own pattern, a regular file of
 * the caller's that nobody holds locked. Another writer's file in use, other
 * names, links and FIFOs stay, and none of them is opened to block. */
static void
test_stale (void)
{
  g_autofree char *base = test_make_tmp ();
  g_autofree char *elsewhere = g_build_filename (base, "elsewhere", NULL);
  g_autofree char *dir_path = g_build_filename (base, "d", NULL);
  static const char * const stay[] = {
    ".jmem.prom.0123ABCD.tmp",  /* not the pattern: upper case */
    ".jmem.prom.backup.tmp",
    ".jmem.prom.0123abc.tmp",   /* seven digits */
    "jmem.prom.0123abcd.tmp",
    ".other.0123abcd.tmp",      /* another file's */
  };
  g_autofree char *stale = g_build_filename (base, "d", ".jmem.prom.0123abcd.tmp", NULL);
  g_autofree char *held = g_build_filename (base, "d", ".jmem.prom.89abcdef.tmp", NULL);
  g_autofree char *link = g_build_filename (base, "d", ".jmem.prom.11111111.tmp", NULL);
  g_autofree char *fifo = g_build_filename (base, "d", ".jmem.prom.22222222.tmp", NULL);
  g_autofree char *prom = g_build_filename (base, "d", "jmem.prom", NULL);
  g_autofree char *data = NULL;
  g_autoptr(JmemWriteDir) dir = NULL;
  g_autoptr(GError) error = NULL;
  int held_fd;

  g_assert_cmpint (g_mkdir (dir_path, 0700), ==, 0);
  g_assert_true (g_file_set_contents (elsewhere, "keep", -1, NULL));
  for (gsize i = 0; i < G_N_ELEMENTS (stay); i++)
    {
      g_autofree char *path = g_build_filename (dir_path, stay[i], NULL);

      g_assert_true (g_file_set_contents (path, "stay", -1, NULL));
    }
  g_assert_true (g_file_set_contents (stale, "half", -1, NULL));
  g_assert_true (g_file_set_contents (held, "in use", -1, NULL));
  held_fd = open (held, O_RDONLY | O_CLOEXEC);
  g_assert_cmpint (flock (held_fd, LOCK_EX), ==, 0);
  g_assert_cmpint (symlink (elsewhere, link), ==, 0);
  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);

  dir = jmem_write_dir_open (dir_path, JMEM_WRITE_DIR_DEFAULT, &error);
  g_assert_no_error (error);
  alarm (10);
  g_assert_true (jmem_write_replace (dir, "jmem.prom", "new\n", 4, 0644, &error));
  alarm (0);
  g_assert_no_error (error);

  g_assert_false (g_file_test (stale, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (held, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (link, G_FILE_TEST_IS_SYMLINK));
  g_assert_true (g_file_test (fifo, G_FILE_TEST_EXISTS));
  for (gsize i = 0; i < G_N_ELEMENTS (stay); i++)
    {
      g_autofree char *path = g_build_filename (dir_path, stay[i], NULL);

      g_assert_true (g_file_test (path, G_FILE_TEST_EXISTS));
    }
  data = test_read_file (prom);
  g_assert_cmpstr (data, ==, "new\n");
  g_clear_pointer (&data, g_free);
  data = test_read_file (elsewhere);
  g_assert_cmpstr (data, ==, "keep");
  /* the link, the FIFO, the held file, the five others and the new file */
  g_assert_cmpuint (count_entries (dir_path), ==, 3 + G_N_ELEMENTS (stay) + 1);

  /* once its writer is gone, the held one is stale too */
  close (held_fd);
  g_assert_cmpuint (jmem_write_remove_stale (dir, "jmem.prom"), ==, 1);
  g_assert_false (g_file_test (held, G_FILE_TEST_EXISTS));
  test_remove_tree (base);
}

/* ---- root against a real unprivileged account ---------------------------- */

static const char *account_name;
static uid_t account_uid;
static gid_t account_gid;

static gboolean
need_account (void)
{
  if (geteuid () != 0)
    {
      g_test_skip ("needs root to run jmem as root against " ACCOUNT);
      return FALSE;
    }
  if (!test_account_get (ACCOUNT, &account_name, &account_uid, &account_gid))
    {
      g_test_skip ("cannot create " ACCOUNT);
      return FALSE;
    }
  return TRUE;
}

/* A child that is the account: its real, effective and saved ids, no
 * supplementary group. Only system calls run in it; it never returns. */
static pid_t
fork_as_account (void)
{
  pid_t pid = fork ();

  g_assert_cmpint (pid, >=, 0);
  if (pid == 0 &&
      (setgroups (0, NULL) != 0 || setresgid (account_gid, account_gid, account_gid) != 0 ||
       setresuid (account_uid, account_uid, account_uid) != 0))
    _exit (126);
  return pid;
}

/* A directory of the account's (mode 0755). */
static void
account_dir (const char *path)
{
  g_assert_cmpint (g_mkdir (path, 0755), ==, 0);
  g_assert_cmpint (chown (path, account_uid, account_gid), ==, 0);
}

/* A file the account makes itself (where it may, never over an existing
 * one), of @mode, holding @content: through setpriv, as the other tests run
 * programs as an account. */
static void
account_makes (const char *path, mode_t mode, const char *content)
{
  g_autofree char *reuid = g_strdup_printf ("--reuid=%u", (guint) account_uid);
  g_autofree char *regid = g_strdup_printf ("--regid=%u", (guint) account_gid);
  g_autofree char *octal = g_strdup_printf ("%o", (guint) mode);
  const char *argv[] = { "setpriv", reuid, regid, "--clear-groups", "sh", "-c",
                         "set -C; printf %s \"$2\" >\"$1\" && chmod \"$3\" \"$1\"",
                         "sh", path, content, octal, NULL };
  g_auto(JmemTestRun) r = { 0 };

  jmem_test_run_spawn (&r, NULL, argv);
  g_assert_cmpint (r.status, ==, 0);
}

/* Root's own history that its group or others may write, or set-id, is
 * not continued: whoever may write it could plant lines root then trims
 * and rewrites. Refused with the mode and what to do, the file untouched;
 * the same file at 0600 is continued. */
static void
test_root_shared_mode (void)
{
  g_autofree char *base = NULL;
  g_autofree char *history = NULL;
  const mode_t refused[] = { 0660, 0620, 0640 | S_IWOTH, 0606, 04600, 02600 };
  const char *args[] = { "watch", "--sysroot", NULL, "--count", "1", "--output", NULL, NULL };

  if (geteuid () != 0)
    {
      g_test_skip ("needs root: only root refuses a file others may write");
      return;
    }
  base = test_make_tmp ();
  history = g_build_filename (base, "h.jsonl", NULL);
  args[2] = orin;
  args[6] = history;
  for (gsize i = 0; i < G_N_ELEMENTS (refused); i++)
    {
      g_autofree char *mode = g_strdup_printf ("mode %04o", (guint) refused[i]);
      g_autofree char *after = NULL;
      g_auto(JmemTestRun) r = { 0 };

      g_assert_true (g_file_set_contents (history, "{\"planted\": 1}\n", -1, NULL));
      g_assert_cmpint (chmod (history, refused[i]), ==, 0);
      jmem_test_run_jmem_within (&r, 120, NULL, args);
      g_assert_cmpint (r.status, ==, 73);
      g_assert_nonnull (strstr (r.err, mode));
      g_assert_nonnull (strstr (r.err, "chmod 0600"));
      after = test_read_file (history);
      g_assert_cmpstr (after, ==, "{\"planted\": 1}\n");
      g_assert_cmpint (mode_of (history), ==, refused[i]);
      g_assert_cmpuint (count_entries (base), ==, 1);
    }
  g_assert_cmpint (chmod (history, 0600), ==, 0);
  {
    g_auto(JmemTestRun) r = { 0 };
    g_autofree char *after = NULL;

    jmem_test_run_jmem_within (&r, 120, NULL, args);
    g_assert_cmpint (r.status, ==, 0);
    after = test_read_file (history);
    g_assert_true (g_str_has_prefix (after, "{\"planted\": 1}\n{"));
  }
  test_remove_tree (base);
}

/* A directory the account owns, jmem run as root into it: refused, and
 * nothing written there. The per-boot cache under an XDG_RUNTIME_DIR of the
 * account's (sudo keeps it) is not written either. */
static void
test_root_other_owner (void)
{
  g_autofree char *base = NULL;
  g_autofree char *theirs = NULL;
  g_autofree char *history = NULL;

  if (!need_account ())
    return;
  base = test_make_tmp ();
  g_assert_cmpint (chmod (base, 0755), ==, 0);
  theirs = g_build_filename (base, "theirs", NULL);
  history = g_build_filename (theirs, "h.jsonl", NULL);
  account_dir (theirs);
  {
    const char *args[] = { "metrics", "--no-ask-password", "--sysroot", orin, "--textfile", theirs, NULL };
    g_auto(JmemTestRun) r = { 0 };

    jmem_test_run_jmem_within (&r, 120, NULL, args);
    g_assert_cmpint (r.status, ==, 73);
    g_assert_nonnull (strstr (r.err, "belongs to uid"));
  }
  {
    const char *args[] = { "watch", "--sysroot", orin, "--count", "1", "--output", history, NULL };
    g_auto(JmemTestRun) r = { 0 };

    jmem_test_run_jmem_within (&r, 120, NULL, args);
    g_assert_cmpint (r.status, ==, 73);
    g_assert_nonnull (strstr (r.err, "belongs to uid"));
  }
  {
    const char *args[] = { "capture", "--no-ask-password", theirs, NULL };
    g_auto(JmemTestRun) r = { 0 };

    jmem_test_run_jmem_within (&r, 120, NULL, args);
    g_assert_cmpint (r.status, ==, 73);
    g_assert_nonnull (strstr (r.err, "belongs to uid"));
  }
  {
    g_autofree char *xdg = g_strconcat ("XDG_RUNTIME_DIR=", theirs, NULL);
    g_autofree char *runtime = g_strconcat ("RUNTIME_DIRECTORY=", theirs, NULL);
    const char *env_xdg[] = { xdg, "RUNTIME_DIRECTORY=", NULL };
    const char *env_runtime[] = { runtime, NULL };
    const char *args[] = { "metrics", "--no-ask-password", NULL };
    g_auto(JmemTestRun) r1 = { 0 };
    g_auto(JmemTestRun) r2 = { 0 };

    jmem_test_run_jmem_within (&r1, 120, env_xdg, args);
    g_assert_cmpint (r1.status, ==, 0);
    jmem_test_run_jmem_within (&r2, 120, env_runtime, args);
    g_assert_cmpint (r2.status, ==, 0);
  }
  assert_empty (theirs, "root into a directory the account owns");
  test_remove_tree (base);
}

/* The account swaps @dir (in a directory it owns) with a link to @outside
 * as fast as it can, until killed. *@swaps counts the exchanges. */
static pid_t
start_swapper (const char *dir, const char *outside, gint *swaps)
{
  g_autofree char *link = g_strconcat (dir, "-link", NULL);
  pid_t pid;

  pid = fork_as_account ();
  if (pid == 0)
    {
      if (symlink (outside, link) != 0)
        _exit (1);
      for (;;)
        if (renameat2 (AT_FDCWD, dir, AT_FDCWD, link, RENAME_EXCHANGE) == 0)
          __atomic_add_fetch (swaps, 1, __ATOMIC_RELAXED);
    }
  return pid;
}

static void
stop_swapper (pid_t pid, const char *dir)
{
  g_autofree char *link = g_strconcat (dir, "-link", NULL);
  struct stat st;
  int status;

  g_assert_cmpint (kill (pid, SIGKILL), ==, 0);
  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
  /* the real directory back under its name */
  if (lstat (dir, &st) == 0 && S_ISLNK (st.st_mode))
    g_assert_cmpint (renameat2 (AT_FDCWD, dir, AT_FDCWD, link, RENAME_EXCHANGE), ==, 0);
  g_unlink (link);
}

/* Root writes into a directory of its own that sits in one the account
 * owns; the account keeps swapping it for a link to a directory of root's.
 * Every run either writes into the real directory or is refused; nothing
 * ever lands in the other one. */
static void
test_root_swap (void)
{
  g_autofree char *base = NULL;
  g_autofree char *theirs = NULL;
  g_autofree char *outside = NULL;
  g_autofree char *out = NULL;
  g_autofree char *history = NULL;
  g_autofree char *cap = NULL;
  gint *swaps;
  guint n_ok = 0, n_refused = 0;

  if (!need_account ())
    return;
  swaps = mmap (NULL, sizeof *swaps, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  g_assert_true (swaps != MAP_FAILED);
  base = test_make_tmp ();
  g_assert_cmpint (chmod (base, 0755), ==, 0);
  theirs = g_build_filename (base, "theirs", NULL);
  outside = g_build_filename (base, "outside", NULL);
  out = g_build_filename (theirs, "out", NULL);
  history = g_build_filename (out, "h.jsonl", NULL);
  cap = g_build_filename (theirs, "cap", NULL);
  account_dir (theirs);
  g_assert_cmpint (g_mkdir (outside, 0700), ==, 0);
  g_assert_cmpint (g_mkdir (out, 0700), ==, 0);

  for (guint round = 0; round < 3; round++)
    {
      g_autofree char *runtime = g_strconcat ("RUNTIME_DIRECTORY=", out, NULL);
      const char *env[] = { runtime, NULL };
      const char *textfile[] = { "metrics", "--no-ask-password", "--sysroot", orin, "--textfile", out, NULL };
      const char *watch[] = { "watch", "--sysroot", orin, "--count", "2", "--interval", "1",
                              "--max-bytes", "4096", "--output", history, NULL };
      const char *boot_cache[] = { "metrics", "--no-ask-password", NULL };
      const char *capture[] = { "capture", "--no-ask-password", cap, NULL };
      const char * const *runs[] = { textfile, watch, boot_cache, capture };

      for (gsize i = 0; i < G_N_ELEMENTS (runs); i++)
        {
          const char *swapped = runs[i] == capture ? cap : out;
          pid_t swapper = start_swapper (swapped, outside, swaps);
          g_auto(JmemTestRun) r = { 0 };

          jmem_test_run_jmem_within (&r, 120, runs[i] == boot_cache ? env : NULL, runs[i]);
          stop_swapper (swapper, swapped);
          if (r.status != 0 && r.status != 73)
            g_error ("run %" G_GSIZE_FORMAT ": exit %d: %s", i, r.status, r.err);
          n_ok += r.status == 0;
          n_refused += r.status == 73;
          assert_empty (outside, runs[i][0]);
          if (runs[i] == capture)
            test_remove_tree (cap);
        }
    }
  g_test_message ("%d swaps; %u runs wrote, %u were refused at a swapped link",
                  *swaps, n_ok, n_refused);
  g_assert_cmpint (*swaps, >, 0);
  munmap (swaps, sizeof *swaps);
  test_remove_tree (base);
}

/* Every regular file under @dir that root owns with a set-id bit. */
static guint
root_setid_files (const char *dir)
{
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;
  guint n = 0;

  while ((name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);
      struct stat st;

      g_assert_cmpint (lstat (path, &st), ==, 0);
      n += S_ISREG (st.st_mode) && st.st_uid == 0 && (st.st_mode & (S_ISUID | S_ISGID)) != 0;
    }
  return n;
}

/* The account plants a set-id history and textfile, holding a history
 * line, in @dir. Root's watch (a cap below one line: its first sample
 * trims) must not continue the history: its trim once copied the set-id
 * mode onto a file of root's. Root's textfile is refused or replaces the
 * planted one with a 0644 file of root's. Nothing of root's is set-id. */
static void
planted_setid_in (const char *dir, const char *line, gboolean textfile_taken)
{
  g_autofree char *history = g_build_filename (dir, "h.jsonl", NULL);
  g_autofree char *prom = g_build_filename (dir, "jmem.prom", NULL);
  g_autofree char *after = NULL;
  const char *watch[] = { "watch", "--sysroot", orin, "--count", "2", "--interval", "1",
                          "--max-bytes", "4096", "--output", history, NULL };
  const char *metrics[] = { "metrics", "--no-ask-password", "--sysroot", orin, "--textfile", dir,
                            NULL };
  struct stat st;

  account_makes (history, 04755, line);
  account_makes (prom, 04755, "planted\n");
  {
    g_auto(JmemTestRun) r = { 0 };

    jmem_test_run_jmem_within (&r, 120, NULL, watch);
    g_assert_cmpuint (root_setid_files (dir), ==, 0);
    g_assert_cmpint (r.status, ==, 73);
    g_assert_nonnull (strstr (r.err, "belongs to uid"));
  }
  g_assert_cmpint (lstat (history, &st), ==, 0);
  g_assert_cmpuint (st.st_uid, ==, account_uid);
  g_assert_cmpint (st.st_mode & 07777, ==, 04755);
  after = test_read_file (history);
  g_assert_cmpstr (after, ==, line);
  {
    g_auto(JmemTestRun) r = { 0 };

    jmem_test_run_jmem_within (&r, 120, NULL, metrics);
    g_assert_cmpint (r.status, ==, textfile_taken ? 0 : 73);
  }
  g_assert_cmpint (lstat (prom, &st), ==, 0);
  if (textfile_taken)
    {
      g_assert_cmpuint (st.st_uid, ==, 0);
      g_assert_cmpint (st.st_mode & 07777, ==, 0644);
    }
  else
    g_assert_cmpuint (st.st_uid, ==, account_uid);
  g_assert_cmpuint (root_setid_files (dir), ==, 0);
  /* the history, the textfile, and no temporary file */
  g_assert_cmpuint (count_entries (dir), ==, 2);
}

/* In a directory of the account's, and in a sticky directory everyone may
 * write (/tmp): there the textfile is root's to replace. */
static void
test_root_planted_setid (void)
{
  g_autofree char *base = NULL;
  g_autofree char *theirs = NULL;
  g_autofree char *sticky = NULL;
  g_autofree char *line = NULL;

  if (!need_account ())
    return;
  base = test_make_tmp ();
  g_assert_cmpint (chmod (base, 0755), ==, 0);
  theirs = g_build_filename (base, "theirs", NULL);
  sticky = g_build_filename (base, "sticky", NULL);
  account_dir (theirs);
  g_assert_cmpint (g_mkdir (sticky, 0700), ==, 0);
  g_assert_cmpint (chmod (sticky, 01777), ==, 0);
  {
    const char *args[] = { "watch", "--sysroot", orin, "--count", "1", NULL };
    g_auto(JmemTestRun) r = { 0 };

    jmem_test_run_jmem_within (&r, 120, NULL, args);
    g_assert_cmpint (r.status, ==, 0);
    line = g_strdup (r.out);
  }
  planted_setid_in (theirs, line, FALSE);
  planted_setid_in (sticky, line, TRUE);
  test_remove_tree (base);
}

/* A temporary file of the account's own pattern is the account's: root's
 * writer leaves it alone. */
static void
test_root_stale_of_another (void)
{
  g_autofree char *base = NULL;
  g_autofree char *sticky = NULL;
  g_autofree char *theirs = NULL;

  if (!need_account ())
    return;
  base = test_make_tmp ();
  g_assert_cmpint (chmod (base, 0755), ==, 0);
  sticky = g_build_filename (base, "sticky", NULL);
  theirs = g_build_filename (sticky, ".jmem.prom.0123abcd.tmp", NULL);
  g_assert_cmpint (g_mkdir (sticky, 0700), ==, 0);
  g_assert_cmpint (chmod (sticky, 01777), ==, 0);
  account_makes (theirs, 0600, "theirs");
  {
    const char *args[] = { "metrics", "--no-ask-password", "--sysroot", orin, "--textfile", sticky, NULL };
    g_auto(JmemTestRun) r = { 0 };

    jmem_test_run_jmem_within (&r, 120, NULL, args);
    g_assert_cmpint (r.status, ==, 0);
  }
  g_assert_true (g_file_test (theirs, G_FILE_TEST_EXISTS));
  test_remove_tree (base);
}

int
main (int argc, char **argv)
{
  int rc;

  g_test_init (&argc, &argv, NULL);
  g_assert_nonnull (g_getenv ("JMEM_EXE"));
  orin = jmem_test_fixture ("trees", "orin-agx-nvgpu", NULL);

  g_test_add_func ("/write/modes", test_modes);
  g_test_add_func ("/write/fifo", test_fifo);
  g_test_add_func ("/write/dir-link", test_dir_link);
  g_test_add_func ("/write/stale", test_stale);
  g_test_add_func ("/write/root/shared-mode", test_root_shared_mode);
  g_test_add_func ("/write/root/other-owner", test_root_other_owner);
  g_test_add_func ("/write/root/swap", test_root_swap);
  g_test_add_func ("/write/root/planted-setid", test_root_planted_setid);
  g_test_add_func ("/write/root/stale-of-another", test_root_stale_of_another);
  rc = g_test_run ();
  test_account_remove_created ();
  g_free (orin);
  return rc;
}
