#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""`meson install` says when it puts the D-Bus policy, the polkit action,
rule or .pkla where the system bus and polkit do not read them (meson's
default prefix /usr/local), instead of installing a helper nobody can call
without a word; with the packaging layout (--prefix=/usr) it says nothing.

    test-install-dirs.py SRC_DIR BUILD_DIR

Configuring says nothing of it (a build folder that is never installed,
such as the tests' and the demo's, gets no warning): a scratch configuration
of SRC_DIR with each prefix shows it. `meson install --destdir` of BUILD_DIR
in a terminal (util-linux script) names exactly the files this build would
put where nothing reads them (from meson's own list of what it installs
where), and the fix. Prints TAP.
"""
import json
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/: tap, scratch
import scratch  # noqa: E402
from tap import check, report  # noqa: E402

SRC, BUILD = sys.argv[1:3]
UNREAD = re.compile(r"(\S+) goes to (\S+), which .* does not read")
# Where the system bus and polkit read each file from (the pkla: any folder
# below these), as the distributions place them.
READ = {
    "dev.jmem.Helper1.conf": ["/usr/share/dbus-1/system.d", "/etc/dbus-1/system.d"],
    "dev.jmem.policy": ["/usr/share/polkit-1/actions"],
    "50-dev.jmem.rules": ["/etc/polkit-1/rules.d", "/usr/share/polkit-1/rules.d"],
    "dev.jmem.pkla": ["/var/lib/polkit-1/localauthority", "/etc/polkit-1/localauthority"],
}


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


def unread_installed(build):
    """{file: directory} of READ's files that @build installs where nothing reads them."""
    with open(os.path.join(build, "meson-info", "intro-installed.json")) as f:
        installed = json.load(f)
    found = {}
    for dest in installed.values():
        name, folder = os.path.basename(dest), os.path.dirname(dest)
        if name not in READ:
            continue
        if name == "dev.jmem.pkla":
            ok = os.path.dirname(folder) in READ[name]
        else:
            ok = folder in READ[name]
        if not ok:
            found[name] = folder
    return found


def main():
    with scratch.TemporaryDirectory(prefix="jmem-install-dirs-") as tmp:
        local = configure(tmp, "--prefix=/usr/local")
        check(unread(local) == {} and "WARNING" not in local,
              "prefix /usr/local: configuring warns of nothing", local)
        check(unread_installed(os.path.join(tmp, "build-0")).keys() == set(READ),
              "prefix /usr/local: meson would install all four where nothing reads them")
        usr = configure(tmp, "--prefix=/usr")
        check(unread(usr) == {} and "would not answer" not in usr,
              "prefix /usr: no warning", usr)
        check(unread_installed(os.path.join(tmp, "build-1")) == {},
              "prefix /usr: meson would install each where it is read")

        # the install half, on the build under test
        if shutil.which("script") is None:
            check(True, "meson install repeats them # SKIP util-linux script is not installed")
        else:
            configured = unread_installed(BUILD)
            dest = os.path.join(tmp, "destdir")
            command = "meson install -C %s --no-rebuild --destdir %s" % (BUILD, dest)
            r = subprocess.run(["script", "-qec", command, "/dev/null"], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True, errors="replace")
            said = unread("\n".join(l for l in r.stdout.splitlines()
                                    if l.startswith("jmem: WARNING: ")))
            check(r.returncode == 0, "meson install --destdir succeeds", r.stdout[-2000:])
            check(said == configured,
                  "meson install warns of each file it puts where nothing reads it (%d)"
                  % len(configured), r.stdout[-3000:])
            check(not configured or "--prefix=/usr" in r.stdout,
                  "meson install names the fix", r.stdout[-3000:])
    return report()


if __name__ == "__main__":
    sys.exit(main())
