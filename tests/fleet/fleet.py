# SPDX-License-Identifier: GPL-2.0-or-later
"""A simulated fleet of Jetsons: N boards, D days of the series that
`jmem metrics` writes and the trend rules read, as OpenMetrics for
`promtool tsdb create-blocks-from openmetrics`, with the sets of boards that
the rules must find.

    python3 fleet.py BOARDS DAYS OUT.om [SEED]    writes the file, prints the expected sets

Every board publishes its release in `jmem_board_info`, but one in ten,
of a jmem without that series, whose release is a target label
`l4t_release` as a scrape configuration would set (docs/metrics.md, "Fleet
views"). Each board is one of:

- flat: the remainder, NvMap and what is allocatable level under noise;
- step: a model of 1 GiB loaded once, at a random moment (some in the
  last 12 hours), into NvMap: allocatable falls by as much;
- sawtooth: a video pipeline's NvMap buffers, 256 MiB filled and freed
  every hour;
- low: flat, but with 600 MiB allocatable (headroom, not a trend);
- unexplained-leak: the remainder grows 10 MiB an hour from a moment 1.5
  to 10 days before the end, and what is allocatable falls by as much;
- nvmap-leak: a process (`deepstream-app`) leaks NvMap 10 MiB an hour,
  from such a moment.

About half of the leaking boards have so little allocatable that the leak
empties it within 7 days of the end (with 300 MiB to spare either way),
the others have plenty. Noise is +-40 MiB on every series but MemTotal.
"""
import random
import sys

import series
from series import GiB, HOUR, MiB

DAY = 24 * HOUR
STEP = 300                      # a sample every 5 minutes
RATE = 10 * MiB                 # the leaks, per hour
RELEASES = ("35.6.0", "36.3.0", "36.4.3")
KINDS = ("unexplained-leak", "nvmap-leak", "step", "sawtooth", "low") + ("flat",) * 15


def boards(count, days, seed, end):
    """Each board's parameters; `end` the last sample's time (seconds)."""
    rng = random.Random(seed)
    out = []
    for i in range(count):
        # the first five boards are one of each kind of interest, the rest drawn
        kind = KINDS[i] if i < 5 else rng.choice(KINDS)
        memtotal = rng.choice((7620 * MiB, 15_640 * MiB, 31_000 * MiB))
        b = {
            "instance": "jetson-%05d:9100" % i,
            "l4t_release": rng.choice(RELEASES),
            "older_jmem": i % 10 == 9,
            "kind": kind,
            "memtotal": memtotal,
            "unexplained": rng.randint(150, 600) * MiB,
            "nvmap": rng.randint(200, 1500) * MiB,
            "pss": rng.randint(100, 400) * MiB,
            "leak_start": None,
            "step_at": None,
            "exhausts": False,
        }
        # allocatable after reclaim at the end, noise aside
        alloc_end = rng.randint(2500, int(memtotal / MiB / 2)) * MiB
        if kind == "low":
            alloc_end = 600 * MiB
        if kind.endswith("-leak"):
            b["leak_start"] = end - rng.randint(int(1.5 * DAY), min(10, days - 1) * DAY)
            # out within 7 days: 1,680 MiB at 10 MiB/h; 300 MiB either side
            b["exhausts"] = rng.random() < 0.5
            alloc_end = (rng.randint(600, 1380) if b["exhausts"] else rng.randint(1980, 4000)) * MiB
        if kind == "step":
            b["step_at"] = end - rng.randint(1, 2 * days) * DAY // 2 + rng.randint(0, DAY // 2)
        leaked = RATE * (end - b["leak_start"]) / HOUR if b["leak_start"] is not None else 0
        b["alloc_start"] = alloc_end + leaked + (GiB if kind == "step" and b["step_at"] <= end else 0)
        out.append(b)
    return out


def expected(fleet):
    """The boards (instances) each view must find."""
    return {
        "unexplained": sorted(b["instance"] for b in fleet if b["kind"] == "unexplained-leak"),
        "nvmap": sorted(b["instance"] for b in fleet if b["kind"] == "nvmap-leak"),
        "exhaustion": sorted(b["instance"] for b in fleet if b["exhausts"]),
        "processes": sorted((b["instance"], "4242") for b in fleet if b["kind"] == "nvmap-leak"),
    }


def shapes(b):
    """{(family, labels): shape} for one board; the shapes sum as the
    accounting does (allocatable falls by what the remainder and NvMap
    gain)."""
    kind = b["kind"]
    grow = series.leak(0, RATE, b["leak_start"]) if b["leak_start"] is not None else series.flat(0)
    unexplained = grow if kind == "unexplained-leak" else series.flat(0)
    leaked_nvmap = grow if kind == "nvmap-leak" else series.flat(0)
    if kind == "step":
        extra = series.step(0, GiB, b["step_at"])
    elif kind == "sawtooth":
        extra = series.sawtooth(0, 256 * MiB, HOUR)
    else:
        extra = series.flat(0)
    gone = lambda t: unexplained(t) + leaked_nvmap(t) + extra(t)
    info = [] if b["older_jmem"] else [
        ("jmem_board_info", 'l4t_release="%s",sku="orin-nano",model="NVIDIA Jetson Orin Nano"'
         % b["l4t_release"], None, lambda t: 1)]
    return info + [
        ("jmem_meminfo_bytes", 'field="MemTotal"', None, lambda t: b["memtotal"]),
        ("jmem_memory_bucket_bytes", 'bucket="unexplained"', 1, lambda t: b["unexplained"] + unexplained(t)),
        ("jmem_nvmap_total_bytes", "", 2, lambda t: b["nvmap"] + leaked_nvmap(t) + extra(t)),
        ("jmem_allocatable_bytes", 'after="reclaim"', 3, lambda t: b["alloc_start"] - gone(t)),
        ("jmem_allocatable_bytes", 'after="none"', 4, lambda t: b["alloc_start"] - GiB - gone(t)),
        # process mode: the pipeline (which leaks on nvmap-leak boards) and a flat helper
        ("jmem_process_nvmap_bytes", 'pid="4242",comm="deepstream-app",user="nvidia",container=""', 5,
         lambda t: b["nvmap"] // 2 + leaked_nvmap(t)),
        ("jmem_process_footprint_bytes", 'pid="4242",comm="deepstream-app",user="nvidia",container=""', 6,
         lambda t: b["pss"] + b["nvmap"] // 2 + leaked_nvmap(t)),
        ("jmem_process_nvmap_bytes", 'pid="977",comm="python3",user="nvidia",container=""', 7,
         lambda t: b["nvmap"] // 4),
        ("jmem_process_footprint_bytes", 'pid="977",comm="python3",user="nvidia",container=""', 8,
         lambda t: b["pss"] + b["nvmap"] // 4),
    ]


def write_openmetrics(out, fleet, start, end, seed, process_series=True):
    """Family by family, series by series, every STEP seconds from start to
    end inclusive (the format wants a family's samples together); a file
    of a later span draws other noise. Returns the number of samples."""
    families = {}
    for n, b in enumerate(fleet):
        for family, labels, noise_id, shape in shapes(b):
            if family.startswith("jmem_process_") and not process_series:
                continue
            families.setdefault(family, []).append((n, b, labels, noise_id, shape))
    count = 0
    for family, rows in families.items():
        out.write("# TYPE %s gauge\n" % family)
        for n, b, labels, noise_id, shape in rows:
            target = ',l4t_release="%s"' % b["l4t_release"] if b["older_jmem"] else ""
            prefix = '%s{%sinstance="%s",job="node"%s} ' % (
                family, labels + "," if labels else "", b["instance"], target)
            rng = random.Random("%d/%d/%d/%d" % (seed, n, noise_id or 0, start))
            noise = series.NOISE if noise_id is not None else 0
            lines = []
            for t in range(start, end + 1, STEP):
                lines.append("%s%d %d\n" % (prefix, shape(t) + rng.uniform(-noise, noise), t))
            out.write("".join(lines))
            count += len(lines)
    out.write("# EOF\n")
    return count


def main():
    if len(sys.argv) not in (4, 5):
        sys.stderr.write(__doc__)
        return 2
    count, days = int(sys.argv[1]), int(sys.argv[2])
    seed = int(sys.argv[4]) if len(sys.argv) == 5 else 1
    end = 1_764_547_200  # 2025-12-01 00:00 UTC
    fleet = boards(count, days, seed, end)
    with open(sys.argv[3], "w") as out:
        write_openmetrics(out, fleet, end - days * DAY, end, seed)
    print(expected(fleet))
    return 0


if __name__ == "__main__":
    sys.exit(main())
