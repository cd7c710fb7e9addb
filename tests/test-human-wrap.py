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
import errno
import fcntl
import os
import pty
import re
import shutil
import subprocess
import sys
import struct
import tempfile
import termios

JMEM, FIXTURES = sys.argv[1:3]
TREES = ["orin-agx-nvgpu", "headroom-fragmented", "thor-unified", "r32-xavier-nx"]
COMMANDS = [["snapshot"], ["triage"], ["allocations"], ["headroom", "--need", "4G"]]
NUMBER_AT_END = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?$")
UNIT_FIRST = re.compile(r"\s*(?:KiB|MiB|GiB|TiB|kB|B|%)(?!\w)")
results = []


def check(ok, what, detail=""):
    results.append((bool(ok), what, detail))


def run(argv):
    r = subprocess.run([JMEM] + argv + ["--no-ask-password"], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, errors="replace")
    return r.returncode, r.stdout


def run_in_terminal(argv, width):
    """@argv with stdout on a terminal @width columns wide."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, width, 0, 0))
    env = dict(os.environ, NO_COLOR="1", TERM="xterm", LANG="C.UTF-8", LC_ALL="C.UTF-8")
    env.pop("COLUMNS", None)
    p = subprocess.Popen([JMEM] + argv + ["--no-ask-password"], stdin=subprocess.DEVNULL,
                         stdout=slave, stderr=subprocess.DEVNULL, env=env)
    os.close(slave)
    out = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError as e:
            if e.errno != errno.EIO:
                raise
            break
        if not chunk:
            break
        out += chunk
    os.close(master)
    return p.wait(timeout=120), out.decode("utf-8", "replace").replace("\r\n", "\n")


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
    print("1..%d" % len(results))
    for n, (ok, what, detail) in enumerate(results, 1):
        print("%s %d - %s" % ("ok" if ok else "not ok", n, what))
        if not ok:
            for line in detail.splitlines()[-30:]:
                print("# " + line)
    return 0 if all(ok for ok, _, _ in results) else 1


if __name__ == "__main__":
    sys.exit(main())
