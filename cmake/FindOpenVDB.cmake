# FindOpenVDB: OpenVDB 10 from Debian (libopenvdb-dev). Debian's own FindOpenVDB.cmake (in the
# library's cmake folder) turns BUILD_SHARED_LIBS on for the whole project and needs
# Boost.Iostreams, which the package does not pull in; the shared library carries its own
# dependencies, so its headers, the library, TBB (its headers' parallel loops) and Imath (their
# half floats) are enough.
# Defines OpenVDB::openvdb.
find_path(OpenVDB_INCLUDE_DIR openvdb/openvdb.h)
find_library(OpenVDB_LIBRARY NAMES openvdb)
find_package(TBB QUIET CONFIG)
find_package(Imath QUIET CONFIG)
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(OpenVDB REQUIRED_VARS OpenVDB_LIBRARY OpenVDB_INCLUDE_DIR
                                                        TBB_FOUND Imath_FOUND)
if(OpenVDB_FOUND AND NOT TARGET OpenVDB::openvdb)
  add_library(OpenVDB::openvdb UNKNOWN IMPORTED)
  set_target_properties(OpenVDB::openvdb PROPERTIES IMPORTED_LOCATION "${OpenVDB_LIBRARY}"
                        INTERFACE_INCLUDE_DIRECTORIES "${OpenVDB_INCLUDE_DIR}"
                        INTERFACE_LINK_LIBRARIES "TBB::tbb;Imath::Imath")
endif()
mark_as_advanced(OpenVDB_INCLUDE_DIR OpenVDB_LIBRARY)
