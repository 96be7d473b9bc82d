# The atoll executable must start on machines without CUDA or ROCm: it may not link a GPU runtime
# (the GPU back-ends are modules it loads on demand).
execute_process(COMMAND readelf -d ${ATOLL} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "readelf failed: ${err}")
endif()
string(REGEX MATCHALL "\\(NEEDED\\)[^\n]*" needed "${out}")
string(REPLACE ";" "\n" needed_text "${needed}")
message("${ATOLL} needs:\n${needed_text}")
if(needed_text MATCHES "libcuda|libcudart|libamdhip64|libhsa-runtime")
  message(FATAL_ERROR "atoll links a GPU runtime")
endif()
