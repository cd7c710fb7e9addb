/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Headroom: can this board still allocate N; with a drop, dropping caches
 * first when that is what makes N fit, and measuring again. */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

#include "jmem-collect-boot.h"
#include "jmem-framework-gates.h"
#include "jmem-snapshot.h"

G_BEGIN_DECLS

typedef struct {
  const char      *sysroot;            /* a capture; NULL or "/" for the live system */
  gint64           need_kib;           /* -1: no need, the figures alone */
  gboolean         drop;               /* drop caches (level 3) when that makes need_kib fit */
  gboolean         allow_interactive;  /* polkit may ask for a password */
  const char      *container;          /* jmem_container_detect()'s evidence, or NULL */
  JmemCollectBoot *boot;               /* per-boot facts kept between snapshots, or NULL */
  const char      *framework;          /* the gate asked about ("vllm"); NULL: every one */
} JmemOpsHeadroomOptions;

typedef struct {
  JmemSnapshot *snapshot;     /* the reading (after a drop: the second) */
  JmemHeadroom *headroom;     /* of it, for need_kib */
  JmemHeadroom *before;       /* after a drop: the first reading's; NULL otherwise */
  gboolean      drop_asked;
  gboolean      dropped;
  char         *drop_reason;  /* why caches were or were not dropped; NULL unasked */
  GVariant     *drop_result;  /* the helper's answer to the drop, or NULL */
  char         *container;
  JmemGateId    gate;         /* as asked; JMEM_GATE_N: every one */
  GPtrArray    *gates;        /* JmemGate of the reading: what each framework reads */
} JmemOpsHeadroom;

void jmem_ops_headroom_free (JmemOpsHeadroom *headroom);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (JmemOpsHeadroom, jmem_ops_headroom_free)

/* NULL with the error: JMEM_ERROR_NOT_AVAILABLE (a capture holding none),
 * JMEM_ERROR_INVALID_ARGUMENT (a drop asked of a capture or without a
 * need, a framework jmem_gate_from_name() does not know), a refused or failed drop (the helper's code, "caches were not
 * dropped: why"), or JMEM_CLIENT_ERROR_SNAPSHOT_FAILED for the reading
 * after it. */
JmemOpsHeadroom *jmem_ops_headroom (const JmemOpsHeadroomOptions *options,
                                    GError                      **error);

/* The jmem-headroom document (docs/headroom.schema.json). */
JsonNode *jmem_ops_headroom_json (const JmemOpsHeadroom *headroom);

/* The process exit status for the verdict (jmem(1), HEADROOM EXIT STATUS):
 * 0 fits now or nothing asked, 1 fits after reclaim, 2 does not fit; -1
 * when nothing is known. */
int jmem_ops_headroom_exit_status (const JmemOpsHeadroom *headroom);

G_END_DECLS
