# Sourced by scripts/demo and scripts/test: installs what jmem needs to build
# and test on Debian 12, and nothing when it is all there already.

JMEM_BUILD_PACKAGES=(
  meson ninja-build pkg-config gcc libc6-dev clang
  libglib2.0-dev libglib2.0-dev-bin libjson-glib-dev libcap-dev
  libpolkit-gobject-1-dev libdbus-1-dev systemd
)
JMEM_TEST_PACKAGES=(
  dbus dbus-daemon polkitd util-linux procps passwd
  python3 python3-jsonschema valgrind libclang-rt-14-dev smem
  prometheus prometheus-node-exporter
  debhelper dpkg-dev fakeroot debootstrap systemd-container
)
JMEM_DEMO_PACKAGES=(dbus dbus-daemon polkitd util-linux procps passwd python3)
JMEM_BENCH_PACKAGES=(smem procps python3 time)
# Building and checking the Debian package (dpkg-buildpackage, lintian).
JMEM_PACKAGE_PACKAGES=(debhelper dpkg-dev fakeroot lintian)

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
