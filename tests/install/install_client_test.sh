#!/usr/bin/env bash
# Installs the library into a scratch prefix, then builds CANN-style clients against the
# installed package only: with CMake (find_package + plain target names), with
# -lascendcl -lnnopbase -lopapi, and with pkg-config; runs the client under AddressSanitizer.
# The HCCL client builds with -lhccl -lhcomm, find_package(... COMPONENTS hccl) and
# pkg-config openaclnn-hccl, and runs alone and under mpirun; so does the SyncBN example.
set -euo pipefail
build_dir=$1
source_dir=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix

cmake --install "$build_dir" --prefix "$prefix" >/dev/null
libdir=$(find "$prefix" -name libascendcl.so -printf '%h\n' | head -n1)
# No LD_LIBRARY_PATH: every client must start as the documented link line builds it
# (-Wl,-rpath, pkg-config's flags, CMake's own rpath).
unset LD_LIBRARY_PATH

echo "== C headers compile as C99"
cc -std=c99 -Wall -Wextra -Werror -I"$prefix/include" "$source_dir/tests/install/c_headers_check.c" \
   -L"$libdir" -Wl,-rpath,"$libdir" -lascendcl -lnnopbase -lopapi -o "$work/c_headers_check"
"$work/c_headers_check"

echo "== CMake find_package(openaclnn) client"
cmake -S "$source_dir/examples/runtime_client" -B "$work/cmake_client" -G Ninja \
      -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$work/cmake_client" >/dev/null
"$work/cmake_client/example_runtime_client"

echo "== CMake find_package(openaclnn) client: events and address rebinding"
cmake -S "$source_dir/examples/events_rebinding" -B "$work/cmake_events" -G Ninja \
      -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$work/cmake_events" >/dev/null
"$work/cmake_events/example_events_rebinding"

echo "== plain link line with CANN library names, under AddressSanitizer"
c++ -std=c++17 -Wall -Wextra -Werror -fsanitize=address -fno-omit-frame-pointer -I"$prefix/include" \
    "$source_dir/examples/runtime_client/main.cpp" -L"$libdir" -Wl,-rpath,"$libdir" -lascendcl -lnnopbase -lopapi \
    -o "$work/asan_client"
ASAN_OPTIONS=detect_leaks=1 "$work/asan_client"

echo "== pkg-config"
flags=$(PKG_CONFIG_PATH="$libdir/pkgconfig" pkg-config --cflags --libs openaclnn)
c++ -std=c++17 "$source_dir/examples/runtime_client/main.cpp" $flags -o "$work/pkgconfig_client"
"$work/pkgconfig_client" >/dev/null
echo "== HCCL client with CANN's link line -lhccl -lhcomm -lascendcl -lnnopbase -lopapi (mpicxx)"
# OMPI_SKIP_MPICXX: Open MPI's deprecated C++ bindings do not compile warning-free.
mpicxx -std=c++17 -Wall -Wextra -Werror -DOMPI_SKIP_MPICXX -I"$prefix/include" "$source_dir/examples/hccl_all_reduce/main.cpp" \
    -L"$libdir" -Wl,-rpath,"$libdir" -lhccl -lhcomm -lascendcl -lnnopbase -lopapi -o "$work/hccl_client"
"$work/hccl_client" >/dev/null  # a singleton, no mpirun
OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_vader_single_copy_mechanism=none \
    mpirun --oversubscribe -np 2 "$work/hccl_client"

echo "== SyncBN example with the same link line, alone and under mpirun"
mpicxx -std=c++17 -Wall -Wextra -Werror -DOMPI_SKIP_MPICXX -I"$prefix/include" "$source_dir/examples/sync_batch_norm/main.cpp" \
    -L"$libdir" -Wl,-rpath,"$libdir" -lhccl -lhcomm -lascendcl -lnnopbase -lopapi -o "$work/sync_batch_norm"
"$work/sync_batch_norm" >/dev/null
OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_vader_single_copy_mechanism=none \
    mpirun --oversubscribe -np 3 "$work/sync_batch_norm" --channels-last

echo "== CMake find_package(openaclnn COMPONENTS hccl) client"
cmake -S "$source_dir/examples/hccl_all_reduce" -B "$work/cmake_hccl" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$work/cmake_hccl" >/dev/null
"$work/cmake_hccl/example_hccl_all_reduce" >/dev/null

echo "== pkg-config openaclnn-hccl"
flags=$(PKG_CONFIG_PATH="$libdir/pkgconfig" pkg-config --cflags --libs openaclnn-hccl)
mpicxx -std=c++17 "$source_dir/examples/hccl_all_reduce/main.cpp" $flags -o "$work/pkgconfig_hccl_client"
"$work/pkgconfig_hccl_client" >/dev/null
echo "install client test passed"
