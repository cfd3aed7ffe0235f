#!/usr/bin/env bash
# Installs the Debian 12 packages the build and tests need, only those missing.
# As root it runs apt-get; otherwise it prints the exact command to run.
set -euo pipefail

# --minimal: what the library and its examples need (make demo); --package: that plus
# CPack's Debian tools (dpkg-shlibdeps, file) for make package; default: everything the
# tests (the package test included) and benchmarks need too; --with-fuzz adds clang's libFuzzer;
# --pytorch: the minimal set plus libtorch-dev and python3-torch (the PyTorch extension's demo);
# --bench: the default set plus python3-matplotlib (make bench draws charts).
# Open MPI is in every set but --aarch64: libhccl (the HCCL collectives) builds on it and its
# examples run under mpirun.
# --aarch64: the cross toolchain, QEMU user-mode emulation and the arm64 multiarch packages
# that make test-aarch64 builds and runs with (adds the arm64 architecture to dpkg first).
packages=(cmake ninja-build g++ make pkg-config libhwy-dev libopenmpi-dev openmpi-bin)
package_tools=(dpkg-dev file)
foreign_arch=""
case "${1:-}" in
  --minimal) ;;
  --aarch64) foreign_arch=arm64
             packages=(cmake ninja-build make g++-aarch64-linux-gnu qemu-user libc6:arm64 libstdc++6:arm64
                       libhwy-dev:arm64 libgtest-dev:arm64 libgmock-dev:arm64 nlohmann-json3-dev) ;;
  --package) packages+=("${package_tools[@]}") ;;
  --with-fuzz) packages+=(libgtest-dev libgmock-dev libbenchmark-dev libtorch-dev libdnnl-dev
                          nlohmann-json3-dev clang libclang-rt-14-dev) ;;
  --pytorch) packages+=(libtorch-dev python3-torch) ;;
  --bench) packages+=(libgtest-dev libgmock-dev libbenchmark-dev libtorch-dev python3-torch libdnnl-dev
                      nlohmann-json3-dev python3-matplotlib "${package_tools[@]}") ;;
  *) packages+=(libgtest-dev libgmock-dev libbenchmark-dev libtorch-dev python3-torch libdnnl-dev nlohmann-json3-dev
                "${package_tools[@]}") ;;
esac

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

add_arch=""
if [ -n "$foreign_arch" ] && ! dpkg --print-foreign-architectures | grep -qx "$foreign_arch"; then
  add_arch="dpkg --add-architecture $foreign_arch"
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "openaclnn: missing Debian packages: ${missing[*]}" >&2
  echo "Install them with:  ${add_arch:+sudo $add_arch && }sudo apt-get update && sudo apt-get install -y --no-install-recommends ${missing[*]}" >&2
  exit 1
fi
echo "openaclnn: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
if [ -n "$add_arch" ]; then
  echo "openaclnn: $add_arch"
  $add_arch
fi
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
