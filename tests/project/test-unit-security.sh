#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The helper's unit must keep its systemd-analyze exposure at or below the
# limit the design sets (0.6: an empty capability bounding set and the rest
# of the hardening). Each KEY=VALUE after the limit must be the unit's last
# setting of KEY, each !KEY must be absent.
# Usage: test-unit-security.sh UNIT [LIMIT [KEY=VALUE|!KEY...]]
set -eu
unit=$1
limit=${2:-0.6}
shift $(($# < 2 ? $# : 2))

# the settings, as systemd reads them: the last assignment of a key wins
setting() {
  sed -n "s/^$1=//p" "$unit" | tail -n 1
}
for want in "$@"; do
  case $want in
    !*)
      key=${want#!}
      if grep -q "^$key=" "$unit"; then
        echo "FAIL: $unit sets $key (must not): $(setting "$key")"
        exit 1
      fi ;;
    *=*)
      key=${want%%=*}
      if [ "$(setting "$key")" != "${want#*=}" ]; then
        echo "FAIL: $unit has $key=$(setting "$key"), not ${want#*=}"
        exit 1
      fi ;;
    *) echo "usage: test-unit-security.sh UNIT [LIMIT [KEY=VALUE|!KEY...]]"; exit 2 ;;
  esac
  echo "ok: $want"
done

if ! command -v systemd-analyze >/dev/null 2>&1; then
  echo "SKIP: systemd-analyze is not installed"
  exit 77
fi

out=$(systemd-analyze security --offline=true --no-pager "$unit" 2>&1) || {
  # Exit status is non-zero when the unit exceeds systemd's own threshold
  # (--threshold, default 100); an error shows as no "Overall" line below.
  :
}
score=$(printf '%s\n' "$out" | sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p')
if [ -z "$score" ]; then
  printf '%s\n' "$out"
  echo "FAIL: systemd-analyze gave no exposure level for $unit"
  exit 1
fi
echo "exposure $score (limit $limit)"
if awk -v s="$score" -v l="$limit" 'BEGIN { exit !(s <= l) }'; then
  exit 0
fi
printf '%s\n' "$out" | grep -v '^✓' || true
echo "FAIL: exposure $score is above $limit"
exit 1
