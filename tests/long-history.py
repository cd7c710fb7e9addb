#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Writes a long jmem watch history from a short one: its lines again and
again, in order, each with its time moved on by --interval seconds, until
the output holds --lines lines or --mib MiB (whichever comes first). It is
streamed, line by line, so a history of gigabytes costs this script no
memory. For the benchmark and the test of jmem plot and jmem top --replay
on histories longer than a picture is wide.

Usage: long-history.py SHORT OUT [--lines N] [--mib M] [--interval S]
"""
import argparse
import datetime
import re

STAMP = re.compile(r'"timestamp":"[^"]*","timestamp_unix":-?\d+')


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("short")
    ap.add_argument("out")
    ap.add_argument("--lines", type=int, default=10 ** 12)
    ap.add_argument("--mib", type=float, default=float("inf"))
    ap.add_argument("--interval", type=int, default=5)
    args = ap.parse_args()
    with open(args.short) as f:
        lines = [line.rstrip("\n") for line in f if line.strip()]
    first = int(re.search(r'"timestamp_unix":(-?\d+)', lines[0]).group(1))
    limit = args.mib * 1024 * 1024
    written = 0
    with open(args.out, "w") as out:
        for i in range(args.lines):
            if written >= limit:
                break
            t = first + i * args.interval
            when = datetime.datetime.fromtimestamp(t, datetime.timezone.utc)
            stamp = '"timestamp":"%s","timestamp_unix":%d' % (when.strftime("%Y-%m-%dT%H:%M:%SZ"), t)
            line = STAMP.sub(stamp, lines[i % len(lines)], count=1) + "\n"
            out.write(line)
            written += len(line)
    print(i if written >= limit else args.lines)


if __name__ == "__main__":
    main()
