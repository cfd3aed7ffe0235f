# Cross-compiling for AArch64 Linux with Debian's cross toolchain (g++-aarch64-linux-gnu)
# against Debian multiarch packages of the dependencies (libhwy-dev:arm64, libgtest-dev:arm64,
# ...; `scripts/install-deps.sh --aarch64`). Programs the build runs (the SIMD target probe)
# and the tests run under QEMU user-mode emulation; `make test-aarch64` picks the emulated CPU
# model with QEMU_CPU.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
# Multiarch: find_package and find_library look in /usr/lib/aarch64-linux-gnu first.
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
# Programs run with the multiarch loader and libc (libc6:arm64: /lib/ld-linux-aarch64.so.1,
# /lib/aarch64-linux-gnu), which also find the multiarch libraries (libhwy1:arm64, ...).
# Not `-L /usr/aarch64-linux-gnu`: that loader (libc6-arm64-cross) would load the multiarch
# libc.so.6 of another build, and the first pthread_create then spins for ever.
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64 -L /)
