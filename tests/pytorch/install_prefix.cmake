# cmake -DBUILD_DIR=... -DPREFIX=... -P install_prefix.cmake: a fresh prefix holding what the
# PyTorch extension needs at run time (the runtime and pytorch install components).
file(REMOVE_RECURSE ${PREFIX})
foreach(component runtime pytorch)
  execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${PREFIX} --component ${component}
                  RESULT_VARIABLE result)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "cmake --install --component ${component} failed")
  endif()
endforeach()
