# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced by the scripts in scripts/: where the tree is, where builds go,
# and an idempotent way to configure a build directory.

JMEM_SRC="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# Build directories. The scripts never use build/, the folder README's
# install steps configure with --prefix=/usr: meson keeps the options of a
# folder configured before ("Directory already configured"), so a demo's
# build there would install with meson's default prefix /usr/local, where
# neither the system bus nor polkit read jmem's files. JMEM_BUILD_PREFIX
# moves all of them.
JMEM_BUILD_PREFIX="${JMEM_BUILD_PREFIX:-$JMEM_SRC/build}"
# scripts/demo's
JMEM_BUILD_DEMO="$JMEM_BUILD_PREFIX-demo"
# scripts/test's and scripts/bench's, and the caches of scripts/test (the
# booted Debian trees in build-test/tests/systemd-cache, the arm64 package's
# tree in build-test-aarch64-deb)
JMEM_BUILD="$JMEM_BUILD_PREFIX-test"
JMEM_BUILD_SANITIZE="$JMEM_BUILD-sanitize"
JMEM_BUILD_FUZZ="$JMEM_BUILD-fuzz"
JMEM_BUILD_AARCH64="$JMEM_BUILD-aarch64"

# Two cores is the target machine; never start more jobs than there are.
JMEM_JOBS="${JMEM_JOBS:-$(nproc 2>/dev/null || echo 2)}"

jmem_say () {
  printf '\n==> %s\n' "$*"
}

# jmem_configure DIR [MESON_OPTION...]: configure DIR once, then only
# reconfigure, so a rerun keeps the incremental build.  CC in the
# environment picks the compiler on the first run.
jmem_configure () {
  local dir="$1"
  shift
  if [ -f "$dir/meson-private/coredata.dat" ]; then
    meson setup --reconfigure "$@" "$dir" "$JMEM_SRC" >"$dir/.jmem-configure.log" 2>&1 \
      && return 0
    # A build directory left by another meson version cannot be reused.
    echo "jmem: reconfiguring $dir failed, starting it afresh" >&2
    meson setup --wipe "$@" "$dir" "$JMEM_SRC"
  else
    meson setup "$@" "$dir" "$JMEM_SRC"
  fi
}

jmem_compile () {
  ninja -C "$1" -j "$JMEM_JOBS"
}
