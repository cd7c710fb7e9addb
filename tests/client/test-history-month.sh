#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A month of history in the default cap: 30 days of thin samples of a
# fixture tree, written through the writer of `jmem watch --thin --tiers`
# (history-fill: the first NvMap row leaking 10 MiB an hour), stay within
# 64 MiB, still begin with the first quarter hour (thinned), keep every
# sample of the last hour, and `jmem triage --history` finds the leak over
# the whole month. The interval is a minute here (the writer's work grows
# with the samples; the bench writes 5 s ones, bench-history-month): past
# the last hour the tiers hold the same lines whatever the interval.
# Usage: test-history-month.sh JMEM HISTORY_FILL TREE [INTERVAL]
set -eu
jmem=$1
fill=$2
tree=$3
interval=${4:-60}
cap=67108864

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$jmem" watch --thin --count 1 --sysroot "$tree" >"$work/template.json"
"$fill" "$work/template.json" "$work/history.jsonl" --days 30 --interval "$interval"
size=$(wc -c <"$work/history.jsonl")
echo "history: $(wc -l <"$work/history.jsonl") lines, $size bytes"
fail=0
if [ "$size" -gt "$cap" ]; then
  echo "FAIL: $size bytes is over the $cap-byte cap"
  fail=1
fi
python3 - "$work/template.json" "$work/history.jsonl" "$interval" <<'PY' || fail=1
import json, sys
t0 = json.load(open(sys.argv[1]))["collected"]["timestamp_unix"]
interval = int(sys.argv[3])
lines = [json.loads(l) for l in open(sys.argv[2])]
end = lines[-1]["collected"]["timestamp_unix"]
ok = True
def check(cond, what):
    global ok
    print(("ok: " if cond else "FAIL: ") + what)
    ok = ok and cond
first = lines[0].get("history", {})
check(first.get("from_unix") == t0, f"the first line begins at the first sample ({first})")
tiers = {"raw": 0, "minute": 0, "old": 0}
widest = 0
for d in lines:
    age = end - d["collected"]["timestamp_unix"]
    tiers["raw" if age < 3600 else "minute" if age < 86400 else "old"] += 1
    h = d.get("history", {})
    if age >= 86400 + 900 and "from_unix" in h:
        widest = max(widest, h["to_unix"] - h["from_unix"])
print("lines by tier:", tiers)
check(tiers["raw"] >= 3600 // interval - 1, "every sample of the last hour is kept")
check(tiers["old"] >= 29 * 96 - 2, "a line per quarter of an hour before the last day")
check(widest < 900, f"an old line stands for a quarter of an hour at most ({widest} s)")
sys.exit(0 if ok else 1)
PY
start=$(date +%s%N)
"$jmem" triage --history "$work/history.jsonl" --json >"$work/triage.json"
echo "jmem triage --history: $(( ($(date +%s%N) - start) / 1000000 )) ms"
grep -q '"nvmap-growing"' "$work/triage.json" ||
  { echo "FAIL: triage --history found no nvmap-growing over the month"; fail=1; }
exit $fail
