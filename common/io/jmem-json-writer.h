/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A streaming JSON writer with JsonBuilder's calls: the document is text as
 * soon as it is written, with no tree of nodes to build and free. A
 * snapshot of every process is thousands of objects, and json-glib's tree
 * was most of jmem's own CPU. The text is what JsonGenerator writes (pretty
 * with an indent of 2, or compact), except that every control character is
 * escaped and the text is always valid UTF-8: bytes that are not become
 * U+FFFD, so no string a caller passes can make the output invalid. */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

typedef struct _JmemJsonWriter JmemJsonWriter;

JmemJsonWriter *jmem_json_writer_new (gboolean pretty);
void jmem_json_writer_free (JmemJsonWriter *writer);
/* The document written; frees @writer. */
char *jmem_json_writer_free_to_string (JmemJsonWriter *writer);

/* Takes the next piece of a document written to a sink; FALSE when it
 * cannot (stdout is full or closed: the writer then drops the rest). */
typedef gboolean (*JmemJsonWriterSink) (const char *text,
                                        gsize       len,
                                        gpointer    user_data);

/* A writer that hands its text to @sink in pieces of about 64 KiB as it
 * writes, for a document too long to hold (60,000 NvMap handles make
 * 18 MB of it). */
JmemJsonWriter *jmem_json_writer_new_to_sink (gboolean           pretty,
                                              JmemJsonWriterSink sink,
                                              gpointer           user_data);
/* Hands the rest to the sink; FALSE when it refused a piece. */
gboolean jmem_json_writer_finish (JmemJsonWriter *writer);

/* The document written, read back as a json-glib tree (for a caller that
 * embeds it in another); frees @writer. */
JsonNode *jmem_json_writer_free_to_node (JmemJsonWriter *writer);

void jmem_json_writer_begin_object (JmemJsonWriter *writer);
void jmem_json_writer_end_object (JmemJsonWriter *writer);
void jmem_json_writer_begin_array (JmemJsonWriter *writer);
void jmem_json_writer_end_array (JmemJsonWriter *writer);
/* In an object, the name of the member whose value comes next. */
void jmem_json_writer_set_member_name (JmemJsonWriter *writer,
                                       const char     *name);
/* @value: any bytes (see above). Names are written the same way. */
void jmem_json_writer_add_string_value (JmemJsonWriter *writer,
                                        const char     *value);
void jmem_json_writer_add_int_value (JmemJsonWriter *writer,
                                     gint64          value);
void jmem_json_writer_add_double_value (JmemJsonWriter *writer,
                                        double          value);
void jmem_json_writer_add_boolean_value (JmemJsonWriter *writer,
                                         gboolean        value);
void jmem_json_writer_add_null_value (JmemJsonWriter *writer);
/* The member @name: @value, or null where it is negative (jmem's "unknown"). */
void jmem_json_writer_add_size_member (JmemJsonWriter *writer,
                                       const char     *name,
                                       gint64          value);
/* A tree built elsewhere, written in place. */
void jmem_json_writer_add_node (JmemJsonWriter *writer,
                                JsonNode       *node);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (JmemJsonWriter, jmem_json_writer_free)

G_END_DECLS
