# Sourced by scripts/test: runs every libFuzzer target of a -Dfuzzing=true
# build for a bounded time, starting from its seed corpus.

# Executables defined in fuzz/meson.build, one "name<TAB>path" per line.
jmem_fuzz_targets () {
  meson introspect --targets "$1" | python3 -c '
import json, os, sys
for t in json.load(sys.stdin):
    where = os.path.normpath(t.get("defined_in", ""))
    if t.get("type") == "executable" and os.path.basename(os.path.dirname(where)) == "fuzz":
        print("%s\t%s" % (t["name"], t["filename"][0]))
'
}

# The seed corpus of a target: fuzz/corpus/NAME, with or without the
# "fuzz-"/"jmem-fuzz-" prefix the executable may carry.
jmem_fuzz_seed_dir () {
  local name="$1" short cand
  short="${name#jmem-}"
  short="${short#fuzz-}"
  for cand in "$name" "$short" "${short%-fuzzer}"; do
    for dir in "$JMEM_SRC/fuzz/corpus/$cand" "$JMEM_SRC/fuzz/$cand.corpus"; do
      [ -d "$dir" ] && { echo "$dir"; return 0; }
    done
  done
  return 1
}

# jmem_fuzz_run NAME EXE SECONDS WORKDIR: 0 when libFuzzer found nothing.
jmem_fuzz_run () {
  local name="$1" exe="$2" seconds="$3" work="$4" seed dict=() rc
  local corpus="$work/corpus/$name" log="$work/$name.log"
  mkdir -p "$corpus" "$work/artifacts"
  seed="$(jmem_fuzz_seed_dir "$name")" || seed=""
  [ -f "$JMEM_SRC/fuzz/$name.dict" ] && dict=("-dict=$JMEM_SRC/fuzz/$name.dict")
  # New inputs go to the scratch corpus; the seed corpus in the tree is
  # only read.  A crash leaves its input under artifacts/.
  "$exe" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$work/artifacts/$name-" \
    "${dict[@]}" "$corpus" ${seed:+"$seed"} >"$log" 2>&1
  rc=$?
  if [ "$rc" -eq 0 ]; then
    echo "fuzz $name: ok, $(grep -m1 -o 'stat::number_of_executed_units: *[0-9]*' "$log" \
      | grep -o '[0-9]*$') runs in ${seconds}s${seed:+, seeds from ${seed#"$JMEM_SRC"/}}"
  else
    echo "fuzz $name: FAILED (exit $rc); the end of its log:"
    tail -n 60 "$log"
  fi
  return "$rc"
}
