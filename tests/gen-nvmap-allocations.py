#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Writes an NvMap iovmm/allocations file with HANDLES handles in the L4T r36
layout (the kernel's seq_printf formats, as in
fixtures/nvmap/allocations.rendered-r36-format.txt), for tests and the
benchmark that need a big file without committing one.

Usage: gen-nvmap-allocations.py HANDLES OUT

Most handles belong to one client, as in a leaking video pipeline; each UID
is a non-zero hashed pointer (as %pK prints with kptr_restrict=0), so a test
can see that it is dropped. Every client's size is the sum of its handles."""
import sys

CLIENT = "%-18s %18s %8u %10uK\n"
HANDLE = "%-18s %-18s %8x %10uK %8x %6u %6u %6u %6u %6u %6u %016x %s\n"
HEADER = ("%-18s %18s %8s %11s\n" % ("CLIENT", "PROCESS", "PID", "SIZE") +
          "%-18s %-18s %8s %11s %8s %6s %6s %6s %6s %6s %6s %8s\n"
          % ("", "", "BASE", "SIZE", "FLAGS", "REFS", "DUPES", "PINS",
             "KMAPS", "UMAPS", "SHARE", "UID"))


def main():
    if len(sys.argv) != 3 or not sys.argv[1].isdigit():
        sys.exit("usage: gen-nvmap-allocations.py HANDLES OUT")
    n = int(sys.argv[1])
    # (client, process, pid, share of the handles)
    clients = [("user", "gst-launch-1.0", 4242, 0.97), ("user", "Xorg", 1731, 0.02),
               ("user", "nvargus-daemon", 977, 0.01)]
    counts = [int(n * share) for _, _, _, share in clients]
    counts[0] += n - sum(counts)
    total = 0
    serial = 0
    with open(sys.argv[2], "w", encoding="ascii") as out:
        out.write(HEADER)
        for (client, process, pid, _), count in zip(clients, counts):
            sizes = [4 + (serial + i) % 61 * 4 for i in range(count)]
            out.write(CLIENT % (client, process, pid, sum(sizes)))
            for size in sizes:
                serial += 1
                out.write(HANDLE % ("", "", 0x100000 + serial * 0x1000, size, 0x10120001,
                                    1 + serial % 3, 1, serial % 2, 0, 1, 1,
                                    0x9e3779b97f4a7c15 * serial % (1 << 64) or 1,
                                    "nvbuf-%d" % serial if serial % 4 else ""))
            out.write("\n")
            total += sum(sizes)
        out.write(CLIENT.replace("%8u", "%8s") % ("total", "", "", total))


if __name__ == "__main__":
    main()
