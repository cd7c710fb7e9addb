#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A package build in the clone where scripts/test ran (the README's order:
# demo, test, package) sees none of scripts/test's caches, and they see
# none of it:
# 1. the licence test reads the project's files only, not what a package
#    build keeps in debian/.debhelper/ (the config.guess debhelper replaced)
#    nor the Debian trees and builds in build*/ and obj-*/, in a git
#    checkout and in an unpacked source package; a source file without
#    the licence line still fails it;
# 2. outside a checkout it reads the same files as git lists here;
# 3. scripts/test keeps its caches outside the source tree, where
#    debhelper walks (it refuses a JMEM_CACHE_DIR inside it).
# Usage: test-package-caches.sh SOURCE_DIR
set -u
src=$(realpath "$1")
work=$(mktemp -d /tmp/jmem-package-caches.XXXXXX)
trap 'rm -rf -- "$work"' EXIT
trap 'exit 143' TERM HUP INT
fail() { echo "FAIL: $*"; exit 1; }

# A project of two source files, and what scripts/test and a package build
# leave beside them: files with no licence line.
tree=$work/tree
mkdir -p "$tree/client" "$tree/debian/.debhelper/bucket/files" "$tree/debian/jmem/usr/bin" \
  "$tree/build-test/tests/systemd-cache/rootfs-bookworm/usr/share/misc" "$tree/obj-x86_64-linux-gnu"
cp "$src/meson.build" "$src/.gitignore" "$tree/"
printf '// SPDX-License-Identifier: GPL-2.0-or-later\nint a;\n' >"$tree/client/a.c"
printf '#!/bin/sh\n# SPDX-License-Identifier: GPL-2.0-or-later\n' >"$tree/debian/rules"
# debhelper keeps a replaced file under the hash of its path, with its mode.
for f in debian/.debhelper/bucket/files/$(echo config.guess | sha256sum | cut -c1-64) \
         debian/jmem/usr/bin/tool \
         build-test/tests/systemd-cache/rootfs-bookworm/usr/share/misc/config.sub \
         obj-x86_64-linux-gnu/gen.sh debian/jmem.postinst.debhelper debian/debhelper-build-stamp \
         debian/files debian/jmem.substvars debian/jmem.debhelper.log; do
  printf '#!/bin/sh\n# Attempt to guess a canonical system name.\n' >"$tree/$f"
  chmod +x "$tree/$f"
done

licence() {  # the licence test on $tree: its exit status, its output in $work/out
  python3 "$src/tests/project/test-licence.py" "$tree" >"$work/out" 2>&1
}
expect_pass() {
  licence || { cat "$work/out"; fail "$1: the licence test fails"; }
  grep -q "source files found under $tree: 2$" "$work/out" ||
    { cat "$work/out"; fail "$1: the licence test read other files than the project's two"; }
  echo "ok: $1: the two project files, none of debian/.debhelper, debian/jmem, debhelper's other outputs, build-test, obj-*"
}
expect_fail() {
  printf '#!/bin/sh\necho no licence\n' >"$tree/client/b.sh"
  chmod +x "$tree/client/b.sh"
  licence && { cat "$work/out"; fail "$1: a source file without the licence line passes"; }
  grep -q '^not ok .* client/b.sh says' "$work/out" || { cat "$work/out"; fail "$1: b.sh is not named"; }
  rm "$tree/client/b.sh"
  echo "ok: $1: a project file without the licence line fails"
}

echo "# 1. the licence test beside a package build's and scripts/test's files"
expect_pass "unpacked source"
expect_fail "unpacked source"
if command -v git >/dev/null; then
  git -C "$tree" init -q && git -C "$tree" add -A >/dev/null ||
    fail "cannot make a git checkout in $tree"
  expect_pass "git checkout"
  expect_fail "git checkout"
fi

echo "# 2. outside a checkout, the same files as git's list"
if [ -e "$src/.git" ] && command -v git >/dev/null &&
   python3 "$src/tests/project/test-licence.py" "$src" --list git >"$work/git" 2>/dev/null; then
  python3 "$src/tests/project/test-licence.py" "$src" --list folders >"$work/folders"
  diff "$work/git" "$work/folders" >"$work/diff" ||
    { sed 's/^/  /' "$work/diff"; fail "the licence test's list of folders differs from git's list (< git, > folders)"; }
  echo "ok: the project's folders hold what git lists ($(wc -l <"$work/git") files)"
else
  echo "ok # SKIP $src is not a git checkout"
fi

echo "# 3. scripts/test's caches are outside the source tree"
cache=$(bash -c 'source "$1/scripts/lib/common.sh" && realpath -m "$JMEM_CACHE_DIR"' sh "$src") ||
  fail "cannot read JMEM_CACHE_DIR from scripts/lib/common.sh"
case "$cache/" in "$src/"*) fail "the cache folder $cache is inside the source tree $src" ;; esac
echo "ok: the caches are in $cache, outside $src"
JMEM_CACHE_DIR=$src/build-test/cache bash -c 'source "$1/scripts/lib/common.sh" && jmem_check_cache_dir' \
  sh "$src" 2>"$work/err" && fail "a JMEM_CACHE_DIR inside the source tree is accepted"
grep -q 'inside the source tree' "$work/err" || { cat "$work/err"; fail "no reason given"; }
echo "ok: a JMEM_CACHE_DIR inside the source tree is refused"
grep -q 'JMEM_CACHE_DIR' "$src/tests/systemd/test-under-systemd" ||
  fail "test-under-systemd does not keep its trees in JMEM_CACHE_DIR"
grep -q -- '--cache-dir "$JMEM_CACHE_DIR/' "$src/scripts/test" ||
  fail "scripts/test does not give build-deb-arm64 a folder of JMEM_CACHE_DIR"
echo "ok: the booted-system tests and the arm64 package keep their trees there"
