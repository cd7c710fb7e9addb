#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A test killed mid-run leaves nothing in /tmp: COMMAND (a test) is started
# in a session of its own with TMPDIR pointing at a folder of this test;
# once it has printed a line matching MARKER (or, MARKER empty, once it
# has made something in TMPDIR), its whole group gets each SIGNALS list in
# turn, a run for each: "TERM KILL" as meson's timeout does (SIGTERM, then
# SIGKILL half a second later), "KILL" alone. TMPDIR must be empty within
# 30 s (times JMEM_TEST_TIMEOUT_MULTIPLIER), and the output's last line is
# shown: a killed test's log says what it was doing.
# Usage: test-killed.sh MARKER SIGNALS... -- COMMAND [ARG...]
set -u
marker=$1
shift
runs=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do runs+=("$1"); shift; done
shift
command -v setsid >/dev/null || { echo "SKIP: setsid is not installed"; exit 77; }
factor=${JMEM_TEST_TIMEOUT_MULTIPLIER:-1}

work=$(mktemp -d /tmp/jmem-killed.XXXXXX)
leader=""
cleanup() {
  [ -z "$leader" ] || kill -KILL -- -"$leader" 2>/dev/null
  rm -rf -- "$work"
}
trap cleanup EXIT
trap 'exit 143' TERM HUP INT
fail() { echo "FAIL: $*"; sed 's/^/  its output: /' "$work/out" | tail -n 20; exit 1; }

# Remembers in $made that TMPDIR held something once: a test that removes
# its folder after each case may have emptied it by the next look.
started() {
  [ -z "$(ls -A "$work/tmp")" ] || made=1
  if [ -n "$marker" ]; then grep -qE "$marker" "$work/out"; else [ -n "$made" ]; fi
}

# run SIGNAL...: starts the test, waits for MARKER, sends each signal to
# its group, half a second apart.
run() {
  rm -rf "$work/tmp" && mkdir "$work/tmp"
  made=""
  leader=$(TMPDIR=$work/tmp setsid "$@" </dev/null >"$work/out" 2>&1 & echo $!)
  for _ in $(seq $((1200 * factor))); do
    started && break
    kill -0 "$leader" 2>/dev/null || fail "it ended before it was killed"
    sleep 0.1
  done
  started || fail "it never reached '${marker:-its first file}'"
  [ -n "$made" ] || fail "it made nothing in TMPDIR"
  for sig in $signals; do
    kill -"$sig" -- -"$leader" 2>/dev/null
    sleep 0.5
  done
  kill -KILL -- -"$leader" 2>/dev/null
  leader=""
  for _ in $(seq $((300 * factor))); do
    [ -z "$(ls -A "$work/tmp")" ] && break
    sleep 0.1
  done
  [ -z "$(ls -A "$work/tmp")" ] || fail "left behind after $signals: $(find "$work/tmp" | head -n 5)"
  echo "ok: nothing left after $signals; its last line: $(tail -n 1 "$work/out")"
}

for signals in "${runs[@]}"; do
  run "$@"
done
