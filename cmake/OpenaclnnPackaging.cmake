# Debian packages (`make package`): openaclnn (runtime component) and openaclnn-dev (dev
# component), named openaclnn_<version>_<arch>.deb and openaclnn-dev_<version>_<arch>.deb;
# openaclnn-hccl and openaclnn-hccl-dev hold the HCCL library (and its Open MPI dependency),
# so the operator packages never pull in MPI.
# dpkg-shlibdeps works out the runtime's dependencies (libhwy, libstdc++, libc) from the
# shared objects themselves, so they follow whatever Debian release builds the package.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME openaclnn)
set(CPACK_PACKAGE_VENDOR "openaclnn")
set(CPACK_PACKAGE_CONTACT "openaclnn maintainers <openaclnn@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Portable implementation of the CANN aclnn operator API on CPUs")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
if(OPENACLNN_WITH_HCCL)
  set(CPACK_COMPONENTS_ALL runtime dev hccl hccl-dev)
else()
  set(CPACK_COMPONENTS_ALL runtime dev)
endif()
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION libs)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_NAME openaclnn)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_DEV_PACKAGE_NAME openaclnn-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
# The headers and build files are only useful with the very library they describe.
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS "openaclnn (= ${PROJECT_VERSION})")
set(CPACK_DEBIAN_HCCL_PACKAGE_NAME openaclnn-hccl)
set(CPACK_DEBIAN_HCCL_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_HCCL_PACKAGE_DEPENDS "openaclnn (= ${PROJECT_VERSION})")
# libhccl needs libopenaclnn.so.0 from the sibling package built in the same run: let
# dpkg-shlibdeps find it in the build tree (the dependency itself is the explicit one above).
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS ${PROJECT_BINARY_DIR}/src)
set(CPACK_DEBIAN_HCCL-DEV_PACKAGE_NAME openaclnn-hccl-dev)
set(CPACK_DEBIAN_HCCL-DEV_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_HCCL-DEV_PACKAGE_DEPENDS "openaclnn-hccl (= ${PROJECT_VERSION}), openaclnn-dev (= ${PROJECT_VERSION})")
set(CPACK_COMPONENT_HCCL_DESCRIPTION
  "CANN's HCCL collectives on Open MPI for openaclnn: libhccl and the CANN name libhcomm.so")
set(CPACK_COMPONENT_HCCL-DEV_DESCRIPTION
  "Development files for openaclnn-hccl: hccl/*.h, the CMake component hccl and pkg-config openaclnn-hccl")
set(CPACK_COMPONENT_RUNTIME_DESCRIPTION
  "CANN-compatible aclnn operators and ACL runtime on the host CPU: libopenaclnn, the CANN library names (libascendcl.so, libnnopbase.so, libopapi.so) and openaclnn-info")
set(CPACK_COMPONENT_DEV_DESCRIPTION
  "Development files for openaclnn: CANN-style C headers, CMake package (find_package(openaclnn)) and pkg-config file")
include(CPack)
