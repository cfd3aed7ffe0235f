#!/usr/bin/env bash
# The Debian packages as a user gets them: CPack builds openaclnn and openaclnn-dev from
# this build tree, dpkg -x extracts both into a scratch root (no root rights, nothing
# installed system-wide), and CANN-style clients build against that root alone: with CMake
# (find_package) and with the plain -lascendcl -lnnopbase -lopapi line. The package
# metadata must name the Debian libraries the library needs.
set -euo pipefail
build_dir=$1
source_dir=$2
version=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "== cpack"
(cd "$work" && cpack --config "$build_dir/CPackConfig.cmake" -B "$work/packages" >/dev/null)
arch=$(dpkg --print-architecture)
runtime_deb=$work/packages/openaclnn_${version}_${arch}.deb
dev_deb=$work/packages/openaclnn-dev_${version}_${arch}.deb
ls "$runtime_deb" "$dev_deb"

echo "== dependencies"
runtime_depends=$(dpkg-deb -f "$runtime_deb" Depends)
dev_depends=$(dpkg-deb -f "$dev_deb" Depends)
echo "openaclnn Depends: $runtime_depends"
echo "openaclnn-dev Depends: $dev_depends"
grep -q "libhwy" <<<"$runtime_depends" || { echo "openaclnn does not depend on libhwy"; exit 1; }
grep -qF "openaclnn (= $version)" <<<"$dev_depends" || { echo "openaclnn-dev does not depend on openaclnn $version"; exit 1; }

echo "== contents"
root=$work/root
dpkg -x "$runtime_deb" "$root"
dpkg -x "$dev_deb" "$root"
libdir=$(find "$root" -name libopenaclnn.so.0 -printf '%h\n')
dpkg-deb -c "$runtime_deb" >"$work/runtime_files.txt"
dpkg-deb -c "$dev_deb" >"$work/dev_files.txt"
# A listed name ends the line (a file) or precedes " -> " (a symbolic link).
for name in libascendcl.so libnnopbase.so libopapi.so libopenaclnn.so.0 openaclnn-info; do
  grep -Eq "/$name( |$)" "$work/runtime_files.txt" || { echo "openaclnn lacks $name"; exit 1; }
done
for name in acl/acl.h openaclnnConfig.cmake openaclnn.pc libopenaclnn.so; do
  grep -Eq "/$name( |$)" "$work/dev_files.txt" || { echo "openaclnn-dev lacks $name"; exit 1; }
done
export LD_LIBRARY_PATH=$libdir
"$root/usr/bin/openaclnn-info" | tee "$work/info.txt"
grep -qx "version: $version" "$work/info.txt"

echo "== CMake find_package(openaclnn) client against the extracted packages"
cmake -S "$source_dir/examples/runtime_client" -B "$work/cmake_client" -G Ninja \
      -DCMAKE_PREFIX_PATH="$root/usr" -DCMAKE_FIND_USE_CMAKE_SYSTEM_PATH=OFF >/dev/null
cmake --build "$work/cmake_client" >/dev/null
"$work/cmake_client/example_runtime_client"

echo "== plain link line with CANN library names"
c++ -std=c++17 -Wall -Wextra -Werror -I"$root/usr/include" "$source_dir/examples/runtime_client/main.cpp" \
    -L"$libdir" -lascendcl -lnnopbase -lopapi -o "$work/plain_client"
"$work/plain_client"
echo "== HCCL packages: openaclnn-hccl carries the Open MPI dependency, openaclnn does not"
hccl_deb=$work/packages/openaclnn-hccl_${version}_${arch}.deb
hccl_dev_deb=$work/packages/openaclnn-hccl-dev_${version}_${arch}.deb
ls "$hccl_deb" "$hccl_dev_deb"
hccl_depends=$(dpkg-deb -f "$hccl_deb" Depends)
echo "openaclnn-hccl Depends: $hccl_depends"
grep -q "libopenmpi" <<<"$hccl_depends" || { echo "openaclnn-hccl does not depend on Open MPI"; exit 1; }
if grep -qi "mpi" <<<"$runtime_depends"; then echo "openaclnn must not depend on MPI"; exit 1; fi
dpkg-deb -c "$hccl_deb" >"$work/hccl_files.txt"
dpkg-deb -c "$hccl_dev_deb" >"$work/hccl_dev_files.txt"
for name in libhccl.so.0 libhcomm.so; do
  grep -Eq "/$name( |$)" "$work/hccl_files.txt" || { echo "openaclnn-hccl lacks $name"; exit 1; }
done
for name in hccl/hccl.h hccl/hccl_types.h hccl/hccl_comm.h openaclnnHcclTargets.cmake openaclnn-hccl.pc libhccl.so; do
  grep -Eq "/$name( |$)" "$work/hccl_dev_files.txt" || { echo "openaclnn-hccl-dev lacks $name"; exit 1; }
done
if grep -q "/hccl/" "$work/dev_files.txt"; then echo "openaclnn-dev must not ship the hccl headers"; exit 1; fi
dpkg -x "$hccl_deb" "$root"
dpkg -x "$hccl_dev_deb" "$root"
mpicxx -std=c++17 -Wall -Wextra -Werror -DOMPI_SKIP_MPICXX -I"$root/usr/include" \
    "$source_dir/examples/hccl_all_reduce/main.cpp" -L"$libdir" -lhccl -lhcomm -lascendcl -lnnopbase -lopapi \
    -o "$work/hccl_client"
"$work/hccl_client"
echo "package test passed"
