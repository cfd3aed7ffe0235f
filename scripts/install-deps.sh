#!/usr/bin/env bash
# Installs the Debian 12 packages the build and tests need, only those missing.
# As root it runs apt-get; otherwise it prints the exact command to run.
set -euo pipefail

# --minimal: what the library and its examples need (make demo); --package: that plus
# CPack's Debian tools (dpkg-shlibdeps, file) for make package; default: everything the
# tests (the package test included) and benchmarks need too; --with-fuzz adds clang's libFuzzer;
# --pytorch: the minimal set plus libtorch-dev and python3-torch (the PyTorch extension's demo);
# --bench: the default set plus python3-matplotlib (make bench draws charts).
# Open MPI is in every set: libhccl (the HCCL collectives) builds on it and its examples run
# under mpirun.
packages=(cmake ninja-build g++ make pkg-config libhwy-dev libopenmpi-dev openmpi-bin)
package_tools=(dpkg-dev file)
case "${1:-}" in
  --minimal) ;;
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

if [ "$(id -u)" -ne 0 ]; then
  echo "openaclnn: missing Debian packages: ${missing[*]}" >&2
  echo "Install them with:  sudo apt-get update && sudo apt-get install -y --no-install-recommends ${missing[*]}" >&2
  exit 1
fi
echo "openaclnn: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
