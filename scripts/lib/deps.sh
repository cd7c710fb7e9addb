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
  prometheus prometheus-node-exporter
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
    dpkg --add-architecture "$JMEM_CROSS_ARCH" || return 1
    # the package lists must learn the new architecture
    export DEBIAN_FRONTEND=noninteractive
    apt-get -o DPkg::Lock::Timeout=300 update -q >/dev/null || return 1
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
    (cd "$dir/debs" && apt-get download -q "libpolkit-gobject-1-dev:$JMEM_CROSS_ARCH" >/dev/null) ||
      { echo "jmem: cannot download libpolkit-gobject-1-dev:$JMEM_CROSS_ARCH" >&2; return 1; }
    dpkg-deb -x "$dir"/debs/libpolkit-gobject-1-dev_*.deb "$dir" || return 1
    sed -i "s|^prefix=.*|prefix=$dir/usr|" "$libdir/pkgconfig/polkit-gobject-1.pc" || return 1
    ln -sf "/usr/lib/$JMEM_CROSS_TRIPLET/libpolkit-gobject-1.so.0" "$libdir/libpolkit-gobject-1.so"
  fi
  echo "$libdir/pkgconfig"
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
  export DEBIAN_FRONTEND=noninteractive
  apt-get -o DPkg::Lock::Timeout=300 update -q >/dev/null
  apt-get -o DPkg::Lock::Timeout=300 install -y -q --no-install-recommends \
    "${missing[@]}" >/dev/null
}
