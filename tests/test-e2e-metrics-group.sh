#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# What the jmem-metrics account's own group may do, asked of the real polkitd
# with the project's rules file: run in tests/e2e/jmem-sandbox started with
# --agent-metrics, so that the sandbox's agent is in the run's metrics group
# (and not in its privileged group), and the outsider in neither. The agent
# reads NvMap (the clients, the total, jmem metrics' series), and is refused
# the allocations and a cache drop, which nothing records; the outsider
# reads no NvMap.
# Usage (inside the sandbox): test-e2e-metrics-group.sh
set -u
privileged=$JMEM_SANDBOX_GROUP
metrics_group=$JMEM_SANDBOX_METRICS_GROUP
jmem=$JMEM_SANDBOX_BUILD_DIR/client/jmem
agent=$JMEM_SANDBOX_AGENT
outsider=$JMEM_SANDBOX_OUTSIDER
failed=0

[ "$JMEM_SANDBOX_POLKIT" = real ] || { echo "FAIL: needs the real polkitd, not $JMEM_SANDBOX_POLKIT"; exit 1; }
if id -nG "$agent" | tr ' ' '\n' | grep -qx "$privileged"; then
  echo "FAIL: $agent is in $privileged as well: the grants of $metrics_group cannot be told apart"
  exit 1
fi
id -nG "$agent" | tr ' ' '\n' | grep -qx "$metrics_group" ||
  { echo "FAIL: $agent is not in $metrics_group"; exit 1; }

# as USER ARGS...: jmem as USER with its groups, output in $out, $err, $rc
as() {
  local user=$1
  shift
  out=$(cd / && HOME=/nonexistent LC_ALL=C.UTF-8 \
          setpriv --reuid="$user" --regid="$(id -g "$user")" --init-groups -- \
          "$jmem" "$@" 2>"$JMEM_SANDBOX_STATE/err")
  rc=$?
  err=$(cat "$JMEM_SANDBOX_STATE/err")
}

check() {  # WHAT CONDITION...
  local what=$1
  shift
  if "$@"; then
    echo "ok - $what"
  else
    echo "not ok - $what"
    echo "# exit $rc; stderr: $err" | head -c 2000
    echo
    grep '^jmem_source_up' <<<"$out" | sed 's/^/# /' || true
    failed=1
  fi
}

has() { grep -qF -- "$1" <<<"$out"; }
says() { grep -qF -- "$1" <<<"$err"; }

as "$agent" metrics --no-ask-password --series=board
check "the metrics group reads the NvMap total through the helper" \
  eval '[ $rc -eq 0 ] && has "jmem_source_up{source=\"helper\",reason=\"ok\"} 1" && has "jmem_nvmap_total_bytes "'

as "$agent" metrics --no-ask-password --series=processes
check "and the per-process rows, when asked for them" \
  eval '[ $rc -eq 0 ] && has "jmem_process_nvmap_bytes{pid=\"1792595\",comm=\"VLLM::EngineCor\","'

as "$agent" allocations --no-ask-password
check "the metrics group is refused the allocations (exit 77)" \
  eval '[ $rc -eq 77 ] && says "dev.jmem.read-allocations needs authentication"'

as "$agent" drop-caches --no-ask-password
check "the metrics group is refused a cache drop (exit 77)" \
  eval '[ $rc -eq 77 ] && says "caches were not dropped: dev.jmem.drop-caches needs authentication"'
if [ "$JMEM_SANDBOX_DROP_CACHES" = file ]; then
  check "and nothing reached drop_caches" test ! -s "$JMEM_SANDBOX_STATE/drop_caches"
fi

as "$outsider" metrics --no-ask-password --series=board
check "an account in neither group reads no NvMap" \
  eval '[ $rc -eq 0 ] && has "jmem_source_up{source=\"helper\",reason=\"dev.jmem.read-nvmap needs authentication" &&
        ! has "jmem_nvmap_total_bytes "'

exit $failed
