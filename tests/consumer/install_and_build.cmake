# cmake -DBUILD_DIR=<ramus build> -DLIBDIR=<its CMAKE_INSTALL_LIBDIR> -DWORK_DIR=<scratch>
#       -DMODEL=<model.h5> -P install_and_build.cmake
# Installs Ramus from BUILD_DIR into WORK_DIR/prefix, builds tests/consumer against that prefix
# only (find_package and pkg-config), runs both programs on MODEL.
set(prefix ${WORK_DIR}/prefix)
file(REMOVE_RECURSE ${WORK_DIR})
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT code EQUAL 0)
    message(FATAL_ERROR "${ARGN}\nexited with ${code}:\n${out}\n${err}")
  endif()
  message(STATUS "${out}")
endfunction()
run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
set(ENV{PKG_CONFIG_PATH} ${prefix}/${LIBDIR}/pkgconfig)
# A game that asks for the runtime alone, on a machine without precompute's dependencies (their
# lookups disabled): it configures, builds and runs.
set(no_precompute_deps -DCMAKE_DISABLE_FIND_PACKAGE_Spectra=TRUE
                       -DCMAKE_DISABLE_FIND_PACKAGE_TetGen=TRUE -DCMAKE_DISABLE_FIND_PACKAGE_CHOLMOD=TRUE)
set(consumer_args -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=${prefix}
                  -Dramus_DIR=${prefix}/${LIBDIR}/cmake/ramus)
run(${CMAKE_COMMAND} -S ${CMAKE_CURRENT_LIST_DIR} -B ${WORK_DIR}/build ${consumer_args}
    ${no_precompute_deps} -DRAMUS_COMPONENTS=runtime -DRAMUS_EXPECT_PRECOMPUTE=OFF)
# Without COMPONENTS there, the runtime alone; with them all present, precompute too (when this
# build has it).
run(${CMAKE_COMMAND} -S ${CMAKE_CURRENT_LIST_DIR} -B ${WORK_DIR}/no_components ${consumer_args}
    ${no_precompute_deps} -DRAMUS_COMPONENTS= -DRAMUS_EXPECT_PRECOMPUTE=OFF
    -DRAMUS_CONFIGURE_ONLY=ON)
if(EXISTS ${prefix}/${LIBDIR}/cmake/ramus/ramusPrecomputeTargets.cmake)
  run(${CMAKE_COMMAND} -S ${CMAKE_CURRENT_LIST_DIR} -B ${WORK_DIR}/precompute ${consumer_args}
      -DRAMUS_COMPONENTS=precompute -DRAMUS_EXPECT_PRECOMPUTE=ON -DRAMUS_CONFIGURE_ONLY=ON)
endif()
run(${CMAKE_COMMAND} --build ${WORK_DIR}/build)
run(${WORK_DIR}/build/consumer ${MODEL})
run(${WORK_DIR}/build/consumer_c ${MODEL})
