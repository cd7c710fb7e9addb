#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The sandbox's accounts and state directory go even when the sandbox is
# killed (meson's timeout ends with SIGKILL, which runs no trap): the
# sandbox is started in a session of its own, its whole group is killed once
# the command inside has said which accounts, group and state directory
# are the run's, and they must be gone within 15 s. Two sandboxes run at
# once: the one left running keeps its own, and they share no name.
# Usage: test-sandbox-killed.sh SANDBOX BUILD_DIR
set -u
sandbox=$1
build=$2

[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root to create accounts"; exit 77; }

work=$(mktemp -d /tmp/jmem-sandbox-killed.XXXXXX)
leaders=()
cleanup() {
  local leader
  for leader in "${leaders[@]}"; do kill -KILL -- -"$leader" 2>/dev/null; done
  rm -rf -- "$work"
}
trap cleanup EXIT

# Starts a sandbox whose command writes its names to $work/$1, then sleeps;
# in a subshell, so that this shell does not report its end.
start() {
  leaders+=("$(setsid "$sandbox" --build-dir "$build" -- sh -c \
    'echo "$JMEM_SANDBOX_AGENT $JMEM_SANDBOX_OUTSIDER $JMEM_SANDBOX_GROUP $JMEM_SANDBOX_STATE" >"$1.tmp" &&
     mv "$1.tmp" "$1" && exec sleep 120' sh "$work/$1" </dev/null >"$work/$1.log" 2>&1 & echo $!)")
}

# "AGENT OUTSIDER GROUP STATE" of a started sandbox, once it has them.
names_of() {
  local i
  for i in $(seq 300); do
    [ -s "$work/$1" ] && { cat "$work/$1"; return 0; }
    sleep 0.1
  done
  echo "FAIL: sandbox $1 did not start its command:" >&2
  cat "$work/$1.log" >&2
  return 1
}

# What of the run's accounts, group and state directory is still there.
left_of() {
  local agent=$1 outsider=$2 group=$3 state=$4 left="" name
  for name in "$agent" "$outsider"; do
    getent passwd "$name" >/dev/null && left="$left $name"
    getent group "$name" >/dev/null && left="$left group:$name"
  done
  getent group "$group" >/dev/null && left="$left group:$group"
  [ -e "$state" ] && left="$left $state"
  echo "$left"
}

start first
start second
read -r -a first < <(names_of first) || exit 1
read -r -a second < <(names_of second) || exit 1
echo "first: ${first[*]}"
echo "second: ${second[*]}"
for i in 0 1 2 3; do
  [ "${first[$i]}" != "${second[$i]}" ] || { echo "FAIL: both runs use ${first[$i]}"; exit 1; }
done

kill -KILL -- -"${leaders[0]}"
echo "killed the first sandbox's process group (${leaders[0]})"
left=""
for _ in $(seq 150); do
  left=$(left_of "${first[@]}")
  [ -z "$left" ] && break
  sleep 0.1
done
if [ -n "$left" ]; then
  echo "FAIL: left behind after the kill:$left"
  exit 1
fi
echo "ok: the first run's accounts, group and state directory removed after SIGKILL"

# The second run still has all of its own, and its command still runs.
still=$(left_of "${second[@]}")
expected=" ${second[0]} group:${second[0]} ${second[1]} group:${second[1]} group:${second[2]} ${second[3]}"
if [ "$still" != "$expected" ]; then
  echo "FAIL: the second run lost some of its own: has$still, expected$expected"
  exit 1
fi
pgrep -s "${leaders[1]}" -x sleep >/dev/null || { echo "FAIL: the second run's command was killed"; exit 1; }
echo "ok: the second run kept its accounts, group, state directory and command"

kill -KILL -- -"${leaders[1]}"
for _ in $(seq 150); do
  left=$(left_of "${second[@]}")
  [ -z "$left" ] && break
  sleep 0.1
done
[ -z "$left" ] || { echo "FAIL: left behind after the second kill:$left"; exit 1; }
echo "ok: the second run's removed after SIGKILL too"
