/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What a message that cannot be read whole still says at its start: its
 * id, so that the refusal reaches the request that waits for it (a reply
 * with a null id is dropped by every SDK, and the call times out), and
 * for a tools/call the span of its arguments. */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

typedef struct {
  JsonNode   *id;              /* an integer or a string; NULL: none read */
  gboolean    tools_call;      /* "method" is "tools/call" */
  char       *tool;            /* params.name, NULL if none read */
  const char *arguments;       /* params.arguments as it is in the line, or NULL */
  gsize       arguments_len;
} JmemMcpSalvage;

/* Scans the first @len bytes of @line, a JSON object that may be damaged or
 * cut short, for its top-level "id", "method" and "params" members (in any
 * order), and in params for "name" and "arguments". Each value is taken
 * only where it stands whole and valid before the damage; nothing else is
 * checked. Never recurses, reads each byte at most a few times. */
void jmem_mcp_salvage (const char     *line,
                       gsize           len,
                       JmemMcpSalvage *out);

void jmem_mcp_salvage_clear (JmemMcpSalvage *salvage);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (JmemMcpSalvage, jmem_mcp_salvage_clear)

G_END_DECLS
