# Sourced by the scripts in scripts/: where the tree is, where builds go,
# and an idempotent way to configure a build directory.

JMEM_SRC="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# Build directories; JMEM_BUILD_PREFIX moves all of them (e.g. to keep a
# developer's own build/ untouched).
JMEM_BUILD_PREFIX="${JMEM_BUILD_PREFIX:-$JMEM_SRC/build}"
JMEM_BUILD="$JMEM_BUILD_PREFIX"
JMEM_BUILD_SANITIZE="$JMEM_BUILD_PREFIX-sanitize"
JMEM_BUILD_FUZZ="$JMEM_BUILD_PREFIX-fuzz"

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
