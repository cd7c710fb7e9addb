#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# scripts/test's "host left as found" (scripts/lib/host.sh) fails on what
# the tests left (an account or group whose name a test recorded in
# JMEM_TEST_NAMES, a /tmp/dbus-* socket no daemon listens on) and only
# notes the rest: a package's new account (uuidd), another run's sandbox
# accounts, an account gone, a live bus's socket. getent reads files of
# this test and the sockets are in a folder of its own: the host's own
# accounts are never read or changed.
# Usage: test-host-check.sh SOURCE_DIR
set -u
src=$1
work=$(mktemp -d /tmp/jmem-host-check.XXXXXX)
listener=""
cleanup() {
  [ -z "$listener" ] || kill "$listener" 2>/dev/null
  rm -rf -- "$work"
}
trap cleanup EXIT
trap 'exit 143' TERM HUP INT
fail() { echo "FAIL: $*"; sed 's/^/  said: /' "$work/out"; exit 1; }

mkdir "$work/bin" "$work/tmp"
cat >"$work/bin/getent" <<EOF2
#!/bin/sh
db=$work/\$1
[ \$# -eq 1 ] && exec cat "\$db"
grep "^\$2:" "\$db"
EOF2
chmod +x "$work/bin/getent"
export PATH="$work/bin:$PATH" JMEM_HOST_TMP="$work/tmp" JMEM_TEST_NAMES="$work/names"
source "$src/scripts/lib/host.sh" || fail "cannot read scripts/lib/host.sh"

account() { echo "$1:x:$2:$2::/nonexistent:/usr/sbin/nologin" >>"$work/passwd"; echo "$1:x:$2:" >>"$work/group"; }
drop() { sed -i "/^$1:/d" "$work/passwd" "$work/group"; }
: >"$work/passwd"; : >"$work/group"; : >"$work/names"
account root 0
account lp 7
before="$(host_state | sort)"

# compare: host_compare's exit status, what it said in $work/out
compare() { host_compare "$before" 0 >"$work/out" 2>&1; }

echo "# 1. others' changes are notes: a package's account, another run's, one gone"
account uuidd 101
account jmem-agent-0c0c0c 990  # another run's sandbox, not in our names
echo jmem-agent-0a0a0a >>"$work/names"  # ours, made and removed
drop lp
compare || fail "the host's own changes failed the check"
grep -q 'note: changed on this host' "$work/out" || fail "no note"
for what in 'account uuidd' 'account jmem-agent-0c0c0c' 'gone: account lp'; do
  grep -q "^    $what" "$work/out" || fail "the note lacks '$what'"
done
grep -q 'left behind' "$work/out" && fail "something is said to be left behind"
echo "ok: noted, not failed"

echo "# 2. an account the tests recorded and left fails it"
account jmem-agent-0b0b0b 991
echo jmem-agent-0b0b0b >>"$work/names"
compare && fail "an account the tests left passed the check"
grep -A3 'left behind by the tests' "$work/out" | grep -q 'account jmem-agent-0b0b0b' ||
  fail "the account left is not named"
grep -A3 'left behind by the tests' "$work/out" | grep -q 'group jmem-agent-0b0b0b' ||
  fail "the group left is not named"
grep -q '^    account jmem-agent-0b0b0b' <(sed -n '/note:/,/left behind/p' "$work/out" | grep -v 'left behind') &&
  fail "the account left is in the note as well"
drop jmem-agent-0b0b0b
echo "ok: failed, naming it"

echo "# 3. a dead /tmp/dbus-* socket fails it; a live bus's is a note"
python3 - "$work/tmp/dbus-dead" <<'PY' || fail "cannot make a socket"
import socket, sys
s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.close()
PY
python3 -c 'import socket, sys, time
s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(1); open(sys.argv[1] + ".up", "w").close()
time.sleep(600)' "$work/tmp/dbus-live" &
listener=$!
for _ in $(seq 100); do [ -e "$work/tmp/dbus-live.up" ] && break; sleep 0.1; done
compare && fail "a dead socket passed the check"
grep -A3 'left behind by the tests' "$work/out" | grep -q "socket $work/tmp/dbus-dead" ||
  fail "the dead socket is not named"
grep -q "^    socket $work/tmp/dbus-live" "$work/out" || fail "the live socket is not in the note"
grep -A3 'left behind by the tests' "$work/out" | grep -q 'dbus-live' && fail "the live socket is said to be left"
rm "$work/tmp/dbus-dead"
compare || fail "the live socket alone failed the check"
echo "ok: the dead socket failed it, the live one is a note"
