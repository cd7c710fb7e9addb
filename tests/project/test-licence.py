#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Every source file says its licence: an SPDX line naming the project's
licence (meson.build's), in its first lines. TAP output. The project's own
files only: git's list in a checkout, else the project's folders.

Usage: test-licence.py SRC_DIR [--list git|folders]
(--list prints the files that way finds instead, one a line.)
"""
import os
import re
import subprocess
import sys

src = sys.argv[1]
with open(os.path.join(src, "meson.build"), encoding="utf-8") as f:
    licence = re.search(r"license:\s*'([^']+)'", f.read()).group(1)
TAG = "SPDX-License-Identifier: " + licence
# Outside a git checkout (an unpacked source package): the project's own
# folders and top-level files, never what a build or a package build leaves
# beside them (build*/, obj-*/, debian/.debhelper/, debian/jmem/).
PROJECT_DIRS = [".ci", "client", "common", "cross", "dbus", "debian", "docs", "fuzz", "grafana",
                "helper", "polkit", "prometheus", "scripts", "skills", "systemd", "tests"]
SKIP_DIRS = {"fixtures", "golden", "node_modules", "__pycache__"}
# What debhelper writes in debian/ itself (as .gitignore lists it).
DEBHELPER_OUTPUT = re.compile(r"(files|debhelper-build-stamp|.*\.debhelper(\.log)?|.*\.substvars)$")


def git_files(src):
    """The checkout's files (tracked, and new ones it does not ignore), or
    None outside a checkout or without git."""
    if not os.path.exists(os.path.join(src, ".git")):
        return None
    try:
        r = subprocess.run(["git", "-c", "safe.directory=*", "-C", src, "ls-files", "-z",
                            "--cached", "--others", "--exclude-standard"],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=True)
    except (OSError, subprocess.CalledProcessError):
        return None
    return [f for f in r.stdout.decode("utf-8", "surrogateescape").split("\0") if f]


def listed_files(src):
    """The files of PROJECT_DIRS and the top-level ones."""
    found = [n for n in os.listdir(src) if os.path.isfile(os.path.join(src, n)) and n != ".git"]
    for top in PROJECT_DIRS:
        for root, dirs, files in os.walk(os.path.join(src, top)):
            rel_root = os.path.relpath(root, src)
            dirs[:] = [d for d in dirs if d not in SKIP_DIRS and not d.startswith(".")
                       and not (rel_root == "debian" and d.startswith("jmem"))]
            found += [os.path.join(rel_root, n) for n in files
                      if not (rel_root == "debian" and DEBHELPER_OUTPUT.match(n))]
    return found


def project_files(src, way=None):
    files = git_files(src) if way != "folders" else None
    if files is None:
        if way == "git":
            sys.exit("test-licence.py: %s is not a git checkout" % src)
        files = listed_files(src)
    return sorted(f for f in files if not SKIP_DIRS.intersection(f.split(os.sep)[:-1]))


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


if sys.argv[2:3] == ["--list"]:
    print("\n".join(project_files(src, sys.argv[3])))
    sys.exit(0)

results = []
for rel in project_files(src):
    path = os.path.join(src, rel)
    if os.path.islink(path) or not os.path.isfile(path) or not is_source(path, os.path.basename(rel)):
        continue
    with open(path, encoding="utf-8", errors="replace") as f:
        head = "".join(f.readline() for _ in range(3))
    results.append((TAG in head, rel))

ok_all = bool(results)
print(f"1..{len(results) + 1}")
print(f"{'ok' if results else 'not ok'} 1 - source files found under {src}: {len(results)}")
for i, (good, rel) in enumerate(results, 2):
    ok_all = ok_all and good
    print(f"{'ok' if good else 'not ok'} {i} - {rel} says {TAG}")
sys.exit(0 if ok_all else 1)
