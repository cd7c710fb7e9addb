#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Every source file says its licence: an SPDX line naming the project's
licence (meson.build's), in its first lines. TAP output.

Usage: test-licence.py SRC_DIR
"""
import os
import re
import sys

src = sys.argv[1]
with open(os.path.join(src, "meson.build"), encoding="utf-8") as f:
    licence = re.search(r"license:\s*'([^']+)'", f.read()).group(1)
TAG = "SPDX-License-Identifier: " + licence
SKIP_DIRS = {".git", "fixtures", "golden", "node_modules"}


def is_source(path, name):
    if name.endswith((".c", ".h", ".py", ".sh", ".mjs")) or name == "meson.build":
        return True
    if "." in name:
        return False
    # scripts without an extension: the executable ones that start with #!
    if not os.access(path, os.X_OK):
        return False
    with open(path, "rb") as f:
        return f.read(2) == b"#!"


results = []
for root, dirs, files in os.walk(src):
    rel_root = os.path.relpath(root, src)
    # build folders (build*, as scripts/test names them, and meson's of any
    # name; a package build's) hold generated files and trees, not sources
    dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith(("build", "_build", "obj-"))
                     and not os.path.isdir(os.path.join(root, d, "meson-private"))
                     and not (rel_root == "debian" and d.startswith("jmem")))
    for name in sorted(files):
        path = os.path.join(root, name)
        if os.path.islink(path) or not is_source(path, name):
            continue
        with open(path, encoding="utf-8", errors="replace") as f:
            head = "".join(f.readline() for _ in range(3))
        results.append((TAG in head, os.path.relpath(path, src)))

ok_all = bool(results)
print(f"1..{len(results) + 1}")
print(f"{'ok' if results else 'not ok'} 1 - source files found under {src}: {len(results)}")
for i, (good, rel) in enumerate(results, 2):
    ok_all = ok_all and good
    print(f"{'ok' if good else 'not ok'} {i} - {rel} says {TAG}")
sys.exit(0 if ok_all else 1)
