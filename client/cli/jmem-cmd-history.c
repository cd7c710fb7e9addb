/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "jmem-cmd-history.h"

#include "jmem-ops-triage.h"

/* GOption hands a callback no place of the caller's: the one parse's */
static char *history;
static gboolean history_bare;

gboolean
jmem_cmd_history_take (const char *name, const char *value, gpointer data, GError **error)
{
  (void) name;
  (void) data;
  (void) error;
  g_free (history);
  history = g_strdup (value != NULL ? value : jmem_ops_default_history ());
  history_bare = value == NULL;
  return TRUE;
}

char *
jmem_cmd_history_steal (gboolean *bare)
{
  if (bare != NULL)
    *bare = history_bare;
  history_bare = FALSE;
  return g_steal_pointer (&history);
}
