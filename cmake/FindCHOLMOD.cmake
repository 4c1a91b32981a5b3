# FindCHOLMOD: CHOLMOD from SuiteSparse 5.x (Debian libsuitesparse-dev ships no CMake config).
# Defines CHOLMOD::CHOLMOD with its AMD/COLAMD/CAMD/CCOLAMD/SuiteSparse_config dependencies.
find_path(CHOLMOD_INCLUDE_DIR cholmod.h PATH_SUFFIXES suitesparse)
find_library(CHOLMOD_LIBRARY NAMES cholmod)
set(_ramus_cholmod_deps amd colamd camd ccolamd suitesparseconfig)
set(CHOLMOD_DEP_LIBRARIES "")
foreach(_dep IN LISTS _ramus_cholmod_deps)
  find_library(CHOLMOD_${_dep}_LIBRARY NAMES ${_dep})
  mark_as_advanced(CHOLMOD_${_dep}_LIBRARY)
  if(CHOLMOD_${_dep}_LIBRARY)
    list(APPEND CHOLMOD_DEP_LIBRARIES ${CHOLMOD_${_dep}_LIBRARY})
  endif()
endforeach()
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(CHOLMOD REQUIRED_VARS CHOLMOD_LIBRARY CHOLMOD_INCLUDE_DIR)
if(CHOLMOD_FOUND AND NOT TARGET CHOLMOD::CHOLMOD)
  add_library(CHOLMOD::CHOLMOD UNKNOWN IMPORTED)
  set_target_properties(CHOLMOD::CHOLMOD PROPERTIES IMPORTED_LOCATION "${CHOLMOD_LIBRARY}"
                        INTERFACE_INCLUDE_DIRECTORIES "${CHOLMOD_INCLUDE_DIR}"
                        INTERFACE_LINK_LIBRARIES "${CHOLMOD_DEP_LIBRARIES}")
endif()
mark_as_advanced(CHOLMOD_INCLUDE_DIR CHOLMOD_LIBRARY)
