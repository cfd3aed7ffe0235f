# Build targets per test label. openaclnn_tier_programs(<label> <target>...) records the
# programs the tests labelled <label> run (openaclnn_add_test records its own); at the end of
# the configuration openaclnn_add_tier_targets() makes one build target per label,
# openaclnn_tests_<label>, so a tree whose tier runs only some labels builds only their
# programs (make test-asan builds openaclnn_tests_unit and openaclnn_tests_example,
# make test-tsan openaclnn_tests_threads).

function(openaclnn_tier_programs label)
  set_property(GLOBAL APPEND PROPERTY OPENACLNN_TIER_PROGRAMS_${label} ${ARGN})
  set_property(GLOBAL APPEND PROPERTY OPENACLNN_TIER_LABELS ${label})
endfunction()

function(openaclnn_add_tier_targets)
  get_property(tier_labels GLOBAL PROPERTY OPENACLNN_TIER_LABELS)
  list(REMOVE_DUPLICATES tier_labels)
  foreach(tier_label ${tier_labels})
    get_property(tier_programs GLOBAL PROPERTY OPENACLNN_TIER_PROGRAMS_${tier_label})
    list(REMOVE_DUPLICATES tier_programs)
    add_custom_target(openaclnn_tests_${tier_label})
    add_dependencies(openaclnn_tests_${tier_label} ${tier_programs})
  endforeach()
endfunction()

# openaclnn_sanitize_mpi_tests(<label> <test>...): in an AddressSanitizer tree, the sanitizer
# tier (label <label>) also runs these mpirun tests. LeakSanitizer then ignores only what
# Open MPI's own libraries keep until exit (tests/hccl/lsan-open-mpi.supp); for the
# suppressions to see those libraries, Open MPI keeps its components loaded and the
# allocation stacks are unwound in full.
function(openaclnn_sanitize_mpi_tests label)
  if(NOT OPENACLNN_SANITIZE MATCHES "address")
    return()
  endif()
  set_property(TEST ${ARGN} APPEND PROPERTY LABELS ${label})
  set_property(TEST ${ARGN} APPEND PROPERTY ENVIRONMENT OMPI_MCA_mca_base_component_disable_dlclose=1
    "LSAN_OPTIONS=suppressions=${CMAKE_CURRENT_FUNCTION_LIST_DIR}/../tests/hccl/lsan-open-mpi.supp:print_suppressions=0:fast_unwind_on_malloc=0")
endfunction()
