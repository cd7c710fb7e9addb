#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""jmem plot on a recorded leak history: the PNG decodes (by a decoder of
this file's own, zlib and the PNG specification, and by Pillow where it is
installed) with the size asked for, the SVG parses as XML, the leaking
process is the one series annotated and its mark is drawn in its colour;
the accounting stacked in each bucket's own colour where the samples carry
it (not in a history an older jmem recorded), the headroom as lines;
the window, --pid and --metric choose what is drawn; an empty, damaged or
missing history and an output that cannot be written give a clear error
and leave no file. Prints TAP.

Usage: test-plot.py JMEM FIXTURES FACES_HISTORY
"""
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import traceback
import xml.etree.ElementTree as ET
import zlib

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/: tap, scratch
import scratch

JMEM, FIXTURES, MAKE_HISTORY = (os.path.abspath(a) for a in sys.argv[1:4])
ENV = dict(os.environ, TZ="UTC", LANG="C.UTF-8")
TMP = scratch.mkdtemp("jmem-test-plot-")
LEAK = os.path.join(TMP, "leak.jsonl")
SECTIONS = os.path.join(TMP, "sections.jsonl")
# recorded by jmem before the accounting (schema version 1)
BEFORE_ACCOUNTING = os.path.join(FIXTURES, "history", "history.before-accounting.jsonl")
FLAT = os.path.join(TMP, "flat.jsonl")
# client/plot/jmem-plot-render.c: the plot area ends this far from the right edge
MARGIN_RIGHT = 24

tests = []


def test(func):
    tests.append(func)
    return func


def plot(*args):
    return subprocess.run([JMEM, "plot", *args], env=ENV, capture_output=True, text=True,
                          timeout=120)


def decode_png(path):
    """(width, height, rows of (r, g, b) tuples): chunks and their CRCs,
    IHDR, the zlib stream and every filter of the PNG specification."""
    with open(path, "rb") as f:
        data = f.read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "no PNG signature"
    pos, idat, ihdr, ended = 8, b"", None, False
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        crc, = struct.unpack(">I", data[pos + 8 + length:pos + 12 + length])
        assert zlib.crc32(kind + body) & 0xffffffff == crc, "bad CRC in %r" % kind
        if kind == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            ended = True
        pos += 12 + length
    assert ihdr is not None and ended, "no IHDR or IEND"
    width, height, depth, color_type, _, _, interlace = ihdr
    assert depth == 8 and color_type in (2, 6) and interlace == 0, ihdr
    bpp = 3 if color_type == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * bpp
    assert len(raw) == height * (stride + 1), "%d bytes for %dx%d" % (len(raw), width, height)
    rows, prev = [], bytearray(stride)
    for y in range(height):
        kind = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        assert kind <= 4, "filter %d" % kind
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if kind == 1:
                line[i] = (line[i] + a) & 0xff
            elif kind == 2:
                line[i] = (line[i] + b) & 0xff
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 0xff
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xff
        rows.append([tuple(line[x * bpp:x * bpp + 3]) for x in range(width)])
        prev = line
    return width, height, rows


def pillow_size(path):
    try:
        from PIL import Image
    except ImportError:
        return None
    with Image.open(path) as im:
        im.load()
        return im.size


def hex_color(text):
    return tuple(int(text[i:i + 2], 16) for i in (1, 3, 5))


def annotated(report):
    return [l for l in report.splitlines() if ", annotated " in l]


@test
def png_decodes_with_its_size():
    out = os.path.join(TMP, "leak.png")
    r = plot(LEAK, "-o", out, "--width", "640", "--height", "480")
    assert r.returncode == 0, r.stderr
    assert "Wrote %s (PNG, 640 x 480 pixels, 12 samples)." % out in r.stdout, r.stdout
    width, height, rows = decode_png(out)
    assert (width, height) == (640, 480)
    assert pillow_size(out) in (None, (640, 480))
    assert oct(os.stat(out).st_mode & 0o777) == "0o644"
    # something is drawn: not one colour
    assert len({px for row in rows[::8] for px in row[::8]}) > 10


@test
def svg_parses_as_xml():
    out = os.path.join(TMP, "leak.svg")
    r = plot(LEAK, "-o", out, "--width", "1000", "--height", "700")
    assert r.returncode == 0, r.stderr
    root = ET.parse(out).getroot()
    assert root.tag == "{http://www.w3.org/2000/svg}svg", root.tag
    assert (root.get("width"), root.get("height")) == ("1000px", "700px"), root.attrib
    assert root.get("viewBox") == "0 0 1000 700"


@test
def the_leak_is_the_series_annotated():
    out = os.path.join(TMP, "leak-mark.png")
    r = plot(LEAK, "-o", out, "--width", "640", "--height", "480")
    assert r.returncode == 0, r.stderr
    marks = annotated(r.stdout)
    assert len(marks) == 1, r.stdout
    assert re.match(r"^NvMap per process \(nvmap.by_pid\): Xorg \(PID 1731\), .*, colour #[0-9a-f]{6}, "
                    r"annotated \+3\.8 GiB/h nvmap-growing$", marks[0]), marks[0]
    xorg = hex_color(re.search(r"colour (#[0-9a-f]{6})", marks[0]).group(1))
    others = {hex_color(c) for c in re.findall(r"colour (#[0-9a-f]{6})", r.stdout)} - {xorg}
    # the mark's ring reaches past the plot area's right edge, where no line is drawn
    width, height, rows = decode_png(out)
    right = [rows[y][x] for y in range(height) for x in range(width - MARGIN_RIGHT + 2, width)]
    assert xorg in right, "no pixel of the leak's colour right of the plot area"
    assert not others & set(right), "another series' colour right of the plot area"
    # a history without the leak has no mark
    r = plot(FLAT, "-o", os.path.join(TMP, "flat.png"))
    assert r.returncode == 0 and annotated(r.stdout) == [], r.stdout


@test
def the_title_names_the_board():
    """As jmem snapshot's first line does: from the newest sample that names
    it, though the lines after it were cut down to what the rules read."""
    want = "Title: NVIDIA Jetson AGX Orin Developer Kit (orin-agx)"
    r = plot(BEFORE_ACCOUNTING, "-o", os.path.join(TMP, "title.png"))
    assert r.returncode == 0 and want in r.stdout.splitlines(), r.stdout
    with open(BEFORE_ACCOUNTING) as f:
        docs = [json.loads(line) for line in f]
    cut = os.path.join(TMP, "cut-down.jsonl")
    with open(cut, "w") as f:
        for i, d in enumerate(docs):
            if i >= len(docs) // 2:
                d = {k: d[k] for k in ("schema", "schema_version", "collected", "memory", "nvmap",
                                       "processes")}
            f.write(json.dumps(d, separators=(",", ":")) + "\n")
    r = plot(cut, "-o", os.path.join(TMP, "title-cut.png"))
    assert r.returncode == 0 and want in r.stdout.splitlines(), r.stdout
    # a history that never names it says so in the snapshot's words
    r = plot(os.path.join(FIXTURES, "history", "history.reference-growing.jsonl"),
             "-o", os.path.join(TMP, "title-unknown.png"))
    assert r.returncode == 0 and "Title: unknown model (orin-agx)" in r.stdout.splitlines(), \
        r.stdout


@test
def window_pid_and_metric():
    out = os.path.join(TMP, "window.png")
    r = plot(LEAK, "-o", out, "--since", "-5m")
    assert r.returncode == 0 and "6 samples" in r.stdout, (r.stdout, r.stderr)
    # samples every minute from 05:46:40 UTC (1765000000): 05:50:40 to 05:54:40
    r = plot(LEAK, "-o", out, "--since", "2025-12-06T05:50:40", "--until", "@1765000500")
    assert r.returncode == 0 and "5 samples" in r.stdout, (r.stdout, r.stderr)
    r = plot(LEAK, "-o", out, "--since", "2025-12-06 05:50:40Z", "--until", "2025-12-06 05:54")
    assert r.returncode == 0 and "4 samples" in r.stdout, (r.stdout, r.stderr)
    r = plot(LEAK, "-o", out, "--pid", "1731", "--pid", "2831")
    assert r.returncode == 0, r.stderr
    lines = [l for l in r.stdout.splitlines() if "(PID" in l]
    assert lines and all("(PID 1731)" in l or "(PID 2831)" in l for l in lines), r.stdout
    r = plot(LEAK, "-o", out, "--metric", "pss", "--top", "3")
    assert r.returncode == 0, r.stderr
    lines = [l for l in r.stdout.splitlines() if "(PID" in l]
    assert len(lines) == 3 and all(l.startswith("PSS per process") for l in lines), r.stdout
    r = plot(LEAK, "-o", out, "--metric", "nvmap")
    assert r.returncode == 0 and len(annotated(r.stdout)) == 1, r.stdout


ACCOUNTING = "Where the RAM is (the accounting of MemTotal): "


def buckets_drawn(report):
    """{stable name: (label, colour)} of the accounting's panel, in the
    order stacked (bottom up)."""
    out = {}
    for line in report.splitlines():
        m = re.match(r"^%s(.+) \((\w+)\), at most .*, colour (#[0-9a-f]{6})$" % re.escape(ACCOUNTING), line)
        if m:
            out[m.group(2)] = (m.group(1), m.group(3))
    return out


@test
def accounting_and_headroom_when_present():
    """The buckets stacked and the headroom as lines, where the samples
    carry them: jmem's own history and the sections one have both, and one
    an older jmem recorded has neither."""
    out = os.path.join(TMP, "sections.png")
    r = plot(SECTIONS, "-o", out)
    assert r.returncode == 0, r.stderr
    drawn = buckets_drawn(r.stdout)
    # the buckets with memory in the window, free on top; none of the
    # empty ones (this board has no zram, zswap or hugetlb pages)
    assert list(drawn)[-1] == "free", drawn
    assert {"page_cache", "anon", "nvmap", "unexplained"} <= set(drawn), drawn
    assert not {"zram", "zswap", "hugetlb", "kernel_reclaimable"} & set(drawn), drawn
    assert drawn["nvmap"][0] == "NvMap in use", drawn
    assert re.search(r"^%sallocatable after reclaim, at most [\d.]+ GiB, a dashed line$" % re.escape(ACCOUNTING),
                     r.stdout, re.M), r.stdout
    assert re.search(r"^%sallocatable now, at most [\d.]+ GiB, a dotted line$" % re.escape(ACCOUNTING),
                     r.stdout, re.M), r.stdout
    assert len(annotated(r.stdout)) == 1
    # the NvMap bucket's area is drawn in its colour: far more pixels than
    # its legend's swatch (22 x 10)
    width, height, rows = decode_png(out)
    nvmap = hex_color(drawn["nvmap"][1])
    assert sum(px == nvmap for row in rows for px in row) > 2000, "no area of the NvMap bucket"
    r = plot(LEAK, "-o", out)
    assert r.returncode == 0, r.stderr
    assert buckets_drawn(r.stdout) and "allocatable now" in r.stdout, r.stdout
    r = plot(BEFORE_ACCOUNTING, "-o", out)
    assert r.returncode == 0, r.stderr
    assert "Where the RAM is" not in r.stdout and "Headroom" not in r.stdout, r.stdout
    assert len(annotated(r.stdout)) == 1, r.stdout


@test
def bucket_colours_by_name():
    """A bucket keeps its colour by its name, whatever else the history
    holds: with the page cache unknown in every sample, the NvMap bucket is
    the same colour and the page cache is not drawn."""
    edited = os.path.join(TMP, "no-page-cache.jsonl")
    with open(LEAK) as f, open(edited, "w") as g:
        for line in f:
            d = json.loads(line)
            for b in d["accounting"]["buckets"]:
                if b["name"] == "page_cache":
                    b["kib"] = None
            g.write(json.dumps(d, separators=(",", ":")) + "\n")
    r1 = plot(LEAK, "-o", os.path.join(TMP, "a.png"))
    r2 = plot(edited, "-o", os.path.join(TMP, "b.png"))
    assert r1.returncode == 0 and r2.returncode == 0, (r1.stderr, r2.stderr)
    one, two = buckets_drawn(r1.stdout), buckets_drawn(r2.stdout)
    assert "page_cache" in one and "page_cache" not in two, (one, two)
    assert one["nvmap"] == two["nvmap"] and one["free"] == two["free"], (one, two)
    assert len({c for _, c in one.values()}) == len(one), "two buckets share a colour: %s" % one


@test
def bad_input_leaves_no_file():
    empty = os.path.join(TMP, "empty.jsonl")
    damaged = os.path.join(TMP, "damaged.jsonl")
    open(empty, "w").close()
    # no line a snapshot (a history with some such lines is read without them)
    with open(damaged, "w") as g:
        g.write('{"schema": "jmem-snapshot", "schema_version": 1\n{"schema": "x"}\n')
    outdir = os.path.join(TMP, "out")
    os.mkdir(outdir)
    out = os.path.join(outdir, "plot.png")
    cases = [
        ([empty, "-o", out], 69, "holds no snapshot"),
        ([damaged, "-o", out], 65, "damaged.jsonl:1:"),
        ([os.path.join(TMP, "missing.jsonl"), "-o", out], 66, "missing.jsonl"),
        ([LEAK, "-o", out, "--since", "@1", "--until", "@2"], 69, "no sample between"),
        ([LEAK, "-o", out, "--since", "yesterday"], 64, "is not a time"),
        ([LEAK, "-o", os.path.join(outdir, "plot.gif")], 64, "-o FILE.png or -o FILE.svg"),
        ([LEAK, "-o", out, "--metric", "rss"], 64, "--metric takes"),
        ([LEAK, "-o", out, "--width", "10"], 64, "--width takes 320 to 8192 pixels"),
        ([LEAK, "-o", out, "--height", "10"], 64, "--height takes 320 to 8192 pixels"),
        ([LEAK, "-o", os.path.join(TMP, "no-such-dir", "plot.png")], 73, "no-such-dir"),
        ([LEAK, "-o", os.path.join(TMP, "a-directory.png")], 73, "a-directory.png"),
    ]
    os.mkdir(os.path.join(TMP, "a-directory.png"))
    for args, code, message in cases:
        r = plot(*args)
        assert r.returncode == code, (args, r.returncode, r.stderr)
        assert message in r.stderr, (args, r.stderr)
        assert r.stdout == "", (args, r.stdout)
        assert os.listdir(outdir) == [], (args, os.listdir(outdir))


@test
def replaces_a_file_whole():
    """A plot written over an older one: the new one whole, nothing else left."""
    outdir = os.path.join(TMP, "replace")
    os.mkdir(outdir)
    out = os.path.join(outdir, "p.png")
    with open(out, "w") as f:
        f.write("old")
    os.symlink("p.png", os.path.join(outdir, "link.png"))
    r = plot(LEAK, "-o", os.path.join(outdir, "link.png"))
    assert r.returncode == 0, r.stderr
    # the link was replaced, not followed
    assert not os.path.islink(os.path.join(outdir, "link.png"))
    with open(out) as f:
        assert f.read() == "old"
    assert sorted(os.listdir(outdir)) == ["link.png", "p.png"], os.listdir(outdir)
    decode_png(os.path.join(outdir, "link.png"))


def main():
    for path, mib, extra in ((LEAK, 64, []), (FLAT, 0, []), (SECTIONS, 64, ["--sections"])):
        r = subprocess.run([sys.executable, MAKE_HISTORY, JMEM,
                            os.path.join(FIXTURES, "trees", "orin-agx-nvgpu"), path,
                            "--leak-mib", str(mib)] + extra, capture_output=True, text=True)
        if r.returncode != 0:
            print("Bail out! cannot record the history: " + r.stderr)
            return 1
    print("1..%d" % len(tests))
    failed = 0
    for n, func in enumerate(tests, 1):
        try:
            func()
            print("ok %d - %s" % (n, func.__name__))
        except Exception as e:  # noqa: BLE001 (every failure is reported)
            failed += 1
            print("not ok %d - %s" % (n, func.__name__))
            where = traceback.extract_tb(e.__traceback__)[-1]
            print("# at %s line %d: %s" % (os.path.basename(where.filename), where.lineno, where.line))
            for line in str(e).splitlines() or [repr(e)]:
                print("# " + line)
    shutil.rmtree(TMP, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
