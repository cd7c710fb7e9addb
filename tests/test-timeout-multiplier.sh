#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# scripts/timeout-multiplier: JMEM_TEST_TIMEOUT_MULTIPLIER when set (a whole
# number from 1 up, else an error), otherwise 1 plus the load per core
# rounded up, which on this machine now is at least 1 and at most that.
# Usage: test-timeout-multiplier.sh SCRIPT
set -u
script=$1
fail() { echo "FAIL: $*"; exit 1; }

got=$(JMEM_TEST_TIMEOUT_MULTIPLIER=5 sh "$script") || fail "exit $? with JMEM_TEST_TIMEOUT_MULTIPLIER=5"
[ "$got" = 5 ] || fail "JMEM_TEST_TIMEOUT_MULTIPLIER=5 gives $got"
for bad in 0 x 1.5 -2; do
  JMEM_TEST_TIMEOUT_MULTIPLIER=$bad sh "$script" >/dev/null 2>&1 &&
    fail "JMEM_TEST_TIMEOUT_MULTIPLIER=$bad is accepted"
done
echo "ok: the environment's factor, and only a whole number from 1 up"

got=$(env -u JMEM_TEST_TIMEOUT_MULTIPLIER sh "$script") || fail "exit $? from the load"
load=$(cut -d' ' -f1,2 /proc/loadavg)
most=$(echo "$load" | awk -v c="$(nproc)" '{ l = $1 > $2 ? $1 : $2; print 2 + int(l / c) }')
case "$got" in ''|*[!0-9]*) fail "from the load: '$got' is not a number" ;; esac
[ "$got" -ge 1 ] && [ "$got" -le "$most" ] ||
  fail "from a load of $load on $(nproc) cores: $got, not within 1..$most"
echo "ok: from a load of $load on $(nproc) cores: $got"
