/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What a model reads of a tool's result: clients give it either the text
 * block or structuredContent, never both (docs/mcp.md, "What the model
 * receives"), so the document is sent once, with a short sentence a model
 * can quote, and the text block is that sentence and the key figures. */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* One sentence on @doc, the document tool @tool gave: the figures a
 * person asks for first. */
char *jmem_mcp_brief_summary (const char *tool,
                              JsonObject *doc);

/* A few lines of the key figures of @doc, each starting with a newline:
 * taken of the whole document, before anything is cut. */
char *jmem_mcp_brief_figures (const char *tool,
                              JsonObject *doc);

/* The text block of @doc's result: its "summary" member, @figures (may be
 * NULL), then
 * what "cut" says was shortened. */
char *jmem_mcp_brief_text (JsonObject *doc,
                           const char *figures);

G_END_DECLS
