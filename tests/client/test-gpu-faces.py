#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Every face that shows GPU memory shows the same figure per process on the
Thor trees (thor-churn: one listed process exited, fixtures/trees/thor-churn)
and on a GB10 that is no Jetson (gb10-spark):
the JSON snapshot, the human view, the Prometheus metrics, the MCP snapshot
tool and jmem top (its golden screen, which test-top.py checks against the
live screen). Prints TAP.

Usage: test-gpu-faces.py JMEM FIXTURES GOLDEN_DIR
"""
import json
import os
import re
import subprocess
import sys

JMEM, FIXTURES, GOLDEN = (os.path.abspath(a) for a in sys.argv[1:4])
ENV = dict(os.environ, TZ="UTC", LANG="C.UTF-8", LC_ALL="C.UTF-8")
GIB = 1024 * 1024
# what each tree's README says every live process holds, in KiB (None: unknown)
TREES = {
    "thor-unified": {4012: 60 * GIB, 5210: 2 * GIB, 2450: None, 1: 0, 5300: 0},
    "thor-churn": {4012: 60 * GIB, 6100: 8 * GIB, 6200: 4 * GIB, 5210: 2 * GIB, 2450: None,
                   1: 0, 5300: 0},
    "thor-r39": {4012: 60 * GIB, 5210: 2 * GIB, 2450: None, 1: 0, 5300: 0},
    # a GB10, no Jetson: the same faces, the same figures
    "gb10-spark": {121004: 38554 * 1024, 114687: 19135 * 1024, 1: 0, 2: 0},
}
# what kind of system each is (identity.platform), and the name a face gives it
PLATFORMS = {
    "thor-unified": ("jetson", "NVIDIA Jetson AGX Thor Developer Kit"),
    "thor-churn": ("jetson", "NVIDIA Jetson AGX Thor Developer Kit"),
    "thor-r39": ("jetson", "NVIDIA Jetson AGX Thor Developer Kit"),
    "gb10-spark": ("unified-memory", "NVIDIA_DGX_Spark"),
}
results = []


def ok(cond, name, detail=""):
    results.append((bool(cond), name, detail))


def jmem(*args):
    r = subprocess.run([JMEM, *args], env=ENV, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, (args, r.returncode, r.stderr)
    return r.stdout


def human_size(kib):
    """jmem_text_size(): KiB below 1 MiB, else one decimal of MiB, GiB."""
    if kib is None:
        return "-"
    for unit, shift in (("GiB", 20), ("MiB", 10)):
        if kib >= 1 << shift:
            return "%.1f %s" % (kib / (1 << shift), unit)
    return "%d KiB" % kib


def top_size(kib):
    """jmem top's compact sizes: 0K, 107M, 2.0G, 60.0G."""
    if kib is None:
        return "-"
    for unit, shift in (("G", 20), ("M", 10)):
        if kib >= 1 << shift:
            v = kib / (1 << shift)
            return ("%.1f%s" if v < 100 else "%.0f%s") % (v, unit)
    return "%dK" % kib


def mcp_snapshot(sysroot):
    proc = subprocess.Popen([JMEM, "mcp", "--sysroot", sysroot], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, env=ENV)
    answers = []
    for i, (method, params) in enumerate((
            ("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                            "clientInfo": {"name": "t", "version": "1"}}),
            ("tools/call", {"name": "snapshot", "arguments": {"all": True}}))):
        proc.stdin.write(json.dumps({"jsonrpc": "2.0", "id": i + 1, "method": method,
                                     "params": params}).encode() + b"\n")
        proc.stdin.flush()
        answers.append(json.loads(proc.stdout.readline()))
    proc.stdin.close()
    proc.stdout.read()
    proc.wait(timeout=60)
    return answers[1]["result"]["structuredContent"]


for tree, want in TREES.items():
    sysroot = os.path.join(FIXTURES, "trees", tree)
    doc = json.loads(jmem("snapshot", "--json", "--all", "--sysroot", sysroot))
    got = {p["pid"]: p["gpu_kib"] for p in doc["processes"]["list"]}
    ok(got == want, "%s: JSON gpu_kib per process" % tree, "%r != %r" % (got, want))
    kind, name = PLATFORMS[tree]
    ok(doc["identity"]["platform"]["kind"] == kind, "%s: JSON platform" % tree,
       "%r" % doc["identity"]["platform"])

    human = jmem("snapshot", "--all", "--width", "200", "--sysroot", sysroot)
    table = human[human.index("Processes by footprint"):].split("\n\n")[0].splitlines()[2:]
    # PID USER RSS PSS GPU/NVMAP: sizes are a number and a unit, "-" alone
    rows = {}
    for line in table:
        m = re.match(r"^\s*(\d+) \S+\s+(\S+(?: \S?iB)?)\s+(\S+(?: \S?iB)?)\s+(-|\S+ \S?iB) ", line)
        if m:
            rows[int(m.group(1))] = m.group(4)
    ok(rows == {pid: human_size(kib) for pid, kib in want.items()},
       "%s: human GPU/NVMAP column" % tree, "%r" % rows)
    ok(human.startswith(name + "\n") and
       (("unified-memory NVIDIA system, not a Jetson" in human) == (kind == "unified-memory")),
       "%s: human header names the system and its kind" % tree, human[:300])

    metrics = jmem("metrics", "--sysroot", sysroot)
    samples = {int(m.group(1)): int(m.group(2)) for m in
               re.finditer(r'^jmem_process_gpu_bytes\{pid="(\d+)",[^}]*\} (\d+)$', metrics, re.M)}
    ok(samples == {pid: kib * 1024 for pid, kib in want.items() if kib is not None},
       "%s: jmem_process_gpu_bytes" % tree, "%r" % samples)
    ok(re.search(r'^jmem_platform_info\{kind="%s",' % kind, metrics, re.M),
       "%s: jmem_platform_info" % tree)

    mcp = mcp_snapshot(sysroot)
    got = {p["pid"]: p["gpu_kib"] for p in mcp["processes"]["list"]}
    ok(got == want, "%s: MCP snapshot gpu_kib" % tree, "%r" % got)
    ok(mcp["identity"]["platform"]["kind"] == kind, "%s: MCP platform" % tree)

    with open(os.path.join(GOLDEN, "top-%s-132x43.txt" % tree), encoding="utf-8") as f:
        screen = f.read().splitlines()
    ok(("  %s  L4T " % name) in screen[0], "%s: jmem top names the system" % tree, screen[0])
    head = next(i for i, line in enumerate(screen) if line.lstrip().startswith("PID "))
    gpu_at = screen[head].index("    GPU") + 4
    shown = {}
    for line in screen[head + 1:]:
        if re.match(r"^\s*\d+ ", line):
            shown[int(line.split()[0])] = line[gpu_at - 4:gpu_at + 3].strip()
    ok(shown == {pid: top_size(kib) for pid, kib in want.items()},
       "%s: jmem top GPU column" % tree, "%r" % shown)

print("1..%d" % len(results))
for i, (passed, name, detail) in enumerate(results, 1):
    print("%s %d - %s" % ("ok" if passed else "not ok", i, name))
    if not passed:
        print("# " + detail)
sys.exit(0 if all(p for p, _, _ in results) else 1)
