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
# scripts/test's and scripts/bench's
JMEM_BUILD="$JMEM_BUILD_PREFIX-test"
JMEM_BUILD_SANITIZE="$JMEM_BUILD-sanitize"
JMEM_BUILD_FUZZ="$JMEM_BUILD-fuzz"
JMEM_BUILD_AARCH64="$JMEM_BUILD-aarch64"
# The Debian trees scripts/test keeps between runs (the booted-system tests'
# in systemd/, the arm64 package's in aarch64-deb/): outside the source
# tree, whose every file a package build may edit (debhelper replaces each
# config.guess and config.sub below debian/.., and dh_clean deletes each
# *.orig and *~) and a source package would take in.
JMEM_CACHE_DIR="${JMEM_CACHE_DIR:-/var/cache/jmem-test}"

# jmem_check_cache_dir: non-zero, saying why, when JMEM_CACHE_DIR is inside
# the source tree.
jmem_check_cache_dir () {
  local cache src
  cache="$(realpath -m "$JMEM_CACHE_DIR")" && src="$(realpath "$JMEM_SRC")" || return 1
  case "$cache/" in
    "$src/"*)
      echo "jmem: JMEM_CACHE_DIR ($cache) is inside the source tree $JMEM_SRC," \
           "where a package build (dpkg-buildpackage) would edit the cached trees: pick a folder outside it" >&2
      return 1 ;;
  esac
}

# jmem_move_old_caches: the caches where earlier versions kept them, inside
# the build folders, moved to JMEM_CACHE_DIR (one rename each on one file
# system) rather than fetched and built again.
jmem_move_old_caches () {
  local old new
  for old in "$JMEM_BUILD/tests/systemd-cache:systemd" "$JMEM_BUILD_AARCH64-deb:aarch64-deb"; do
    new="$JMEM_CACHE_DIR/${old##*:}" old="${old%:*}"
    [ -d "$old" ] || continue
    if [ -e "$new" ]; then
      rm -rf -- "$old"
    else
      echo "jmem: moving the test cache $old to $new" >&2
      mkdir -p "$JMEM_CACHE_DIR" && mv -- "$old" "$new" || return 1
    fi
  done
}

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
