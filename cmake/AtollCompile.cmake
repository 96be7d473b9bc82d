# Compile settings shared by every atoll target: warnings and sanitizers. No data path is compiled
# in: io/data_dirs.c finds the data next to the executable (bin/../share/atoll) or in $ATOLL_PATH.
add_library(atoll_options INTERFACE)
target_compile_options(atoll_options INTERFACE -Wall -Wextra -Wshadow -Wstrict-prototypes
  -Wmissing-prototypes -Wno-missing-field-initializers)
if(ATOLL_WERROR)
  target_compile_options(atoll_options INTERFACE -Werror)
endif()
# _XOPEN_SOURCE 700 (POSIX 2008 + XSI: realpath, strdup) for io/ and tools/; core/ uses only ISO C,
# but for lgamma_r (core/inss_batcher.c, which asks for it with _DEFAULT_SOURCE).
target_compile_definitions(atoll_options INTERFACE _XOPEN_SOURCE=700)
# Includes name their folder from the repository root ("core/sched.h", "run/report.h"); the public
# headers are "atoll/x.h" under include/. No folder of sources is itself on the path, so core/sched.h
# cannot shadow the system <sched.h> that <pthread.h> includes.
target_include_directories(atoll_options INTERFACE ${CMAKE_SOURCE_DIR} ${CMAKE_SOURCE_DIR}/include)
if(ATOLL_SANITIZE)
  target_compile_options(atoll_options INTERFACE -fsanitize=${ATOLL_SANITIZE} -fno-omit-frame-pointer
    -fno-sanitize-recover=all)
  target_link_options(atoll_options INTERFACE -fsanitize=${ATOLL_SANITIZE})
endif()
# Fuzzing (tools/fuzz, docs/fuzzing.md): libFuzzer's coverage instrumentation with ASan and UBSan on
# every target of the build; the harnesses in tests/fuzz add -fsanitize=fuzzer when they link.
if(ATOLL_FUZZ)
  if(NOT CMAKE_C_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "ATOLL_FUZZ=ON needs clang (configure with -DCMAKE_C_COMPILER=clang)")
  endif()
  target_compile_options(atoll_options INTERFACE -fsanitize=fuzzer-no-link,address,undefined
    -fno-omit-frame-pointer -fno-sanitize-recover=all)
  target_link_options(atoll_options INTERFACE -fsanitize=address,undefined)
endif()
