/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What kind of system this is: told after the GPU was asked, as a GB10's
 * GPU is part of the evidence (jmem-platform.h). */
#include "jmem-collect-private.h"

#include "jmem-names.h"

/* One DMI field (world-readable; a capture copies it): NULL when absent. */
static char *
read_dmi (JmemCollectContext *ctx, const char *name)
{
  g_autofree char *path = g_strconcat ("/sys/class/dmi/id/", name, NULL);
  g_autofree char *data = NULL;
  gsize len = 0;

  if (!jmem_collect_read_boot_raw (ctx, path, JMEM_MAX_SMALL_BYTES, &data, &len, NULL))
    return NULL;
  return g_strchomp (g_strndup (data, len));
}

void
jmem_collect_platform (JmemCollectContext *ctx)
{
  JmemSnapshot *s = ctx->snapshot;
  const char *model = s->identity != NULL ? s->identity->model : NULL;
  g_autofree char *vendor = read_dmi (ctx, "sys_vendor");
  g_autofree char *product = read_dmi (ctx, "product_name");
  g_autofree char *family = read_dmi (ctx, "product_family");
  g_autofree char *board = read_dmi (ctx, "board_name");
  JmemPlatformEvidence evidence = {
    .tegra_release = s->release != NULL,
    .jetson_generation = s->identity != NULL ? s->identity->generation : NULL,
    .dmi_sys_vendor = vendor,
    .dmi_product_name = product,
    .dmi_product_family = family,
    .dmi_board_name = board,
    .gpu_stack = s->gpu_stack,
    .gpus = s->gpus,
  };

  s->platform = jmem_platform_recognise (&evidence);
  /* a system whose GPU shares its RAM is what jmem is for, Jetson or not:
   * only another machine is worth a warning. A capture is analysed
   * already: what helps is one written on a Jetson */
  if (s->platform->kind == JMEM_PLATFORM_OTHER)
    jmem_snapshot_add_warning (s, "identity",
                               ctx->root == NULL
                                 ? "run jmem on the Jetson itself, or on a capture of it: "
                                   "jmem snapshot --sysroot DIR"
                                 : "write a capture on the Jetson itself: jmem capture DIR",
                               "%s not a Jetson (device-tree model %s%s%s, no "
                               "/etc/nv_tegra_release) and no NVIDIA GPU shares its RAM: NvMap, "
                               "nvpmodel and tegrastats do not apply; what it has is reported",
                               ctx->root == NULL ? "this machine is" : "the captured system is",
                               model ? "\"" : "", model ? model : "absent", model ? "\"" : "");
}
