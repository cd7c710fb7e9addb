/* SPDX-License-Identifier: GPL-2.0-or-later */
/* jmem headroom: can this board still allocate SIZE, and what stands in
 * the way. Its verdict is its exit status: 0 fits now, 1 fits after
 * reclaim, 2 does not fit (jmem(1)). */
#include "jmem-cmd.h"
#include "jmem-cmd-view.h"

#include <string.h>

#include "jmem-container.h"
#include "jmem-error.h"
#include "jmem-ops-headroom.h"
#include "jmem-output-headroom.h"
#include "jmem-size.h"
#include "jmem-text.h"

int
jmem_cmd_headroom (int argc, char **argv)
{
  g_autofree char *need_text = NULL;
  g_autofree char *framework = NULL;
  gboolean drop = FALSE;
  JmemGateId gate;
  GOptionEntry entries[] = {
    { "need", 0, 0, G_OPTION_ARG_STRING, &need_text, "Say whether SIZE fits: 6G, 6GiB, 6144M (binary units: 6GB is 6 GiB)", "SIZE" },
    { "drop", 0, 0, G_OPTION_ARG_NONE, &drop, "Drop caches first if that makes SIZE fit", NULL },
    { "for", 0, 0, G_OPTION_ARG_STRING, &framework, "Only the gate NAME reads: vllm, sglang, tensorrt, pytorch, ollama or llama.cpp", "NAME" },
    { NULL },
  };
  const JmemViewHelp help = {
    .json = "Write JSON instead (headroom.schema.json)",
    .width = "Wrap at N columns (default: the terminal's, else 80)",
  };
  g_autoptr(GOptionContext) context = g_option_context_new ("- how much a GPU allocation can still get");
  g_auto(JmemView) view = { 0 };
  g_autoptr(JmemCollectBoot) boot = jmem_collect_boot_new ();
  g_autoptr(JmemOpsHeadroom) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *container = NULL;
  g_autofree char *unit_note = NULL;
  JmemOpsHeadroomOptions options = { .need_kib = -1 };
  guint64 need = 0;
  int status;

  g_option_context_add_main_entries (context, entries, NULL);
  jmem_view_init (&view, context, JMEM_VIEW_JSON | JMEM_VIEW_WIDTH | JMEM_VIEW_NO_ASK |
                  JMEM_VIEW_SYSROOT, 0, &help);
  g_option_context_set_description (context,
    "Allocatable now: MemFree less CMA and the kernel's reserve, plus NvMap's pool\n"
    "and a GPU carveout's free huge pages. After reclaim: plus the unmapped page\n"
    "cache, half the reclaimable slab and the GPU driver's pool (L4T R38, an\n"
    "estimate) (what drop-caches frees) and what swap can take. The largest free\n"
    "block comes from /proc/buddyinfo. Then the gate each framework reads (vLLM,\n"
    "SGLang, TensorRT, PyTorch, Ollama, llama.cpp), whether SIZE fits by it, and\n"
    "what closes a gap with jmem's verdict. See jmem(1).\n"
    "Exit status with --need: 0 fits now, 1 fits after reclaim, 2 does not fit;\n"
    "without it 0. Errors: 64 usage error (a bad SIZE), 69 no data or no helper,\n"
    "70 internal error, 75 rate-limited, 77 not authorized to drop caches.");
  if (!jmem_cmd_parse (context, &argc, &argv, 0, NULL) || !jmem_view_check (&view))
    return view.status;
  if (!jmem_cmd_parse_size ("need", need_text, 1, &need))
    return JMEM_EXIT_USAGE;
  if (framework != NULL && !jmem_gate_from_name (framework, &gate))
    {
      jmem_cmd_printerr ("jmem headroom: --for takes %s, not \"%s\"", jmem_gate_choices (), framework);
      return JMEM_EXIT_USAGE;
    }
  if (drop && (need_text == NULL || view.sysroot != NULL))
    {
      g_printerr ("jmem headroom: --drop %s\nTry \"jmem headroom --help\".\n",
                  need_text == NULL ? "needs --need SIZE: it drops caches only when that makes "
                                      "SIZE fit"
                                    : "acts on the live system, not on a capture (--sysroot)");
      return JMEM_EXIT_USAGE;
    }
  if (drop)
    container = jmem_container_detect (NULL);
  options.sysroot = view.sysroot;
  /* a need is read in KiB, rounded up: never smaller than asked */
  options.need_kib = need_text != NULL ? (gint64) ((need + 1023) / 1024) : -1;
  options.drop = drop;
  options.allow_interactive = view.allow_interactive;
  options.container = container;
  options.boot = boot;
  options.framework = framework;

  result = jmem_ops_headroom (&options, &error);
  if (result == NULL)
    {
      if (g_error_matches (error, JMEM_ERROR, JMEM_ERROR_NOT_AVAILABLE) && view.sysroot != NULL)
        {
          jmem_cmd_printerr ("jmem headroom: %s", error->message);
          return JMEM_EXIT_NO_DATA;
        }
      return jmem_cmd_report_error ("jmem headroom", error, "see what fits without dropping "
                                    "caches: jmem headroom --need SIZE");
    }
  jmem_cmd_print_capture_warnings ("jmem headroom", result->snapshot);
  /* said once, where the other notes are (human and JSON) */
  unit_note = need_text != NULL ? jmem_size_unit_note (need_text) : NULL;
  if (unit_note != NULL)
    g_ptr_array_add (result->headroom->notes, g_steal_pointer (&unit_note));
  status = jmem_ops_headroom_exit_status (result);

  if (view.json)
    {
      g_autoptr(JsonNode) root = jmem_ops_headroom_json (result);

      if (!jmem_cmd_write_json (root))
        return JMEM_EXIT_CANT_CREATE;
    }
  else
    {
      g_autoptr(GString) out = g_string_new (NULL);

      jmem_output_headroom_human (result, out, (guint) view.width);
      if (container != NULL)
        {
          g_autofree char *evidence = jmem_text_for_terminal (container);

          g_string_append_printf (out, "Note: %s (%s).\n", JMEM_CONTAINER_NOTE, evidence);
        }
      if (!jmem_cmd_write_stdout (out->str, out->len))
        return JMEM_EXIT_CANT_CREATE;
    }
  if (status < 0)
    {
      jmem_cmd_printerr ("jmem headroom: no memory figures: /proc/meminfo was not read");
      return JMEM_EXIT_NO_DATA;
    }
  return status;
}
