# `cmake --install`: the runtime's headers and library (and, when built, precompute's and the
# ramus tool), a CMake package (find_package(ramus 0.2 [COMPONENTS runtime precompute]):
# ramus::runtime, ramus::precompute) and a
# pkg-config file for the runtime (ramus-runtime.pc). docs/INSTALL.md says how to consume them.
include(CMakePackageConfigHelpers)
set(RAMUS_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/ramus)

install(DIRECTORY ${PROJECT_SOURCE_DIR}/runtime/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
# Two export sets, so that a game asking for the runtime alone never loads precompute's
# dependencies (find_package(ramus COMPONENTS runtime)).
install(TARGETS ramus_runtime EXPORT ramusRuntimeTargets)
install(EXPORT ramusRuntimeTargets NAMESPACE ramus:: DESTINATION ${RAMUS_CMAKE_DIR})
install(FILES ${PROJECT_SOURCE_DIR}/cmake/FindSodium.cmake DESTINATION ${RAMUS_CMAKE_DIR})
if(RAMUS_BUILD_PRECOMPUTE)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/precompute/include/
          DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
  # (ramus_hdf5_writer: precompute's model writer, a static library it links privately)
  set_target_properties(ramus_hdf5_writer PROPERTIES EXPORT_NAME hdf5_writer)
  install(TARGETS ramus_precompute ramus_hdf5_writer EXPORT ramusPrecomputeTargets)
  install(EXPORT ramusPrecomputeTargets NAMESPACE ramus:: DESTINATION ${RAMUS_CMAKE_DIR})
  install(TARGETS ramus)
  # The Find modules of the Debian packages that ship no CMake config.
  install(FILES ${PROJECT_SOURCE_DIR}/cmake/FindARPACK.cmake
                ${PROJECT_SOURCE_DIR}/cmake/FindCHOLMOD.cmake
                ${PROJECT_SOURCE_DIR}/cmake/FindTetGen.cmake
                ${PROJECT_SOURCE_DIR}/cmake/FindOpenVDB.cmake DESTINATION ${RAMUS_CMAKE_DIR})
endif()

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/ramusConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/ramusConfig.cmake
                              INSTALL_DESTINATION ${RAMUS_CMAKE_DIR})
# 0.x releases: a minor version may break the API, so only the same 0.minor is compatible.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/ramusConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/ramusConfig.cmake ${PROJECT_BINARY_DIR}/ramusConfigVersion.cmake
        DESTINATION ${RAMUS_CMAKE_DIR})

# pkg-config (a static library: its dependencies are in Libs and Requires).
set(RAMUS_PC_OPENMP "")
if(RAMUS_OPENMP)
  set(RAMUS_PC_OPENMP "-fopenmp")
endif()
# (prefix relative to the .pc file, so that `cmake --install --prefix` anywhere stays valid)
string(REGEX REPLACE "[^/]+" ".." RAMUS_PC_UP "${CMAKE_INSTALL_LIBDIR}/pkgconfig")
configure_file(${PROJECT_SOURCE_DIR}/cmake/ramus-runtime.pc.in
               ${PROJECT_BINARY_DIR}/ramus-runtime.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/ramus-runtime.pc
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
