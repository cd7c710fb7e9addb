/* SPDX-License-Identifier: GPL-2.0-or-later */
/* iovmm/allocations in pieces: the incremental parser gives the rows the
 * whole-file parser gives, wherever the pieces end (a fixed record whose
 * comm holds a newline, a tag longer than a piece); the reader walks a
 * file, a copy of a pipe or rows already parsed as often as asked, each
 * time alike, and refuses a file written between two walks or one larger
 * than its cap. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "jmem-test.h"

#include "jmem-error.h"
#include "jmem-nvmap.h"
#include "jmem-nvmap-reader.h"
#include "nvmap-redact-check.h"

/* ---- every row and the summary as text, to compare two parses ----------- */

static void
dump_summary (GString *out, const JmemNvmapAllocations *s)
{
  g_string_append_printf (out, "summary %d|%" G_GUINT64_FORMAT "|%u|%d|%d|%s|%" G_GUINT64_FORMAT "\n",
                          s->has_total, s->total_kib, s->n_malformed, s->has_hugetlbfs_column,
                          s->has_map_columns, jmem_nvmap_layout_to_string (s->layout),
                          s->pid_namespace);
}

/* The whole-file parse, or its error message. */
static char *
dump_whole (const char *data, gsize len)
{
  GString *out = g_string_new (NULL);
  JmemNvmapAllocations summary = { 0 };
  g_autoptr(GError) error = NULL;

  if (jmem_nvmap_allocations_visit (data, len, &jmem_nvmap_dump_visitor, out, &summary, &error))
    dump_summary (out, &summary);
  else
    g_string_append_printf (out, "error %s\n", error->message);
  return g_string_free (out, FALSE);
}

/* Feeds @data in pieces of @piece bytes as a reader does: what a call
 * leaves comes again, followed by the next piece. */
static char *
dump_in_pieces (const char *data, gsize len, gsize piece)
{
  GString *out = g_string_new (NULL);
  g_autoptr(GByteArray) held = g_byte_array_new ();
  g_autoptr(JmemNvmapAllocationsParser) parser =
    jmem_nvmap_allocations_parser_new (&jmem_nvmap_dump_visitor, out);
  JmemNvmapAllocations summary = { 0 };
  g_autoptr(GError) error = NULL;
  gsize pos = 0;

  for (;;)
    {
      gsize n = MIN (piece, len - pos), used;
      gboolean at_end = n == 0;

      g_byte_array_append (held, (const guint8 *) data + pos, (guint) n);
      pos += n;
      used = jmem_nvmap_allocations_parser_feed (parser, (const char *) held->data, held->len,
                                                 at_end);
      g_assert_cmpuint (used, <=, held->len);
      g_byte_array_remove_range (held, 0, (guint) used);
      if (at_end)
        break;
    }
  if (jmem_nvmap_allocations_parser_finish (parser, &summary, &error))
    dump_summary (out, &summary);
  else
    g_string_append_printf (out, "error %s\n", error->message);
  return g_string_free (out, FALSE);
}

static char *
load (const char *relative, gsize *len)
{
  g_autofree char *path = jmem_test_fixture (relative, NULL);
  g_autoptr(GError) error = NULL;
  char *data = NULL;

  g_file_get_contents (path, &data, len, &error);
  g_assert_no_error (error);
  return data;
}

/* A client whose handle carries a tag of @tag_len bytes: longer than the
 * 64 KiB a reader reads at once. */
static char *
long_tag_file (gsize tag_len, gsize *len)
{
  GString *s = g_string_new ("CLIENT                        PROCESS      PID        SIZE\n"
                             "user                             Xorg     1731       8192K\n");

  g_string_append (s, "                                             0       4096K 10120001"
                      "      2      1      0      0      1      1 ffff0000a1b2c3d4 ");
  for (gsize i = 0; i < tag_len; i++)
    g_string_append_c (s, (char) ('a' + i % 26));
  g_string_append (s, "\n                                          1000       4096K 10120001"
                      "      2      1      0      0      1      1 ffff0000a1b2c3d4 short\n"
                      "\ntotal                                                8192K\n");
  *len = s->len;
  return g_string_free (s, FALSE);
}

/* Every fixture that is, or poses as, an allocations file. */
static const char * const fixtures[] = {
  "nvmap/allocations.rendered-r36-format.txt",
  "nvmap/allocations.rendered-r38-hugetlbfs.txt",
  "nvmap/allocations.rendered-old-7col.txt",
  "nvmap/allocations.hostile-tags.txt",
  "nvmap/clients.hostile-comm-newline.txt",
  "nvmap/clients.hostile-comm-spaces.txt",
  "nvmap/clients.hostile-comm-numbers.txt",
  "nvmap/clients.hostile-comm-invalid-utf8.txt",
  "nvmap/clients.hostile-truncated.txt",
  "nvmap/clients.hostile-wide-size.txt",
  "nvmap/clients.hostile-garbage.bin",
  "nvmap/clients.hostile-empty.txt",
  "nvmap/clients.doc-example-not-kernel-aligned.txt",
  "nvmap/clients.rendered-old-note.txt",
  "trees/orin-agx-nvgpu/sys/kernel/debug/nvmap/iovmm/allocations",
  "trees/r32-xavier-nx/sys/kernel/debug/nvmap/iovmm/allocations",
  "trees/r39-orin-agx/sys/kernel/debug/nvmap/iovmm/allocations",
  "trees/hostile/sys/kernel/debug/nvmap/iovmm/allocations",
};

/* Pieces ending everywhere: inside a fixed record (59 bytes), at its
 * newline, one past it, and a page. */
static const gsize pieces[] = { 1, 2, 3, 7, 57, 58, 59, 60, 61, 4096 };

/* Pieces of @min_piece bytes or more: a row waits whole for its end, so
 * a long row in small pieces costs its length at every piece. */
static void
assert_pieces_alike (const char *data, gsize len, gsize min_piece, const char *what)
{
  g_autofree char *whole = dump_whole (data, len);

  for (gsize p = 0; p < G_N_ELEMENTS (pieces); p++)
    {
      if (pieces[p] < min_piece)
        continue;
      g_autofree char *cut = dump_in_pieces (data, len, pieces[p]);

      if (g_strcmp0 (cut, whole) != 0)
        g_error ("%s in pieces of %" G_GSIZE_FORMAT " bytes:\n%s\nwhole:\n%s",
                 what, pieces[p], cut, whole);
    }
}

static void
test_pieces_fixtures (void)
{
  for (gsize i = 0; i < G_N_ELEMENTS (fixtures); i++)
    {
      gsize len = 0;
      g_autofree char *data = load (fixtures[i], &len);

      assert_pieces_alike (data, len, 1, fixtures[i]);
    }
}

static void
test_pieces_without_last_newline (void)
{
  /* the last client row at the end of the file, its newline missing */
  static const char data[] =
    "CLIENT                        PROCESS      PID        SIZE\n"
    "user                             Xorg     1731       4096K";

  assert_pieces_alike (data, sizeof data - 1, 1, "a last row without its newline");
}

static void
test_pieces_long_tag (void)
{
  gsize len = 0;
  g_autofree char *data = long_tag_file (200 * 1024, &len);
  g_autofree char *whole = dump_whole (data, len);

  assert_pieces_alike (data, len, 4096, "a 200 KiB tag");
  g_assert_nonnull (strstr (whole, "|short\n"));
}

/* ---- the reader --------------------------------------------------------- */

static int
temp_file_with (const char *data, gsize len, char **path)
{
  g_autoptr(GError) error = NULL;
  int fd = g_file_open_tmp ("test-nvmap-reader-XXXXXX", path, &error);

  g_assert_no_error (error);
  g_assert_cmpint (write (fd, data, len), ==, (gssize) len);
  return fd;
}

static char *
dump_walk (JmemNvmapAllocationsReader *reader)
{
  GString *out = g_string_new (NULL);
  JmemNvmapAllocations summary = { 0 };
  g_autoptr(GError) error = NULL;

  if (jmem_nvmap_allocations_reader_walk (reader, &jmem_nvmap_dump_visitor, out, &summary, &error))
    dump_summary (out, &summary);
  else
    g_string_append_printf (out, "error %s\n", error->message);
  return g_string_free (out, FALSE);
}

/* The whole-file parse as a reader gives it: with its PID namespace. */
static char *
dump_whole_in (const char *data, gsize len, guint64 pid_namespace)
{
  g_autofree char *whole = dump_whole (data, len);
  g_autofree char *tail = g_strdup_printf ("|%" G_GUINT64_FORMAT "\n", pid_namespace);

  /* dump_summary() wrote a 0 namespace last */
  if (g_str_has_suffix (whole, "|0\n"))
    {
      whole[strlen (whole) - 3] = '\0';
      return g_strconcat (whole, tail, NULL);
    }
  return g_steal_pointer (&whole);
}

static void
assert_walks_alike (const char *data, gsize len)
{
  g_autofree char *path = NULL;
  g_autofree char *want = dump_whole_in (data, len, 42);
  g_autoptr(JmemNvmapAllocationsReader) reader = NULL;
  int fd = temp_file_with (data, len, &path);

  reader = jmem_nvmap_allocations_reader_new_fd (fd, path, 1024 * 1024, 42);
  for (int walk = 0; walk < 3; walk++)
    {
      g_autofree char *got = dump_walk (reader);

      g_assert_cmpstr (got, ==, want);
    }
  g_unlink (path);
}

static void
test_walk_file_twice (void)
{
  gsize len = 0;
  g_autofree char *small = load (fixtures[0], &len);
  g_autofree char *big = NULL;

  assert_walks_alike (small, len);
  /* a row longer than the piece a walk reads at once */
  big = long_tag_file (300 * 1024, &len);
  assert_walks_alike (big, len);
}

typedef struct {
  int         fd;
  const char *data;
  gsize       len;
} PipeWriter;

static gpointer
write_pipe (gpointer user_data)
{
  PipeWriter *w = user_data;

  g_assert_cmpint (write (w->fd, w->data, w->len), ==, (gssize) w->len);
  close (w->fd);
  return NULL;
}

/* A pipe reads once, as debugfs prints anew at each read: the copy is what
 * every walk reads. */
static void
test_walk_copy_of_pipe (void)
{
  gsize len = 0;
  g_autofree char *data = long_tag_file (150 * 1024, &len);
  g_autofree char *want = dump_whole_in (data, len, 7);
  g_autoptr(JmemNvmapAllocationsReader) reader = NULL;
  g_autoptr(GError) error = NULL;
  PipeWriter w = { -1, data, len };
  GThread *writer;
  int fds[2];

  g_assert_cmpint (pipe (fds), ==, 0);
  w.fd = fds[1];
  writer = g_thread_new ("pipe-writer", write_pipe, &w);
  reader = jmem_nvmap_allocations_reader_new_copy (fds[0], "the pipe", 1024 * 1024, 7, &error);
  g_thread_join (writer);
  close (fds[0]);
  g_assert_no_error (error);
  for (int walk = 0; walk < 2; walk++)
    {
      g_autofree char *got = dump_walk (reader);

      g_assert_cmpstr (got, ==, want);
    }
}

static void
test_copy_too_large (void)
{
  gsize len = 0;
  g_autofree char *data = long_tag_file (100 * 1024, &len);
  g_autofree char *path = NULL;
  g_autoptr(GError) error = NULL;
  JmemNvmapAllocationsReader *reader;
  int fd = temp_file_with (data, len, &path);

  g_assert_cmpint (lseek (fd, 0, SEEK_SET), ==, 0);
  reader = jmem_nvmap_allocations_reader_new_copy (fd, "iovmm/allocations", 64 * 1024, 0, &error);
  g_assert_null (reader);
  g_assert_error (error, JMEM_ERROR, JMEM_ERROR_TOO_LARGE);
  g_assert_nonnull (strstr (error->message, "iovmm/allocations is larger than the 65536 bytes"));
  close (fd);
  g_unlink (path);
}

static void
test_walk_too_large (void)
{
  gsize len = 0;
  g_autofree char *data = long_tag_file (100 * 1024, &len);
  g_autofree char *path = NULL;
  g_autoptr(JmemNvmapAllocationsReader) reader = NULL;
  g_autofree char *got = NULL;
  int fd = temp_file_with (data, len, &path);

  reader = jmem_nvmap_allocations_reader_new_fd (fd, "iovmm/allocations", 64 * 1024, 0);
  got = dump_walk (reader);
  g_assert_true (g_str_has_prefix (got, "client user|Xorg|1731|8192\n"));
  g_assert_nonnull (strstr (got, "\nerror iovmm/allocations is larger than the 65536 bytes"));
  g_unlink (path);
}

/* A captured file written between two walks would give an output whose
 * rows do not match its summary: refused. */
static void
test_walk_changed_file (void)
{
  gsize len = 0;
  g_autofree char *data = load (fixtures[0], &len);
  g_autofree char *path = NULL;
  g_autoptr(JmemNvmapAllocationsReader) reader = NULL;
  g_autofree char *first = NULL, *second = NULL;
  int fd = temp_file_with (data, len, &path);

  reader = jmem_nvmap_allocations_reader_new_fd (fd, "iovmm/allocations", 1024 * 1024, 0);
  first = dump_walk (reader);
  g_assert_true (g_str_has_prefix (first, "client "));
  /* in place, as a second capture into the same tree would */
  {
    int again = open (path, O_WRONLY | O_APPEND | O_CLOEXEC);

    g_assert_cmpint (again, >=, 0);
    g_assert_cmpint (write (again, "\n", 1), ==, 1);
    close (again);
  }
  second = dump_walk (reader);
  g_assert_cmpstr (second, ==, "error iovmm/allocations changed while jmem read it: read it "
                               "again once nothing writes it\n");
  g_unlink (path);
}

static void
test_walk_parsed_twice (void)
{
  gsize len = 0;
  g_autofree char *data = load (fixtures[1], &len);
  g_autoptr(GError) error = NULL;
  JmemNvmapAllocations *parsed = jmem_nvmap_allocations_parse (data, len, &error);
  g_autoptr(JmemNvmapAllocationsReader) reader = NULL;
  g_autofree char *want = NULL;

  g_assert_no_error (error);
  parsed->pid_namespace = 5;
  want = dump_whole_in (data, len, 5);
  reader = jmem_nvmap_allocations_reader_new_parsed (parsed);
  for (int walk = 0; walk < 2; walk++)
    {
      g_autofree char *got = dump_walk (reader);

      g_assert_cmpstr (got, ==, want);
    }
}

static void
test_walk_not_nvmap (void)
{
  gsize len = 0;
  g_autofree char *data = load ("nvmap/clients.hostile-garbage.bin", &len);
  g_autofree char *path = NULL;
  g_autoptr(JmemNvmapAllocationsReader) reader = NULL;
  g_autofree char *got = NULL, *want = NULL;
  int fd = temp_file_with (data, len, &path);

  reader = jmem_nvmap_allocations_reader_new_fd (fd, path, 1024 * 1024, 0);
  got = dump_walk (reader);
  want = dump_whole (data, len);
  g_assert_true (g_str_has_prefix (want, "error Not an NvMap iovmm/allocations file"));
  g_assert_cmpstr (got, ==, want);
  g_unlink (path);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_assert_nonnull (g_getenv ("JMEM_FIXTURES"));

  g_test_add_func ("/nvmap-reader/pieces/fixtures", test_pieces_fixtures);
  g_test_add_func ("/nvmap-reader/pieces/without-last-newline", test_pieces_without_last_newline);
  g_test_add_func ("/nvmap-reader/pieces/long-tag", test_pieces_long_tag);
  g_test_add_func ("/nvmap-reader/walk/file-twice", test_walk_file_twice);
  g_test_add_func ("/nvmap-reader/walk/copy-of-pipe", test_walk_copy_of_pipe);
  g_test_add_func ("/nvmap-reader/walk/parsed-twice", test_walk_parsed_twice);
  g_test_add_func ("/nvmap-reader/walk/changed-file", test_walk_changed_file);
  g_test_add_func ("/nvmap-reader/walk/too-large", test_walk_too_large);
  g_test_add_func ("/nvmap-reader/walk/not-nvmap", test_walk_not_nvmap);
  g_test_add_func ("/nvmap-reader/copy/too-large", test_copy_too_large);
  return g_test_run ();
}
