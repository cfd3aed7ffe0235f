# openaclnn_add_test(<target> [LABELS l...] [ARGS a...] [TIMEOUT s] [NO_BASELINE])
# Registers a gtest binary once per SIMD target this CPU runs (OPENACLNN_TEST_SIMD_TARGETS,
# probed at configure time, best first): `<target>` on the best one, then `<target>.<NAME>`
# for each other (`.baseline` for the portable one). NO_BASELINE registers the best target
# only (tests whose code does not depend on the target, or that force every target
# themselves). Each binary links tests/support/simd_target_check.cpp, which fails the run
# unless dispatch really uses the target its registration names.
# Cross builds (the AArch64 preset, run under qemu-aarch64): the CPU is the emulated model
# each test run picks (QEMU_CPU), not known at configure time, so the list holds every target
# the library compiles; `<target>` runs on OPENACLNN_SIMD=best (the check asserts the best
# target of the running CPU model), `<target>.<NAME>` on each compiled target (`.baseline`
# for the last), each also labelled `target_<NAME>`, and scripts/test-aarch64.sh leaves out
# per CPU model the labels of the targets that model does not run.
# Labels in use: unit (no torch; also built with sanitizers), oracle (compares with
# libtorch), threads (ThreadSanitizer build), large (slow tier, run by `make test-large`),
# pytorch (the PyTorch extension under /usr/bin/python3, tests/pytorch), kernel (every
# registration of a test registered per target).

if(CMAKE_CROSSCOMPILING)
  set(simd_probe_args --compiled)
else()
  set(simd_probe_args "")
endif()
if(NOT DEFINED OPENACLNN_TEST_SIMD_TARGETS)
  # Cross-compiling, try_run runs the probe under CMAKE_CROSSCOMPILING_EMULATOR.
  try_run(simd_probe_run simd_probe_compiled ${CMAKE_BINARY_DIR}/simd_targets_probe
    ${PROJECT_SOURCE_DIR}/cmake/simd_targets_probe.cpp
    COMPILE_DEFINITIONS "-DHWY_DISABLED_TARGETS=${OPENACLNN_HWY_DISABLED_TARGETS}"
    LINK_LIBRARIES hwy::hwy
    CXX_STANDARD 17
    COMPILE_OUTPUT_VARIABLE simd_probe_compile_output
    RUN_OUTPUT_VARIABLE simd_probe_output
    ARGS ${simd_probe_args})
  if(NOT simd_probe_compiled OR NOT simd_probe_run EQUAL 0 OR simd_probe_output STREQUAL "")
    message(FATAL_ERROR "Cannot probe the SIMD targets of this CPU:\n${simd_probe_compile_output}\n${simd_probe_output}")
  endif()
  string(REGEX REPLACE ";$" "" simd_probe_output "${simd_probe_output}")
  set(OPENACLNN_TEST_SIMD_TARGETS "${simd_probe_output}" CACHE STRING
    "SIMD targets the kernel tests run on, best first (the last is the portable baseline)")
endif()
# The sanitizer tree compiles every target for its fuzzers, which run each one under ASan;
# its unit tests run the best target and the baseline, as a tree compiling only those would.
option(OPENACLNN_TEST_BEST_AND_BASELINE_ONLY "Register the kernel tests on the best SIMD target and the baseline only" OFF)
if(OPENACLNN_TEST_BEST_AND_BASELINE_ONLY AND NOT CMAKE_CROSSCOMPILING)
  list(GET OPENACLNN_TEST_SIMD_TARGETS 0 best_target)
  list(GET OPENACLNN_TEST_SIMD_TARGETS -1 baseline_target)
  set(OPENACLNN_TEST_SIMD_TARGETS ${best_target} ${baseline_target})
  list(REMOVE_DUPLICATES OPENACLNN_TEST_SIMD_TARGETS)
endif()
if(CMAKE_CROSSCOMPILING)
  message(STATUS "openaclnn: kernel tests registered for every compiled SIMD target ${OPENACLNN_TEST_SIMD_TARGETS} "
    "(each run keeps those its emulated CPU model runs)")
else()
  message(STATUS "openaclnn: kernel tests run on the SIMD targets ${OPENACLNN_TEST_SIMD_TARGETS}")
endif()

# What every test binary starts with: the SIMD target check and the allocator setting
# (tests/support/heap_reuse.cpp). Compiled once; an object library's objects go into each
# executable itself (not through an archive), so their static initialisers cannot be dropped
# by the linker.
add_library(openaclnn_test_startup OBJECT ${PROJECT_SOURCE_DIR}/tests/support/simd_target_check.cpp
  ${PROJECT_SOURCE_DIR}/tests/support/heap_reuse.cpp)
target_link_libraries(openaclnn_test_startup PUBLIC openaclnn_internal GTest::gtest)

# One precompiled header for every test program: gtest, gmock and the standard headers the
# test files parse, compiled once per tree instead of once per test file (a seventh of a
# test file's compile time with GCC, a sixth with clang). Its owner is an executable, so the
# header is compiled as the test programs are (position-independent executable code, the
# same flags); the test programs' own definitions come on top, which GCC and clang accept.
add_executable(openaclnn_test_pch ${PROJECT_SOURCE_DIR}/tests/support/pch_owner.cpp)
target_link_libraries(openaclnn_test_pch PRIVATE GTest::gtest GTest::gtest_main)
target_precompile_headers(openaclnn_test_pch PRIVATE
  <gtest/gtest.h> <gmock/gmock.h> <algorithm> <array> <cmath> <cstdint> <cstring> <functional> <map>
  <memory> <random> <string> <vector>)

function(openaclnn_add_test target)
  cmake_parse_arguments(T "NO_BASELINE" "TIMEOUT" "LABELS;ARGS" ${ARGN})
  target_precompile_headers(${target} REUSE_FROM openaclnn_test_pch)
  foreach(tier_label ${T_LABELS})
    openaclnn_tier_programs(${tier_label} ${target})
  endforeach()
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 600)
  endif()
  target_link_libraries(${target} PRIVATE openaclnn_test_startup)
  list(GET OPENACLNN_TEST_SIMD_TARGETS 0 best)
  set(first 1)
  if(CMAKE_CROSSCOMPILING)
    # The best target of the CPU model the run emulates; every compiled target gets its own.
    set(best best)
    set(first 0)
  endif()
  add_test(NAME ${target} COMMAND ${target} ${T_ARGS})
  if(T_NO_BASELINE)
    set_tests_properties(${target} PROPERTIES LABELS "${T_LABELS}" TIMEOUT ${T_TIMEOUT}
      ENVIRONMENT "OPENACLNN_SIMD=${best}")
    return()
  endif()
  # Label "kernel": registered once per target, so its code depends on the target (the
  # AArch64 runs after the first run only these).
  set_tests_properties(${target} PROPERTIES LABELS "${T_LABELS};kernel" TIMEOUT ${T_TIMEOUT}
    ENVIRONMENT "OPENACLNN_SIMD=${best}")
  list(LENGTH OPENACLNN_TEST_SIMD_TARGETS count)
  math(EXPR last "${count} - 1")
  foreach(index RANGE ${first} ${last})
    if(index GREATER last)
      break()
    endif()
    list(GET OPENACLNN_TEST_SIMD_TARGETS ${index} simd)
    if(index EQUAL last)
      set(name ${target}.baseline)
      set(label baseline)
    else()
      set(name ${target}.${simd})
      set(label simd)
    endif()
    if(CMAKE_CROSSCOMPILING)
      list(APPEND label target_${simd})
    endif()
    add_test(NAME ${name} COMMAND ${target} ${T_ARGS})
    set_tests_properties(${name} PROPERTIES LABELS "${T_LABELS};${label};kernel" TIMEOUT ${T_TIMEOUT}
      ENVIRONMENT "OPENACLNN_SIMD=${simd}")
  endforeach()
endfunction()
