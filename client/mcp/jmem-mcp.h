/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The Model Context Protocol over stdio: newline-delimited JSON-RPC 2.0. */
#pragma once

#include "jmem-mcp-tools.h"

G_BEGIN_DECLS

/* The longest message read; a longer line is refused and skipped. */
#define JMEM_MCP_MAX_LINE_BYTES (1024 * 1024)

/* Reads requests from @in_fd and writes answers to @out_fd until end of
 * input (returns 0 once the tool calls queued have been answered) or until
 * @out_fd cannot be written (returns 73). Tool calls run on a thread of
 * their own, one at a time, while requests are read. */
int jmem_mcp_serve (JmemMcpTools *tools,
                    int           in_fd,
                    int           out_fd);

G_END_DECLS
