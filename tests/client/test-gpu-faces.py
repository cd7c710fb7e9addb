#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Every face that shows GPU memory shows the same figure per process on the
Thor trees (thor-churn: one listed process exited, fixtures/trees/thor-churn)
and on a GB10 that is no Jetson (gb10-spark):
the JSON snapshot, the human view, the Prometheus metrics, the MCP snapshot
tool and jmem top (its golden screen, which test-top.py checks against the
live screen); and the accounting's gpu and gpu_pool buckets are the same in
the JSON, MCP, metrics, human view, summary and top, with thor-r38-pool's
driver pool (no process holding GPU memory) beside them. Prints TAP.

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
    "thor-r38-pool": {6300: 0, 2450: None, 1: 0, 5300: 0},
    "thor-r39": {4012: 60 * GIB, 5210: 2 * GIB, 2450: None, 1: 0, 5300: 0},
    "thor-r39-idle": {6300: 0, 2450: None, 1: 0, 5300: 0},
    # a GB10, no Jetson: the same faces, the same figures
    "gb10-spark": {121004: 38554 * 1024, 114687: 19135 * 1024, 1: 0, 2: 0},
}
# what kind of system each is (identity.platform), and the name a face gives it
THOR = ("jetson", "NVIDIA Jetson AGX Thor Developer Kit")
PLATFORMS = {
    "thor-unified": THOR,
    "thor-churn": THOR,
    "thor-r38-pool": THOR,
    "thor-r39": THOR,
    "thor-r39-idle": THOR,
    "gb10-spark": ("unified-memory", "NVIDIA_DGX_Spark"),
}
# the accounting's gpu and gpu_pool buckets (None: unknown): what the driver
# reports, exited PIDs it still counts included (thor-churn's 512 MiB), and
# R38's pool, estimated where no process holds GPU memory
BUCKETS = {
    "thor-unified": {"gpu": 62 * GIB, "gpu_pool": None},
    "thor-churn": {"gpu": 74 * GIB + GIB // 2, "gpu_pool": None},
    "thor-r38-pool": {"gpu": 0, "gpu_pool": 20 * GIB + 307200},
    "thor-r39": {"gpu": 62 * GIB, "gpu_pool": 0},
    "thor-r39-idle": {"gpu": 0, "gpu_pool": 0},
    "gb10-spark": {"gpu": (19135 + 38554) * 1024, "gpu_pool": None},
}
LABELS = {"gpu": "GPU (nvidia.ko)", "gpu_pool": "~GPU driver pool"}
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

    buckets = BUCKETS[tree]
    got = {b["name"]: b["kib"] for b in doc["accounting"]["buckets"] if b["name"] in buckets}
    ok(got == buckets, "%s: JSON gpu buckets" % tree, "%r" % got)
    ok(doc["accounting"]["gpu"]["reported_kib"] == buckets["gpu"],
       "%s: JSON accounting.gpu.reported_kib" % tree, "%r" % doc["accounting"]["gpu"])
    got = {b["name"]: b["kib"] for b in mcp["accounting"]["buckets"] if b["name"] in buckets}
    ok(got == buckets, "%s: MCP gpu buckets" % tree, "%r" % got)
    samples = {m.group(1): int(m.group(2)) for m in
               re.finditer(r'^jmem_memory_bucket_bytes\{bucket="(gpu|gpu_pool)"\} (\d+)$', metrics, re.M)}
    ok(samples == {k: v * 1024 for k, v in buckets.items() if v is not None},
       "%s: jmem_memory_bucket_bytes gpu buckets" % tree, "%r" % samples)
    # the human view: a bar per bucket that holds memory
    where = human[human.index("Where the RAM is"):human.index("each bucket's fields")]
    for bucket, kib in buckets.items():
        m = re.search(r"^  %s +(\S+ \S?iB) " % re.escape(LABELS[bucket]), where, re.M)
        ok((m.group(1) if m else None) == (human_size(kib) if kib else None),
           "%s: human %s bar" % (tree, bucket), where)
    summary = jmem("summary", "--sysroot", sysroot)
    m = re.search(r", GPU (\S+ \S?iB),", summary)
    ok(m is not None and m.group(1) == human_size(buckets["gpu"]) or
       (m is None and buckets["gpu"] == 0), "%s: summary GPU" % tree, summary)

    golden = os.path.join(GOLDEN, "top-%s-132x43.txt" % tree)
    if not os.path.exists(golden):
        continue
    with open(golden, encoding="utf-8") as f:
        screen = f.read().splitlines()
    # and its L4T release, which a unified-memory system has none of
    ok(("  %s  L4T " % name) in screen[0] if kind != "unified-memory"
       else ("  %s  up " % name) in screen[0] and "L4T" not in screen[0],
       "%s: jmem top names the system" % tree, screen[0])
    legend = "\n".join(screen)
    if buckets["gpu"]:
        ok("GPU (nvidia.ko) %s" % top_size(buckets["gpu"]) in legend,
           "%s: jmem top gpu bucket" % tree, legend)
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
