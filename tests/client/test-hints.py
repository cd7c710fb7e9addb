#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Every `jmem ...` command that an output prints for a user to type (advice,
findings' fixes, headroom's actions, warnings, --help texts, the MCP
server's words; human and JSON, gathered by outputs.py on every recorded
tree and history; this machine's, read by an unprivileged user without the
helper; the advice each run of a hint prints in turn) works as printed: run
exactly so, it is no usage error.

A command printed about a capture runs against the same --sysroot where the
command reads one. One that changes the system (drop-caches, audit, headroom
--drop, anything after sudo) runs as an unprivileged user against a system
bus without the helper, where it must fail for that reason and not for its
options. Placeholders a hint leaves to the user (SIZE, FILE, DIR, PID, NAME, N, S)
get a value of that kind. Usage lines ("Usage: jmem plot [OPTION…] HISTORY")
are a synopsis, not a command, and are left out, as is a program named as
the author of something ("a tree written by jmem capture").

    test-hints.py JMEM FIXTURES_DIR

Prints TAP.
"""
import os
import pwd
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from tap import check, report  # noqa: E402
import outputs  # noqa: E402

JMEM, FIXTURES = (os.path.abspath(a) for a in sys.argv[1:3])
ORIN = os.path.join(FIXTURES, "trees", "orin-agx-nvgpu")
HISTORY = os.path.join(FIXTURES, "history", "history.before-accounting.jsonl")
# what changes the system: run unprivileged, checked to parse
PRIVILEGED = re.compile(r"^(?:sudo |jmem (?:drop-caches|audit)\b|jmem headroom .*--drop\b)")
# a command is jmem, a command it lists, then options, their values and
# placeholders; it ends at the first word of prose
WORD = r"(?:--?[A-Za-z][\w-]*(?:=[^\s,;)`'\"]+)?|[A-Z][A-Z_]*\b|\d[\w.]*|/[^\s,;)`'\"]+|[\w./-]+\.(?:jsonl?|png|svg))"
COMMAND = re.compile(r"(?<![\w/.-])(?<!by )((?:sudo )?jmem ([a-z][a-z-]*)(?: %s)*)" % WORD)
# a line that starts a new entry of a --help table, a list or a usage line:
# a command never runs on into it
ENTRY = re.compile(r"^\s*(?:-\w, )?--[\w-]+(?:=\S+)?\s{2,}|^\s*- |^\s*\S+ Options:$|^\s*$")
TIMEOUT = 20
# what this machine's user without the helper is told
LIVE = [["snapshot"], ["snapshot", "--json"], ["triage"], ["allocations"], ["headroom"],
        ["summary"]]


def flat(text):
    """@text with each wrapped sentence on one line; usage lines dropped."""
    lines, joined, usage = [], [], False
    for line in text.replace("\\n", "\n").split("\n"):
        if line.lstrip().startswith("Usage:"):
            usage = True
        elif not line.strip():
            usage = False
        if usage:
            line = ""
        # a message's prefix ("jmem diff: ..." on stderr) names who speaks
        line = re.sub(r"^\s*jmem [a-z][a-z-]*: ", "", line)
        if ENTRY.match(line) and joined:
            lines.append(" ".join(joined))
            joined = []
        if line.strip():
            joined.append(line.strip())
    if joined:
        lines.append(" ".join(joined))
    return lines


def hints(known, text):
    found = set()
    for line in flat(text):
        for m in COMMAND.finditer(line):
            if m.group(2) in known:
                found.add(m.group(1))
    return found


def takes_sysroot(command):
    r = subprocess.run([JMEM, command, "--help"], stdout=subprocess.PIPE, text=True)
    return re.search(r"^\s*--sysroot=", r.stdout, re.M) is not None


def filled(words, sysroot, tmp):
    """@words with each placeholder given a value of its kind."""
    out = []
    for i, w in enumerate(words):
        before = out[-1] if out else ""
        if w == "DIR":
            w = sysroot or ORIN if before == "--sysroot" else tempfile.mkdtemp(dir=tmp) + "/capture"
        elif w in ("FILE", "HISTORY"):
            w = HISTORY
        elif w == "SIZE":
            w = "1G"
        elif w == "PID":
            w = "1731"
        elif w == "NAME" and before == "--for":
            w = "vllm"
        elif w in ("N", "S", "SECONDS"):
            w = "2"
        elif w.startswith("--") and "=" in w:
            name, value = w.split("=", 1)
            w = name + "=" + filled([value], sysroot, tmp)[0] if value.isupper() else w
        out.append(w)
    return out


class Unprivileged:
    """An account without privilege (nobody where this runs as root) and a
    system bus of its own on which no helper is installed."""

    def __init__(self, tmp):
        self.prefix = []
        if os.geteuid() == 0:
            nobody = pwd.getpwnam("nobody")
            self.prefix = ["setpriv", "--reuid=%d" % nobody.pw_uid, "--regid=%d" % nobody.pw_gid,
                           "--clear-groups", "--"]
        self.dir = tempfile.mkdtemp(prefix="jmem-hints-bus-", dir=tmp)
        os.chmod(self.dir, 0o777)
        self.bus = subprocess.Popen(self.prefix + ["dbus-daemon", "--session", "--nofork",
                                                   "--print-address=1",
                                                   "--address=unix:path=%s/bus" % self.dir],
                                    stdout=subprocess.PIPE, text=True)
        self.address = self.bus.stdout.readline().strip()

    def close(self):
        self.bus.terminate()
        self.bus.wait(timeout=30)


def run(argv, env=None, prefix=()):
    try:
        r = subprocess.run(list(prefix) + argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, env=env, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return None, ""  # it runs until stopped (top, watch): its options were taken
    return r.returncode, r.stderr.decode("utf-8", "replace")


def is_usage_error(status, err):
    return status == 64 or 'Try "jmem' in err or "Unknown option" in err


def main():
    if shutil.which("dbus-daemon") is None:
        print("1..0 # SKIP dbus-daemon is not installed")
        return 0
    tmp = tempfile.mkdtemp(prefix="jmem-hints-")
    os.chmod(tmp, 0o755)
    try:
        known = set(outputs.commands(JMEM))
        gathered = outputs.collect(JMEM, FIXTURES, tmp)
        check(len(gathered) > 100, "outputs gathered: %d" % len(gathered))
        pending = {}
        for o in gathered:
            for command in hints(known, o.text):
                pending.setdefault((command, o.sysroot), o.name)
        check(len({c for c, _ in pending}) > 10, "commands found in them: %d"
              % len({c for c, _ in pending}), "\n".join(sorted({c for c, _ in pending})))
        user = Unprivileged(tmp)
        try:
            check(user.address.startswith("unix:"), "a system bus without the helper runs")
            env = dict(outputs.ENV, DBUS_SYSTEM_BUS_ADDRESS=user.address)
            # this machine, read by a user without the helper: its warnings' advice
            for argv in LIVE:
                r = subprocess.run(user.prefix + [JMEM] + argv, stdin=subprocess.DEVNULL,
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env,
                                   timeout=120)
                for command in hints(known, r.stdout.decode("utf-8", "replace")):
                    pending.setdefault((command, None), "%s here, unprivileged" % " ".join(argv))
            sysroots = {}
            done = set()
            # what a run of a hint prints (advice on stderr) is read for hints too
            while len(done) < len(pending):
                (command, sysroot), source = sorted(
                    ((k, v) for k, v in pending.items() if k not in done),
                    key=lambda t: (t[0][0], t[0][1] or ""))[0]
                done.add((command, sysroot))
                words = command.split()
                privileged = PRIVILEGED.match(command) is not None
                if words[0] == "sudo":
                    words = words[1:]
                argv = [JMEM] + filled(words[1:], sysroot, tmp)
                where = ""
                # a history is the source of its own: no capture beside it
                if (not privileged and sysroot is not None and "--sysroot" not in words and
                        "--history" not in words and "--replay" not in words):
                    if words[1] not in sysroots:
                        sysroots[words[1]] = takes_sysroot(words[1])
                    if sysroots[words[1]]:
                        argv += ["--sysroot", sysroot]
                        where = " on %s" % os.path.basename(sysroot)
                if privileged:
                    status, err = run(argv, env, user.prefix)
                    how = "unprivileged, no helper"
                else:
                    status, err = run(argv, outputs.ENV)
                    how = "as printed" + where
                check(not is_usage_error(status, err),
                      "%r (from %s) is no usage error, run %s" % (command, source, how),
                      "ran %s: exit %s\n%s" % (" ".join(argv), status, err[-1500:]))
                for more in hints(known, err):
                    pending.setdefault((more, None if privileged else sysroot), command)
        finally:
            user.close()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return report()


if __name__ == "__main__":
    sys.exit(main())
