# cmake -DRAMUS=<ramus> -DXVFB_RUN=<xvfb-run or empty> -DMODEL=<model.h5> -DOUT=<folder>
#       -DSECOND=<pulled|collider> [-DCOLLIDER=<sphere|capsule>] -DCHECK=<checker.py>
#       -P viewer_screenshots.cmake
# The viewer under a virtual X server (Mesa's software OpenGL): 30 frames at rest, then 30 frames
# with the farthest vertex pulled sideways (pulled) or a sphere (or COLLIDER) driven into the
# model near it (collider); two PNGs, checked by CHECK. Exit 77 (CTest: skipped, with the reason) when no X
# server can be started.
if(NOT XVFB_RUN)
  message("skipped: xvfb-run not found (Debian: apt-get install xvfb xauth)")
  cmake_language(EXIT 77)
endif()
file(MAKE_DIRECTORY ${OUT})
if(NOT COLLIDER)
  set(COLLIDER sphere)
endif()
get_filename_component(model_name ${MODEL} NAME_WE)
set(rest ${OUT}/view_${model_name}_${SECOND}_${COLLIDER}_rest.png)
set(second ${OUT}/view_${model_name}_${SECOND}_${COLLIDER}.png)
file(REMOVE ${rest} ${second})
execute_process(COMMAND ${XVFB_RUN} -a -s "-screen 0 1280x1024x24" ${RAMUS} view ${MODEL}
                        --frames 30 --screenshot ${rest} --${SECOND}-screenshot ${second}
                        --collider ${COLLIDER}
                RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT code EQUAL 0)
  message(FATAL_ERROR "ramus view exited with ${code}")
endif()
execute_process(COMMAND /usr/bin/python3 ${CHECK} ${rest} ${second} RESULT_VARIABLE code)
if(NOT code EQUAL 0)
  message(FATAL_ERROR "the screenshots do not pass")
endif()
