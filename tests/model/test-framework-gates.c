/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The framework gates (jmem-framework-gates.c) on numbers written for each
 * rule: the gate that lets a job in which jmem finds no room for, with the
 * setting that makes each framework ask for no more than jmem finds; a
 * gate jmem cannot compute; a discrete GPU; the names --for takes.
 * tests/test-headroom-gates.py runs them on the captured trees. */
#include <string.h>

#include <glib.h>

#include "jmem-framework-gates.h"
#include "jmem-headroom.h"
#include "jmem-meminfo.h"

#define GIB (1024 * 1024)

static JmemMeminfo *
meminfo (const char *text)
{
  g_autoptr(GError) error = NULL;
  JmemMeminfo *m = jmem_meminfo_parse (text, strlen (text), &error);

  g_assert_no_error (error);
  return m;
}

/* What the gates read of a headroom: the need, the verdict, after reclaim. */
static JmemHeadroom *
headroom (gint64 need, JmemHeadroomVerdict verdict, gint64 after)
{
  JmemHeadroom *h = g_new0 (JmemHeadroom, 1);

  h->need_kib = need;
  h->verdict = verdict;
  h->allocatable_now_kib = after;
  h->allocatable_after_reclaim_kib = after;
  h->hugetlb_total_kib = 0;
  h->services = g_ptr_array_new ();
  h->holders = g_ptr_array_new ();
  return h;
}

static void
headroom_free (JmemHeadroom *h)
{
  g_ptr_array_unref (h->services);
  g_ptr_array_unref (h->holders);
  g_free (h);
}

static const JmemGate *
gate (GPtrArray *gates, JmemGateId id)
{
  for (guint i = 0; i < gates->len; i++)
    if (((const JmemGate *) g_ptr_array_index (gates, i))->id == id)
      return g_ptr_array_index (gates, i);
  g_assert_not_reached ();
}

static void
assert_action (const JmemGate *g, const char *text)
{
  for (guint i = 0; i < g->actions->len; i++)
    if (strstr (g_ptr_array_index (g->actions, i), text) != NULL)
      return;
  g_error ("%s: no action says \"%s\"", g->framework, text);
}

/* 8 GiB, 6 GiB available, 5 GiB free, and jmem finds only 4 GiB: a 5 GiB
 * job passes every gate but PyTorch's, and would fail once it allocates. */
static void
test_open_gate (void)
{
  g_autoptr(JmemMeminfo) m = meminfo ("MemTotal: 8388608 kB\nMemFree: 5242880 kB\n"
                                      "MemAvailable: 6291456 kB\n");
  JmemHeadroom *h = headroom (5 * GIB, JMEM_HEADROOM_DOES_NOT_FIT, 4 * GIB);
  JmemGatesInput in = { .headroom = h, .meminfo = m, .generation = "orin" };
  g_autoptr(GPtrArray) gates = jmem_gates_compute (&in, JMEM_GATE_N);
  const JmemGate *g;

  g_assert_cmpuint (gates->len, ==, JMEM_GATE_N);
  g = gate (gates, JMEM_GATE_VLLM);
  g_assert_cmpint (g->kib, ==, 6 * GIB);
  g_assert_cmpint (g->fits, ==, 1);
  g_assert_cmpint (g->agrees, ==, 0);
  /* 4 GiB of 8: what jmem finds, as a share of total */
  assert_action (g, "--gpu-memory-utilization 0.50:");
  /* its pool is MemAvailable less (1 - fraction) of total: 6 - 2 = 4 GiB at 0.75 */
  assert_action (gate (gates, JMEM_GATE_SGLANG), "--mem-fraction-static 0.75:");
  g = gate (gates, JMEM_GATE_TENSORRT);
  g_assert_cmpint (g->kib, ==, 5 * GIB);
  g_assert_true (g->approximated);
  assert_action (g, "--memPoolSize=workspace:4096M");
  g = gate (gates, JMEM_GATE_OLLAMA);
  g_assert_cmpint (g->kib, ==, 6 * GIB - JMEM_GATE_OLLAMA_MINIMUM_KIB);
  /* the bytes between its figure and jmem's */
  assert_action (g, "OLLAMA_GPU_OVERHEAD=1668284416 ");
  g = gate (gates, JMEM_GATE_LLAMA_CPP);
  g_assert_cmpint (g->kib, ==, 5 * GIB);
  /* MemAvailable less 4 GiB: 2048 MiB left free */
  assert_action (g, "--fit-target 2048:");
  /* PyTorch checks nothing first: the driver gets what jmem finds */
  g = gate (gates, JMEM_GATE_PYTORCH);
  g_assert_cmpint (g->fits, ==, 0);
  g_assert_cmpint (g->agrees, ==, 1);
  g_assert_cmpuint (g->actions->len, ==, 0);
  headroom_free (h);
}

/* No MemAvailable (a kernel before 3.14, a damaged capture): the gates
 * that read it are unknown, never 0; the others are still given. */
static void
test_unknown (void)
{
  g_autoptr(JmemMeminfo) m = meminfo ("MemTotal: 8388608 kB\nMemFree: 5242880 kB\n");
  JmemHeadroom *h = headroom (GIB, JMEM_HEADROOM_FITS_NOW, 4 * GIB);
  JmemGatesInput in = { .headroom = h, .meminfo = m, .generation = "orin" };
  g_autoptr(GPtrArray) gates = jmem_gates_compute (&in, JMEM_GATE_N);

  for (JmemGateId id = JMEM_GATE_VLLM; id < JMEM_GATE_N; id++)
    {
      const JmemGate *g = gate (gates, id);
      gboolean known = id == JMEM_GATE_TENSORRT || id == JMEM_GATE_PYTORCH;

      g_assert_cmpint (g->kib >= 0, ==, known);
      g_assert_cmpint (g->fits, ==, known ? 1 : -1);
      g_assert_cmpint (g->agrees, ==, known ? 1 : -1);
    }
  headroom_free (h);
}

/* A discrete GPU's gates read its own memory: unknown to jmem, and said. */
static void
test_discrete (void)
{
  g_autoptr(JmemMeminfo) m = meminfo ("MemTotal: 8388608 kB\nMemFree: 5242880 kB\n"
                                      "MemAvailable: 6291456 kB\n");
  JmemHeadroom *h = headroom (GIB, JMEM_HEADROOM_FITS_NOW, 4 * GIB);
  JmemGatesInput in = { .headroom = h, .meminfo = m, .discrete_gpu = TRUE };
  g_autoptr(GPtrArray) gates = jmem_gates_compute (&in, JMEM_GATE_VLLM);
  const JmemGate *g = g_ptr_array_index (gates, 0);

  g_assert_cmpuint (gates->len, ==, 1);
  g_assert_cmpint (g->kib, ==, -1);
  g_assert_cmpint (g->fits, ==, -1);
  g_assert_nonnull (strstr (g->note, "discrete GPU"));
  headroom_free (h);
}

static void
test_names (void)
{
  JmemGateId id;

  for (JmemGateId i = JMEM_GATE_VLLM; i < JMEM_GATE_N; i++)
    {
      g_assert_true (jmem_gate_from_name (jmem_gate_name (i), &id));
      g_assert_cmpint (id, ==, i);
      g_assert_nonnull (strstr (jmem_gate_choices (), jmem_gate_name (i)));
    }
  g_assert_false (jmem_gate_from_name ("VLLM", &id));
  g_assert_false (jmem_gate_from_name ("llama", &id));
  g_assert_false (jmem_gate_from_name (NULL, &id));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/gates/open-gate", test_open_gate);
  g_test_add_func ("/gates/unknown", test_unknown);
  g_test_add_func ("/gates/discrete", test_discrete);
  g_test_add_func ("/gates/names", test_names);
  return g_test_run ();
}
