# cmake -DRAMUS=<ramus> -DXVFB_RUN=<xvfb-run or empty> -DMODEL=<model.h5> -DOUT=<folder>
#       -DCHECK=<check_collider_screenshot.py> -P viewer_collider.cmake
# The viewer's driven sphere under a virtual X server: 30 frames at rest, then the sphere driven
# for 30 frames into the model near its farthest vertex; the two PNGs checked (the object pushed
# aside). Exit 77 (CTest: skipped, with the reason) when no X server can be started.
if(NOT XVFB_RUN)
  message("skipped: xvfb-run not found (Debian: apt-get install xvfb xauth)")
  cmake_language(EXIT 77)
endif()
file(MAKE_DIRECTORY ${OUT})
file(REMOVE ${OUT}/view_sphere_rest.png ${OUT}/view_sphere.png)
execute_process(COMMAND ${XVFB_RUN} -a -s "-screen 0 1280x1024x24" ${RAMUS} view ${MODEL}
                        --frames 30 --screenshot ${OUT}/view_sphere_rest.png
                        --collider-screenshot ${OUT}/view_sphere.png
                RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT code EQUAL 0)
  message(FATAL_ERROR "ramus view exited with ${code}")
endif()
execute_process(COMMAND /usr/bin/python3 ${CHECK} ${OUT}/view_sphere_rest.png ${OUT}/view_sphere.png
                RESULT_VARIABLE code)
if(NOT code EQUAL 0)
  message(FATAL_ERROR "the screenshots do not pass")
endif()
