/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Writes a long history through the writer `jmem watch --tiers` uses, as a
 * board would over days, without waiting for them: a thin line (recorded
 * by `jmem watch --thin`) repeated with its time moved on, the first NvMap
 * row and its process leaking LEAK KiB an hour and the accounting's
 * remainder rising as much under noise of NOISE KiB either way.
 *
 * Usage: history-fill TEMPLATE OUT --days D --interval S [--max-bytes N]
 *        [--leak KIB_PER_HOUR] [--noise KIB] [--no-tiers]
 * Prints the number of lines written, and the seconds the appends took. */
#include "jmem-history-writer.h"

#include <json-glib/json-glib.h>
#include <stdlib.h>

static void
add_to (JsonObject *o, const char *name, gint64 delta)
{
  if (o != NULL && json_object_has_member (o, name) &&
      json_node_get_value_type (json_object_get_member (o, name)) == G_TYPE_INT64)
    json_object_set_int_member (o, name, json_object_get_int_member (o, name) + delta);
}

static JsonObject *
first_row (JsonObject *o, const char *array)
{
  JsonArray *a = o != NULL && json_object_has_member (o, array) ?
                 json_object_get_array_member (o, array) : NULL;

  return a != NULL && json_array_get_length (a) > 0 ? json_array_get_object_element (a, 0) : NULL;
}

int
main (int argc, char **argv)
{
  double days = 30, leak = 10 * 1024, noise = 40 * 1024;
  int interval = 5;
  gint64 max_bytes = (gint64) JMEM_HISTORY_DEFAULT_MAX_BYTES;
  gboolean no_tiers = FALSE;
  GOptionEntry entries[] = {
    { "days", 0, 0, G_OPTION_ARG_DOUBLE, &days, "Days of samples", "D" },
    { "interval", 0, 0, G_OPTION_ARG_INT, &interval, "Seconds between samples", "S" },
    { "max-bytes", 0, 0, G_OPTION_ARG_INT64, &max_bytes, "The cap", "N" },
    { "leak", 0, 0, G_OPTION_ARG_DOUBLE, &leak, "KiB an hour", "K" },
    { "noise", 0, 0, G_OPTION_ARG_DOUBLE, &noise, "KiB either way", "K" },
    { "no-tiers", 0, 0, G_OPTION_ARG_NONE, &no_tiers, "Drop the oldest, as without --tiers", NULL },
    { NULL },
  };
  g_autoptr(GOptionContext) context = g_option_context_new ("TEMPLATE OUT");
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(JmemHistoryWriter) writer = NULL;
  g_autoptr(GRand) rand = g_rand_new_with_seed (28);
  JsonObject *root, *collected, *accounting, *nvmap_row, *process;
  gint64 t0, n, start_us;

  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error) || argc != 3 || interval < 1)
    {
      g_printerr ("history-fill: %s\n", error ? error->message : "TEMPLATE OUT, --interval 1 or more");
      return 64;
    }
  if (!json_parser_load_from_file (parser, argv[1], &error))
    {
      g_printerr ("history-fill: %s\n", error->message);
      return 66;
    }
  root = json_node_get_object (json_parser_get_root (parser));
  collected = json_object_get_object_member (root, "collected");
  accounting = json_object_get_object_member (root, "accounting");
  nvmap_row = first_row (json_object_get_object_member (root, "nvmap"), "by_pid");
  process = first_row (json_object_get_object_member (root, "processes"), "list");
  writer = jmem_history_writer_open (argv[2], (guint64) max_bytes, &error);
  if (writer == NULL)
    {
      g_printerr ("history-fill: %s\n", error->message);
      return 73;
    }
  jmem_history_writer_set_tiers (writer, !no_tiers);
  t0 = json_object_get_int_member (collected, "timestamp_unix");
  n = (gint64) (days * 86400 / interval);
  start_us = g_get_monotonic_time ();
  for (gint64 i = 0; i < n; i++)
    {
      gint64 t = t0 + i * interval;
      gint64 grown = (gint64) (leak * (double) (i * interval) / 3600.0);
      gint64 jitter = (gint64) g_rand_double_range (rand, -noise, noise);
      g_autofree char *line = NULL;

      json_object_set_int_member (collected, "timestamp_unix", t);
      add_to (nvmap_row, "size_kib", grown);
      add_to (process, "nvmap_kib", grown);
      add_to (process, "footprint_kib", grown);
      add_to (accounting, "unexplained_kib", grown + jitter);
      line = json_to_string (json_parser_get_root (parser), FALSE);
      add_to (nvmap_row, "size_kib", -grown);
      add_to (process, "nvmap_kib", -grown);
      add_to (process, "footprint_kib", -grown);
      add_to (accounting, "unexplained_kib", -grown - jitter);
      if (!jmem_history_writer_append (writer, line, &error))
        {
          g_printerr ("history-fill: %s\n", error->message);
          return 73;
        }
    }
  g_print ("%" G_GINT64_FORMAT " lines in %.1f s\n", n,
           (double) (g_get_monotonic_time () - start_us) / G_USEC_PER_SEC);
  return 0;
}
