# Compile settings shared by every atoll target: warnings, sanitizers, and the source-tree data path.
add_library(atoll_options INTERFACE)
target_compile_options(atoll_options INTERFACE -Wall -Wextra -Wshadow -Wstrict-prototypes
  -Wmissing-prototypes -Wno-missing-field-initializers)
if(ATOLL_WERROR)
  target_compile_options(atoll_options INTERFACE -Werror)
endif()
# _XOPEN_SOURCE 700 (POSIX 2008 + XSI: realpath, strdup) for io/ and tools/; core/ uses only ISO C.
target_compile_definitions(atoll_options INTERFACE _XOPEN_SOURCE=700
  ATOLL_SOURCE_DATA_DIR="${CMAKE_SOURCE_DIR}/scenarios"
  ATOLL_INSTALL_DATA_DIR="${CMAKE_INSTALL_PREFIX}/share/atoll")
target_include_directories(atoll_options INTERFACE ${CMAKE_SOURCE_DIR}/include)
if(ATOLL_SANITIZE)
  target_compile_options(atoll_options INTERFACE -fsanitize=${ATOLL_SANITIZE} -fno-omit-frame-pointer
    -fno-sanitize-recover=all)
  target_link_options(atoll_options INTERFACE -fsanitize=${ATOLL_SANITIZE})
endif()
