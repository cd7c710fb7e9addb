#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# scripts/demo on an existing build: it fits a screenful or two, every section
# says what it shows, and nothing in a section contradicts what that section
# shows (the helper's NvMap rows name the demo's own processes).
# Usage: test-demo.sh DEMO BUILD_DIR
set -u
demo=$1 build=$2
failed=0
fail () { echo "FAIL: $*"; failed=1; }

help=$("$demo" --help) || fail "--help exits $?"
grep -q '^usage: scripts/demo' <<<"$help" || fail "--help prints no usage line"

if [ "$(id -u)" -ne 0 ]; then
  echo "SKIP: the demo's sandbox needs root"
  exit 77
fi
if ! command -v jq >/dev/null; then
  echo "SKIP: jq is not installed (scripts/demo installs it with JMEM_DEMO_PACKAGES)"
  exit 77
fi

out=$(JMEM_DEMO_BUILD=$build "$demo" 2>&1)
rc=$?
[ "$rc" -eq 0 ] || fail "scripts/demo exits $rc"
lines=$(printf '%s\n' "$out" | wc -l)
# 170 before "Where the RAM is" (about 20 lines in each of the two full
# snapshots) joined the human view; the same slack above what it prints now.
[ "$lines" -le 220 ] || fail "scripts/demo prints $lines lines (at most 220)"

# section NUMBER: the lines from that section's header to the next one.
section () {
  printf '%s\n' "$out" | awk -v n="$1" '/^==> / { s = ($2 == n "/3") } s'
}
recorded=$(section 1) helper=$(section 2) live=$(section 3)
grep -q '^==> 1/3 A recorded Jetson AGX Orin' <<<"$recorded" || fail "no header for the recorded Orin"
grep -q '^==> 2/3 The helper answering in a sandbox' <<<"$helper" || fail "no header for the helper"
grep -q '^==> 3/3 This machine' <<<"$live" || fail "no header for this machine"

# The recorded board: its top holder and NvMap total from the jq query.
grep -q '"nvmap_total_kib": [0-9]' <<<"$recorded" || fail "no NvMap total in the jq query"
grep -q '"top_holder"' <<<"$recorded" || fail "no top holder in the jq query"
if grep -q '"schema"' <<<"$recorded"; then fail "the whole JSON document is printed"; fi

# The helper: NvMap read through it, every row one of the demo's sleeps.
grep -q '(via helper)' <<<"$helper" || fail "the helper section's NvMap was not read through the helper"
rows=$(awk '/PID +SIZE +CLIENTS +PROCESS/ { t = 1; next } t && /^ +[0-9]+ / { print $5; next } { t = 0 }' <<<"$helper")
[ -n "$rows" ] || fail "the helper section shows no NvMap rows"
if grep -vqx sleep <<<"$rows"; then fail "NvMap rows not made for the demo's sleeps: $(tr '\n' ' ' <<<"$rows")"; fi
for word in 'nvmap-orphan' 'no /proc entry' 'no such process'; do
  if grep -q "$word" <<<"$helper"; then fail "the helper section says '$word'"; fi
done

# A section that shows an NvMap table is not on a machine that it calls not a Jetson.
for s in "$recorded" "$helper" "$live"; do
  if grep -Eq 'PID +SIZE +CLIENTS +PROCESS' <<<"$s" && grep -q 'not a Jetson' <<<"$s"; then
    fail "a section shows an NvMap table and says 'not a Jetson': $(head -1 <<<"$s")"
  fi
done

[ "$failed" -eq 0 ] || { printf '%s\n' "--- scripts/demo printed:" "$out"; exit 1; }
echo "ok: $lines lines"
