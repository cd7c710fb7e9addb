#!/usr/bin/env python3
"""jmem snapshot and jmem allocations at 60, 80, 100 and 132 columns, against goldens.

Usage: human-width.py JMEM FIXTURES_DIR GOLDEN_DIR [--regenerate]
No line may be wider than the width in display columns.
Goldens: COMMAND-TREE-WIDTH.txt.
"""
import os
import subprocess
import sys
import unicodedata

TREES = ["orin-agx-nvgpu", "hostile"]
WIDTHS = [60, 80, 100, 132]


def display_width(line):
    w = 0
    for ch in line:
        if unicodedata.combining(ch) or unicodedata.category(ch) in ("Mn", "Me", "Cf"):
            continue
        w += 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1
    return w


def main():
    jmem, fixtures, golden = sys.argv[1:4]
    regenerate = "--regenerate" in sys.argv[4:]
    failed = 0
    for command in ("snapshot", "allocations"):
        for tree in TREES:
            for width in WIDTHS:
                # a relative --sysroot keeps the header's path the same everywhere
                out = subprocess.run([jmem, command, "--sysroot", os.path.join("trees", tree),
                                      "--width", str(width), "--no-ask-password"],
                                     cwd=fixtures, stdout=subprocess.PIPE, check=True).stdout.decode()
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
                for line in out.split("\n"):
                    if display_width(line) > width:
                        print("FAIL %s %s at %d: %d columns: %r"
                              % (command, tree, width, display_width(line), line))
                        failed += 1
    return 1 if failed else 0

if __name__ == "__main__":
    sys.exit(main())
