#!/bin/bash
# The sandbox's accounts and state directory go even when the sandbox is
# killed (meson's timeout ends with SIGKILL, which runs no trap): the
# sandbox is started in a session of its own, its whole group is killed once
# the accounts exist, and they must be gone within 15 s, with its
# /tmp/jmem-sandbox.* directory.
# Usage: test-sandbox-killed.sh SANDBOX BUILD_DIR
set -u
sandbox=$1
build=$2
accounts=(jmem-agent jmem-outsider)

[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root to create accounts"; exit 77; }
for a in "${accounts[@]}"; do
  if getent passwd "$a" >/dev/null; then
    echo "SKIP: $a exists already: the sandbox would not create it"
    exit 77
  fi
done
getent group jmem >/dev/null && { echo "SKIP: group jmem exists already"; exit 77; }

states_before=$(ls -d /tmp/jmem-sandbox.* 2>/dev/null | sort)
setsid "$sandbox" --build-dir "$build" -- sleep 120 </dev/null >/dev/null 2>&1 &
leader=$!
for _ in $(seq 100); do
  getent passwd jmem-outsider >/dev/null && break
  sleep 0.1
done
getent passwd jmem-outsider >/dev/null || { echo "FAIL: the sandbox made no account"; kill -KILL -- -"$leader"; exit 1; }
sleep 1
kill -KILL -- -"$leader"
echo "killed the sandbox's process group ($leader)"

left=""
for _ in $(seq 150); do
  left=""
  for a in "${accounts[@]}"; do getent passwd "$a" >/dev/null && left="$left $a"; done
  getent group jmem >/dev/null && left="$left group:jmem"
  states=$(comm -13 <(printf '%s\n' "$states_before") <(ls -d /tmp/jmem-sandbox.* 2>/dev/null | sort))
  [ -z "$states" ] || left="$left $states"
  [ -z "$left" ] && break
  sleep 0.1
done
if [ -n "$left" ]; then
  echo "FAIL: left behind after the kill:$left"
  exit 1
fi
echo "ok: accounts, group and state directory removed after SIGKILL"
