/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What `jmem headroom --drop` says of the GPU driver's pool on L4T R38: the
 * reading before the drop (thor-r38-pool, 20 GiB pooled after a model
 * exited) and after it (the same board with the pool back in MemFree), as
 * the human report gives them. */
#include <string.h>

#include "jmem-test.h"

#include "jmem-collect.h"
#include "jmem-ops-headroom.h"
#include "jmem-output-headroom.h"
#include "jmem-snapshot-gates.h"

#define GIB (G_GINT64_CONSTANT (1024) * 1024)

static JmemSnapshot *
collect (const char *root)
{
  JmemCollectOptions options = { .sysroot = root, .top = -1 };
  g_autoptr(GError) error = NULL;
  JmemSnapshot *s = jmem_collect_snapshot (&options, &error);

  g_assert_no_error (error);
  g_assert_nonnull (s);
  return s;
}

/* @tree copied into @dir with @kib more in MemFree and as much less in
 * MemTotal's remainder: what drop_caches does when the driver returns its
 * pool. */
static void
copy_with_pool_returned (const char *tree, const char *dir, gint64 kib)
{
  const char *cp[] = { "cp", "-a", tree, dir, NULL };
  g_autofree char *meminfo = g_build_filename (dir, "proc", "meminfo", NULL);
  g_autofree char *text = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GString) out = g_string_new (NULL);
  g_auto(GStrv) lines = NULL;
  gint status = 0;

  g_assert_true (g_spawn_sync (NULL, (char **) cp, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL,
                               NULL, &status, &error));
  g_assert_no_error (error);
  g_assert_cmpint (status, ==, 0);
  g_assert_true (g_file_get_contents (meminfo, &text, NULL, &error));
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      if (g_str_has_prefix (lines[i], "MemFree:") || g_str_has_prefix (lines[i], "MemAvailable:"))
        {
          char *colon = strchr (lines[i], ':');
          gint64 value = g_ascii_strtoll (colon + 1, NULL, 10);

          *colon = '\0';
          g_string_append_printf (out, "%s:%*" G_GINT64_FORMAT " kB", lines[i],
                                  (int) (16 - strlen (lines[i]) + 8), value + kib);
        }
      else
        g_string_append (out, lines[i]);
      if (lines[i + 1] != NULL)
        g_string_append_c (out, '\n');
    }
  g_assert_true (g_file_set_contents (meminfo, out->str, -1, &error));
}

static void
test_pool_returned (void)
{
  g_autofree char *tree = jmem_test_fixture ("trees", "thor-r38-pool", NULL);
  g_autofree char *tmp = jmem_test_make_tmp ("jmem-test-headroom-drop-XXXXXX", NULL);
  g_autofree char *after_tree = g_build_filename (tmp, "after", NULL);
  g_autoptr(JmemSnapshot) before = collect (tree);
  g_autoptr(JmemSnapshot) after = NULL;
  g_autoptr(GString) out = g_string_new (NULL);
  g_autofree char *flat = NULL;
  g_auto(GStrv) words = NULL;
  const char *rm[] = { "rm", "-rf", tmp, NULL };
  JmemOpsHeadroom r = { 0 };
  const JmemHeadroomTerm *pool;

  /* the pool, as the accounting estimates it, is what drop-caches frees */
  r.before = jmem_snapshot_headroom_new (before, 70 * GIB);
  pool = &r.before->terms[JMEM_HEADROOM_TERM_GPU_POOL];
  g_assert_cmpint (pool->kib, >=, 20 * GIB);
  g_assert_cmpstr (pool->source, ==, "estimate");
  g_assert_cmpint (r.before->verdict, ==, JMEM_HEADROOM_FITS_AFTER_RECLAIM);

  copy_with_pool_returned (tree, after_tree, 20 * GIB);
  after = collect (after_tree);
  r.snapshot = after;
  r.headroom = jmem_snapshot_headroom_new (after, 70 * GIB);
  r.drop_asked = r.dropped = TRUE;
  r.drop_reason = g_strdup ("the GPU driver's pool and the page cache make 70.0 GiB fit");
  r.gate = JMEM_GATE_N;
  r.gates = jmem_snapshot_gates_new (after, r.headroom, JMEM_GATE_N);
  g_assert_cmpint (r.headroom->terms[JMEM_HEADROOM_TERM_GPU_POOL].kib, <, 1 * GIB);
  g_assert_cmpint (r.headroom->verdict, ==, JMEM_HEADROOM_FITS_NOW);

  jmem_output_headroom_human (&r, out, 200);
  /* the words in order, whatever the wrapping */
  words = g_strsplit_set (out->str, " \n", -1);
  {
    g_autoptr(GString) joined = g_string_new (NULL);

    for (guint i = 0; words[i] != NULL; i++)
      if (words[i][0] != '\0')
        g_string_append_printf (joined, "%s%s", joined->len > 0 ? " " : "", words[i]);
    flat = g_string_free (g_steal_pointer (&joined), FALSE);
  }
  /* the drop line gives the pool in both readings, named as an estimate */
  g_assert_nonnull (strstr (flat, "the GPU driver's pool 20.3 GiB before, 300.0 MiB after "
                                  "(the accounting's estimate)"));
  g_assert_nonnull (strstr (flat, "Dropped caches (level 3)"));

  g_clear_pointer (&r.before, jmem_headroom_free);
  g_clear_pointer (&r.headroom, jmem_headroom_free);
  g_clear_pointer (&r.gates, g_ptr_array_unref);
  g_free (r.drop_reason);
  g_spawn_sync (NULL, (char **) rm, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL, NULL, NULL);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/headroom-drop/pool-returned", test_pool_returned);
  return g_test_run ();
}
