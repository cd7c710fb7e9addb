#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""`meson install` says when it puts the D-Bus policy, the polkit action,
rule or .pkla where the system bus and polkit do not read them (meson's
default prefix /usr/local), instead of installing a helper nobody can call
without a word; with the packaging layout (--prefix=/usr) it says nothing.

    test-install-dirs.py SRC_DIR BUILD_DIR

A scratch configuration of SRC_DIR with each prefix shows the configure
half; `meson install --destdir` of BUILD_DIR in a terminal (util-linux
script) shows that the install prints the same warnings this build's own
configuration gave. Prints TAP.
"""
import os
import re
import shutil
import subprocess
import sys

import scratch

SRC, BUILD = sys.argv[1:3]
UNREAD = re.compile(r"(\S+) goes to (\S+), which .* does not read")
results = []


def check(ok, what, detail=""):
    results.append((bool(ok), what, detail))


def configure(tmp, *options):
    build = os.path.join(tmp, "build-" + str(len(os.listdir(tmp))))
    r = subprocess.run(["meson", "setup", *options, build, SRC], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0:
        sys.stdout.write("Bail out! meson setup %s failed:\n" % " ".join(options) +
                         "".join("# " + l + "\n" for l in r.stdout.splitlines()[-20:]))
        sys.exit(1)
    return r.stdout


def unread(text):
    """{file: directory} of the warnings in @text."""
    return {m.group(1): m.group(2) for m in UNREAD.finditer(text)}


def main():
    with scratch.TemporaryDirectory(prefix="jmem-install-dirs-") as tmp:
        local = configure(tmp, "--prefix=/usr/local")
        files = unread(local)
        check(files.get("dev.jmem.Helper1.conf") == "/usr/local/share/dbus-1/system.d",
              "prefix /usr/local: the bus policy is named", local)
        check(files.get("dev.jmem.policy") == "/usr/local/share/polkit-1/actions",
              "prefix /usr/local: the polkit action is named", local)
        check("dev.jmem.pkla" in files and "50-dev.jmem.rules" in files,
              "prefix /usr/local: both polkit grants are named", local)
        check("--prefix=/usr" in local, "prefix /usr/local: the fix is named", local)
        usr = configure(tmp, "--prefix=/usr")
        check(unread(usr) == {} and "would not answer" not in usr,
              "prefix /usr: no warning", usr)

        # the install half, on the build under test
        if shutil.which("script") is None:
            check(True, "meson install repeats them # SKIP util-linux script is not installed")
        else:
            with open(os.path.join(BUILD, "meson-logs", "meson-log.txt"), errors="replace") as f:
                configured = unread(f.read())
            dest = os.path.join(tmp, "destdir")
            command = "meson install -C %s --no-rebuild --destdir %s" % (BUILD, dest)
            r = subprocess.run(["script", "-qec", command, "/dev/null"], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True, errors="replace")
            said = unread("\n".join(l for l in r.stdout.splitlines()
                                    if l.startswith("jmem: WARNING: ")))
            check(r.returncode == 0, "meson install --destdir succeeds", r.stdout[-2000:])
            check(said == configured,
                  "meson install warns of the same files as this build's configuration (%d)"
                  % len(configured), r.stdout[-3000:])
    print("1..%d" % len(results))
    for n, (ok, what, detail) in enumerate(results, 1):
        print("%s %d - %s" % ("ok" if ok else "not ok", n, what))
        if not ok:
            for line in detail.splitlines()[-30:]:
                print("# " + line)
    return 0 if all(ok for ok, _, _ in results) else 1


if __name__ == "__main__":
    sys.exit(main())
