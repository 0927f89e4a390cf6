# Compiles the embedded kernel sources (SOURCES, separated by |: the sort's program and the
# selection's) as OpenCL C 2.0 (device-enqueue path) with clang for every key type, ascending,
# descending, with 4- and 8-byte values, without float distance slices and with the count pass's
# 16-byte loads, so that the 2.0 source cannot rot where no 2.0 runtime is.
set(types UINT32 INT32 FLOAT UINT64 INT64 DOUBLE)
set(shape -DCLQ_GQ_WG=64 -DCLQ_GQ_K=8 -DCLQ_GQ_WAYS=64 -DCLQ_GQ_COUNT_K=16 -DCLQ_LQ_WG=64 -DCLQ_LQ_MAX=1024 -DCLQ_LQ_WAYS=64 -DCLQ_LQ_SMALL=32
          -DCLQ_FILL_CHUNK=1000 -DCLQ_RL_WG=64 -DCLQ_GQ_COUNT_COPIES=4 -DCLQ_GQ_RANK_COPIES=4)
string(REPLACE "|" ";" SOURCES "${SOURCES}")
foreach(source IN LISTS SOURCES)
  get_filename_component(name "${source}" NAME)
  foreach(type IN LISTS types)
    foreach(order "" "-DCLQ_DESCENDING" "-DCLQ_VALUE_BYTES=4" "-DCLQ_VALUE_BYTES=8" "-DCLQ_FLOAT_DISTANCE=0" "-DCLQ_GQ_QUADS=2")
      execute_process(
        COMMAND ${CLANG} -cl-std=CL2.0 -Xclang -finclude-default-header -target spir64 -x cl
                -DCLQ_KEY_${type} ${order} -DCLQ_DEVICE_ENQUEUE ${shape} -Werror -emit-llvm -c -o /dev/null ${source}
        RESULT_VARIABLE rc ERROR_VARIABLE err)
      if(NOT rc EQUAL 0)
        message(FATAL_ERROR "OpenCL C 2.0 compile of ${name} failed for ${type} ${order}:\n${err}")
      endif()
      message(STATUS "OpenCL C 2.0 compile ok: ${name} ${type} ${order}")
    endforeach()
  endforeach()
endforeach()
