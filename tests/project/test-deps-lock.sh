#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# scripts/lib/deps.sh waits for another package manager: apt-get (a stand-in
# first in PATH, never the real one) answers apt's "Could not get lock"
# while a lock file it shares with this test is held with flock, as the real
# one does while unattended-upgrades runs. jmem_install_deps must wait with
# a message, then run update and install once the lock is free; give up with
# what to do when the lock stays held; and fail, with apt's error, when
# apt-get update fails for another reason.
# Usage: test-deps-lock.sh SOURCE_DIR
set -u
src=$1
for tool in flock setsid; do
  command -v "$tool" >/dev/null || { echo "SKIP: $tool is not installed"; exit 77; }
done

work=$(mktemp -d /tmp/jmem-deps-lock.XXXXXX)
holder=""
cleanup() {
  [ -z "$holder" ] || kill -KILL -- -"$holder" 2>/dev/null
  rm -rf -- "$work"
}
trap cleanup EXIT
trap 'exit 143' TERM HUP INT

mkdir "$work/bin"
# apt-get: fails as apt does while $work/lock is held, else logs its
# arguments; "update" fails for another reason when $work/update-fails exists.
cat >"$work/bin/apt-get" <<EOF
#!/bin/sh
if ! flock -n "$work/lock" true; then
  echo "E: Could not get lock /var/lib/apt/lists/lock. It is held by process 4242 (apt-get)" >&2
  echo "E: Unable to lock directory /var/lib/apt/lists/" >&2
  exit 100
fi
if [ "\$1" = update ] && [ -e "$work/update-fails" ]; then
  echo "E: The repository 'http://deb.example invalid Release' does not have a Release file." >&2
  exit 100
fi
echo "\$*" >>"$work/apt.log"
EOF
# Nothing is installed, and this test plays root.
printf '#!/bin/sh\nexit 1\n' >"$work/bin/dpkg-query"
printf '#!/bin/sh\necho 0\n' >"$work/bin/id"
chmod +x "$work/bin/"*
export PATH="$work/bin:$PATH" JMEM_APT_LOCK_POLL=0.2

# install_deps SECONDS: jmem_install_deps jmem-test-pkg, waiting at most
# SECONDS for the lock; its stderr in $work/err. The exit status.
install_deps() {
  rm -f "$work/apt.log"
  JMEM_APT_LOCK_WAIT=$1 bash -c 'source "$1/scripts/lib/deps.sh" && JMEM_BUILD_PACKAGES=() &&
    jmem_install_deps jmem-test-pkg' sh "$src" 2>"$work/err"
}

# hold SECONDS: the lock held for SECONDS, in a session of its own.
hold() {
  rm -f "$work/held"
  holder=$(setsid flock "$work/lock" sh -c 'touch "$1"; sleep "$2"' sh "$work/held" "$1" \
             </dev/null >/dev/null 2>&1 & echo $!)
  for _ in $(seq 300); do [ -e "$work/held" ] && return 0; sleep 0.1; done
  echo "FAIL: the lock holder did not start"; exit 1
}
fail() { echo "FAIL: $*"; sed 's/^/  stderr: /' "$work/err"; exit 1; }

echo "# 1. the lock is held for 3 s: jmem waits, then installs"
hold 3
install_deps 600 || fail "jmem_install_deps failed while waiting for the lock"
grep -q 'waiting for another package manager, [0-9]* s (held by process 4242 (apt-get))' "$work/err" ||
  fail "no 'waiting for another package manager' message"
printf 'update -q\ninstall -y -q --no-install-recommends jmem-test-pkg\n' | cmp -s - "$work/apt.log" ||
  fail "apt-get ran as: $(cat "$work/apt.log" 2>/dev/null)"
echo "ok: said it was waiting, then ran update and install"
wait "$holder" 2>/dev/null; holder=""

echo "# 2. the lock stays held: jmem gives up and says what to do"
hold 120
install_deps 2 && fail "jmem_install_deps succeeded while the lock was held"
grep -q 'still holds apt.s lock after [0-9]* s' "$work/err" || fail "no 'still holds apt's lock' message"
grep -q 'JMEM_APT_LOCK_WAIT' "$work/err" || fail "the message does not say how to wait longer"
grep -q 'Could not get lock' "$work/err" || fail "apt's own error is not shown"
[ ! -e "$work/apt.log" ] || fail "apt-get ran without the lock: $(cat "$work/apt.log")"
echo "ok: gave up after the wait, with apt's error and what to do"
kill -KILL -- -"$holder" 2>/dev/null; holder=""

echo "# 3. apt-get update fails for another reason: no install, apt's error shown"
touch "$work/update-fails"
install_deps 600 && fail "jmem_install_deps succeeded although apt-get update failed"
grep -q 'does not have a Release file' "$work/err" || fail "apt's error is not shown"
grep -q 'apt-get update failed' "$work/err" || fail "no 'apt-get update failed'"
[ ! -e "$work/apt.log" ] || fail "apt-get install ran after update failed: $(cat "$work/apt.log")"
echo "ok: update's failure stops the install and is shown"
