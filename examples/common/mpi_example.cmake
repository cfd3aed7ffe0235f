# Shared by the MPI example programs' CMakeLists.txt, in-tree and stand-alone against an
# installed openaclnn with its hccl component (the caller's project() enables C and CXX:
# FindMPI's C component needs C).
if(NOT TARGET openaclnn)
  find_package(openaclnn REQUIRED COMPONENTS hccl)
endif()
find_package(MPI REQUIRED COMPONENTS C)

# example_<name> from the folder's main.cpp, linked as a CANN HCCL client is.
function(openaclnn_mpi_example name)
  add_executable(example_${name} main.cpp)
  target_compile_definitions(example_${name} PRIVATE OMPI_SKIP_MPICXX MPICH_SKIP_MPICXX)
  target_link_libraries(example_${name} PRIVATE hccl hcomm ascendcl nnopbase opapi MPI::MPI_C)
endfunction()

# Tests example.<name>.w1 .. .w4 under mpirun (label mpi: the release tier), and .w2 in the
# sanitizer tier. A rank that fails before a collective leaves its peers waiting: the
# execution timeout ends them.
function(openaclnn_mpi_example_tests name)
  if(NOT OPENACLNN_BUILD_TESTS)
    return()
  endif()
  foreach(ranks 1 2 3 4)
    add_test(NAME example.${name}.w${ranks}
      COMMAND ${CMAKE_SOURCE_DIR}/tests/hccl/mpirun-isolated.sh ${MPIEXEC_EXECUTABLE} --oversubscribe -np ${ranks}
              $<TARGET_FILE:example_${name}>)
    set_tests_properties(example.${name}.w${ranks} PROPERTIES LABELS mpi TIMEOUT 180
      ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMPI_MCA_btl_vader_single_copy_mechanism=none;OMPI_MCA_mpi_yield_when_idle=1;HCCL_EXEC_TIMEOUT=60")
  endforeach()
  if(OPENACLNN_SANITIZE MATCHES "address")
    openaclnn_tier_programs(example example_${name})
    openaclnn_sanitize_mpi_tests(example example.${name}.w2)
  endif()
endfunction()
