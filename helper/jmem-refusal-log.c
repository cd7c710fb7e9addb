/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "jmem-refusal-log.h"

#include "jmem-helper-log.h"

/* One uid's interval: it began with a line logged at once (or with the
 * previous interval's summary); what came after is counted. */
typedef struct {
  gint64      uid;
  gint64      ends_us;
  guint       n_refused;
  GHashTable *by_result;  /* result → count */
  char       *last_action;
  char       *last_result;
  char       *last_detail;
} Window;

struct _JmemRefusalLog {
  gint64      interval_us;
  const char *what;     /* "refused", "answered": the calls it counts */
  GHashTable *windows;  /* gint64 * uid → Window * */
};

static void
window_free (Window *w)
{
  g_hash_table_unref (w->by_result);
  g_free (w->last_action);
  g_free (w->last_result);
  g_free (w->last_detail);
  g_free (w);
}

JmemRefusalLog *
jmem_refusal_log_new (gint64 interval_us)
{
  return jmem_refusal_log_new_for (interval_us, "refused");
}

JmemRefusalLog *
jmem_refusal_log_new_for (gint64      interval_us,
                          const char *what)
{
  JmemRefusalLog *log = g_new0 (JmemRefusalLog, 1);

  log->interval_us = interval_us;
  log->what = g_intern_string (what);
  log->windows = g_hash_table_new_full (g_int64_hash, g_int64_equal, NULL,
                                        (GDestroyNotify) window_free);
  return log;
}

static gint
more_first (gconstpointer a, gconstpointer b, gpointer user_data)
{
  guint na = GPOINTER_TO_UINT (g_hash_table_lookup (user_data, a));
  guint nb = GPOINTER_TO_UINT (g_hash_table_lookup (user_data, b));

  return na != nb ? (na < nb ? 1 : -1) : g_strcmp0 (a, b);
}

/* "denied 5800, rate-limited 600", largest first. */
static char *
describe_results (GHashTable *by_result)
{
  g_autoptr(GList) keys = g_list_sort_with_data (g_hash_table_get_keys (by_result),
                                                 more_first, by_result);
  g_autoptr(GString) out = g_string_new (NULL);

  for (GList *l = keys; l != NULL; l = l->next)
    {
      guint n = GPOINTER_TO_UINT (g_hash_table_lookup (by_result, l->data));
      g_string_append_printf (out, "%s%s %u", out->len ? ", " : "", (const char *) l->data, n);
    }
  return g_string_free (g_steal_pointer (&out), FALSE);
}

/* One line for what @w counted up to @now_us. */
static void
write_summary (const JmemRefusalLog *log,
               Window               *w,
               gint64                now_us)
{
  gint64 began = w->ends_us - log->interval_us;
  g_autofree char *results = describe_results (w->by_result);
  g_autofree char *action = g_strdup_printf ("%s calls", log->what);
  g_autofree char *detail = g_strdup_printf ("%u more %s in %" G_GINT64_FORMAT
                                             " s (%s); the last: %s: %s%s%s",
                                             w->n_refused, log->what,
                                             (MAX (now_us - began, 0) + G_USEC_PER_SEC - 1) / G_USEC_PER_SEC,
                                             results, w->last_action, w->last_result,
                                             w->last_detail != NULL ? ": " : "",
                                             w->last_detail != NULL ? w->last_detail : "");

  jmem_helper_log_action (action, w->uid, "summary", detail);
}

static void
window_restart (Window *w,
                gint64  ends_us)
{
  w->ends_us = ends_us;
  w->n_refused = 0;
  g_hash_table_remove_all (w->by_result);
}

void
jmem_refusal_log_add (JmemRefusalLog *log,
                      gint64          now_us,
                      const char     *action,
                      gint64          uid,
                      const char     *result,
                      const char     *detail)
{
  Window *w = g_hash_table_lookup (log->windows, &uid);

  /* A window past its end that no flush has seen yet: end it as the flush
   * would, so that its count is not reported as this interval's. */
  if (w != NULL && now_us >= w->ends_us)
    {
      if (w->n_refused > 0)
        {
          write_summary (log, w, w->ends_us);
          window_restart (w, now_us + log->interval_us);
        }
      else
        {
          g_hash_table_remove (log->windows, &uid);
          w = NULL;
        }
    }

  if (w == NULL)
    {
      w = g_new0 (Window, 1);
      w->uid = uid;
      w->by_result = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
      window_restart (w, now_us + log->interval_us);
      g_hash_table_insert (log->windows, &w->uid, w);
      jmem_helper_log_action (action, uid, result, detail);
      return;
    }

  w->n_refused++;
  g_hash_table_insert (w->by_result, g_strdup (result),
                       GUINT_TO_POINTER (GPOINTER_TO_UINT (g_hash_table_lookup (w->by_result, result)) + 1));
  g_free (w->last_action);
  g_free (w->last_result);
  g_free (w->last_detail);
  w->last_action = g_strdup (action);
  w->last_result = g_strdup (result);
  w->last_detail = g_strdup (detail);
}

gint64
jmem_refusal_log_flush (JmemRefusalLog *log,
                        gint64          now_us)
{
  GHashTableIter iter;
  Window *w;
  gint64 next = 0;

  g_hash_table_iter_init (&iter, log->windows);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &w))
    {
      if (now_us >= w->ends_us)
        {
          /* A quiet interval ends the uid's counting; one with refusals
           * gets its line and a next interval, so that a steady flood
           * costs one line per interval. */
          if (w->n_refused == 0)
            {
              g_hash_table_iter_remove (&iter);
              continue;
            }
          write_summary (log, w, now_us);
          window_restart (w, now_us + log->interval_us);
        }
      if (next == 0 || w->ends_us < next)
        next = w->ends_us;
    }
  return next;
}

void
jmem_refusal_log_free (JmemRefusalLog *log)
{
  GHashTableIter iter;
  Window *w;

  if (log == NULL)
    return;
  g_hash_table_iter_init (&iter, log->windows);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &w))
    if (w->n_refused > 0)
      write_summary (log, w, MIN (g_get_monotonic_time (), w->ends_us));
  g_hash_table_unref (log->windows);
  g_free (log);
}
