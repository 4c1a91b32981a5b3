# FindARPACK: ARPACK-NG from Debian (libarpack2-dev), which ships no CMake config.
# Defines ARPACK::ARPACK and ARPACK_FOUND.
find_path(ARPACK_INCLUDE_DIR arpack/arpack.hpp)
find_library(ARPACK_LIBRARY NAMES arpack)
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(ARPACK REQUIRED_VARS ARPACK_LIBRARY ARPACK_INCLUDE_DIR)
if(ARPACK_FOUND AND NOT TARGET ARPACK::ARPACK)
  add_library(ARPACK::ARPACK UNKNOWN IMPORTED)
  set_target_properties(ARPACK::ARPACK PROPERTIES IMPORTED_LOCATION "${ARPACK_LIBRARY}"
                        INTERFACE_INCLUDE_DIRECTORIES "${ARPACK_INCLUDE_DIR}")
endif()
mark_as_advanced(ARPACK_INCLUDE_DIR ARPACK_LIBRARY)
