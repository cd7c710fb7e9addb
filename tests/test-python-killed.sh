#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A Python test killed mid-run leaves nothing in /tmp, and its log says
# what it was doing: human-width.py (tests/scratch.py's folders) is started
# in a session of its own with TMPDIR pointing at a folder of this test,
# then, once it has said it is at its terminal cases (its scratch folder
# holds files by then), its whole group is killed as meson's timeout does
# (SIGTERM, then SIGKILL half a second later), and once more with SIGKILL
# alone. Its folder must be empty within 30 s (times the load factor).
# Usage: test-python-killed.sh HUMAN_WIDTH_PY JMEM FIXTURES GOLDEN
set -u
script=$1 jmem=$2 fixtures=$3 golden=$4
command -v setsid >/dev/null || { echo "SKIP: setsid is not installed"; exit 77; }
factor=${JMEM_TEST_TIMEOUT_MULTIPLIER:-1}

work=$(mktemp -d /tmp/jmem-python-killed.XXXXXX)
leader=""
cleanup() {
  [ -z "$leader" ] || kill -KILL -- -"$leader" 2>/dev/null
  rm -rf -- "$work"
}
trap cleanup EXIT
trap 'exit 143' TERM HUP INT
fail() { echo "FAIL: $*"; sed 's/^/  its output: /' "$work/out" | tail -n 20; exit 1; }

# run SIGNAL...: starts the test, waits for its terminal cases, sends each
# signal to its group, half a second apart.
run() {
  rm -rf "$work/tmp" && mkdir "$work/tmp"
  leader=$(TMPDIR=$work/tmp setsid python3 "$script" "$jmem" "$fixtures" "$golden" \
             </dev/null >"$work/out" 2>&1 & echo $!)
  for _ in $(seq $((1200 * ${factor%.*}))); do
    grep -q '^# in a terminal of' "$work/out" && break
    kill -0 "$leader" 2>/dev/null || fail "it ended before its terminal cases"
    sleep 0.1
  done
  grep -q '^# in a terminal of' "$work/out" || fail "it never reached its terminal cases"
  [ -n "$(ls -A "$work/tmp")" ] || fail "its scratch folder is not in TMPDIR"
  for sig in "$@"; do
    kill -"$sig" -- -"$leader" 2>/dev/null
    sleep 0.5
  done
  kill -KILL -- -"$leader" 2>/dev/null
  leader=""
  for _ in $(seq $((300 * ${factor%.*}))); do
    [ -z "$(ls -A "$work/tmp")" ] && break
    sleep 0.1
  done
  [ -z "$(ls -A "$work/tmp")" ] || fail "left behind after $*: $(find "$work/tmp" | head -n 5)"
  echo "ok: nothing left after $*; its last line: $(tail -n 1 "$work/out")"
}

run TERM KILL
run KILL
