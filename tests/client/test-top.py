#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""jmem top driven in tmux as a person would: golden screens of a replayed
history and of every captured tree at 80x24 and 132x43, the accounting's
bar and the headroom line where the samples carry them (and a history an
older jmem recorded, without them), every key, a resize, hostile names,
a terminal left as it was after q, Ctrl-C, SIGTERM in the middle of
sampling and a crash, and keys answered (q at once) while a long history
still loads. No golden screen shows this machine's
own processes. Prints TAP.

Usage: test-top.py JMEM FIXTURES GOLDEN_DIR FACES_HISTORY LONG_HISTORY [--regenerate]
"""
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/: tap, scratch
import scratch

JMEM, FIXTURES, GOLDEN, MAKE_HISTORY, LONG_HISTORY = (os.path.abspath(a) for a in sys.argv[1:6])
REGENERATE = "--regenerate" in sys.argv[6:]
TREES = ["orin-agx-nvgpu", "thor-unified", "thor-churn", "thor-r39", "gb10-spark", "hostile",
         "shared-pages"]
SIZES = [(80, 24), (132, 43)]
ENV = dict(os.environ, TZ="UTC", LANG="C.UTF-8", LC_ALL="C.UTF-8")
ENV.pop("NO_COLOR", None)

tests = []


def test(func):
    tests.append(func)
    return func


class Skip(Exception):
    pass


class Tmux:
    """A tmux server of this test alone (its own socket), one session."""

    def __init__(self, tmp):
        self.socket = os.path.join(tmp, "tmux.sock")
        self.tmp = tmp
        scratch.at_kill("tmux", "-S", self.socket, "kill-server")

    def run(self, *args, check=True):
        r = subprocess.run(["tmux", "-S", self.socket, *args], env=ENV, capture_output=True,
                           text=True, timeout=scratch.scaled(30))
        if check and r.returncode != 0:
            raise AssertionError("tmux %s: %s" % (" ".join(args), r.stderr))
        return r

    def start(self, command, width=80, height=24, env=None):
        """@command in a shell in a new window of @width x @height; its exit
        status goes to a file (tmux can lose it when asked too early)."""
        exports = "".join("export %s=%s; " % (k, shquote(v)) for k, v in (env or {}).items())
        self.stop()
        self.status = os.path.join(self.tmp, "exit-status")
        if os.path.exists(self.status):
            os.unlink(self.status)
        self.run("-f", "/dev/null", "new-session", "-d", "-s", "t", "-x", str(width),
                 "-y", str(height), "sh", "-c",
                 "%s%s; echo $? > %s.tmp; mv %s.tmp %s" % (exports, command, self.status,
                                                          self.status, self.status))
        self.run("set-option", "-t", "t", "remain-on-exit", "on")
        self.run("set-option", "-g", "window-size", "manual")

    def keys(self, *keys):
        self.run("send-keys", "-t", "t", *keys)

    def literal(self, text):
        self.run("send-keys", "-t", "t", "-l", text)

    def screen(self, escapes=False):
        args = ["capture-pane", "-p", "-t", "t"] + (["-e"] if escapes else [])
        return self.run(*args).stdout

    def wait(self, pattern, timeout=15.0, escapes=False):
        """The screen once @pattern (a regular expression) is on it."""
        deadline = time.monotonic() + scratch.scaled(timeout)
        screen = ""
        while time.monotonic() < deadline:
            screen = self.screen(escapes)
            if re.search(pattern, screen, re.M):
                return screen
            time.sleep(0.1)
        raise AssertionError("waited %.0f s for %r; the screen:\n%s" % (timeout, pattern, screen))

    def wait_gone(self, pattern, timeout=15.0):
        deadline = time.monotonic() + scratch.scaled(timeout)
        while time.monotonic() < deadline:
            screen = self.screen()
            if not re.search(pattern, screen, re.M):
                return screen
            time.sleep(0.1)
        raise AssertionError("%r stayed on the screen:\n%s" % (pattern, self.screen()))

    def wait_dead(self, timeout=15.0):
        """The command's exit status (128 + N for signal N, as sh says)."""
        deadline = time.monotonic() + scratch.scaled(timeout)
        while time.monotonic() < deadline:
            if os.path.exists(self.status):
                with open(self.status) as f:
                    return int(f.read())
            time.sleep(0.1)
        raise AssertionError("jmem top did not end; the screen:\n" + self.screen())

    def resize(self, width, height):
        self.run("resize-window", "-t", "t", "-x", str(width), "-y", str(height))

    def stop(self):
        """Ends the server and waits until it is gone: a new one must not
        meet the old one's socket."""
        self.run("kill-server", check=False)
        deadline = time.monotonic() + 10
        while os.path.exists(self.socket) and time.monotonic() < deadline:
            if self.run("has-session", check=False).returncode != 0:
                break
            time.sleep(0.05)
        if os.path.exists(self.socket):
            os.unlink(self.socket)


def shquote(s):
    return "'" + s.replace("'", "'\\''") + "'"


def table(screen):
    """The rows under the table's header: lists of their fields."""
    lines = screen.split("\n")
    for i, line in enumerate(lines):
        if re.match(r"^\s+PID\s+", line):
            rows = []
            for row in lines[i + 1:]:
                if not row.strip() or row.startswith("q:quit"):
                    break
                rows.append(row.split())
            return lines[i], rows
    raise AssertionError("no table on the screen:\n" + screen)


def names(screen):
    """The NAME column's cells, by the header's position."""
    lines = screen.split("\n")
    header, rows = table(screen)
    start = header.index("NAME")
    end = start + len(header[start:]) - len(header[start:].split("NAME", 1)[1].lstrip()) - 1
    first = lines.index(header) + 1
    return [line[start:end].strip() for line in lines[first:first + len(rows)]]


SGR = re.compile(r"\x1b\[([0-9;]*)m")


def selected_line(screen_with_escapes):
    """The index (in the table) of the row drawn in reverse video: the SGR
    state is followed from the top, as tmux writes a change only."""
    reverse = False
    lines = screen_with_escapes.split("\n")
    start = next(i for i, l in enumerate(lines) if re.search(r"PID .*NAME", l))
    for i, line in enumerate(lines):
        # the state at the line's first character
        pos = 0
        state = reverse
        for m in SGR.finditer(line):
            if SGR.sub("", line[pos:m.start()]) != "" and m.start() > 0:
                break
            for code in (m.group(1) or "0").split(";"):
                if code in ("0", ""):
                    state = False
                elif code == "7":
                    state = True
                elif code == "27":
                    state = False
            pos = m.end()
        if i > start and state:
            return i - start - 1
        for m in SGR.finditer(line):
            for code in (m.group(1) or "0").split(";"):
                if code in ("0", ""):
                    reverse = False
                elif code == "7":
                    reverse = True
                elif code == "27":
                    reverse = False
    return None


def top(args):
    return "cd %s && %s top %s" % (shquote(FIXTURES), shquote(JMEM), args)


def golden(name, screen):
    path = os.path.join(GOLDEN, name)
    if REGENERATE:
        with open(path, "w", encoding="utf-8") as f:
            f.write(screen)
        return
    with open(path, encoding="utf-8") as f:
        want = f.read()
    assert screen == want, "%s differs; the screen:\n%s" % (name, screen)


TMP = scratch.mkdtemp("jmem-test-top-")
HISTORY = os.path.join(TMP, "leak.jsonl")
SECTIONS = os.path.join(TMP, "sections.jsonl")
# recorded by jmem before the accounting (schema version 1): what an older
# jmem left on a board
BEFORE_ACCOUNTING = os.path.join(FIXTURES, "history", "history.before-accounting.jsonl")
tmux = Tmux(TMP)


def replay(history=None, width=80, height=24, env=None, escapes=False):
    """A history (the leak's by default) paused on its last sample, trends
    full: the screen."""
    tmux.start(top("--replay %s --speed 0.5" % shquote(history or HISTORY)), width, height, env)
    tmux.wait(r"replay 1/12")
    tmux.keys("p")
    tmux.wait(r"PAUSED")
    tmux.keys("}", "]")
    return tmux.wait(r"replay 12/12", escapes=escapes)


@test
def golden_replay():
    for width, height in SIZES:
        golden("top-replay-%dx%d.txt" % (width, height), replay(width=width, height=height))
        tmux.keys("q")
        assert tmux.wait_dead() == 0


@test
def golden_trees():
    for tree in TREES:
        for width, height in SIZES:
            tmux.start(top("--sysroot trees/%s --interval 3600" % tree), width, height)
            screen = tmux.wait(r"^q:quit")
            golden("top-%s-%dx%d.txt" % (tree, width, height), screen)
            tmux.keys("q")
            assert tmux.wait_dead() == 0


@test
def replay_leak_trend():
    screen = replay()
    header, rows = table(screen)
    xorg = next(r for r in rows if r[1] == "Xorg")
    assert xorg[-1] == "+64.0M/m", xorg
    # the sort by growth puts the leak first
    tmux.keys("T")
    assert names(tmux.wait(r"sort TREND"))[0] == "Xorg"
    tmux.keys("q")
    assert tmux.wait_dead() == 0


SIZE_UNITS = {"K": 1, "M": 1024, "G": 1024 ** 2, "T": 1024 ** 3, "P": 1024 ** 4, "E": 1024 ** 5}


def kib(cell):
    """A size cell ("1.6G", "61.0M~") in KiB; None when unknown ("-")."""
    cell = cell.rstrip("~")
    if cell == "-":
        return None
    return float(cell[:-1]) * SIZE_UNITS[cell[-1]]


def column(screen, title):
    """The cells of column @title of every row: all columns shown at 132,
    and no cell of the replayed history holds a blank."""
    header, rows = table(screen)
    index = header.split().index(title)
    return [r[index] for r in rows]


def settled(pattern, check, timeout=15.0, escapes=False):
    """The screen once @pattern is on it and @check(screen) holds. A screen
    caught between two writes of one redraw (a header already new, rows
    still old: seen under ASan) is read again; a wrong order stays, and
    raises once the time is up."""
    deadline = time.monotonic() + scratch.scaled(timeout)
    while True:
        screen = tmux.wait(pattern, timeout, escapes)
        try:
            check(screen)
            return screen
        except AssertionError:
            if time.monotonic() >= deadline:
                raise
            time.sleep(0.1)


def ordered(values, key, reverse=False):
    known = [key(v) for v in values if key(v) is not None]
    unknown = [v for v in values if key(v) is None]
    assert values[:len(known)] == [v for v in values if key(v) is not None], \
        "unknown values before known ones: %s" % values
    assert known == sorted(known, reverse=reverse), "not in order: %s" % values
    return unknown


@test
def headroom_and_accounting_when_present():
    """The header gains the headroom line and the accounting's stacked bar
    from the samples that carry them: jmem's own history and the sections
    history have both, a history an older jmem recorded neither, and all
    replay the same."""
    for width, height in SIZES:
        golden("top-sections-%dx%d.txt" % (width, height),
               replay(SECTIONS, width=width, height=height))
        tmux.keys("q")
        assert tmux.wait_dead() == 0
    screen = replay()
    assert "Headroom: allocatable now" in screen and re.search(r"^RAM \[", screen, re.M), screen
    tmux.keys("q")
    tmux.wait_dead()
    screen = replay(BEFORE_ACCOUNTING)
    assert "Headroom" not in screen and "RAM [" not in screen, screen
    header, rows = table(screen)
    assert len(rows) == 9, screen
    assert next(r for r in rows if r[1] == "Xorg")[-1] == "+64.0M/m", screen
    tmux.keys("q")
    assert tmux.wait_dead() == 0


def last_buckets(history):
    """The last sample's buckets: {name: KiB}, the remainder as
    "unexplained"."""
    with open(history) as f:
        doc = json.loads(f.read().splitlines()[-1])
    buckets = {b["name"]: b["kib"] for b in doc["accounting"]["buckets"]}
    buckets["unexplained"] = doc["accounting"]["unexplained_kib"]
    return buckets


@test
def accounting_bar():
    """The bar fills the width with a letter per bucket in proportion to
    it, the used buckets first and free (".") last; the legend names the
    largest used bucket first with the sample's own figure; a narrow
    window keeps the bar to its width and the legend to what fits."""
    buckets = last_buckets(HISTORY)
    used = {n: k for n, k in buckets.items() if k and k > 0}
    total = sum(used.values())
    replay(width=80, height=30)
    for width in (80, 40):
        tmux.resize(width, 30)
        screen = tmux.wait(r"^RAM \[.{%d}\]$" % (width - 6))
        lines = screen.split("\n")
        i = next(i for i, l in enumerate(lines) if l.startswith("RAM ["))
        bar, legend = lines[i].rstrip(), lines[i + 1].rstrip()
        assert len(bar) == width and bar.endswith("]"), bar
        cells = bar[5:-1]
        # every cell a bucket's, free's at the end
        assert re.fullmatch(r"[^. ]+\.+", cells), cells
        for name, letter in (("nvmap", "n"), ("page_cache", "c"), ("free", ".")):
            share = used[name] * len(cells) / total
            assert abs(cells.count(letter) - share) <= 1, (name, cells, share)
        assert len(legend) <= width, legend
        first = legend.split()
        assert first[:4] == ["n", "NvMap", "in", "use"], legend
        assert abs(kib(first[4]) - used["nvmap"]) <= 0.05 * 1024 ** 2, (legend, used["nvmap"])
        assert re.search(r"\+\d+ more$", legend), legend
    tmux.keys("q")
    assert tmux.wait_dead() == 0


@test
def sort_keys():
    """Each key sorts by its column, largest sizes first, texts A to Z,
    unknown values last; the same key again and r turn the order round."""
    replay(width=132, height=43)
    sizes = {"S": "PSS", "M": "NVMAP", "G": "GPU", "W": "SWAP", "F": "FOOTPRINT"}
    for key, title in sizes.items():
        tmux.keys(key)
        settled(r"sort %s(  |$)" % title,
                lambda screen, title=title: ordered(column(screen, title), kib, reverse=True))

    def by_trend(screen):
        growth = [g.replace("/m", "") for g in (r[-1] for r in table(screen)[1])]
        ordered(growth, lambda g: 0.0 if g == "0" else kib(g.lstrip("+-")) * (-1 if g[0] == "-" else 1),
                reverse=True)
        assert names(screen)[0] == "Xorg", names(screen)
    tmux.keys("T")
    settled(r"sort TREND(  |$)", by_trend)
    for key, title in (("N", "NAME"), ("U", "USER"), ("C", "CONTAINER")):
        tmux.keys(key)
        settled(r"sort %s(  |$)" % title,
                lambda screen, key=key, title=title: ordered(
                    names(screen) if key == "N" else column(screen, title),
                    lambda c: None if c == "-" else c.casefold()))
    tmux.keys("I")
    settled(r"sort PID(  |$)", lambda screen: ordered(column(screen, "PID"), int))
    # the same key again, and r, turn the order round
    tmux.keys("I")
    settled(r"sort PID reversed", lambda screen: ordered(column(screen, "PID"), int, reverse=True))
    tmux.keys("r")
    settled(r"sort PID(  |$)", lambda screen: ordered(column(screen, "PID"), int))
    tmux.keys("N", "r")
    settled(r"sort NAME reversed",
            lambda screen: ordered(names(screen), str.casefold, reverse=True))
    tmux.keys("q")
    assert tmux.wait_dead() == 0


@test
def filter_and_group():
    replay()
    tmux.keys("/")
    tmux.wait(r"^Filter")
    tmux.literal("XORG")
    tmux.wait(r"^Filter.*XORG_")
    tmux.keys("Enter")
    screen = tmux.wait(r'filter "XORG"')
    assert names(screen) == ["Xorg"], names(screen)
    # by container id, part of it
    tmux.keys("/")
    tmux.keys("BSpace", "BSpace", "BSpace", "BSpace")
    tmux.literal("3f4e8b")
    tmux.keys("Enter")
    screen = tmux.wait(r'filter "3f4e8b"')
    assert sorted(names(screen)) == ["VLLM::EngineC…", "python3"], names(screen)
    # Esc leaves the filter as it was
    tmux.keys("/")
    tmux.literal("zzz")
    tmux.keys("Escape")
    screen = tmux.wait(r'filter "3f4e8b"')
    assert len(names(screen)) == 2
    # an empty filter shows everything again
    tmux.keys("/")
    for _ in range(6):
        tmux.keys("BSpace")
    tmux.keys("Enter")
    screen = tmux.wait(r"^9 of 9 processes")
    # one row per container and one for the host
    tmux.keys("c")
    screen = tmux.wait(r"^2 groups")
    header, rows = table(screen)
    assert rows[0][1:3] == ["2", "processes"] and rows[0][-3] == "3f4e8b2a9c1d", rows
    assert rows[1][1:3] == ["7", "processes"] and rows[1][-3] == "(host)", rows
    tmux.keys("c")
    tmux.wait(r"^9 of 9 processes")
    tmux.keys("q")
    tmux.wait_dead()


@test
def pause_and_seek():
    tmux.start(top("--replay %s --speed 1" % shquote(HISTORY)))
    tmux.wait(r"replay 1/12")
    tmux.keys("p")
    tmux.wait(r"PAUSED")
    time.sleep(2.5)
    assert "replay 1/12 " in tmux.screen(), "a paused replay moved on"
    tmux.keys("]", "]", "]")
    tmux.wait(r"replay 4/12 ")
    tmux.keys("[")
    tmux.wait(r"replay 3/12 ")
    tmux.keys("}")
    tmux.wait(r"replay 12/12 .*")
    tmux.wait(r"end of history")
    tmux.keys("{", "{")
    tmux.wait(r"replay 1/12 ")
    tmux.keys("+", "+")
    tmux.wait(r"replay 1/12 x4 ")
    tmux.keys("-")
    tmux.wait(r"replay 1/12 x2 ")
    # playing again: at x2 a minute between samples is capped at 5 s
    tmux.keys("p")
    tmux.wait_gone(r"PAUSED")
    tmux.wait(r"replay 2/12 ", timeout=12)
    tmux.keys("q")
    assert tmux.wait_dead() == 0


def wait_selected(row, timeout=15.0):
    """Waits until the selection is on @row: a key takes effect at top's
    next turn, later on a loaded machine."""
    deadline = time.monotonic() + scratch.scaled(timeout)
    while True:
        got = selected_line(tmux.screen(escapes=True))
        if got == row:
            return
        if time.monotonic() > deadline:
            raise AssertionError("the selection stayed on row %d, not %d" % (got, row))
        time.sleep(0.1)


@test
def moving_the_selection():
    replay()
    wait_selected(0)
    # the last row the screen shows: the header's height varies with the
    # sections the samples carry (headroom, accounting)
    last = len(table(tmux.screen())[1]) - 1
    tmux.keys("Down", "Down")
    tmux.wait(r"PAUSED")
    wait_selected(2)
    tmux.keys("Up")
    wait_selected(1)
    tmux.keys("End")
    wait_selected(last)
    tmux.keys("Home")
    wait_selected(0)
    tmux.keys("NPage")
    wait_selected(last)
    tmux.keys("PPage")
    wait_selected(0)
    # the selection follows its process when the order changes
    xorg = names(tmux.screen()).index("Xorg")
    for _ in range(xorg):
        tmux.keys("Down")
    wait_selected(xorg)
    tmux.keys("N")

    def xorg_selected(screen):
        plain = tmux.screen()
        assert names(plain)[selected_line(screen)] == "Xorg", names(plain)
    settled(r"sort NAME", xorg_selected, escapes=True)
    tmux.keys("q")
    tmux.wait_dead()


@test
def help_popup():
    replay()
    tmux.keys("?")
    screen = tmux.wait(r"jmem top: keys")
    assert "sort by TREND" in screen and "[ ]" in screen
    tmux.keys("x")
    tmux.wait_gone(r"jmem top: keys")
    tmux.keys("q")
    tmux.wait_dead()


@test
def enter_and_d_where_they_cannot_act():
    replay()
    tmux.keys("Enter")
    tmux.wait(r"A history holds no allocations")
    tmux.keys("d")
    tmux.wait(r"Caches can be dropped on the live system only, not in a replayed history")
    tmux.keys("q")
    tmux.wait_dead()
    tmux.start(top("--sysroot trees/orin-agx-nvgpu --interval 3600"))
    tmux.wait(r"^q:quit")
    tmux.keys("d")
    tmux.wait(r"not in a captured tree")
    tmux.keys("q")
    tmux.wait_dead()


@test
def enter_shows_allocations_of_a_capture():
    tmux.start(top("--sysroot trees/orin-agx-nvgpu --interval 3600"), 100, 30)
    screen = tmux.wait(r"^q:quit")
    index = names(screen).index("Xorg")
    for _ in range(index):
        tmux.keys("Down")
    wait_selected(index)
    tmux.keys("Enter")
    # the whole box, not its first line: a loaded machine may be caught
    # drawing it
    screen = tmux.wait(r"(?s)NvMap allocations of PID 1731 \(Xorg\), via sysroot.*"
                       r"\d+ handles? in \d+ clients?, [\d.]+ [KMG]iB in all.*SIZE  HANDLES  TAG")
    tmux.keys("Escape")
    tmux.wait_gone(r"NvMap allocations of PID")
    tmux.keys("q")
    tmux.wait_dead()


@test
def live_helper_refusals_are_shown():
    """On this machine (no helper for this test's user, or no NvMap): the
    allocations and the drop say why they were not done; nothing here
    depends on which processes run."""
    tmux.start("%s top --interval 5" % shquote(JMEM), 100, 30)
    tmux.wait(r"^q:quit")
    tmux.keys("d")
    tmux.wait(r"Drop the page cache, dentries and inodes through jmem-helper\? \[y/N\]")
    tmux.keys("n")
    tmux.wait(r"Caches not dropped\.")
    if os.geteuid() == 0 and os.path.exists("/proc/sys/vm/drop_caches") and \
            subprocess.run(["busctl", "--system", "status", "dev.jmem.Helper1"],
                           capture_output=True).returncode == 0:
        raise Skip("a jmem-helper answers on this system bus: y would drop this machine's caches")
    tmux.keys("d")
    tmux.wait(r"\[y/N\]")
    tmux.keys("y")
    screen = tmux.wait(r"Caches not dropped|Dropped the caches")
    assert "Caches not dropped" in screen, screen
    tmux.keys("x")
    tmux.wait_gone(r"Caches not dropped")
    tmux.keys("Enter")
    screen = tmux.wait(r"NvMap allocations: not read|NvMap allocations of PID")
    tmux.keys("q")
    assert tmux.wait_dead() == 0


class CountingBus:
    """A socket where the system bus would be: counts the connections made
    to it and closes each at once, so that a call fails fast."""

    def __init__(self, path):
        self.address = "unix:path=" + path
        self.count = 0
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.bind(path)
        self.sock.listen(16)
        threading.Thread(target=self.serve, daemon=True).start()

    def serve(self):
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.count += 1
            conn.close()

    def close(self):
        self.sock.close()


@test
def d_then_any_key_but_y_drops_nothing():
    """d asks; only y answers yes: Esc, x, Enter and n leave the caches
    alone and reach no bus, while y does (which shows that the count
    would see a call)."""
    path = os.path.join(TMP, "system-bus")
    bus = CountingBus(path)
    try:
        tmux.start("%s top --interval 3600" % shquote(JMEM), 100, 30,
                   env={"DBUS_SYSTEM_BUS_ADDRESS": bus.address})
        tmux.wait(r"^q:quit")
        for name, key in (("Esc", "Escape"), ("x", "x"), ("Enter", "Enter"), ("n", "n")):
            before = bus.count
            tmux.keys("d")
            tmux.wait(r"\[y/N\]")
            tmux.keys(key)
            screen = tmux.wait(r"Caches not dropped|Dropped the caches")
            assert "Caches not dropped." in screen and "To fix" not in screen, (name, screen)
            assert bus.count == before, "%s after d reached the bus" % name
        tmux.keys("d")
        tmux.wait(r"\[y/N\]")
        before = bus.count
        tmux.keys("y")
        tmux.wait(r"To fix")
        assert bus.count > before, "y after d did not reach the bus"
        tmux.keys("q")
        assert tmux.wait_dead() == 0
    finally:
        bus.close()
        os.unlink(path)


@test
def kept_pss_marked():
    """A process whose statm did not move keeps its PSS, marked ~; one whose
    statm moved is read again, unmarked (the sampler on a tree given statm)."""
    tree = os.path.join(TMP, "statm-tree")
    shutil.rmtree(tree, ignore_errors=True)
    shutil.copytree(os.path.join(FIXTURES, "trees", "orin-agx-nvgpu"), tree, symlinks=True)
    with open(os.path.join(tree, "proc", "1731", "statm"), "w") as f:
        f.write("50000 24500 8000 600 0 20000 0\n")
    tmux.start("%s top --sysroot %s --interval 0.2" % (shquote(JMEM), shquote(tree)), 100, 30)
    screen = tmux.wait(r"^\s+1731 .*~")
    line = next(l for l in screen.split("\n") if re.match(r"^\s+1731 ", l))
    assert re.search(r" 59\.6M~ ", line), line
    assert not re.search(r"~", next(l for l in screen.split("\n") if re.match(r"^\s+2831 ", l)))
    with open(os.path.join(tree, "proc", "1731", "statm"), "w") as f:
        f.write("50000 24600 8000 600 0 20000 0\n")
    # read again at once: for a moment unmarked
    tmux.wait(r"^\s+1731 .* 59\.6M ")
    tmux.keys("q")
    assert tmux.wait_dead() == 0


@test
def resize():
    tmux.start(top("--sysroot trees/orin-agx-nvgpu --interval 3600"), 80, 24)
    header, rows = table(tmux.wait(r"^q:quit"))
    assert "USER" not in header and "CONTAINER" in header, header
    tmux.resize(132, 43)
    header, rows = table(tmux.wait(r"USER"))
    assert "GPU" in header and "SWAP" in header, header
    tmux.resize(60, 20)
    # the documented order: SWAP, USER, GPU, CONTAINER, then PSS, TREND, NVMAP
    screen = tmux.wait(r"^\s+PID NAME\s+FOOTPRINT\s+NVMAP\s+TREND\s*$")
    assert all(len(line) <= 60 for line in screen.split("\n"))
    assert len(table(screen)[1]) == 9
    assert re.search(r"^RAM \[[^\]]{54}\]$", screen, re.M), screen
    tmux.resize(40, 12)
    screen = tmux.wait(r"^\s+PID NAME\s+FOOTPRINT\s*$")
    # 12 lines: the header's 4 and the headroom (the accounting's two gave
    # way to the table), the table's title, the help: 5 rows
    assert "RAM [" not in screen, screen
    assert len(table(screen)[1]) == 5, screen
    tmux.keys("q")
    assert tmux.wait_dead() == 0


@test
def hostile_names_escaped():
    tmux.start(top("--sysroot trees/hostile --interval 3600"), 132, 43)
    screen = tmux.wait(r"q:quit", escapes=True)
    # the names' escape sequences are shown as text, and none reached the
    # terminal: one sample has no growth, so nothing in the table is red
    # (the header's red is the accounting's unexplained memory)
    rows = screen.split("\n")
    rows = rows[next(i for i, l in enumerate(rows) if re.search(r"PID .*NAME", l)):]
    assert "\\x1b[31m" in screen
    assert not any("\x1b[31m" in row for row in rows), "a name's escape sequence coloured the screen"
    for seq in re.findall(r"\x1b\[[0-9;]*[A-Za-z]", screen):
        assert re.fullmatch(r"\x1b\[[0-9;]*m", seq), repr(seq)
    plain = tmux.screen()
    assert "evil\\n" in plain, plain
    tmux.keys("q")
    tmux.wait_dead()


@test
def ascii_without_a_utf8_locale():
    """In the C locale: ASCII levels in the sparklines, ">" for a cut, "?"
    for what the locale cannot show, and nothing else beyond ASCII."""
    screen = replay(env={"LANG": "C", "LC_ALL": "C"})
    assert all(ord(c) < 128 for c in screen), [c for c in screen if ord(c) >= 128][:5]
    xorg = next(l for l in screen.split("\n") if re.match(r"^\s+1731 ", l))
    assert re.search(r" __-=\+\*##?@@ \+64\.0M/m$|[_.\-=+*#@]{8} \+64\.0M/m$", xorg), xorg
    assert "VLLM::EngineC>" in screen, screen
    tmux.keys("q")
    tmux.wait_dead()
    tmux.start(top("--sysroot trees/hostile --interval 3600"), 132, 43, env={"LANG": "C", "LC_ALL": "C"})
    screen = tmux.wait(r"^q:quit")
    assert all(ord(c) < 128 for c in screen), screen
    assert "bad???(name" in screen, screen
    tmux.keys("q")
    tmux.wait_dead()


@test
def no_color():
    colored = replay(escapes=True)
    tmux.keys("q")
    tmux.wait_dead()
    plain = replay(env={"NO_COLOR": "1"}, escapes=True)
    tmux.keys("q")
    tmux.wait_dead()
    color = re.compile(r"\x1b\[[0-9;]*(3[0-7]|4[0-7]|38;|48;)[0-9;]*m")
    assert color.search(colored), "no colour without NO_COLOR"
    assert not color.search(plain), "colour under NO_COLOR: %r" % color.search(plain).group(0)


def stty_around(command, width=80, height=24):
    """Runs @command (given $PIDFILE) between two `stty -a`; returns the
    paths of the two outputs and of the exit status."""
    before, after, status = (os.path.join(TMP, n) for n in ("stty-before", "stty-after", "status"))
    pidfile = os.path.join(TMP, "pid")
    for p in (before, after, status, pidfile):
        if os.path.exists(p):
            os.unlink(p)
    # the shell outlives Ctrl-C (a trap, which its children do not inherit)
    tmux.start("trap : INT; stty -a > %s; %s; echo $? > %s; stty -a > %s"
               % (before, command.replace("$PIDFILE", pidfile), status, after), width, height)
    return before, after, status, pidfile


def wait_file(path, timeout=15.0):
    deadline = time.monotonic() + scratch.scaled(timeout)
    while time.monotonic() < deadline:
        if os.path.exists(path) and os.path.getsize(path) > 0:
            with open(path) as f:
                return f.read()
        time.sleep(0.1)
    raise AssertionError("%s never appeared; the screen:\n%s" % (path, tmux.screen()))


def read_pid(pidfile):
    return int(wait_file(pidfile).strip())


def assert_sane(before, after):
    b, a = wait_file(before), wait_file(after)
    assert b == a, "stty -a differs:\nbefore %s\nafter %s" % (b, a)
    assert re.search(r"(^|\s)icanon(\s|$)", a) and re.search(r"(^|\s)echo(\s|$)", a), a


def exec_top(args):
    return "sh -c 'echo $$ > $PIDFILE; exec %s top %s'" % (JMEM, args)


@test
def terminal_sane_after_q_and_ctrl_c():
    for key in ("q", "C-c"):
        before, after, status, pidfile = stty_around(
            exec_top("--sysroot %s --interval 3600" % os.path.join(FIXTURES, "trees", "orin-agx-nvgpu")))
        tmux.wait(r"^q:quit")
        tmux.keys(key)
        assert wait_file(status).strip() == "0", key
        assert_sane(before, after)
        # the shell's screen is back: the view's last screen is gone
        assert "FOOTPRINT" not in tmux.screen()


@test
def terminal_sane_after_sigterm_mid_refresh():
    # sampling all the time: a tree re-read every 0.2 s
    before, after, status, pidfile = stty_around(
        exec_top("--sysroot %s --interval 0.2" % os.path.join(FIXTURES, "trees", "hostile")))
    tmux.wait(r"^q:quit")
    pid = read_pid(pidfile)
    time.sleep(0.5)
    os.kill(pid, signal.SIGTERM)
    assert wait_file(status).strip() == "0"
    assert_sane(before, after)


@test
def terminal_sane_after_a_crash():
    # the signal ends it as it would have without jmem's handler: by the
    # signal, or by abort() where a sanitizer's handler takes SIGSEGV
    for sig, codes in ((signal.SIGSEGV, (128 + 11, 128 + 6)), (signal.SIGABRT, (128 + 6,))):
        before, after, status, pidfile = stty_around(
            exec_top("--sysroot %s --interval 3600" % os.path.join(FIXTURES, "trees", "orin-agx-nvgpu")))
        tmux.wait(r"^q:quit")
        os.kill(read_pid(pidfile), sig)
        assert int(wait_file(status)) in codes, (sig, wait_file(status))
        assert_sane(before, after)


@test
def terminal_sane_after_every_signal_that_ends_it():
    # each ends it as it would have without jmem's handler, the terminal
    # restored first (no core file: ulimit)
    for sig in (signal.SIGQUIT, signal.SIGUSR1, signal.SIGUSR2, signal.SIGPIPE, signal.SIGALRM,
                signal.SIGVTALRM, signal.SIGXCPU, signal.SIGRTMIN):
        before, after, status, pidfile = stty_around(
            "ulimit -c 0; " +
            exec_top("--sysroot %s --interval 3600" % os.path.join(FIXTURES, "trees", "orin-agx-nvgpu")))
        tmux.wait(r"^q:quit")
        os.kill(read_pid(pidfile), sig)
        assert int(wait_file(status)) == 128 + sig, (sig, wait_file(status))
        assert_sane(before, after)


@test
def dumb_terminal_prints_summary_lines():
    for tree in TREES:
        sysroot = os.path.join(FIXTURES, "trees", tree)
        r = subprocess.run([JMEM, "top", "--sysroot", sysroot, "--count", "2", "--interval", "0.2"],
                           env=dict(ENV, TERM="dumb"), capture_output=True, text=True, timeout=60)
        s = subprocess.run([JMEM, "summary", "--sysroot", sysroot], env=ENV, capture_output=True,
                           text=True, timeout=60)
        assert r.returncode == 0, r.stderr
        lines = r.stdout.splitlines()
        assert len(lines) == 2, r.stdout
        for line in lines:
            assert re.match(r"^(\d\d:\d\d:\d\d) ", line), line
            assert line[9:] == s.stdout.rstrip("\n"), (tree, line, s.stdout)
    r = subprocess.run([JMEM, "top", "--replay", HISTORY], env=dict(ENV, TERM="dumb"),
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and len(r.stdout.splitlines()) == 12, r
    assert r.stdout.splitlines()[0].startswith("05:46:40 total "), r.stdout


@test
def bad_histories_and_options():
    cases = [
        (["--replay", os.path.join(TMP, "missing.jsonl")], 66, "cannot open"),
        (["--replay", os.path.join(TMP, "empty.jsonl")], 69, "holds no snapshot"),
        (["--replay", os.path.join(TMP, "damaged.jsonl")], 65, ":1: not a jmem snapshot"),
        (["--interval", "0.1"], 64, "--interval takes 0.2"),
        (["--speed", "2"], 64, "--speed goes with --replay"),
        (["--replay", HISTORY, "--speed", "0"], 64, "--speed takes"),
        (["--replay", HISTORY, "--sysroot", "x"], 64, "excludes"),
        (["--sysroot", os.path.join(TMP, "no-such-tree")], 69, ""),
    ]
    open(os.path.join(TMP, "empty.jsonl"), "w").close()
    with open(os.path.join(TMP, "damaged.jsonl"), "w") as f:
        f.write('{"schema": "something else"}\n')
    for args, code, message in cases:
        r = subprocess.run([JMEM, "top"] + args, env=dict(ENV, TERM="dumb"), capture_output=True,
                           text=True, timeout=60)
        assert r.returncode == code, (args, r.returncode, r.stderr)
        assert message.lower() in r.stderr.lower(), (args, r.stderr)



# last: writing 400 MB slows a loaded machine for the tests after it
@test
def keys_while_a_long_history_loads():
    """A history of 400 MB plays from its first sample while the rest is
    read, the progress in the header; keys are answered meanwhile and q
    quits at once (within 10 s on a loaded machine), not when it is read."""
    long = os.path.join(TMP, "long.jsonl")
    r = subprocess.run([sys.executable, LONG_HISTORY, HISTORY, long, "--mib", "400"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    try:
        tmux.start(top("--replay %s" % shquote(long)))
        tmux.wait(r"replay 1/\d+ .*loading \d+%", timeout=30)
        tmux.keys("p")
        screen = tmux.wait(r"PAUSED")
        assert re.search(r"loading \d+%", screen), "read whole before p was answered:\n" + screen
        tmux.keys("q")
        asked = time.monotonic()
        assert tmux.wait_dead(timeout=60) == 0
        took = time.monotonic() - asked
        assert took < 10, "q took %.1f s while the history loaded" % took
    finally:
        os.unlink(long)

def main():
    if shutil.which("tmux") is None:
        print("1..0 # SKIP tmux is not installed")
        return 0
    for path, extra in ((HISTORY, []), (SECTIONS, ["--sections"])):
        r = subprocess.run([sys.executable, MAKE_HISTORY, JMEM,
                            os.path.join(FIXTURES, "trees", "orin-agx-nvgpu"), path] + extra,
                           capture_output=True, text=True)
        if r.returncode != 0:
            break
    if r.returncode != 0:
        print("Bail out! cannot record the history: " + r.stderr)
        return 1
    print("1..%d" % len(tests))
    failed = 0
    for n, func in enumerate(tests, 1):
        try:
            scratch.step("running", func.__name__)
            func()
            print("ok %d - %s" % (n, func.__name__))
        except Skip as e:
            print("ok %d - %s # SKIP %s" % (n, func.__name__, e))
        except Exception as e:  # noqa: BLE001 (every failure is reported)
            failed += 1
            print("not ok %d - %s" % (n, func.__name__))
            for line in str(e).splitlines() or [repr(e)]:
                print("# " + line)
        finally:
            tmux.stop()
    shutil.rmtree(TMP, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
