/* SPDX-License-Identifier: GPL-2.0-or-later */
/* End to end, inside tests/e2e/jmem-sandbox: `jmem drop-caches` and `jmem
 * audit` through the helper from the build tree and the real polkitd. Which
 * cases run depends on how the sandbox mounted /proc/sys/vm/drop_caches
 * ($JMEM_SANDBOX_DROP_CACHES): a recording file, a FIFO this test reads (and
 * then changes the mounted /proc/meminfo, as a kernel dropping caches would),
 * or nothing at all (the real kernel, as root). */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gio/gio.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include "jmem-config.h"
#include "jmem-file.h"
#include "jmem-glib-compat.h"
#include "jmem-meminfo.h"
#include "jmem-names.h"
#include "jmem-nvmap.h"
#include "jmem-test.h"

static const char *build_dir;
static const char *source_dir;
static const char *state_dir;

typedef struct {
  int   exit_code;
  char *out;
  char *err;
} Run;

static void
run_clear (Run *r)
{
  g_clear_pointer (&r->out, g_free);
  g_clear_pointer (&r->err, g_free);
}
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Run, run_clear)

/* jmem ARGS as @user (NULL: root), started; finish with finish_jmem. */
static GSubprocess *
start_jmem (const char *user, const char *const *args)
{
  g_autoptr(GSubprocessLauncher) launcher =
    g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE |
                               G_SUBPROCESS_FLAGS_STDIN_INHERIT);
  g_autofree char *jmem = g_build_filename (build_dir, "client", "jmem", NULL);

  return jmem_test_spawn_as (launcher, user, jmem, args);
}

static void
finish_jmem (GSubprocess *proc, Run *r)
{
  g_autoptr(GError) error = NULL;

  g_subprocess_communicate_utf8 (proc, NULL, NULL, &r->out, &r->err, &error);
  g_assert_no_error (error);
  g_assert_true (g_subprocess_get_if_exited (proc));
  r->exit_code = g_subprocess_get_exit_status (proc);
  g_test_message ("exit %d\nstdout: %.3000s\nstderr: %.2000s", r->exit_code, r->out, r->err);
}

static void
run_jmem (const char *user, const char *const *args, Run *r)
{
  g_autoptr(GSubprocess) proc = start_jmem (user, args);

  finish_jmem (proc, r);
}

static char *
read_text (const char *path)
{
  g_autoptr(GError) error = NULL;
  char *text = NULL;

  g_assert_true (g_file_get_contents (path, &text, NULL, &error));
  return text;
}

/* Empties a recording file in place (the bind mount holds its inode). */
static void
clear_recording (void)
{
  int fd = open (JMEM_DROP_CACHES_PATH, O_WRONLY | O_TRUNC | O_CLOEXEC);

  g_assert_cmpint (fd, >=, 0);
  close (fd);
}

static JsonNode *
parse_json (const char *text)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;

  json_parser_load_from_data (parser, text, -1, &error);
  g_assert_no_error (error);
  return json_node_copy (json_parser_get_root (parser));
}

static JsonObject *
system_row (JsonArray *rows, const char *field)
{
  for (guint i = 0; i < json_array_get_length (rows); i++)
    {
      JsonObject *row = json_array_get_object_element (rows, i);
      if (g_str_equal (json_object_get_string_member (row, "field"), field))
        return row;
    }
  g_error ("no system row %s", field);
}

/* ---- recording file ---------------------------------------------------------- */

static void
test_outsider_refused (void)
{
  const char *args[] = { "drop-caches", "--level", "2", "--no-ask-password", NULL };
  g_auto(Run) r = { 0 };
  g_autofree char *written = NULL;

  clear_recording ();
  run_jmem (g_getenv ("JMEM_SANDBOX_OUTSIDER"), args, &r);
  g_assert_cmpint (r.exit_code, ==, 77);
  g_assert_nonnull (strstr (r.err, "caches were not dropped"));
  /* the advice names the group the build grants (the run's is the sandbox's) */
  g_assert_nonnull (strstr (r.err, "usermod -aG " JMEM_PRIVILEGED_GROUP " "));
  g_assert_cmpstr (r.out, ==, "");
  written = read_text (JMEM_DROP_CACHES_PATH);
  g_assert_cmpstr (written, ==, "");
}

static void
test_agent_drop (void)
{
  const char *args[] = { "drop-caches", "--level", "2", "--json", "--no-ask-password", NULL };
  g_autofree char *clients_path = g_build_filename (g_getenv ("JMEM_SANDBOX_FIXTURE_TREE"),
                                                    "sys/kernel/debug/nvmap/iovmm/clients", NULL);
  g_autofree char *clients_text = read_text (clients_path);
  g_autoptr(JmemNvmapClients) clients = NULL;
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(Run) r = { 0 };
  g_autofree char *written = NULL;
  JsonObject *o, *nvmap;

  clear_recording ();
  run_jmem (g_getenv ("JMEM_SANDBOX_AGENT"), args, &r);
  g_assert_cmpint (r.exit_code, ==, 0);
  written = read_text (JMEM_DROP_CACHES_PATH);
  g_assert_cmpstr (written, ==, "2\n");

  jmem_test_assert_valid (r.out, "drop-caches.schema.json");
  root = parse_json (r.out);
  o = json_node_get_object (root);
  g_assert_cmpstr (json_object_get_string_member (o, "schema"), ==, "jmem-drop-caches");
  g_assert_cmpint (json_object_get_int_member (o, "level"), ==, 2);
  /* the NvMap total came through the helper, from the mounted fixture */
  clients = jmem_nvmap_clients_parse (clients_text, strlen (clients_text), &error);
  g_assert_no_error (error);
  nvmap = system_row (json_object_get_array_member (o, "system"), "NvMapTotal");
  g_assert_cmpint (json_object_get_int_member (nvmap, "before_kib"), ==, (gint64) clients->total_kib);
  g_assert_cmpint (json_object_get_int_member (nvmap, "delta_kib"), ==, 0);
  g_assert_false (json_object_get_null_member (system_row (json_object_get_array_member (o, "system"),
                                                           "MemFree"), "before_kib"));
}

static void
test_rate_limited (void)
{
  const char *args[] = { "drop-caches", "--level", "1", "--no-ask-password", NULL };
  g_auto(Run) r = { 0 };
  g_autofree char *written = NULL;
  const char *at;
  guint64 seconds;

  clear_recording ();
  run_jmem (g_getenv ("JMEM_SANDBOX_AGENT"), args, &r);
  g_assert_cmpint (r.exit_code, ==, 75);
  at = strstr (r.err, "try again in ");
  g_assert_nonnull (at);
  seconds = g_ascii_strtoull (at + strlen ("try again in "), NULL, 10);
  /* the wait is named once, not again in a line of advice */
  g_assert_null (strstr (at + 1, "try again"));
  g_assert_null (strstr (r.err, "wait the seconds"));
  g_assert_cmpuint (seconds, >=, 1);
  g_assert_cmpuint (seconds, <=, 10);
  written = read_text (JMEM_DROP_CACHES_PATH);
  g_assert_cmpstr (written, ==, "");
}

/* ---- FIFO: the "kernel" changes state when the level is written ---------- */

/* Whether any other process has @path open. */
static gboolean
someone_has_open (const char *path)
{
  g_autoptr(GDir) proc = g_dir_open ("/proc", 0, NULL);
  const char *pid;
  struct stat want;

  g_assert_cmpint (stat (path, &want), ==, 0);
  while (proc != NULL && (pid = g_dir_read_name (proc)) != NULL)
    {
      g_autofree char *fd_dir = g_build_filename ("/proc", pid, "fd", NULL);
      g_autoptr(GDir) fds = NULL;
      const char *fd;

      if (!g_ascii_isdigit (pid[0]) || atoi (pid) == getpid ())
        continue;
      fds = g_dir_open (fd_dir, 0, NULL);
      while (fds != NULL && (fd = g_dir_read_name (fds)) != NULL)
        {
          g_autofree char *link = g_build_filename (fd_dir, fd, NULL);
          struct stat st;
          /* by inode: the helper sees the FIFO under /proc/sys/vm */
          if (stat (link, &st) == 0 && st.st_dev == want.st_dev && st.st_ino == want.st_ino)
            return TRUE;
        }
    }
  return FALSE;
}

static void
rewrite_in_place (const char *path, const char *text)
{
  int fd = open (path, O_WRONLY | O_TRUNC | O_CLOEXEC);
  gsize len = strlen (text);

  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (write (fd, text, len), ==, (gssize) len);
  close (fd);
}

static JmemMeminfo *
meminfo_of (const char *text)
{
  g_autoptr(GError) error = NULL;
  JmemMeminfo *m = jmem_meminfo_parse (text, strlen (text), &error);

  g_assert_no_error (error);
  return m;
}

/* Starts @program (@args) as @user with the FIFO held open and full, so
 * that the helper's write of the level blocks until this test has put
 * @after_text in the mounted /proc/meminfo, as a kernel dropping caches
 * would: no race with the client's readings. Returns what the helper wrote. */
static char *
run_with_drop (const char *user, const char *program, const char *const *args,
               const char *after_text, Run *r)
{
  g_autoptr(GSubprocessLauncher) launcher =
    g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE |
                               G_SUBPROCESS_FLAGS_STDIN_INHERIT);
  g_autofree char *fifo = g_build_filename (state_dir, "drop_caches", NULL);
  g_autoptr(GSubprocess) proc = NULL;
  g_autoptr(GString) got = g_string_new (NULL);
  char buf[4096];
  gsize junk = 0;
  gssize n;
  int fd;

  fd = open (fifo, O_RDWR | O_NONBLOCK | O_CLOEXEC);
  g_assert_cmpint (fd, >=, 0);
  memset (buf, 'x', sizeof buf);
  while ((n = write (fd, buf, sizeof buf)) > 0)
    junk += (gsize) n;
  g_assert_cmpint (errno, ==, EAGAIN);
  while (write (fd, buf, 1) == 1)
    junk++;
  g_assert_cmpuint (junk, >, 0);

  proc = jmem_test_spawn_as (launcher, user, program, args);
  for (int i = 0; i < 600 && !someone_has_open (fifo); i++)
    g_usleep (100 * 1000);
  g_assert_true (someone_has_open (fifo));

  rewrite_in_place (g_getenv ("JMEM_SANDBOX_MEMINFO"), after_text);
  for (int i = 0; i < 600 && got->len < junk + 2; i++)
    {
      while ((n = read (fd, buf, sizeof buf)) > 0)
        g_string_append_len (got, buf, n);
      if (got->len < junk + 2)
        g_usleep (20 * 1000);
    }
  close (fd);
  g_assert_cmpuint (got->len, ==, junk + 2);
  finish_jmem (proc, r);
  return g_strdup (got->str + junk);
}

static void
test_audit_numbers (void)
{
  const char *args[] = { "audit", "--level", "2", "--json", "--all", "--no-ask-password", NULL };
  g_autofree char *jmem = g_build_filename (build_dir, "client", "jmem", NULL);
  g_autofree char *after_path = g_build_filename (source_dir, "fixtures/diff/orin-after/proc/meminfo", NULL);
  g_autofree char *before_text = read_text (g_getenv ("JMEM_SANDBOX_MEMINFO"));
  g_autofree char *after_text = read_text (after_path);
  g_autoptr(JmemMeminfo) mb = meminfo_of (before_text);
  g_autoptr(JmemMeminfo) ma = meminfo_of (after_text);
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *written = NULL;
  g_auto(Run) r = { 0 };
  JsonArray *rows;
  guint checked = 0;

  written = run_with_drop (g_getenv ("JMEM_SANDBOX_AGENT"), jmem, args, after_text, &r);
  g_assert_cmpstr (written, ==, "2\n");
  g_assert_cmpint (r.exit_code, ==, 0);
  jmem_test_assert_valid (r.out, "audit.schema.json");
  root = parse_json (r.out);
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (json_node_get_object (root), "drop"),
                                               "level"), ==, 2);
  rows = json_object_get_array_member (json_object_get_object_member (json_node_get_object (root), "diff"),
                                       "system");
  for (guint i = 0; i < json_array_get_length (rows); i++)
    {
      JsonObject *row = json_array_get_object_element (rows, i);
      const char *field = json_object_get_string_member (row, "field");
      gint64 b = jmem_meminfo_get_kib (mb, field), a = jmem_meminfo_get_kib (ma, field);

      if (b < 0)
        continue;
      g_assert_cmpint (json_object_get_int_member (row, "before_kib"), ==, b);
      g_assert_cmpint (json_object_get_int_member (row, "after_kib"), ==, a);
      g_assert_cmpint (json_object_get_int_member (row, "delta_kib"), ==, a - b);
      checked++;
    }
  g_assert_cmpuint (checked, >=, 10);
  g_assert_cmpint (json_object_get_int_member (system_row (rows, "Cached"), "delta_kib"), <, 0);
}

/* ---- jmem headroom --drop: the page-cache board, and the board after the drop ---- */

#define HEADROOM_NEED "7.5G"
#define HEADROOM_NEED_KIB (G_GINT64_CONSTANT (7864320))

static char *
dropped_meminfo (void)
{
  g_autofree char *path = g_build_filename (source_dir, "fixtures", "meminfo",
                                            "meminfo.rendered-page-cache-dropped.txt", NULL);

  return read_text (path);
}

static void
test_headroom_outsider_refused (void)
{
  const char *args[] = { "headroom", "--need", HEADROOM_NEED, "--drop", "--no-ask-password", NULL };
  g_autofree char *fifo = g_build_filename (state_dir, "drop_caches", NULL);
  g_auto(Run) r = { 0 };

  run_jmem (g_getenv ("JMEM_SANDBOX_OUTSIDER"), args, &r);
  g_assert_cmpint (r.exit_code, ==, 77);
  g_assert_cmpstr (r.out, ==, "");
  g_assert_nonnull (strstr (r.err, "jmem headroom: caches were not dropped"));
  g_assert_nonnull (strstr (r.err, "usermod -aG " JMEM_PRIVILEGED_GROUP " "));
  /* refused before anything was written */
  g_assert_false (someone_has_open (fifo));
}

/* The headroom object's member @name, an integer (the figures are KiB). */
static gint64
headroom_int (JsonObject *h, const char *name)
{
  return json_object_get_int_member (h, name);
}

static void
test_headroom_agent_drop (void)
{
  const char *args[] = { "headroom", "--need", HEADROOM_NEED, "--drop", "--json", "--no-ask-password", NULL };
  g_autofree char *jmem = g_build_filename (build_dir, "client", "jmem", NULL);
  g_autofree char *before_text = read_text (g_getenv ("JMEM_SANDBOX_MEMINFO"));
  g_autofree char *after_text = dropped_meminfo ();
  g_autoptr(JmemMeminfo) ma = meminfo_of (after_text);
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *written = NULL;
  g_auto(Run) r = { 0 };
  JsonObject *doc, *drop, *before, *after;

  written = run_with_drop (g_getenv ("JMEM_SANDBOX_AGENT"), jmem, args, after_text, &r);
  /* the page cache and the dentries and inodes: level 3 */
  g_assert_cmpstr (written, ==, "3\n");
  /* the verdict of the second reading: it fits now */
  g_assert_cmpint (r.exit_code, ==, 0);
  jmem_test_assert_valid (r.out, "headroom.schema.json");
  root = parse_json (r.out);
  doc = json_node_get_object (root);
  drop = json_object_get_object_member (doc, "drop");
  g_assert_true (json_object_get_boolean_member (drop, "dropped"));
  g_assert_cmpint (json_object_get_int_member (drop, "level"), ==, 3);
  before = json_object_get_object_member (drop, "before");
  after = json_object_get_object_member (doc, "headroom");
  g_assert_cmpstr (json_object_get_string_member (before, "verdict"), ==, "fits-after-reclaim");
  g_assert_cmpstr (json_object_get_string_member (after, "verdict"), ==, "fits-now");
  g_assert_cmpint (headroom_int (before, "need_kib"), ==, HEADROOM_NEED_KIB);
  g_assert_cmpint (headroom_int (before, "allocatable_now_kib"), <, HEADROOM_NEED_KIB);
  g_assert_cmpint (headroom_int (before, "allocatable_now_kib") + headroom_int (before, "drop_caches_kib"),
                   >=, HEADROOM_NEED_KIB);
  g_assert_cmpint (headroom_int (after, "allocatable_now_kib"), >=, HEADROOM_NEED_KIB);
  g_assert_cmpint (json_object_get_int_member (json_array_get_object_element (
                     json_object_get_array_member (after, "terms"), 0), "kib"),
                   ==, jmem_meminfo_get_kib (ma, "MemFree"));
  g_assert_cmpint (json_object_get_int_member (doc, "exit_status"), ==, 0);
  rewrite_in_place (g_getenv ("JMEM_SANDBOX_MEMINFO"), before_text);
}

/* docs/preflight.md's script, as the document gives it, through the live
 * helper: the drop makes 7.5G fit, and the command starts. */
static void
test_headroom_preflight_script (void)
{
  g_autofree char *dir = jmem_test_make_tmp ("jmem-e2e-preflight-XXXXXX", NULL);
  g_autofree char *doc = g_build_filename (source_dir, "docs", "preflight.md", NULL);
  g_autofree char *extract = g_build_filename (source_dir, "tests", "preflight-examples.py", NULL);
  g_autofree char *script = g_build_filename (dir, "jmem-preflight", NULL);
  g_autofree char *client_dir = g_build_filename (build_dir, "client", NULL);
  g_autofree char *command = g_strdup_printf ("PATH='%s':\"$PATH\" exec '%s' %s echo job started",
                                              client_dir, script, HEADROOM_NEED);
  g_autofree char *before_text = read_text (g_getenv ("JMEM_SANDBOX_MEMINFO"));
  g_autofree char *after_text = dropped_meminfo ();
  const char *argv[] = { "python3", extract, doc, dir, NULL };
  const char *args[] = { "-c", command, NULL };
  g_autoptr(GError) error = NULL;
  g_autofree char *written = NULL;
  g_auto(Run) r = { 0 };
  int wait_status = 0;

  g_assert_nonnull (dir);
  g_assert_cmpint (chmod (dir, 0755), ==, 0);
  g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL,
                &wait_status, &error);
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (wait_status, NULL));
  /* the helper allows one drop in 10 s: the previous test's must be past */
  g_usleep (11 * G_USEC_PER_SEC);
  written = run_with_drop (g_getenv ("JMEM_SANDBOX_AGENT"), "/bin/sh", args, after_text, &r);
  g_assert_cmpstr (written, ==, "3\n");
  g_assert_cmpint (r.exit_code, ==, 0);
  g_assert_true (g_str_has_prefix (r.out, "Fits now: 7.5 GiB needed"));
  g_assert_nonnull (strstr (r.out, "Dropped caches (level 3)"));
  g_assert_true (g_str_has_suffix (r.out, "job started\n"));
  rewrite_in_place (g_getenv ("JMEM_SANDBOX_MEMINFO"), before_text);
  g_unlink (script);
  {
    g_autofree char *usage = g_build_filename (dir, "usage.sh", NULL);

    g_unlink (usage);
  }
  {
    g_autofree char *units = g_build_filename (dir, "units", NULL);
    g_autoptr(GDir) d = g_dir_open (units, 0, NULL);
    const char *name;

    while (d != NULL && (name = g_dir_read_name (d)) != NULL)
      {
        g_autofree char *path = g_build_filename (units, name, NULL);
        g_unlink (path);
      }
    g_rmdir (units);
  }
  g_rmdir (dir);
}

/* ---- the real kernel --------------------------------------------------------- */

/* Fraction of @path's pages in the page cache. */
static double
resident_fraction (const char *path)
{
  long page = sysconf (_SC_PAGESIZE);
  struct stat st;
  g_autofree unsigned char *vec = NULL;
  gsize pages, in = 0;
  void *map;
  int fd = open (path, O_RDONLY | O_CLOEXEC);

  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (fstat (fd, &st), ==, 0);
  pages = ((gsize) st.st_size + (gsize) page - 1) / (gsize) page;
  map = mmap (NULL, (gsize) st.st_size, PROT_READ, MAP_SHARED, fd, 0);
  g_assert_true (map != MAP_FAILED);
  vec = g_malloc (pages);
  g_assert_cmpint (mincore (map, (gsize) st.st_size, vec), ==, 0);
  for (gsize i = 0; i < pages; i++)
    in += vec[i] & 1;
  munmap (map, (gsize) st.st_size);
  close (fd);
  return (double) in / (double) pages;
}

static void
test_real_drop (void)
{
  /* the human view, as a person at an 80-column terminal reads it */
  const char *args[] = { "drop-caches", "--level", "1", "--width", "80", "--no-ask-password", NULL };
  g_autofree char *path = g_build_filename ("/var/tmp",
                                            "jmem-e2e-page-cache-XXXXXX", NULL);
  g_autofree char *block = g_malloc (1 << 20);
  g_autofree char *sink = g_malloc (1 << 20);
  g_auto(Run) r = { 0 };
  double before, after;
  int fd;

  if (access (JMEM_DROP_CACHES_PATH, W_OK) != 0)
    {
      g_test_skip ("this kernel does not let root write " JMEM_DROP_CACHES_PATH);
      return;
    }
  fd = g_mkstemp (path);
  g_assert_cmpint (fd, >=, 0);
  for (int i = 0; i < (1 << 20); i++)
    block[i] = (char) (i * 31 + 7);
  for (int i = 0; i < 64; i++)
    g_assert_cmpint (write (fd, block, 1 << 20), ==, 1 << 20);
  g_assert_cmpint (fsync (fd), ==, 0);
  g_assert_cmpint (lseek (fd, 0, SEEK_SET), ==, 0);
  while (read (fd, sink, 1 << 20) > 0)
    ;
  close (fd);

  before = resident_fraction (path);
  run_jmem (NULL, args, &r);
  after = resident_fraction (path);
  unlink (path);
  g_test_message ("resident before %.2f, after %.2f", before, after);
  g_assert_cmpint (r.exit_code, ==, 0);
  g_assert_cmpfloat (before, >, 0.9);
  g_assert_cmpfloat (after, <, 0.1);
  g_assert_true (g_str_has_prefix (r.out, "Dropped the page cache (level 1).\n"));
  {
    g_auto(GStrv) lines = g_strsplit (r.out, "\n", -1);

    for (guint i = 0; lines[i] != NULL; i++)
      if (g_utf8_strlen (lines[i], -1) > 80)
        g_error ("a line of %ld columns: %s", g_utf8_strlen (lines[i], -1), lines[i]);
  }
}

int
main (int argc, char **argv)
{
  const char *mode;

  g_test_init (&argc, &argv, NULL);
  if (g_getenv ("JMEM_SANDBOX") == NULL)
    {
      g_printerr ("test-e2e-audit runs inside tests/e2e/jmem-sandbox\n");
      return 77;
    }
  build_dir = g_getenv ("JMEM_SANDBOX_BUILD_DIR");
  source_dir = g_getenv ("JMEM_SANDBOX_SOURCE_DIR");
  state_dir = g_getenv ("JMEM_SANDBOX_STATE");
  mode = g_getenv ("JMEM_SANDBOX_DROP_CACHES");

  if (g_strcmp0 (mode, "file") == 0)
    {
      /* in this order: the refusal must not use up the rate limit */
      g_test_add_func ("/e2e-audit/outsider-refused", test_outsider_refused);
      g_test_add_func ("/e2e-audit/agent-drop", test_agent_drop);
      g_test_add_func ("/e2e-audit/rate-limited", test_rate_limited);
    }
  else if (g_strcmp0 (mode, "fifo") == 0 && argc > 1 && g_str_equal (argv[1], "headroom"))
    {
      /* in this order: the refusal drops nothing, each drop waits out the last */
      g_test_add_func ("/e2e-headroom/outsider-refused", test_headroom_outsider_refused);
      g_test_add_func ("/e2e-headroom/agent-drop", test_headroom_agent_drop);
      g_test_add_func ("/e2e-headroom/preflight-script", test_headroom_preflight_script);
    }
  else if (g_strcmp0 (mode, "fifo") == 0)
    g_test_add_func ("/e2e-audit/audit-numbers", test_audit_numbers);
  else if (g_strcmp0 (mode, "real") == 0)
    g_test_add_func ("/e2e-audit/real-drop", test_real_drop);
  return g_test_run ();
}
