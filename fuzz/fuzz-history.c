/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer target for the history reader (jmem-history.c) and the rules
 * over time that read what it passes (jmem-triage-history.c): the input is
 * a history file, read as triage --history reads it. */
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include <glib.h>

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
