#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The floors of docs/architecture.md hold: every #include "..." of a C file
in common/, helper/ or client/ names a header of its own folder or of a
folder on a lower floor; every folder of C files is on a floor; and every
test file says in its first lines what it covers. TAP output.

Usage: test-layers.py SRC_DIR
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/: tap
from tap import check, report  # noqa: E402

SRC = sys.argv[1]
SOURCE_ROOTS = ("common", "helper", "client")
# Headers the build writes, by the folder whose meson.build writes them.
GENERATED_IN_BUILD_ROOT = {"jmem-config.h"}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def floors_from_doc():
    """{folder: floor} from the table of docs/architecture.md."""
    floors = {}
    with open(os.path.join(SRC, "docs", "architecture.md"), encoding="utf-8") as f:
        for line in f:
            m = re.match(r"\|\s*(\d+)\s*\|\s*`([^`]+)/`\s*\|", line)
            if m:
                floors[m.group(2)] = int(m.group(1))
    return floors


def c_files(top):
    for root, dirs, files in os.walk(os.path.join(SRC, top)):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(files):
            if name.endswith((".c", ".h")):
                yield os.path.relpath(os.path.join(root, name), SRC)


def generated_headers():
    """{header: folder} for headers a meson.build of the tree writes."""
    out = {h: "." for h in GENERATED_IN_BUILD_ROOT}
    for root, dirs, files in os.walk(SRC):
        dirs[:] = [d for d in dirs if not d.startswith((".", "build", "obj-"))
                   and d not in ("fixtures", "node_modules", "debian")]
        if "meson.build" in files:
            with open(os.path.join(root, "meson.build"), encoding="utf-8") as f:
                text = f.read()
            # configure_file's output, and gdbus_codegen's and
            # compile_resources' first argument, which names their header
            for name in re.findall(r"'(jmem-[a-z0-9-]+?)(?:\.h)?'", text):
                h = name + ".h"
                if not os.path.exists(os.path.join(root, h)):
                    out.setdefault(h, os.path.relpath(root, SRC))
    return out


floors = floors_from_doc()
check(len(floors) >= 8, "docs/architecture.md's table places %d folders" % len(floors),
      "the table of floors could not be read")
floors.setdefault(".", 0)

files = [p for top in SOURCE_ROOTS for p in c_files(top)]
where = {}
for path in files:
    where.setdefault(os.path.basename(path), []).append(os.path.dirname(path))
for header, dirs in sorted(where.items()):
    if header.endswith(".h") and len(dirs) > 1:
        check(False, header, "is in %s: a header's name must say which one" % ", ".join(dirs))
for header, folder in generated_headers().items():
    where.setdefault(header, [folder])

unplaced = sorted({os.path.dirname(p) for p in files} - set(floors))
check(not unplaced, "every folder of C files is on a floor",
      "not in docs/architecture.md's table: %s" % ", ".join(unplaced))

for path in files:
    folder = os.path.dirname(path)
    if folder not in floors:
        continue
    with open(os.path.join(SRC, path), encoding="utf-8", errors="replace") as f:
        includes = INCLUDE.findall(f.read())
    problems = []
    for header in includes:
        dirs = where.get(os.path.basename(header))
        if dirs is None:
            problems.append("%s is no header of the tree" % header)
            continue
        target = dirs[0]
        if target == folder:
            continue
        if target not in floors:
            problems.append("%s is in %s, on no floor" % (header, target))
        elif floors[target] > floors[folder]:
            problems.append("%s is in %s, floor %d: above %s's floor %d"
                            % (header, target, floors[target], folder, floors[folder]))
        elif floors[target] == floors[folder]:
            problems.append("%s is in %s, beside %s on floor %d"
                            % (header, target, folder, floors[folder]))
    check(not problems, "%s includes nothing above its floor" % path, "; ".join(problems))

# Each test file says what it covers in its first lines: a comment or a
# docstring right after the SPDX line (and the #! line of a script).
tests_dir = os.path.join(SRC, "tests")
for root, dirs, names in os.walk(tests_dir):
    dirs[:] = sorted(d for d in dirs if d not in ("node_modules", "__pycache__", "golden"))
    for name in sorted(names):
        if not re.match(r"test-.*\.(c|py|sh)$", name):
            continue
        path = os.path.join(root, name)
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = [l.rstrip("\n") for l in f.readlines()[:4]]
        body = [l for l in lines if not l.startswith("#!") and "SPDX-License-Identifier" not in l]
        first = body[0] if body else ""
        says = (first.startswith("/* ") or first.startswith('"""') or
                (first.startswith("# ") and len(first) > 3))
        check(says, "%s says what it covers" % os.path.relpath(path, SRC),
              "its first lines after the licence are not a comment: %r" % first)

sys.exit(report())
