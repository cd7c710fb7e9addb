/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The helper's capability hygiene: hold none. As uid 0 it owns the files it
 * reads and writes, and the kernel checks no capability for them. The one
 * exception is an operator's grant of CAP_DAC_READ_SEARCH through the unit's
 * bounding set (for a kernel that does check it): found already bounded to
 * that, the helper keeps it and makes no call. The decision is a pure
 * function over the five sets so that it can be tested without privileges. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* One bit per capability number (bit n = capability n). */
typedef struct {
  guint64 permitted;
  guint64 effective;
  guint64 inheritable;
  guint64 bounding;
  guint64 ambient;
} JmemCapSets;

typedef struct {
  gboolean change;          /* FALSE: nothing beyond the grant, touch nothing */
  guint64  drop_bounding;   /* drop these from the bounding set first */
  gboolean clear_ambient;
  gboolean needs_setpcap;   /* dropping bounding caps needs CAP_SETPCAP now */
  JmemCapSets target;       /* the sets after the change: all empty */
} JmemCapPlan;

/* CAP_DAC_READ_SEARCH as a mask: the only capability an operator may give
 * the helper (docs/operator-guide.md). */
guint64 jmem_caps_grantable_mask (void);

/* What to do about @have. Never fails: whether the plan can be carried out
 * shows when it is applied. */
void jmem_caps_plan (const JmemCapSets *have,
                     JmemCapPlan       *plan);

/* Reads this process's five sets with libcap. */
gboolean jmem_caps_read (JmemCapSets *sets,
                         GError     **error);

/* Reads the sets, applies the plan and checks the result. *changed tells
 * whether any capability call was made; *kept (nullable) receives what is
 * still held (0, or the operator's grant). Fails when the sets could not be
 * emptied: the helper must then refuse to run. */
gboolean jmem_caps_restrict (gboolean *changed,
                             guint64  *kept,
                             GError  **error);

/* What jmem_caps_restrict() asks of the kernel, so that a test can stand in
 * for a kernel that leaves capabilities behind. The int functions return 0
 * or -1 with errno, as libcap's do. */
typedef struct {
  gboolean (*read) (JmemCapSets *sets, GError **error);
  int      (*drop_bound) (int cap);
  int      (*clear_ambient) (void);
  int      (*clear_sets) (void);  /* permitted, effective and inheritable */
} JmemCapsOps;

/* jmem_caps_restrict() through @ops; NULL: this process, with libcap. */
gboolean jmem_caps_restrict_with (const JmemCapsOps *ops,
                                  gboolean          *changed,
                                  guint64           *kept,
                                  GError           **error);

G_END_DECLS
