/* The helper's capability hygiene: never hold more than CAP_SYS_ADMIN and
 * CAP_DAC_READ_SEARCH. The decision is a pure function over the five sets so
 * that it can be tested without privileges. */
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
  gboolean change;          /* FALSE: already within the two, touch nothing */
  guint64  drop_bounding;   /* drop these from the bounding set first */
  gboolean clear_ambient;
  gboolean needs_setpcap;   /* dropping bounding caps needs CAP_SETPCAP now */
  JmemCapSets target;       /* the sets after the change */
} JmemCapPlan;

/* CAP_SYS_ADMIN and CAP_DAC_READ_SEARCH as a mask. */
guint64 jmem_caps_allowed_mask (void);

/* What to do about @have. Never fails: whether the plan can be carried out
 * shows when it is applied. */
void jmem_caps_plan (const JmemCapSets *have,
                     JmemCapPlan       *plan);

/* Reads this process's five sets with libcap. */
gboolean jmem_caps_read (JmemCapSets *sets,
                         GError     **error);

/* Reads the sets, applies the plan and checks the result. *changed tells
 * whether any capability call was made. Fails when the sets could not be
 * reduced: the helper must then refuse to run. */
gboolean jmem_caps_restrict (gboolean *changed,
                             GError  **error);

G_END_DECLS
