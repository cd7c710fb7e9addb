#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Records a jmem watch history of a captured tree that changes between
samples, for the tests of jmem top --replay and jmem plot.

Each sample is taken by `jmem watch --count 1 --all --sysroot COPY --output
OUT` (so the history is jmem's own, appended line by line) after the copy of
TREE was changed: jmem/captured-at moves by --interval seconds, the NvMap
client rows of --leak-pid grow by --leak-mib per sample and MemFree and
MemAvailable fall by as much (so the accounting still adds up), and the
other processes' PSS wobbles by a few MiB around its captured value (a
fixed pattern, the same at every run).

With --sections, each line also carries a headroom object as jmem top and
jmem plot read it (common/rules/jmem-frame.c), shrinking with the leak.

Usage: faces-history.py JMEM TREE OUT [--samples N] [--interval S]
                        [--start UNIX] [--leak-pid PID] [--leak-mib M]
                        [--sections]
"""
import json
import argparse
import os
import re
import shutil
import subprocess
import sys

import scratch


def rewrite(path, func):
    with open(path) as f:
        text = f.read()
    with open(path, "w") as f:
        f.write(func(text))


def set_nvmap(clients, leak_pid, extra_kib):
    """The leaking PID's first row grows; the total line follows."""
    lines = clients.rstrip("\n").split("\n")
    grown = False
    total = 0
    out = []
    for line in lines:
        m = re.match(r"^(\s*\S+\s+\S+\s+)(\d+)(\s+)(\d+)K$", line)
        if m and not line.startswith("total"):
            size = int(m.group(4))
            if int(m.group(2)) == leak_pid and not grown:
                size += extra_kib
                grown = True
            total += size
            width = len(m.group(3)) + len(m.group(4))
            out.append("%s%s%*dK" % (m.group(1), m.group(2), width, size))
        elif line.startswith("total"):
            m = re.match(r"^(total\s+)(\d+)K$", line)
            out.append("%s%dK" % (m.group(1), total) if m else line)
        else:
            out.append(line)
    return "\n".join(out) + "\n"


def set_free(meminfo, less_kib):
    def lower(m):
        return "%s%*d kB" % (m.group(1), len(m.group(2)) + len(m.group(3)),
                             max(int(m.group(3)) - less_kib, 0))
    return re.sub(r"^((?:MemFree|MemAvailable):)(\s+)(\d+) kB$", lower, meminfo, flags=re.M)


def set_pss(rollup, kib):
    return re.sub(r"^Pss:(\s+)\d+ kB$", lambda m: "Pss:%s%d kB" % (m.group(1), kib), rollup,
                  count=1, flags=re.M)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("jmem")
    ap.add_argument("tree")
    ap.add_argument("out")
    ap.add_argument("--samples", type=int, default=12)
    ap.add_argument("--interval", type=int, default=60)
    ap.add_argument("--start", type=int, default=1765000000)
    ap.add_argument("--leak-pid", type=int, default=1731)
    ap.add_argument("--leak-mib", type=int, default=64)
    ap.add_argument("--sections", action="store_true")
    args = ap.parse_args()

    work = scratch.mkdtemp("jmem-history-")
    try:
        root = os.path.join(work, "tree")
        shutil.copytree(args.tree, root, symlinks=True)
        clients = os.path.join(root, "sys/kernel/debug/nvmap/iovmm/clients")
        with open(clients) as f:
            original_clients = f.read()
        meminfo = os.path.join(root, "proc/meminfo")
        with open(meminfo) as f:
            original_meminfo = f.read()
        rollups = {}
        for pid in os.listdir(os.path.join(root, "proc")):
            path = os.path.join(root, "proc", pid, "smaps_rollup")
            if pid.isdigit() and int(pid) != args.leak_pid and os.path.exists(path):
                with open(path) as f:
                    text = f.read()
                m = re.search(r"^Pss:\s+(\d+) kB$", text, re.M)
                if m:
                    rollups[path] = (text, int(m.group(1)))
        for i in range(args.samples):
            with open(os.path.join(root, "jmem", "captured-at"), "w") as f:
                f.write("%d\n" % (args.start + i * args.interval))
            with open(clients, "w") as f:
                f.write(set_nvmap(original_clients, args.leak_pid, i * args.leak_mib * 1024))
            with open(meminfo, "w") as f:
                f.write(set_free(original_meminfo, i * args.leak_mib * 1024))
            for n, (path, (text, pss)) in enumerate(sorted(rollups.items())):
                wobble = ((i * 7 + n * 3) % 5 - 2) * 1024   # -2 .. +2 MiB, no trend
                with open(path, "w") as f:
                    f.write(set_pss(text, max(pss + wobble, 0)))
            # a relative --sysroot: the lines name "tree", the same at every run
            r = subprocess.run([args.jmem, "watch", "--count", "1", "--all", "--no-ask-password",
                                "--sysroot", "tree", "--output", os.path.abspath(args.out)],
                               cwd=work, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            if r.returncode != 0:
                sys.exit("faces-history: jmem watch failed (%d): %s" % (r.returncode, r.stderr.decode()))
        if args.sections:
            add_sections(args.out, args.leak_mib)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def add_sections(path, leak_mib):
    """A headroom object on every line, shrinking with the leak."""
    with open(path) as f:
        docs = [json.loads(line) for line in f]
    with open(path, "w") as f:
        for i, d in enumerate(docs):
            d["headroom"] = {"allocatable_now_kib": 30000000 - i * leak_mib * 1024,
                             "allocatable_after_reclaim_kib": 44000000 - i * leak_mib * 1024,
                             "largest_free_block_kib": 4096}
            f.write(json.dumps(d, separators=(",", ":"), ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
