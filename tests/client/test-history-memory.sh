#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# jmem plot and jmem top --replay on a history of about 200 MB (a recorded
# history's lines again and again, long-history.py): each reads it through
# (every sample counted, or printed), and its peak RSS stays under 64 MiB,
# where keeping every sample would take several times that. In a sanitized
# build the peak is not compared (ASan's shadow memory).
# Usage: test-history-memory.sh JMEM PEAK_RSS FACES_HISTORY LONG_HISTORY TREE SANITIZED
set -eu
jmem=$1
peak_rss=$2
faces_history=$3
long_history=$4
tree=$5
sanitized=$6
bound_kib=65536

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 "$faces_history" "$jmem" "$tree" "$work/short.jsonl" --sections >/dev/null
samples=$(python3 "$long_history" "$work/short.jsonl" "$work/long.jsonl" --mib 200)
echo "history: $samples samples, $(wc -c <"$work/long.jsonl") bytes"

fail=0
judge () {
  peak=$(cat "$work/peak")
  echo "$1: peak RSS $peak KiB"
  if [ "$sanitized" = true ]; then
    echo "sanitized build: peak RSS not compared"
  elif [ "$peak" -gt "$bound_kib" ]; then
    echo "FAIL: $1: peak RSS $peak KiB is over $bound_kib KiB"
    fail=1
  fi
}

if "$peak_rss" "$work/peak" "$jmem" plot "$work/long.jsonl" -o "$work/long.png" >"$work/out"; then
  grep -q "($samples samples)\|, $samples samples)" "$work/out" ||
    { echo "FAIL: jmem plot did not draw $samples samples:"; head -1 "$work/out"; fail=1; }
  judge "jmem plot"
else
  echo "FAIL: jmem plot exited $?"
  fail=1
fi

if TERM=dumb "$peak_rss" "$work/peak" "$jmem" top --replay "$work/long.jsonl" >"$work/out" </dev/null; then
  lines=$(wc -l <"$work/out")
  [ "$lines" -eq "$samples" ] ||
    { echo "FAIL: jmem top --replay printed $lines lines, not $samples"; fail=1; }
  judge "jmem top --replay"
else
  echo "FAIL: jmem top --replay exited $?"
  fail=1
fi
exit $fail
