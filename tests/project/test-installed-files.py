#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The FILES sections of jmem(1) and jmem-helper(8), and the operator guide's
table of installed files, against what is really installed.

    test-installed-files.py SRC_DIR --meson   what `meson install` places with
                                              the Debian layout (--prefix=/usr
                                              --localstatedir=/var), read from a
                                              scratch configuration of SRC_DIR
    test-installed-files.py SRC_DIR --deb DEB the file list of a built package

Every project path the pages name (one with "jmem" in it) must be installed
under that very name (not compressed, not elsewhere); every installed schema
must be named in jmem(1); every file the guide's table places in a directory
must be there. Prints TAP.
"""
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/: tap, scratch
import scratch

results = []


def check(ok, what, detail=""):
    results.append((bool(ok), what, detail))


def meson_installed(src):
    """The paths `meson install` would write, with the package's layout."""
    with scratch.TemporaryDirectory(prefix="jmem-installed-") as tmp:
        build = os.path.join(tmp, "build")
        setup = subprocess.run(
            ["meson", "setup", "--prefix=/usr", "--sysconfdir=/etc", "--localstatedir=/var",
             build, src], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if setup.returncode != 0:
            sys.stdout.write("Bail out! meson setup failed:\n" +
                             "".join("# " + l + "\n" for l in setup.stdout.splitlines()[-20:]))
            sys.exit(1)
        with open(os.path.join(build, "meson-info", "intro-installed.json")) as f:
            installed = json.load(f)
    paths = set()
    for source, dest in installed.items():
        if os.path.isdir(source):  # install_subdir: everything below it
            for root, _dirs, files in os.walk(source):
                for name in files:
                    rel = os.path.relpath(os.path.join(root, name), source)
                    paths.add(os.path.normpath(os.path.join(dest, rel)))
        else:
            paths.add(os.path.normpath(dest))
    return paths


def deb_installed(deb):
    out = subprocess.run(["dpkg-deb", "-c", deb], check=True, stdout=subprocess.PIPE,
                         text=True).stdout
    paths = set()
    for line in out.splitlines():
        fields = line.split(None, 5)
        if len(fields) < 6 or fields[0].startswith("d"):
            continue
        name = fields[5].split(" -> ")[0]
        paths.add(os.path.normpath("/" + name.lstrip("./")))
    return paths


def man_files(page):
    """The .I paths of a man page's FILES section."""
    with open(page) as f:
        text = f.read()
    m = re.search(r"^\.SH FILES\n(.*?)(?=^\.SH )", text, re.S | re.M)
    if not m:
        return []
    paths = []
    for line in m.group(1).splitlines():
        if line.startswith(".I /"):
            paths.append(line[3:].strip().replace("\\-", "-"))
    return paths


def guide_table(guide):
    """(directory, name) for each file name of the guide's `meson install` table."""
    pairs = []
    with open(guide) as f:
        for line in f:
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) != 2:
                continue
            where = re.fullmatch(r"`(/[^`]+)`", cells[1])
            if not where:
                continue  # e.g. "libexecdir (... or as configured)"
            for name in re.findall(r"`([^`\s]+)`", cells[0]):
                if not name.startswith("-") and ("." in name or name.endswith("/")):
                    pairs.append((where.group(1), name))
    return pairs


def main():
    if len(sys.argv) == 3 and sys.argv[2] == "--meson":
        what, installed = "meson install", meson_installed(sys.argv[1])
    elif len(sys.argv) == 4 and sys.argv[2] == "--deb":
        what, installed = os.path.basename(sys.argv[3]), deb_installed(sys.argv[3])
    else:
        sys.stderr.write(__doc__)
        return 2
    src = sys.argv[1]

    def present(path):
        return path in installed or any(p.startswith(path.rstrip("/") + "/") for p in installed)

    named = set()
    for page in ("jmem.1", "jmem-helper.8"):
        paths = [p for p in man_files(os.path.join(src, "docs", page)) if "jmem" in p]
        check(paths, f"{page} FILES names the project's files")
        for path in paths:
            named.add(path)
            check(present(path), f"{page} FILES: {path} is installed by {what}",
                  "installed nearby: " + ", ".join(sorted(
                      p for p in installed
                      if os.path.basename(p).startswith(os.path.basename(path)))[:5]))

    schemas = sorted(p for p in installed if p.endswith(".schema.json"))
    check(schemas, f"{what} installs the JSON schemas")
    for path in schemas:
        check(path.startswith("/usr/share/jmem/schemas/") and path in named,
              f"{path} is under /usr/share/jmem/schemas/ and named in jmem(1) FILES")
    check(not [p for p in installed if ".schema.json" in p and not p.endswith(".json")],
          f"{what} compresses no schema")

    for directory, name in guide_table(os.path.join(src, "docs", "operator-guide.md")):
        path = os.path.join(directory, name)
        check(present(path), f"operator-guide.md: {name} in {directory} is installed by {what}")

    print(f"1..{len(results)}")
    for i, (ok, name, detail) in enumerate(results, 1):
        print(f"{'ok' if ok else 'not ok'} {i} {name}")
        if not ok and detail:
            print(f"# {detail}")
    return 0 if all(ok for ok, _, _ in results) else 1


if __name__ == "__main__":
    sys.exit(main())
