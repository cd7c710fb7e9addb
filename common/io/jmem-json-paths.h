/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Which members of a document a reader builds: a reader of a long history
 * asks for the few figures its rules read, and the rest of each line is
 * checked as JSON but never becomes a tree (jmem_json_read_paths()). */
#pragma once

#include <glib.h>
#include <glib-object.h>

G_BEGIN_DECLS

typedef struct _JmemJsonPaths JmemJsonPaths;

/* The members named by @paths (NULL-terminated): each a chain of member
 * names joined by '.', a name followed by "[]" standing for every element
 * of that array, as in "nvmap.by_pid[].size_kib", and "*" for every member
 * no other step names ("memory.fields_kib.*"). A listed path keeps its
 * value whole, whatever it holds; the objects and arrays on the way to it
 * keep only what leads to a listed path. Where a value on the way is not
 * the kind the path expects (an array where it names a member, an object
 * where it says "[]", a string), that value is kept whole, so that a check
 * of the document sees it as it is. A name holding '.' or '[' cannot be
 * named; none of jmem's does. */
JmemJsonPaths *jmem_json_paths_new (const char *const *paths);

/* The same, with the paths of @more added. */
void jmem_json_paths_add (JmemJsonPaths      *paths,
                          const char *const *more);

/* A path a check reads and the reader does not: its value is built only
 * when it is not null and not an integer in @min..@max (a value the check
 * would refuse), so that a check of the pruned tree refuses what it
 * refuses in the whole one, and a value it takes costs no allocation kept.
 * A path also listed as above is kept whole. */
void jmem_json_paths_add_unless_int (JmemJsonPaths *paths,
                                     const char    *path,
                                     gint64         min,
                                     gint64         max);

/* The same for a value that must be null or a boolean. */
void jmem_json_paths_add_unless_boolean (JmemJsonPaths *paths,
                                         const char    *path);

void jmem_json_paths_free (JmemJsonPaths *paths);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (JmemJsonPaths, jmem_json_paths_free)

/* For the reader: what to do with a value met at @paths (the node of the
 * object or array that holds it) under the member @name (@name_len bytes,
 * as decoded; NULL for an array's element). Returns the node of the value,
 * NULL when the value is kept whole, and sets *@keep to FALSE when the
 * value is not built at all. */
const JmemJsonPaths *jmem_json_paths_child (const JmemJsonPaths *paths,
                                            const char          *name,
                                            gsize                name_len,
                                            gboolean            *keep);

/* For the reader: whether a scalar read at @paths (as returned by
 * jmem_json_paths_child()) is one its check takes, and is left out: @type
 * is G_TYPE_INT64 (with @value), G_TYPE_BOOLEAN or G_TYPE_NONE (null). */
gboolean jmem_json_paths_drops (const JmemJsonPaths *paths,
                                GType                type,
                                gint64               value);

/* Whether @paths, met at an object (@is_object) or an array, filters its
 * members or elements; FALSE when the value is not the kind the paths
 * expect and is kept whole. */
gboolean jmem_json_paths_filters (const JmemJsonPaths *paths,
                                  gboolean             is_object);

G_END_DECLS
