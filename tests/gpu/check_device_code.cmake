# Checks that FILE carries GPU device code for EXPECT (e.g. sm_75, gfx906).
#   LISTER: cuobjdump (NVIDIA's tool: --list-elf), roc-obj-ls (ROCm's), or gpu-device-code.py
#   (the repository's reader of the same containers, for machines without cuobjdump).
if(LISTER MATCHES "cuobjdump$")
  set(cmd ${LISTER} --list-elf ${FILE})
elseif(LISTER MATCHES "\\.py$")
  # Debian's interpreter, which tools/install-deps.sh installs, as tests/python3.sh picks: a python3
  # first on PATH may be a shim that takes half a second to start.
  if(EXISTS /usr/bin/python3)
    set(cmd /usr/bin/python3 ${LISTER} ${FILE})
  else()
    set(cmd python3 ${LISTER} ${FILE})
  endif()
else()
  set(cmd ${LISTER} ${FILE})
endif()
execute_process(COMMAND ${cmd} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
string(JOIN " " shown ${cmd})
message("${shown}:\n${out}${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${LISTER} failed (${rc})")
endif()
string(REGEX MATCH "${EXPECT}([^0-9a-z]|$)" found "${out}")
if(NOT found)
  message(FATAL_ERROR "${FILE}: no device code for ${EXPECT}")
endif()
message("device code for ${EXPECT}: present")
