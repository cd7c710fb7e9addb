#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Where the human views wrap a line: between fields, never between a number
and its unit ("97.7" at the end of one line, "MiB" starting the next), at
every width from 40 to 120 columns (--width from 60, its least; below, a
terminal that narrow), on captured boards; and the accounting of
a board whose buckets overlap (MemTotal made smaller than what they hold)
within 60 columns.

    test-human-wrap.py JMEM FIXTURES_DIR

Prints TAP.
"""
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from tap import check, report  # noqa: E402

JMEM, FIXTURES = sys.argv[1:3]
TREES = ["orin-agx-nvgpu", "headroom-fragmented", "thor-unified", "r32-xavier-nx"]
COMMANDS = [["snapshot"], ["triage"], ["allocations"], ["headroom", "--need", "4G"],
            ["headroom", "--need", "49G", "--for", "llama.cpp"]]
NUMBER_AT_END = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?$")
UNIT_FIRST = re.compile(r"\s*(?:KiB|MiB|GiB|TiB|kB|B|%)(?!\w)")


def run(argv):
    r = subprocess.run([JMEM] + argv + ["--no-ask-password"], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, errors="replace")
    return r.returncode, r.stdout


def human_width():
    """human-width.py, whose in_terminal() runs a command on a terminal."""
    spec = importlib.util.spec_from_file_location(
        "human_width", os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "human-width.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


IN_TERMINAL = human_width().in_terminal


def run_in_terminal(argv, width):
    """@argv on a terminal @width columns wide."""
    return IN_TERMINAL([JMEM] + argv + ["--no-ask-password"], width, None)


def split_units(out):
    lines = out.split("\n")
    return ["%r / %r" % (a, b) for a, b in zip(lines, lines[1:])
            if NUMBER_AT_END.search(a.rstrip()) and UNIT_FIRST.match(b)]


def check_units():
    for tree in TREES:
        sysroot = os.path.join(FIXTURES, "trees", tree)
        for command in COMMANDS:
            splits, statuses = [], set()
            for width in range(40, 121):
                if width < 60:
                    status, out = run_in_terminal(command + ["--sysroot", sysroot], width)
                else:
                    status, out = run(command + ["--sysroot", sysroot, "--width", str(width)])
                statuses.add(status)
                splits += ["at %d: %s" % (width, s) for s in split_units(out)]
            name = " ".join(command)
            check(statuses <= {0, 1, 2, 69}, "%s on %s runs at every width" % (name, tree),
                  "exit statuses %s" % sorted(statuses))
            check(not splits, "%s on %s keeps each number with its unit, 40 to 120 columns"
                  % (name, tree), "\n".join(splits[:10]))


def check_overlap():
    tmp = tempfile.mkdtemp(prefix="jmem-human-wrap-")
    try:
        tree = os.path.join(tmp, "overlap")
        shutil.copytree(os.path.join(FIXTURES, "trees", "orin-agx-nvgpu"), tree, symlinks=True)
        meminfo = os.path.join(tree, "proc", "meminfo")
        with open(meminfo) as f:
            text = f.read()
        with open(meminfo, "w") as f:
            # 7.6 GiB: the buckets hold about 7 times that
            f.write(re.sub(r"(?m)^MemTotal:.*$", "MemTotal:        8000000 kB", text))
        status, out = run(["snapshot", "--sysroot", tree, "--width", "60"])
        lines = out.split("\n")
        overlap = [l for l in lines if re.match(r"\s+overlap\s+\d", l)]
        check(status == 0 and len(overlap) == 1, "the overlapping board has an overlap line",
              out[-2000:])
        wide = [l for l in lines if len(l) > 60]
        check(not wide, "every line of its snapshot fits 60 columns", "\n".join(wide))
        bars = [l for l in lines if re.search(r"\d%$", l)]
        ends = {len(l) for l in bars}
        check(len(ends) == 1, "its buckets' percentages end in one column",
              "\n".join(bars))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    check_units()
    check_overlap()
    return report()


if __name__ == "__main__":
    sys.exit(main())
