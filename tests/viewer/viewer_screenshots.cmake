# cmake -DRAMUS=<ramus> -DXVFB_RUN=<xvfb-run or empty> -DMODEL=<model.h5> -DOUT=<folder>
#       -DCHECK=<check_screenshots.py> -P viewer_screenshots.cmake
# The viewer under a virtual X server (Mesa's software OpenGL): 30 frames at rest, 30 pulled,
# two PNGs, checked. Exit 77 (CTest: skipped, with the reason) when no X server can be started.
if(NOT XVFB_RUN)
  message("skipped: xvfb-run not found (Debian: apt-get install xvfb xauth)")
  cmake_language(EXIT 77)
endif()
file(MAKE_DIRECTORY ${OUT})
file(REMOVE ${OUT}/view_rest.png ${OUT}/view_pulled.png)
execute_process(COMMAND ${XVFB_RUN} -a -s "-screen 0 1280x1024x24" ${RAMUS} view ${MODEL}
                        --frames 30 --screenshot ${OUT}/view_rest.png
                        --pulled-screenshot ${OUT}/view_pulled.png
                RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT code EQUAL 0)
  message(FATAL_ERROR "ramus view exited with ${code}")
endif()
execute_process(COMMAND /usr/bin/python3 ${CHECK} ${OUT}/view_rest.png ${OUT}/view_pulled.png
                RESULT_VARIABLE code)
if(NOT code EQUAL 0)
  message(FATAL_ERROR "the screenshots do not pass")
endif()
