/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Reading beneath a --sysroot tree: a symbolic link anywhere on a path
 * (first, middle or last component, pointing inside the tree or out of it),
 * a ".." that climbs out, and a FIFO are refused, the component at fault is
 * named, and nothing outside the tree is read. meson runs this twice: as it
 * is (openat2 with RESOLVE_BENEATH where the kernel has it) and under
 * tests/no-openat2, where every open takes the component-by-component walk
 * that older kernels get. */
#include <errno.h>
#include <gio/gio.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "jmem-root.h"
#include "jmem-test.h"

#define SECRET "OUTSIDE-SECRET-7c1d"

typedef struct {
  char *base;     /* holds the tree and what lies outside it */
  char *tree;
  char *outside;  /* a directory beside the tree, with the secret in it */
} Fixture;

static char *
at (const char *dir, const char *rel)
{
  return g_build_filename (dir, rel, NULL);
}

static void
put (const char *dir, const char *rel, const char *text)
{
  g_autofree char *path = at (dir, rel);
  g_autofree char *parent = g_path_get_dirname (path);

  g_assert_cmpint (g_mkdir_with_parents (parent, 0755), ==, 0);
  g_assert_true (g_file_set_contents (path, text, -1, NULL));
}

static void
link_at (const char *dir, const char *rel, const char *target)
{
  g_autofree char *path = at (dir, rel);
  g_autofree char *parent = g_path_get_dirname (path);

  g_assert_cmpint (g_mkdir_with_parents (parent, 0755), ==, 0);
  g_assert_cmpint (symlink (target, path), ==, 0);
}

static void
fixture_set_up (Fixture *f, gconstpointer data)
{
  f->base = jmem_test_make_tmp ("jmem-root-beneath-XXXXXX", NULL);
  g_assert_nonnull (f->base);
  f->tree = at (f->base, "tree");
  f->outside = at (f->base, "outside");
  put (f->tree, "proc/meminfo", "MemTotal: 1 kB\n");
  put (f->tree, "sys/kernel/debug/nvmap/iovmm/clients", "CLIENT PROCESS PID SIZE\n");
  put (f->outside, "secret", SECRET "\n");
  put (f->outside, "nvmap/iovmm/clients", SECRET "\n");
  put (f->outside, "debug/nvmap/iovmm/clients", SECRET "\n");
}

static void
fixture_tear_down (Fixture *f, gconstpointer data)
{
  const char *argv[] = { "rm", "-rf", f->base, NULL };

  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH,
                               NULL, NULL, NULL, NULL, NULL, NULL));
  g_free (f->base);
  g_free (f->tree);
  g_free (f->outside);
}

/* Reading @path in the tree fails with @code, reads nothing from outside,
 * and the tree's refused list names @component with @what. */
static void
assert_refused (Fixture *f, const char *path, int code, const char *component, const char *what)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JmemRoot) root = jmem_root_open (f->tree, &error);
  g_autofree char *contents = NULL;
  g_autofree char *line = g_strdup_printf ("%s %s", component, what);
  const GPtrArray *refused;
  gboolean found = FALSE;

  g_assert_no_error (error);
  g_assert_false (jmem_root_read (root, path, 1 << 20, &contents, NULL, &error));
  g_assert_null (contents);
  g_test_message ("%s: %s", path, error->message);
  g_assert_error (error, G_IO_ERROR, code);
  g_assert_null (strstr (error->message, SECRET));
  refused = jmem_root_get_refused (root);
  for (guint i = 0; i < refused->len; i++)
    {
      g_test_message ("refused: %s", (const char *) g_ptr_array_index (refused, i));
      found |= g_str_equal (g_ptr_array_index (refused, i), line);
    }
  if (!found)
    g_error ("the refused list does not say \"%s\"", line);
}

static void
test_plain_paths_read (Fixture *f, gconstpointer data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JmemRoot) root = jmem_root_open (f->tree, &error);
  g_autofree char *clients = NULL;
  g_autofree char *meminfo = NULL;

  g_assert_no_error (error);
  g_assert_true (jmem_root_read (root, "/sys/kernel/debug/nvmap/iovmm/clients", 1 << 20,
                                 &clients, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (clients, ==, "CLIENT PROCESS PID SIZE\n");
  g_assert_true (jmem_root_read (root, "/proc/meminfo", 1 << 20, &meminfo, NULL, &error));
  g_assert_cmpstr (meminfo, ==, "MemTotal: 1 kB\n");
  g_assert_cmpuint (jmem_root_get_refused (root)->len, ==, 0);
}

/* A directory in the middle of the path is a link out of the tree. */
static void
test_middle_link_out (Fixture *f, gconstpointer data)
{
  g_autofree char *target = at (f->outside, "debug");
  g_autofree char *debug = at (f->tree, "sys/kernel/debug");
  const char *argv[] = { "rm", "-rf", debug, NULL };

  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH,
                               NULL, NULL, NULL, NULL, NULL, NULL));
  link_at (f->tree, "sys/kernel/debug", target);
  assert_refused (f, "/sys/kernel/debug/nvmap/iovmm/clients", G_IO_ERROR_TOO_MANY_LINKS,
                  "sys/kernel/debug", "is a symbolic link: not followed");
}

/* The first component is a relative link that stays inside the tree: still
 * not followed (a tree holds no links at all). */
static void
test_first_link_inside (Fixture *f, gconstpointer data)
{
  link_at (f->tree, "proc2", "proc");
  assert_refused (f, "/proc2/meminfo", G_IO_ERROR_TOO_MANY_LINKS,
                  "proc2", "is a symbolic link: not followed");
}

/* The last component is an absolute link to a file outside. */
static void
test_last_link_out (Fixture *f, gconstpointer data)
{
  g_autofree char *target = at (f->outside, "secret");

  link_at (f->tree, "etc/nv_tegra_release", target);
  assert_refused (f, "/etc/nv_tegra_release", G_IO_ERROR_TOO_MANY_LINKS,
                  "etc/nv_tegra_release", "is a symbolic link: not followed");
}

/* A link to "/" in the middle: the path would read this machine's file. */
static void
test_middle_link_to_root (Fixture *f, gconstpointer data)
{
  link_at (f->tree, "host", "/");
  assert_refused (f, "/host/proc/self/status", G_IO_ERROR_TOO_MANY_LINKS,
                  "host", "is a symbolic link: not followed");
}

/* ".." that climbs out of the tree. */
static void
test_dotdot_out (Fixture *f, gconstpointer data)
{
  assert_refused (f, "/proc/../../outside/secret", G_IO_ERROR_TOO_MANY_LINKS,
                  "proc/..", "leads outside the tree: not followed");
}

/* A FIFO deep in the tree neither blocks nor is read. */
static void
test_fifo (Fixture *f, gconstpointer data)
{
  g_autofree char *fifo = at (f->tree, "sys/kernel/debug/nvmap/iovmm/allocations");

  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  assert_refused (f, "/sys/kernel/debug/nvmap/iovmm/allocations", G_IO_ERROR_NOT_REGULAR_FILE,
                  "sys/kernel/debug/nvmap/iovmm/allocations", "is not a regular file: not read");
}

/* Which way this run opens: said in the log, so that a run under
 * tests/no-openat2 shows it took the walk. */
static const char *
mode (void)
{
#ifdef SYS_openat2
  errno = 0;
  if (syscall (SYS_openat2, -1, "", NULL, 0) == -1 && (errno == ENOSYS || errno == EPERM))
    return "no openat2: the component-by-component walk";
#endif
  return "openat2 (RESOLVE_BENEATH)";
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_message ("opening beneath the tree with %s", mode ());

#define ADD(path, func) \
  g_test_add ("/root/beneath/" path, Fixture, NULL, fixture_set_up, func, fixture_tear_down)
  ADD ("plain-paths-read", test_plain_paths_read);
  ADD ("middle-link-out", test_middle_link_out);
  ADD ("first-link-inside", test_first_link_inside);
  ADD ("last-link-out", test_last_link_out);
  ADD ("middle-link-to-root", test_middle_link_to_root);
  ADD ("dotdot-out", test_dotdot_out);
  ADD ("fifo", test_fifo);
#undef ADD
  return g_test_run ();
}
