# openaclnn_add_test(<target> [LABELS l...] [ARGS a...] [TIMEOUT s] [NO_BASELINE])
# Registers a gtest binary twice: once on the best SIMD target the CPU offers and once
# forced to the portable baseline (OPENACLNN_SIMD=baseline), so every path is tested.
# Labels in use: unit (no torch; also built with sanitizers), oracle (compares with
# libtorch), large (slow tier, run by `make test-large`).
function(openaclnn_add_test target)
  cmake_parse_arguments(T "NO_BASELINE" "TIMEOUT" "LABELS;ARGS" ${ARGN})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 600)
  endif()
  add_test(NAME ${target} COMMAND ${target} ${T_ARGS})
  set_tests_properties(${target} PROPERTIES LABELS "${T_LABELS}" TIMEOUT ${T_TIMEOUT}
    ENVIRONMENT "OPENACLNN_SIMD=best")
  if(NOT T_NO_BASELINE)
    add_test(NAME ${target}.baseline COMMAND ${target} ${T_ARGS})
    set_tests_properties(${target}.baseline PROPERTIES LABELS "${T_LABELS};baseline" TIMEOUT ${T_TIMEOUT}
      ENVIRONMENT "OPENACLNN_SIMD=baseline")
  endif()
endfunction()
