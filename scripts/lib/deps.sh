# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced by scripts/demo and scripts/test: installs what jmem needs to build
# and test on Debian 12, and nothing when it is all there already.

JMEM_BUILD_PACKAGES=(
  meson ninja-build pkg-config gcc libc6-dev clang
  libglib2.0-dev libglib2.0-dev-bin libjson-glib-dev libcap-dev
  libpolkit-gobject-1-dev libdbus-1-dev systemd
  libncurses-dev libcairo2-dev libfontconfig-dev
)
JMEM_TEST_PACKAGES=(
  dbus dbus-daemon polkitd util-linux procps passwd
  python3 python3-jsonschema python3-pil valgrind libclang-rt-14-dev smem tmux
  prometheus prometheus-node-exporter victoria-metrics
  debhelper dpkg-dev fakeroot lintian debootstrap systemd-container jq
)
JMEM_DEMO_PACKAGES=(dbus dbus-daemon polkitd util-linux procps passwd jq)
JMEM_BENCH_PACKAGES=(smem procps python3 time tmux)
# Building and checking the Debian package (dpkg-buildpackage, lintian).
JMEM_PACKAGE_PACKAGES=(debhelper dpkg-dev fakeroot lintian)

# The aarch64 cross build and its unit tests under qemu: Debian's cross
# compiler, and the libraries' arm64 development packages (multiarch). On
# Debian 12 libpolkit-gobject-1-dev:arm64 cannot be installed next to the
# amd64 one (its gir1.2-polkit-1.0 is not Multi-Arch: same; apt would remove
# the native one), so only polkit's arm64 library is installed and
# jmem_unpack_cross_polkit unpacks its development files into a build folder.
JMEM_CROSS_ARCH=arm64
JMEM_CROSS_TRIPLET=aarch64-linux-gnu
JMEM_CROSS_PACKAGES=(
  gcc-aarch64-linux-gnu qemu-user-static
  libc6-dev:arm64 libglib2.0-dev:arm64 libjson-glib-dev:arm64 libcap-dev:arm64
  libpolkit-gobject-1-0:arm64 libncurses-dev:arm64 libcairo2-dev:arm64
  libfontconfig-dev:arm64
)

# jmem_install_cross_deps PACKAGE...: adds the arm64 architecture to dpkg
# when it is missing, then installs what is not there.
jmem_install_cross_deps () {
  if ! dpkg --print-foreign-architectures | grep -qx "$JMEM_CROSS_ARCH"; then
    if [ "$(id -u)" -ne 0 ]; then
      echo "jmem: dpkg lacks the $JMEM_CROSS_ARCH architecture (run as root, or: dpkg --add-architecture $JMEM_CROSS_ARCH)" >&2
      return 1
    fi
    echo "jmem: adding the $JMEM_CROSS_ARCH architecture to dpkg" >&2
    dpkg --add-architecture "$JMEM_CROSS_ARCH" ||
      { echo "jmem: dpkg --add-architecture $JMEM_CROSS_ARCH failed" >&2; return 1; }
    # the package lists must learn the new architecture
    jmem_apt update -q || return 1
  fi
  jmem_install_deps "$@"
}

# jmem_unpack_cross_polkit DIR: libpolkit-gobject-1-dev:arm64 unpacked into
# DIR (not installed), its .pc file pointing there and its link-time .so at
# the installed arm64 library. Prints the folder for meson's pkg_config_path.
jmem_unpack_cross_polkit () {
  local dir="$1" libdir="$1/usr/lib/$JMEM_CROSS_TRIPLET"
  if [ ! -f "$libdir/pkgconfig/polkit-gobject-1.pc" ]; then
    rm -rf "$dir" && mkdir -p "$dir/debs" || return 1
    # apt's download user cannot write into a root-owned build folder
    chmod 0777 "$dir/debs"
    (cd "$dir/debs" && jmem_apt download -q "libpolkit-gobject-1-dev:$JMEM_CROSS_ARCH") ||
      { echo "jmem: cannot download libpolkit-gobject-1-dev:$JMEM_CROSS_ARCH" >&2; return 1; }
    dpkg-deb -x "$dir"/debs/libpolkit-gobject-1-dev_*.deb "$dir" || return 1
    sed -i "s|^prefix=.*|prefix=$dir/usr|" "$libdir/pkgconfig/polkit-gobject-1.pc" || return 1
    ln -sf "/usr/lib/$JMEM_CROSS_TRIPLET/libpolkit-gobject-1.so.0" "$libdir/libpolkit-gobject-1.so"
  fi
  echo "$libdir/pkgconfig"
}

# How long jmem_apt waits for another package manager (a Jetson's first
# boot runs apt's daily update and unattended-upgrades), and how often it
# tries again meanwhile.
JMEM_APT_LOCK_WAIT="${JMEM_APT_LOCK_WAIT:-900}"
JMEM_APT_LOCK_POLL="${JMEM_APT_LOCK_POLL:-5}"

# jmem_apt ARG...: apt-get ARG... (its output kept back unless it fails),
# waiting while another package manager holds one of apt's or dpkg's locks
# (apt-get update does not wait by itself, and apt's DPkg::Lock::Timeout
# covers only dpkg's lock), saying so every 30 s. Non-zero, with apt's
# error and what to do, when apt-get fails or the lock does not come.
jmem_apt () {
  local out rc start=$SECONDS waited said=-30
  out="$(mktemp -t jmem-apt-XXXXXX)" || return 1
  export DEBIAN_FRONTEND=noninteractive
  while :; do
    apt-get "$@" >"$out" 2>&1
    rc=$?
    [ "$rc" -eq 0 ] && { rm -f "$out"; return 0; }
    grep -qE 'Could not get lock|Unable to acquire the dpkg frontend lock|Unable to lock (the )?(directory|administration)' \
      "$out" || break
    waited=$((SECONDS - start))
    if [ "$waited" -ge "$JMEM_APT_LOCK_WAIT" ]; then
      grep -E '^E: ' "$out" | sed 's/^/  /' >&2
      echo "jmem: another package manager still holds apt's lock after ${waited} s" \
           "(on a first boot: apt's daily update or unattended-upgrades)." \
           "Let it finish (ps -C apt,apt-get,dpkg,unattended-upgr -o pid,etime,args shows it;" \
           "systemctl status apt-daily.service apt-daily-upgrade.service unattended-upgrades.service)," \
           "then run this again; JMEM_APT_LOCK_WAIT=SECONDS waits longer." >&2
      rm -f "$out"
      return 1
    fi
    # every 30 s, so that a long wait is a few lines
    if [ "$((waited - said))" -ge 30 ]; then
      echo "jmem: waiting for another package manager, ${waited} s" \
           "($(grep -m1 -oE 'held by process [0-9]+( \([^)]*\))?' "$out" || echo "apt's lock is held"))" >&2
      said=$waited
    fi
    sleep "$JMEM_APT_LOCK_POLL"
  done
  tail -n 30 "$out" | sed 's/^/  /' >&2
  echo "jmem: apt-get $1 failed (exit $rc); the lines above are apt's" >&2
  rm -f "$out"
  return 1
}

jmem_install_deps () {
  local missing=() pkg
  for pkg in "${JMEM_BUILD_PACKAGES[@]}" "$@"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' \
      || missing+=("$pkg")
  done
  [ "${#missing[@]}" -eq 0 ] && return 0
  if [ "$(id -u)" -ne 0 ]; then
    echo "jmem: missing packages: ${missing[*]} (run as root, or install them)" >&2
    return 1
  fi
  echo "jmem: installing ${missing[*]}" >&2
  jmem_apt update -q && jmem_apt install -y -q --no-install-recommends "${missing[@]}"
}
