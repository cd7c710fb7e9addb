#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The platform floors stay enforced (docs/operator-guide.md, "Platforms"):
# every C file of this build is compiled against GLib 2.66 and json-glib 1.6
# at most, and a fresh configure of the tree uses no meson feature newer
# than the meson_version it declares (0.56).
# Usage: test-floors.sh SOURCE_DIR BUILD_DIR
set -eu
src=$1
build=$2

# 1. The version macros on every compile command.
python3 - "$build/compile_commands.json" <<'PY' || exit 1
import json, sys
want = ["-DGLIB_VERSION_MIN_REQUIRED=GLIB_VERSION_2_66",
        "-DGLIB_VERSION_MAX_ALLOWED=GLIB_VERSION_2_66",
        "-DJSON_VERSION_MIN_REQUIRED=JSON_VERSION_1_6",
        "-DJSON_VERSION_MAX_ALLOWED=JSON_VERSION_1_6"]
entries = json.load(open(sys.argv[1]))
if not entries:
    sys.exit("FAIL: compile_commands.json lists no C file")
bad = 0
for e in entries:
    cmd = e.get("command") or " ".join(e.get("arguments", []))
    missing = [w for w in want if w not in cmd]
    if missing:
        print("FAIL: %s is compiled without %s" % (e["file"], " ".join(missing)))
        bad += 1
print("%d C files, %d without the floors" % (len(entries), bad))
sys.exit(1 if bad else 0)
PY

# 2. meson_version, and what meson says about features newer than it.
grep -q "meson_version: '>= 0.56'" "$src/meson.build" ||
  { echo "FAIL: meson.build no longer declares meson_version '>= 0.56'"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# dash runs no EXIT trap when a signal ends it (meson's timeout: SIGTERM)
trap 'exit 143' TERM HUP INT
meson setup "$tmp/build" "$src" >"$tmp/setup.log" 2>&1 ||
  { cat "$tmp/setup.log"; echo "FAIL: meson setup of a fresh build failed"; exit 1; }
if grep -E "uses feature (introduced|deprecated)|features which were added" "$tmp/setup.log"; then
  echo "FAIL: the build uses meson features newer than 0.56 (guard them with meson.version().version_compare())"
  exit 1
fi
echo "no meson feature newer than 0.56"
