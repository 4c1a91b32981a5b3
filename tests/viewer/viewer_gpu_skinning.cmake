# cmake -DRAMUS=<ramus> -DXVFB_RUN=<xvfb-run or empty> -DMODEL=<model.h5> -DOUT=<folder>
#       -DCHECK=<check_same_image.py> -P viewer_gpu_skinning.cmake
# The viewer under a virtual X server (Mesa's software OpenGL) at rest twice: the render mesh
# rebuilt on the CPU (render_vertices) and in the vertex shader (--gpu-skinning); CHECK compares
# the two PNGs. Exit 77 (CTest: skipped, with the reason) when no X server can be started.
if(NOT XVFB_RUN)
  message("skipped: xvfb-run not found (Debian: apt-get install xvfb xauth)")
  cmake_language(EXIT 77)
endif()
file(MAKE_DIRECTORY ${OUT})
get_filename_component(model_name ${MODEL} NAME_WE)
set(cpu ${OUT}/view_${model_name}_cpu.png)
set(gpu ${OUT}/view_${model_name}_gpu.png)
file(REMOVE ${cpu} ${gpu})
foreach(run cpu gpu)
  set(flag "")
  if(run STREQUAL "gpu")
    set(flag --gpu-skinning)
  endif()
  execute_process(COMMAND ${XVFB_RUN} -a -s "-screen 0 1280x1024x24" ${RAMUS} view ${MODEL}
                          --frames 10 --screenshot ${${run}} ${flag}
                  RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message("${run}: ${out}${err}")
  if(NOT code EQUAL 0)
    message(FATAL_ERROR "ramus view (${run}) exited with ${code}")
  endif()
endforeach()
execute_process(COMMAND /usr/bin/python3 ${CHECK} ${cpu} ${gpu} RESULT_VARIABLE code)
if(NOT code EQUAL 0)
  message(FATAL_ERROR "the two screenshots differ")
endif()
