#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""jmem snapshot and jmem allocations at 60, 80, 100 and 132 columns, against
goldens; then every command's --help and human output, standard error
included, in a terminal (a pty) of 60, 80 and 132 columns.

Usage: human-width.py JMEM FIXTURES_DIR GOLDEN_DIR [--regenerate]
No line may be wider than the width in display columns.
Goldens: COMMAND-TREE-WIDTH.txt, where @DOCDIR@ stands for the folder the
guides are installed in (the build's prefix: /usr/share/doc/jmem as
packaged); its wrapping is the same for /usr and /usr/local.
"""
import errno
import fcntl
import os
import pty
import re
import shutil
import struct
import subprocess
import sys
import termios
import unicodedata

import scratch

TREES = ["orin-agx-nvgpu", "hostile"]
# no NvMap to list: the snapshot alone (a GB10 says NvMap does not apply)
SNAPSHOT_TREES = TREES + ["thor-r39", "gb10-spark"]
WIDTHS = [60, 80, 100, 132]


def display_width(line):
    w = 0
    for ch in line:
        if unicodedata.combining(ch) or unicodedata.category(ch) in ("Mn", "Me", "Cf"):
            continue
        w += 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1
    return w


# the guides' folder in the outputs, whatever the prefix
DOCDIR = re.compile(r"/(?:[^\s/]+/)*share/doc/jmem/")
COMMANDS = ["snapshot", "capture", "allocations", "triage", "drop-caches", "audit", "diff",
            "mcp", "watch", "summary", "metrics", "top", "plot"]
TERMINAL_WIDTHS = [60, 80, 132]


def in_terminal(argv, width, cwd):
    """@argv with stdout and stderr on a terminal @width columns wide (stdin
    not one: nothing may ask for a password): (exit status, what it wrote)."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, width, 0, 0))
    env = dict(os.environ, NO_COLOR="1", TERM="xterm", LANG="C.UTF-8", LC_ALL="C.UTF-8")
    env.pop("COLUMNS", None)
    p = subprocess.Popen(argv, cwd=cwd, stdin=subprocess.DEVNULL, stdout=slave, stderr=slave,
                         env=env)
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


def terminal_cases(jmem, fixtures, tmp):
    """(name, argv) of every command's help and human output."""
    orin, shared = (os.path.join("trees", t) for t in ("orin-agx-nvgpu", "shared-pages"))
    before, after = os.path.join(tmp, "before.json"), os.path.join(tmp, "after.json")
    history = os.path.join(fixtures, "history", "history.before-accounting.jsonl")
    for path, tree in ((before, orin), (after, shared)):
        with open(path, "w") as f:
            subprocess.run([jmem, "snapshot", "--json", "--sysroot", tree], cwd=fixtures, stdout=f,
                           check=True)
    cases = [("usage", [jmem]), ("--help", [jmem, "--help"])]
    cases += [(c + " --help", [jmem, c, "--help"]) for c in COMMANDS]
    cases += [
        ("snapshot", [jmem, "snapshot", "--sysroot", orin, "--top", "5"]),
        ("allocations", [jmem, "allocations", "--sysroot", orin]),
        ("triage", [jmem, "triage", "--sysroot", orin]),
        ("triage hostile", [jmem, "triage", "--sysroot", os.path.join("trees", "hostile")]),
        ("triage --history", [jmem, "triage", "--history", history]),
        ("diff", [jmem, "diff", before, after]),
        ("diff --history", [jmem, "diff", "--history", history]),
        ("audit --no-drop", [jmem, "audit", "--no-drop", "--interval", "0", "--top", "5",
                             "--no-ask-password"]),
        ("drop-caches (this machine)", [jmem, "drop-caches", "--no-ask-password"]),
        ("summary", [jmem, "summary", "--sysroot", orin]),
        ("capture", [jmem, "capture", os.path.join(tmp, "capture-WIDTH")]),
        ("plot", [jmem, "plot", history, "-o", os.path.join(tmp, "plot.png")]),
    ]
    return cases


def check_terminal(jmem, fixtures):
    failed = 0
    tmp = scratch.mkdtemp("jmem-human-width-")
    try:
        cases = terminal_cases(jmem, fixtures, tmp)
        for width in TERMINAL_WIDTHS:
            for name, argv in cases:
                argv = [a.replace("WIDTH", str(width)) for a in argv]
                scratch.step("in a terminal of %d columns: %s" % (width, name))
                status, out = in_terminal(argv, width, fixtures)
                if name == "capture":  # this machine's, thousands of files: one at a time
                    shutil.rmtree(os.path.join(tmp, "capture-%d" % width), ignore_errors=True)
                if status not in (0, 64, 69, 77) or not out.strip():
                    print("FAIL %s at %d: exit %d, wrote %r" % (name, width, status, out[-300:]))
                    failed += 1
                for line in out.split("\n"):
                    if display_width(line) > width:
                        print("FAIL %s at %d: %d columns: %r" % (name, width, display_width(line), line))
                        failed += 1
        # help read through a pipe or a file (| less, > file) fits 80 columns
        env = dict(os.environ, LANG="C.UTF-8", LC_ALL="C.UTF-8")
        env.pop("COLUMNS", None)
        for name, argv in cases:
            if "help" not in name and name != "usage":
                continue
            scratch.step("through a pipe: %s" % name)
            r = subprocess.run(argv, cwd=fixtures, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
            for line in r.stdout.split("\n"):
                if display_width(line) > 80:
                    print("FAIL %s in a pipe: %d columns: %r" % (name, display_width(line), line))
                    failed += 1
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return failed


def main():
    jmem, fixtures, golden = sys.argv[1:4]
    regenerate = "--regenerate" in sys.argv[4:]
    failed = 0
    for command, trees in (("snapshot", SNAPSHOT_TREES), ("allocations", TREES)):
        for tree in trees:
            for width in WIDTHS:
                scratch.step("%s of %s at %d columns" % (command, tree, width))
                # a relative --sysroot keeps the header's path the same everywhere
                out = subprocess.run([jmem, command, "--sysroot", os.path.join("trees", tree),
                                      "--width", str(width), "--no-ask-password"],
                                     cwd=fixtures, stdout=subprocess.PIPE, check=True).stdout.decode()
                shown = out
                out = DOCDIR.sub("@DOCDIR@/", out)
                path = os.path.join(golden, "%s-%s-%d.txt" % (command, tree, width))
                if regenerate:
                    with open(path, "w", encoding="utf-8") as f:
                        f.write(out)
                    continue
                with open(path, encoding="utf-8") as f:
                    want = f.read()
                if out != want:
                    print("FAIL %s %s at %d differs from %s:\n%s" % (command, tree, width, path, out))
                    failed += 1
                for line in shown.split("\n"):
                    if display_width(line) > width:
                        print("FAIL %s %s at %d: %d columns: %r"
                              % (command, tree, width, display_width(line), line))
                        failed += 1
    if not regenerate:
        failed += check_terminal(jmem, fixtures)
    return 1 if failed else 0

if __name__ == "__main__":
    sys.exit(main())
