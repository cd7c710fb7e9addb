#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# `jmem allocations` on a capture of 240,000 NvMap handles (33 MB of
# iovmm/allocations, written by gen-nvmap-allocations.py): the JSON and the
# table each hold every handle, and jmem's peak RSS stays within 32 MiB for
# each. The same bound through the helper and debugfs is e2e-allocations'.
# In a sanitized build the peak is not compared (ASan's shadow memory).
# Usage: test-allocations-memory.sh JMEM PEAK_RSS GENERATOR CLIENTS_FIXTURE SANITIZED
set -eu
jmem=$1
peak_rss=$2
gen=$3
clients=$4
sanitized=$5
handles=240000
bound_kib=32768

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# dash runs no EXIT trap when a signal ends it (meson's timeout: SIGTERM)
trap 'exit 143' TERM HUP INT
nvmap=$work/tree/sys/kernel/debug/nvmap/iovmm
mkdir -p "$nvmap"
cp "$clients" "$nvmap/clients"
python3 "$gen" "$handles" "$nvmap/allocations"

fail=0
check () {
  what=$1
  shift
  "$peak_rss" "$work/peak" "$jmem" allocations --no-ask-password --sysroot "$work/tree" "$@" \
    >"$work/out" || { echo "FAIL: jmem allocations $* exited $?"; fail=1; return; }
  peak=$(cat "$work/peak")
  rows=$(grep -c "$what" "$work/out" || true)
  echo "jmem allocations $*: $rows handles, peak RSS $peak KiB"
  [ "$rows" -eq "$handles" ] || { echo "FAIL: $rows handles, not $handles"; fail=1; }
  if [ "$sanitized" = true ]; then
    echo "sanitized build: peak RSS not compared"
  elif [ "$peak" -gt "$bound_kib" ]; then
    echo "FAIL: peak RSS $peak KiB is over $bound_kib KiB"
    fail=1
  fi
}

# one "base" member per handle; one table row per handle (a pipe gets
# whole lines), under a header row of its own
check '"base" : ' --json
check '^  *[0-9a-f][0-9a-f]* '
exit $fail
