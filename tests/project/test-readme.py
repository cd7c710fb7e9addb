#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The README's shell lines say what they do, whole: where a line runs
systemd-sysusers, its comment names every group and account the installed
sysusers.d files make; no comment ends in a bare option in parentheses
("(--help)") that says nothing on its own.

Usage: test-readme.py SRC_DIR PRIVILEGED_GROUP METRICS_ACCOUNT
Prints TAP.
"""
import glob
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from tap import check, report  # noqa: E402

SRC, GROUP, METRICS = sys.argv[1:4]


def shell_lines(text):
    """The lines of the README's sh blocks."""
    lines = []
    for block in re.findall(r"^```sh\n(.*?)^```", text, re.S | re.M):
        lines += block.splitlines()
    return lines


def sysusers_names():
    """Every group and account the sysusers.d files create, as installed."""
    names = set()
    for path in glob.glob(os.path.join(SRC, "systemd", "*")):
        if not (path.endswith(".conf") or path.endswith(".sysusers.in")):
            continue
        with open(path) as f:
            for line in f:
                m = re.match(r"([gu])\s+(\S+)", line)
                if m:
                    names.add(m.group(2).replace("@PRIVILEGED_GROUP@", GROUP)
                              .replace("@METRICS_ACCOUNT@", METRICS))
    return names


def main():
    with open(os.path.join(SRC, "README.md"), encoding="utf-8") as f:
        lines = shell_lines(f.read())
    check(lines, "the README has shell blocks")
    names = sysusers_names()
    check(GROUP in names and METRICS in names, "sysusers.d makes the group and the metrics account",
          " ".join(sorted(names)))
    for line in lines:
        if "systemd-sysusers" in line and "#" in line:
            comment = line.split("#", 1)[1]
            missing = [n for n in sorted(names) if not re.search(r"\b%s\b" % re.escape(n), comment)]
            check(not missing, "%r names what it creates" % line.strip(),
                  "missing: " + ", ".join(missing))
        if "#" in line:
            comment = line.split("#", 1)[1].rstrip()
            check(not re.search(r"\(\s*--?[\w-]+\s*\)$", comment),
                  "%r ends in words, not a bare option" % line.strip())
    return report()


if __name__ == "__main__":
    sys.exit(main())
