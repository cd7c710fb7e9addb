/* SPDX-License-Identifier: GPL-2.0-or-later */
/* jmem mcp: the tools of jmem for an AI agent, as a stdio MCP server. */
#include "jmem-cmd.h"

#include "jmem-config.h"
#include "jmem-cmd-view.h"

#include "jmem-mcp.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

int
jmem_cmd_mcp (int argc, char **argv)
{
  int max_result_kib = JMEM_MCP_DEFAULT_MAX_RESULT_BYTES / 1024;
  JmemCmdNumber max_result_number = { "max-result-kib", JMEM_CMD_NUMBER_INT, &max_result_kib,
                                      JMEM_MCP_MIN_MAX_RESULT_BYTES / 1024, 1024 * 1024,
                                      "32 to 1048576 (KiB)" };
  g_autofree char *history = NULL;
  GOptionEntry entries[] = {
    jmem_cmd_number_entry (&max_result_number, "Most KiB a tool result takes (default 64, min. 32)", "KIB"),
    { "history", 0, 0, G_OPTION_ARG_FILENAME, &history, "The triage tool adds the rules over time on this history (growth, the projection)", "FILE" },
    { NULL },
  };
  const JmemViewHelp help = { .sysroot = "Every tool reads this tree written by jmem capture" };
  g_autoptr(GOptionContext) context = g_option_context_new ("- a Model Context Protocol server on stdin and stdout");
  g_auto(JmemView) view = { 0 };
  g_autoptr(JmemMcpTools) tools = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *description = NULL;
  int in_fd, out_fd, null_fd;

  g_option_context_add_main_entries (context, entries, NULL);
  jmem_view_init (&view, context, JMEM_VIEW_SYSROOT, 0, &help);
  /* the tools named from the table tools/list gives */
  description = g_strdup_printf (
    "Speaks newline-delimited JSON-RPC 2.0 on stdin and stdout, MCP revisions\n"
    "2024-11-05, 2025-03-26, 2025-06-18 and 2025-11-25 (chosen by initialize) and\n"
    "2026-07-28 (named in each request's _meta) (" JMEM_DOCDIR "/mcp.md).\n"
    "Tools: %s. Each result holds its document once, with a summary; a call\n"
    "without top, all, pid or limit stays within 8 KiB (an audit 16 KiB), naming\n"
    "what it left out in cut.\n"
    "Never asks for a password. Diagnostics go to stderr.\n"
    "Exit status: 0 at the end of the input, 64 usage error, 69 --sysroot is not a\n"
    "directory, 70 internal error, 73 stdout could not be written.", jmem_mcp_tools_names ());
  g_option_context_set_description (context, description);
  if (!jmem_cmd_parse (context, &argc, &argv, 0, NULL) || !jmem_view_check (&view))
    return view.status;
  if (!jmem_cmd_check_name ("history", history, "a history written by jmem watch"))
    return JMEM_EXIT_USAGE;

  tools = jmem_mcp_tools_new (view.sysroot, (gsize) max_result_kib * 1024, &error);
  if (tools == NULL)
    {
      jmem_cmd_printerr ("jmem mcp: %s", error->message);
      return JMEM_EXIT_INTERNAL;
    }
  if (history != NULL)
    jmem_mcp_tools_set_history (tools, history);

  /* stdout carries only protocol: the channels move to private
   * descriptors, and whatever else would print to stdout reaches stderr */
  in_fd = fcntl (STDIN_FILENO, F_DUPFD_CLOEXEC, 3);
  out_fd = fcntl (STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
  null_fd = open ("/dev/null", O_RDONLY | O_CLOEXEC);
  if (in_fd < 0 || out_fd < 0 || null_fd < 0 ||
      dup2 (null_fd, STDIN_FILENO) < 0 || dup2 (STDERR_FILENO, STDOUT_FILENO) < 0)
    {
      jmem_cmd_printerr ("jmem mcp: cannot set up stdin and stdout: %s", g_strerror (errno));
      return JMEM_EXIT_INTERNAL;
    }
  close (null_fd);
  /* a client that went away is an end, not a crash */
  signal (SIGPIPE, SIG_IGN);

  return jmem_mcp_serve (tools, in_fd, out_fd);
}
