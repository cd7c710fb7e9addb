#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Every document an output of jmem names is one a user has: named by its
installed path (the guides' folder, /usr/share/doc/jmem as packaged; the
schemas' folder), and installed there by `meson install` with the package's
layout. What jmem prints is gathered by outputs.py (every --help, human and
JSON outputs on every recorded tree and history, the MCP server's words);
the screens no test can print here (jmem top's help, the capture's marker)
are read from the sources, where they name JMEM_DOCDIR. No output names a
path of the source tree ("docs/accounting.md"), which no install has.

    test-doc-paths.py JMEM FIXTURES_DIR SRC_DIR

Prints TAP.
"""
import glob
import importlib.util
import os
import re
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))  # tests/: tap, outputs
from tap import check, report  # noqa: E402
import outputs  # noqa: E402

JMEM, FIXTURES, SRC = (os.path.abspath(a) for a in sys.argv[1:4])
GUIDE = re.compile(r"/(?:[^\s/]+/)*share/doc/jmem/([\w.-]*\w)")
SCHEMA = re.compile(r"/(?:[^\s/]+/)*share/jmem/schemas/([\w.-]*\w)")
SOURCE_TREE = re.compile(r"(?<![\w/.-])docs/[\w.-]*\w")
IN_SOURCE = re.compile(r'JMEM_DOCDIR\s*"/([\w.-]*\w)')


def installed():
    spec = importlib.util.spec_from_file_location("installed_files",
                                                  os.path.join(HERE, "test-installed-files.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.meson_installed(SRC)


def main():
    tmp = tempfile.mkdtemp(prefix="jmem-doc-paths-")
    try:
        gathered = outputs.collect(JMEM, FIXTURES, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    paths = installed()
    guides, schemas, relative = {}, {}, {}
    for o in gathered:
        text = o.text.replace("\\n", "\n")
        for name in GUIDE.findall(text):
            guides.setdefault(name, o.name)
        for name in SCHEMA.findall(text):
            schemas.setdefault(name, o.name)
        for path in SOURCE_TREE.findall(text):
            relative.setdefault(path, o.name)
    for source in sorted(glob.glob(os.path.join(SRC, "client", "**", "*.c"), recursive=True) +
                         glob.glob(os.path.join(SRC, "common", "*.c"))):
        with open(source, encoding="utf-8") as f:
            for name in IN_SOURCE.findall(f.read()):
                guides.setdefault(name, os.path.relpath(source, SRC))

    check(len(gathered) > 100, "outputs gathered: %d" % len(gathered))
    check("accounting.md" in guides, "the snapshot names the accounting's guide by its path",
          ", ".join(sorted(guides)))
    for name, where in sorted(guides.items()):
        check("/usr/share/doc/jmem/" + name in paths,
              "%s (named by %s) is installed in /usr/share/doc/jmem" % (name, where))
    for name, where in sorted(schemas.items()):
        check("/usr/share/jmem/schemas/" + name in paths,
              "%s (named by %s) is installed in /usr/share/jmem/schemas" % (name, where))
    check(not relative, "no output names a path of the source tree",
          "\n".join("%s in %s" % kv for kv in sorted(relative.items())))

    return report()


if __name__ == "__main__":
    sys.exit(main())
