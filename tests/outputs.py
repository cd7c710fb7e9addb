# SPDX-License-Identifier: GPL-2.0-or-later
"""What jmem prints, gathered for the tests that check what its outputs tell
a user to do or to read (test-hints.py, test-doc-paths.py): every command's
--help, and the human and JSON outputs of the commands that read a capture,
on every recorded fixture tree and history (warnings and advice on standard
error included), and the MCP server's instructions and tool descriptions.

collect(JMEM, FIXTURES, TMP) returns Output tuples: the output's name, the
--sysroot tree it is about (None: the live system or none), the command's
exit status and what it printed, stdout then stderr.
"""
import collections
import json
import os
import re
import subprocess

Output = collections.namedtuple("Output", "name sysroot status text")

ENV = dict(os.environ, LANG="C.UTF-8", LC_ALL="C.UTF-8", NO_COLOR="1")
ENV.pop("COLUMNS", None)
# the sizes that give each headroom verdict on some tree
NEEDS = ["512M", "8G", "40G", "1T"]


def run(argv, stdin=None, timeout=120):
    r = subprocess.run(argv, input=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       env=ENV, timeout=timeout)
    text = r.stdout.decode("utf-8", "replace") + "\n" + r.stderr.decode("utf-8", "replace")
    return r.returncode, text


def commands(jmem):
    """The commands `jmem --help` lists."""
    _, text = run([jmem, "--help"])
    section = text.split("Commands:", 1)[1].split("Options:", 1)[0]
    return re.findall(r"^  ([a-z][a-z-]+) ", section, re.M)


def mcp_session(sysroot):
    """The requests of a session that lists the tools and calls each that
    reads a capture."""
    calls = [("snapshot", {}), ("triage", {}), ("allocations", {}), ("headroom", {"need": "8G"}),
             ("drop_caches", {}), ("audit", {})]
    lines = [{"jsonrpc": "2.0", "id": 0, "method": "initialize",
              "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                         "clientInfo": {"name": "jmem-test", "version": "1"}}},
             {"jsonrpc": "2.0", "method": "notifications/initialized"},
             {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}]
    for i, (name, args) in enumerate(calls, 2):
        lines.append({"jsonrpc": "2.0", "id": i, "method": "tools/call",
                      "params": {"name": name, "arguments": args}})
    return "".join(json.dumps(l) + "\n" for l in lines).encode()


def collect(jmem, fixtures, tmp):
    outputs = []

    def add(name, argv, sysroot=None, stdin=None):
        status, text = run([jmem] + argv, stdin=stdin)
        outputs.append(Output(name, sysroot, status, text))

    add("jmem", [])
    add("jmem --help", ["--help"])
    for command in commands(jmem):
        add("jmem %s --help" % command, [command, "--help"])

    trees = sorted(d for d in os.listdir(os.path.join(fixtures, "trees"))
                   if os.path.isdir(os.path.join(fixtures, "trees", d)))
    for tree in trees:
        sysroot = os.path.join(fixtures, "trees", tree)
        at = ["--sysroot", sysroot, "--no-ask-password"]
        for json_flag in ([], ["--json"]):
            shape = " --json" if json_flag else ""
            add("snapshot%s on %s" % (shape, tree), ["snapshot", "--all"] + json_flag + at, sysroot)
            add("triage%s on %s" % (shape, tree), ["triage"] + json_flag + at, sysroot)
            add("allocations%s on %s" % (shape, tree), ["allocations"] + json_flag + at, sysroot)
            add("headroom%s on %s" % (shape, tree), ["headroom"] + json_flag + at, sysroot)
            for need in NEEDS:
                add("headroom --need %s%s on %s" % (need, shape, tree),
                    ["headroom", "--need", need] + json_flag + at, sysroot)
        add("summary on %s" % tree, ["summary"] + at, sysroot)
        add("metrics on %s" % tree, ["metrics"] + at, sysroot)
        add("mcp on %s" % tree, ["mcp", "--sysroot", sysroot], sysroot, stdin=mcp_session(sysroot))

    # two snapshots of different boards, compared; the recorded histories
    before, after = os.path.join(tmp, "before.json"), os.path.join(tmp, "after.json")
    for path, tree in ((before, "orin-agx-nvgpu"), (after, "shared-pages")):
        with open(path, "w") as f:
            subprocess.run([jmem, "snapshot", "--json", "--sysroot",
                            os.path.join(fixtures, "trees", tree)], stdout=f, env=ENV, check=True)
    for json_flag in ([], ["--json"]):
        add("diff" + " ".join(json_flag), ["diff", before, after] + json_flag)
    histories = sorted(os.path.join(fixtures, "history", h)
                       for h in os.listdir(os.path.join(fixtures, "history"))
                       if h.endswith(".jsonl"))
    for history in histories:
        name = os.path.basename(history)
        add("triage --history %s" % name, ["triage", "--history", history])
        add("triage --json --history %s" % name, ["triage", "--json", "--history", history])
        add("diff --history %s" % name, ["diff", "--history", history])
    return outputs
