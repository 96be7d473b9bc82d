# `atoll selftest --device DEVICE` on a machine without that GPU or its driver must exit 4 with the
# vendor runtime's own error text (MESSAGE_RE) on stderr, and no sanitizer report. On a machine
# with the GPU it runs the checks: exit 0 passes here too (docs/native-gpu.md).
execute_process(COMMAND ${ATOLL} selftest --device ${DEVICE} --reps 1 RESULT_VARIABLE rc OUTPUT_VARIABLE out
  ERROR_VARIABLE err)
message("exit ${rc}\nstdout:\n${out}\nstderr:\n${err}")
if(err MATCHES "Sanitizer|runtime error:")
  message(FATAL_ERROR "a sanitizer reported an error")
endif()
if(rc EQUAL 0)
  message("a ${DEVICE} device is present and the self-test passed")
elseif(rc EQUAL 4)
  if(NOT err MATCHES "${MESSAGE_RE}")
    message(FATAL_ERROR "exit 4 without the runtime's message (expected /${MESSAGE_RE}/)")
  endif()
else()
  message(FATAL_ERROR "expected exit 4 (no device) or 0 (device present and passing), got ${rc}")
endif()
