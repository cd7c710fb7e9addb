# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced by scripts/test: keeps the pass/fail/skip tally across the runs.

JMEM_PASSED=0
JMEM_FAILED=0
JMEM_SKIPPED=0
JMEM_FAILURES=()
# The end of each failed test's output, printed again beside the summary so
# that a log cut to its last lines still says why.
JMEM_FAILURE_TAILS="$(mktemp -t jmem-test-failures-XXXXXX)"
trap 'rm -f "$JMEM_FAILURE_TAILS"' EXIT

# jmem_tally_testlog LOG RC LABEL: adds the results of one `meson test` run,
# read from the JSON-lines log it wrote.  A run that failed without leaving
# a failing result (meson itself stopped) counts as one failure.
jmem_tally_testlog () {
  local log="$1" rc="$2" label="$3" counts p f s
  if [ -s "$log" ]; then
    counts="$(python3 - "$log" "$label" "$JMEM_FAILURE_TAILS" <<'PY'
import json, sys
TAIL_LINES = 40
passed = failed = skipped = 0
failures = []
tails = open(sys.argv[3], "a", encoding="utf-8")
with open(sys.argv[1], encoding="utf-8", errors="replace") as f:
    for line in f:
        line = line.strip()
        if not line:
            continue
        try:
            entry = json.loads(line)
        except ValueError:
            failed += 1
            failures.append("(unreadable log line)")
            continue
        result = entry.get("result")
        if result in ("OK", "EXPECTEDFAIL"):
            passed += 1
        elif result == "SKIP":
            skipped += 1
        else:
            failed += 1
            name = "%s (%s)" % (entry.get("name", "?"), result)
            failures.append(name)
            for stream in ("stdout", "stderr"):
                lines = (entry.get(stream) or "").splitlines()[-TAIL_LINES:]
                if lines:
                    tails.write("--- %s: %s, the last %d lines of its %s\n"
                                % (sys.argv[2], name, len(lines), stream))
                    tails.write("".join("  %s\n" % line for line in lines))
print(passed, failed, skipped)
for name in failures:
    print(name)
PY
)" || counts="0 1 0"
  else
    counts="0 0 0"
  fi
  read -r p f s <<<"$(head -n1 <<<"$counts")"
  while IFS= read -r name; do
    [ -n "$name" ] && JMEM_FAILURES+=("$label: $name")
  done < <(tail -n +2 <<<"$counts")
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
    f=1
    JMEM_FAILURES+=("$label: meson test exited $rc")
  fi
  JMEM_PASSED=$((JMEM_PASSED + p))
  JMEM_FAILED=$((JMEM_FAILED + f))
  JMEM_SKIPPED=$((JMEM_SKIPPED + s))
  echo "$label: $p passed, $f failed, $s skipped"
}

jmem_tally_one () {
  local ok="$1" label="$2"
  if [ "$ok" -eq 0 ]; then
    JMEM_PASSED=$((JMEM_PASSED + 1))
  else
    JMEM_FAILED=$((JMEM_FAILED + 1))
    JMEM_FAILURES+=("$label")
  fi
}

jmem_summary_line () {
  local line="$JMEM_PASSED passed, $JMEM_FAILED failed"
  [ "$JMEM_SKIPPED" -gt 0 ] && line+=", $JMEM_SKIPPED skipped"
  echo "$line"
}
