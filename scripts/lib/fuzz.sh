# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced by scripts/test: runs every libFuzzer target of a -Dfuzzing=true
# build for a bounded time, starting from its seed corpus.

# Executables defined in fuzz/meson.build, one "name<TAB>path<TAB>seed dirs"
# per line; the seed folders are the directory arguments of the meson test
# of the same name (fuzz/meson.build registers a short corpus run per target).
jmem_fuzz_targets () {
  python3 - "$1" <<'PY'
import json, os, subprocess, sys
intro = lambda what: json.loads(subprocess.run(
    ["meson", "introspect", what, sys.argv[1]], check=True,
    stdout=subprocess.PIPE).stdout)
seeds = {}
for t in intro("--tests"):
    seeds[t["name"]] = [a for a in t.get("cmd", [])[1:] if os.path.isdir(a)]
for t in intro("--targets"):
    where = os.path.normpath(t.get("defined_in", ""))
    if t.get("type") == "executable" and os.path.basename(os.path.dirname(where)) == "fuzz":
        print("\t".join([t["name"], t["filename"][0]] + seeds.get(t["name"], [])))
PY
}

# jmem_fuzz_run SECONDS WORKDIR NAME EXE [SEED_DIR...]: 0 when libFuzzer
# found nothing.
jmem_fuzz_run () {
  local seconds="$1" work="$2" name="$3" exe="$4" rc
  shift 4
  local corpus="$work/corpus/$name" log="$work/$name.log" seeds=("$@") dict=()
  mkdir -p "$corpus" "$work/artifacts"
  [ -f "$JMEM_SRC/fuzz/$name.dict" ] && dict=("-dict=$JMEM_SRC/fuzz/$name.dict")
  # New inputs go to the scratch corpus; the seed folders in the tree are
  # only read.  A crash leaves its input under artifacts/.
  # GSlice keeps freed blocks: every run of a target that uses json-glib
  # would look like a leak and cost a scan of the heap
  G_SLICE=always-malloc "$exe" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$work/artifacts/$name-" \
    "${dict[@]}" "$corpus" "${seeds[@]}" >"$log" 2>&1
  rc=$?
  if [ "$rc" -eq 0 ]; then
    echo "fuzz $name: ok, $(grep -m1 -o 'stat::number_of_executed_units: *[0-9]*' "$log" \
      | grep -o '[0-9]*$') runs in ${seconds}s, seeds: ${seeds[*]#"$JMEM_SRC"/}"
  else
    echo "fuzz $name: FAILED (exit $rc); the end of its log ($log):"
    tail -n 60 "$log"
  fi
  return "$rc"
}
