# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced by scripts/test: was the host left as the tests found it? What
# the tests may leave is judged by name: the accounts and groups they make
# (each is named per run and written to JMEM_TEST_NAMES before it is made:
# tests/test-account.c, tests/e2e/jmem-sandbox), and D-Bus sockets in /tmp
# that no daemon listens on any more (a bus killed with SIGKILL leaves its
# /tmp/dbus-* behind). Anything else that changed meanwhile (a package's
# new account, such as uuidd's; another run's sandboxes; a session's live
# bus) is the host's own doing, reported as a note.

JMEM_HOST_TMP="${JMEM_HOST_TMP:-/tmp}"

# host_state: the accounts, groups and /tmp/dbus-* sockets, one a line.
host_state () {
  getent passwd | awk -F: '{ printf "account %s (uid %s, home %s)\n", $1, $3, $6 }'
  getent group | awk -F: '{ printf "group %s (gid %s%s)\n", $1, $3, $4 == "" ? "" : ", members " $4 }'
  find "$JMEM_HOST_TMP" -maxdepth 1 -name 'dbus-*' -type s -printf 'socket %p\n' 2>/dev/null
}

# host_names_left: the accounts and groups of JMEM_TEST_NAMES that exist.
host_names_left () {
  local name
  [ -s "${JMEM_TEST_NAMES:-}" ] || return 0
  sort -u "$JMEM_TEST_NAMES" | while IFS= read -r name; do
    [ -n "$name" ] || continue
    getent passwd "$name" >/dev/null && echo "account $name"
    getent group "$name" >/dev/null && echo "group $name"
  done
}

# host_sockets_dead STATE_LINES: of the "socket PATH" lines, those that no
# process listens on (not in /proc/net/unix as listening).
host_sockets_dead () {
  local listening
  listening="$(awk '$4 == "00010000" && NF >= 8 { print "socket " $8 }' /proc/net/unix 2>/dev/null)"
  grep '^socket ' <<<"$1" | grep -vxF -f <(printf '%s\n' "$listening") || true
}

# host_compare BEFORE WAIT_S: 0 when the tests left nothing behind, saying
# what they left otherwise; other changes since BEFORE (host_state's lines,
# sorted) are printed as a note. Waits up to WAIT_S seconds for what the
# tests' watchers are still removing.
host_compare () {
  local before="$1" wait_s="$2" after added removed left dead others line i
  for ((i = 0; ; i++)); do
    left="$(host_names_left)"
    [ -z "$left" ] || [ "$i" -ge "$wait_s" ] && break
    sleep 1
  done
  after="$(host_state | sort)"
  added="$(comm -13 <(printf '%s\n' "$before") <(printf '%s\n' "$after"))"
  removed="$(comm -23 <(printf '%s\n' "$before") <(printf '%s\n' "$after"))"
  dead="$(host_sockets_dead "$added")"
  # what the tests may have made is judged above; the rest is a note
  others="$(
    while IFS= read -r line; do
      case "$line" in
        '') continue ;;
        socket\ *) grep -qxF -- "$line" <<<"$dead" && continue ;;
        *) grep -qxF -- "$(cut -d' ' -f1,2 <<<"$line")" <<<"$left" && continue ;;
      esac
      echo "$line"
    done <<<"$added"
    grep -v '^$' <<<"$removed" | sed 's/^/gone: /'
  )"
  if [ -n "$others" ]; then
    echo "  note: changed on this host during the tests, by none of them (a package, another run, a live bus):"
    sed 's/^/    /' <<<"$others"
  fi
  if [ -n "$left$dead" ]; then
    echo "  left behind by the tests:"
    printf '%s\n' "$left" "$dead" | grep -v '^$' | sed 's/^/    /'
    return 1
  fi
  return 0
}
