/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer target for the history reader (jmem-history.c) and the rules
 * over time that read what it passes (jmem-triage-history.c): the input is
 * a history file, read whole and as triage --history reads it (only the
 * members its rules read, jmem-json-paths.h), which must agree. */
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include <glib.h>

#include "jmem-finding.h"
#include "jmem-history.h"
#include "jmem-triage-history.h"
#include "jmem-triage.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static gboolean
add_sample (JsonNode *snapshot, guint line_number, gpointer history)
{
  if (line_number == 0)
    abort ();
  jmem_triage_history_add (history, snapshot);
  return TRUE;
}

/* The findings, warnings and error of @history as text, to compare. */
static char *
outcome (JmemTriageHistory *history, GPtrArray *warnings, const GError *error)
{
  g_autoptr(GString) out = g_string_new (error ? error->message : "read");

  for (guint i = 0; i < warnings->len; i++)
    g_string_append_printf (out, "\n%s", (const char *) g_ptr_array_index (warnings, i));
  if (history != NULL)
    {
      g_autoptr(GPtrArray) findings = jmem_triage_history_run (history);
      g_autoptr(JsonNode) json = jmem_findings_to_json (findings);
      g_autofree char *text = json_to_string (json, FALSE);

      g_string_append_printf (out, "\n%u samples\n%s", jmem_triage_history_get_n_samples (history),
                              text);
    }
  return g_string_free (g_steal_pointer (&out), FALSE);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autoptr(JmemTriageHistory) history = jmem_triage_history_new ();
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) findings = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *path = NULL;
  gboolean ok;
  int fd;

  /* a regular file in memory: the reader refuses anything else */
  fd = memfd_create ("history", MFD_CLOEXEC);
  if (fd < 0 || (size > 0 && write (fd, data, size) != (ssize_t) size))
    abort ();
  path = g_strdup_printf ("/proc/self/fd/%d", fd);
  ok = jmem_history_read (path, add_sample, history, warnings, &error);
  {
    g_autoptr(GPtrArray) members_warnings = g_ptr_array_new_with_free_func (g_free);
    g_autoptr(GError) members_error = NULL;
    g_autoptr(JmemTriageHistory) members = jmem_triage_history_read (path, members_warnings,
                                                                     &members_error);
    g_autofree char *whole = outcome (ok ? history : NULL, warnings, error);
    g_autofree char *read = outcome (members, members_warnings, members_error);

    if (g_strcmp0 (whole, read) != 0)
      abort ();
  }
  close (fd);

  if (ok == (error != NULL))
    abort ();
  if (ok && jmem_triage_history_get_n_samples (history) == 0)
    abort ();
  if (error != NULL && !g_utf8_validate (error->message, -1, NULL))
    abort ();
  /* named lines and the two summary lines at most */
  if (warnings->len > JMEM_HISTORY_MAX_NAMED_DAMAGE + 2)
    abort ();
  for (guint i = 0; i < warnings->len; i++)
    if (!g_utf8_validate (g_ptr_array_index (warnings, i), -1, NULL))
      abort ();

  findings = jmem_triage_history_run (history);
  for (guint i = 0; i < findings->len; i++)
    {
      const JmemFinding *f = g_ptr_array_index (findings, i);

      if (!g_utf8_validate (f->message, -1, NULL) || !g_utf8_validate (f->action, -1, NULL))
        abort ();
      for (guint k = 0; k < f->numbers->len; k++)
        {
          const JmemFindingNumber *n = g_ptr_array_index (f->numbers, k);

          /* every number is of a sample that passed the checks */
          if (!(n->value >= 0) || n->value > 1e19)
            abort ();
        }
    }
  return 0;
}
