/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The incremental sampler (client/collect/jmem-sampler.h) through the
 * collector: on a copy of a captured tree given statm files, and on this
 * system with a child whose memory the test moves. What a user relies on:
 * a process whose memory did not move keeps its PSS (and says how old it
 * is), one whose memory moved is read again at once, every one is read
 * again within the refresh bound, and nothing is left open. */
#include <dirent.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "jmem-test.h"

#include "jmem-collect.h"

static const JmemProcess *
find_or_null (const JmemSnapshot *s, gint64 pid)
{
  for (guint i = 0; i < s->processes->len; i++)
    {
      const JmemProcess *p = g_ptr_array_index (s->processes, i);

      if (p->pid == pid)
        return p;
    }
  return NULL;
}

static const JmemProcess *
find (const JmemSnapshot *s, gint64 pid)
{
  const JmemProcess *p = find_or_null (s, pid);

  if (p == NULL)
    g_error ("PID %" G_GINT64_FORMAT " is not in the snapshot", pid);
  return p;
}

static JmemSnapshot *
sample (JmemSampler *sampler, const char *sysroot)
{
  JmemCollectOptions options = { 0 };
  g_autoptr(GError) error = NULL;
  JmemSnapshot *s;

  options.sysroot = sysroot;
  options.top = -1;
  options.sampler = sampler;
  s = jmem_collect_snapshot (&options, &error);
  g_assert_no_error (error);
  g_assert_nonnull (s);
  return s;
}

static void
copy_tree (const char *from, const char *to)
{
  g_autofree char *cmd = g_strdup_printf ("cp -r '%s/.' '%s'", from, to);
  int status = -1;

  g_assert_true (g_spawn_command_line_sync (cmd, NULL, NULL, &status, NULL));
  g_assert_cmpint (status, ==, 0);
}

static void
write_file (const char *dir, const char *name, const char *text)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autoptr(GError) error = NULL;

  g_file_set_contents (path, text, -1, &error);
  g_assert_no_error (error);
}

/* Replaces the Pss: line of @pid's smaps_rollup in the tree @root. */
static void
set_pss (const char *root, const char *pid, guint kib)
{
  g_autofree char *path = g_build_filename (root, "proc", pid, "smaps_rollup", NULL);
  g_autofree char *data = NULL;
  g_autoptr(GString) out = g_string_new (NULL);
  g_auto(GStrv) lines = NULL;

  g_assert_true (g_file_get_contents (path, &data, NULL, NULL));
  lines = g_strsplit (data, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      if (g_str_has_prefix (lines[i], "Pss:"))
        g_string_append_printf (out, "Pss:           %u kB", kib);
      else
        g_string_append (out, lines[i]);
      if (lines[i + 1] != NULL)
        g_string_append_c (out, '\n');
    }
  g_assert_true (g_file_set_contents (path, out->str, -1, NULL));
}

/* In a tree: statm unchanged keeps the PSS read before, even when the
 * file under it changed (the price of the saving, bounded by the refresh);
 * statm changed reads it again at once; the refresh bound holds. */
static void
test_tree (void)
{
  g_autofree char *root = jmem_test_make_tmp ("jmem-sampler-XXXXXX", NULL);
  g_autofree char *orin = jmem_test_fixture ("trees", "orin-agx-nvgpu", NULL);
  g_autoptr(JmemSampler) sampler = jmem_sampler_new (4);
  g_autoptr(JmemSnapshot) s1 = NULL;
  g_autoptr(JmemSnapshot) s2 = NULL;
  g_autoptr(JmemSnapshot) s3 = NULL;
  guint n_read, n_kept;
  gint64 pss_1731, pss_2831;

  copy_tree (orin, root);
  write_file (root, "proc/1731/statm", "50000 24500 8000 600 0 20000 0\n");
  write_file (root, "proc/2831/statm", "90000 40000 9000 700 0 30000 0\n");

  s1 = sample (sampler, root);
  pss_1731 = find (s1, 1731)->pss_kib;
  pss_2831 = find (s1, 2831)->pss_kib;
  g_assert_cmpint (pss_1731, >, 0);
  g_assert_cmpint (find (s1, 1731)->pss_age_samples, ==, 0);
  g_assert_cmpint (find (s1, 2831)->pss_age_samples, ==, 0);
  jmem_sampler_get_counts (sampler, &n_read, &n_kept);
  g_assert_cmpuint (n_kept, ==, 0);
  g_assert_cmpuint (n_read, ==, s1->processes->len);

  /* 1731's memory did not move; 2831's did */
  set_pss (root, "1731", 1);
  set_pss (root, "2831", 2);
  write_file (root, "proc/2831/statm", "90000 40100 9000 700 0 30000 0\n");
  s2 = sample (sampler, root);
  g_assert_cmpint (find (s2, 1731)->pss_kib, ==, pss_1731);
  g_assert_cmpint (find (s2, 1731)->pss_age_samples, ==, 1);
  g_assert_cmpstr (find (s2, 1731)->name, ==, find (s1, 1731)->name);
  g_assert_cmpstr (find (s2, 1731)->cmdline, ==, find (s1, 1731)->cmdline);
  g_assert_cmpint (find (s2, 2831)->pss_kib, ==, 2);
  g_assert_cmpint (find (s2, 2831)->pss_age_samples, ==, 0);
  g_assert_cmpint (pss_2831, !=, 2);
  /* a process without statm (the other directories) is read every time */
  g_assert_cmpuint (s2->processes->len, ==, s1->processes->len);
  g_assert_cmpuint (s1->processes->len, >, 2);
  for (guint i = 0; i < s2->processes->len; i++)
    {
      const JmemProcess *p = g_ptr_array_index (s2->processes, i);

      if (p->pid != 1731)
        g_assert_cmpint (p->pss_age_samples, ==, 0);
    }
  jmem_sampler_get_counts (sampler, &n_read, &n_kept);
  g_assert_cmpuint (n_kept, ==, 1);

  /* never older than the refresh bound: 4 samples, ages 0 to 3 */
  for (guint i = 0; i < 8; i++)
    {
      g_autoptr(JmemSnapshot) s = sample (sampler, root);
      const JmemProcess *p = find (s, 1731);

      g_assert_cmpint (p->pss_age_samples, <, 4);
      if (p->pss_age_samples == 0)
        g_assert_cmpint (p->pss_kib, ==, 1);
    }
  /* the footprint and the sort use the kept numbers like read ones */
  s3 = sample (sampler, root);
  g_assert_cmpint (find (s3, 1731)->footprint_kib, >=, find (s3, 1731)->pss_kib);

  {
    g_autofree char *cmd = g_strdup_printf ("rm -rf '%s'", root);
    g_assert_true (g_spawn_command_line_sync (cmd, NULL, NULL, NULL, NULL));
  }
}

static guint
count_open_fds (void)
{
  GDir *dir = g_dir_open ("/proc/self/fd", 0, NULL);
  guint n = 0;

  g_assert_nonnull (dir);
  while (g_dir_read_name (dir) != NULL)
    n++;
  g_dir_close (dir);
  return n;
}

/* The open descriptors once their number has held for 100 ms (2 s at
 * most). */
static guint
settled_fd_count (void)
{
  guint n = count_open_fds (), same = 0;

  for (guint tries = 0; tries < 100 && same < 5; tries++)
    {
      guint now;

      g_usleep (20 * 1000);
      now = count_open_fds ();
      same = now == n ? same + 1 : 0;
      n = now;
    }
  return n;
}

/* /proc/@pid/statm once it has held for 100 ms (10 s at most, past which
 * the test goes on and says what it sees). */
static void
settled_statm (pid_t pid)
{
  g_autofree char *path = g_strdup_printf ("/proc/%d/statm", (int) pid);
  g_autofree char *last = NULL;
  guint same = 0;

  for (guint tries = 0; tries < 500 && same < 5; tries++)
    {
      g_autofree char *now = NULL;

      g_usleep (20 * 1000);
      if (!g_file_get_contents (path, &now, NULL, NULL))
        return;
      same = g_strcmp0 (now, last) == 0 ? same + 1 : 0;
      g_clear_pointer (&last, g_free);
      last = g_steal_pointer (&now);
    }
}

/* On this system: a sleeping child keeps its numbers; after it touches
 * memory it is read again; once it exits it is gone and its statm file
 * closed; freeing the sampler closes the rest. */
static void
test_live (void)
{
  /* a bound no sample reaches: only a change of memory reads it again */
  g_autoptr(JmemSampler) sampler = jmem_sampler_new (G_MAXUINT);
  g_autoptr(JmemSnapshot) warm_up = sample (NULL, NULL);
  int to_child[2], from_child[2];
  /* what the collector keeps open anyway (a bus connection) is open by now;
   * one it tried and gave up may still be closing in GIO's thread: count
   * once the number stops changing */
  guint fds_before = settled_fd_count ();
  pid_t child;
  char c;

  g_assert_nonnull (warm_up);
  g_assert_cmpint (pipe (to_child), ==, 0);
  g_assert_cmpint (pipe (from_child), ==, 0);
  child = fork ();
  g_assert_cmpint (child, >=, 0);
  if (child == 0)
    {
      size_t size = 32 << 20;
      volatile char *mem;

      close (to_child[1]);
      close (from_child[0]);
      /* say it is ready, wait, touch 32 MiB, say so, wait again */
      if (write (from_child[1], "r", 1) != 1 || read (to_child[0], &c, 1) != 1)
        _exit (1);
      /* not malloc: another thread may have held its lock at the fork */
      mem = mmap (NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      for (size_t i = 0; mem != MAP_FAILED && i < size; i += 4096)
        mem[i] = 1;
      if (write (from_child[1], "t", 1) != 1)
        _exit (1);
      if (read (to_child[0], &c, 1) != 1)
        _exit (0);
      _exit (0);
    }
  close (to_child[0]);
  close (from_child[1]);
  /* the child's memory still moves until it waits (under qemu, as its code
   * is translated): sample once its statm holds */
  g_assert_cmpint (read (from_child[0], &c, 1), ==, 1);
  settled_statm (child);

  {
    g_autoptr(JmemSnapshot) s1 = sample (sampler, NULL);
    g_autoptr(JmemSnapshot) s2 = sample (sampler, NULL);
    g_autoptr(JmemSnapshot) s3 = NULL;
    const JmemProcess *p1 = find (s1, child), *p2 = find (s2, child), *p3;

    g_assert_cmpint (p1->pss_age_samples, ==, 0);
    g_assert_cmpint (p2->pss_age_samples, ==, 1);
    g_assert_cmpint (p2->rss_kib, ==, p1->rss_kib);

    g_assert_cmpint (write (to_child[1], "g", 1), ==, 1);
    g_assert_cmpint (read (from_child[0], &c, 1), ==, 1);
    s3 = sample (sampler, NULL);
    p3 = find (s3, child);
    g_assert_cmpint (p3->pss_age_samples, ==, 0);
    g_assert_cmpint (p3->rss_kib, >=, p1->rss_kib + 16 * 1024);
  }

  close (to_child[1]);
  g_assert_cmpint (waitpid (child, NULL, 0), ==, child);
  close (from_child[0]);
  {
    g_autoptr(JmemSnapshot) s4 = sample (sampler, NULL);

    g_assert_null (find_or_null (s4, child));
  }
  g_clear_pointer (&sampler, jmem_sampler_free);
  /* a bus connection the collector tried and gave up closes its socket in
   * GIO's own thread, which may still be at it; and the warm-up's own main
   * context may have been still held there when fds_before was counted,
   * so that one fewer is open now: a leak is one more */
  for (guint tries = 0; tries < 100 && count_open_fds () > fds_before; tries++)
    g_usleep (20 * 1000);
  g_assert_cmpuint (count_open_fds (), <=, fds_before);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/sampler/tree", test_tree);
  g_test_add_func ("/sampler/live", test_live);
  return g_test_run ();
}
