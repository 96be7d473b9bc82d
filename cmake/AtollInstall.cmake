# The install. It is relocatable: no file in it names the prefix (io/data_dirs.c finds
# PREFIX/share/atoll from the executable; atoll.pc and atollConfig.cmake find the prefix from
# their own place). tools/install-check.sh installs, moves the prefix, hides the source and build
# trees and runs a scenario, atoll-plot and a program linked against the library from it.
#   bin/            atoll, idem_checker, atoll-nmodel, atoll-plot (tools/plot), atoll-gpu-check
#                   (tools/gpu-check.sh)
#   share/atoll/    GPU presets, model profiles, example and DISB scenarios (scenarios/ without bad/)
#   share/man/man1/ man pages generated from each tool's --help (help2man)
#   include/atoll/, lib/libatoll_*.a, lib/pkgconfig/atoll.pc, lib/cmake/atoll/: the simulator as a
#                   library (scenario loading, the scheduler core, the discrete-event GPU model)
install(DIRECTORY ${CMAKE_SOURCE_DIR}/scenarios/ DESTINATION share/atoll PATTERN bad EXCLUDE)
install(PROGRAMS ${CMAKE_SOURCE_DIR}/tools/plot DESTINATION bin RENAME atoll-plot)

# Man pages from --help; help2man is a build dependency (tools/install-deps.sh).
find_program(ATOLL_HELP2MAN help2man)
if(ATOLL_HELP2MAN)
  set(man_pages "")
  # help2man titles a page by the program's file name, and tools/plot names itself by how it is
  # called: a copy named as installed makes the page "atoll-plot", not "plot" with "tools/plot" usage.
  set(plot_as_installed ${CMAKE_BINARY_DIR}/man/atoll-plot)
  add_custom_command(OUTPUT ${plot_as_installed}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/man
    COMMAND ${CMAKE_COMMAND} -E copy ${CMAKE_SOURCE_DIR}/tools/plot ${plot_as_installed}
    DEPENDS ${CMAKE_SOURCE_DIR}/tools/plot VERBATIM)
  foreach(spec "atoll|$<TARGET_FILE:atoll>|DNN inference scheduling on GPUs: simulate, explore, run natively"
               "idem_checker|$<TARGET_FILE:idem_checker>|which GPU kernels of a trace are idempotent"
               "atoll-nmodel|$<TARGET_FILE:atoll-nmodel>|the native models: list, time, trace, profile"
               "atoll-plot|${plot_as_installed}|figures from atoll's sweeps, reports and timelines")
    string(REPLACE "|" ";" parts "${spec}")
    list(GET parts 0 name)
    list(GET parts 1 exe)
    list(GET parts 2 what)
    set(page ${CMAKE_BINARY_DIR}/man/${name}.1)
    add_custom_command(OUTPUT ${page}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/man
      COMMAND ${ATOLL_HELP2MAN} --no-info --no-discard-stderr --version-string=${PROJECT_VERSION}
              --name=${what} --output=${page} ${exe}
      DEPENDS ${exe} VERBATIM)
    list(APPEND man_pages ${page})
  endforeach()
  add_custom_target(atoll_man_pages ALL DEPENDS ${man_pages})
  install(FILES ${man_pages} DESTINATION share/man/man1)
else()
  message(STATUS "help2man not found: no man pages (tools/install-deps.sh installs it)")
endif()

# The library part. Static libraries, in link order; one list feeds atoll.pc and atollConfig.cmake.
set(ATOLL_LIBRARY_PARTS atoll_sim atoll_run atoll_io atoll_json_out atoll_suggest atoll_core atoll_ds)
install(TARGETS ${ATOLL_LIBRARY_PARTS} ARCHIVE DESTINATION lib)
# The headers those libraries' interfaces need, laid out as in the source tree so that their
# includes resolve unchanged: the public types in include/atoll/ ("atoll/model.h"), each folder's
# headers in include/atoll/<folder>/ ("core/sched.h", "io/load.h", "sim/run.h"). Users add
# -IPREFIX/include -IPREFIX/include/atoll (atoll.pc and atollConfig.cmake do).
file(GLOB atoll_public_headers ${CMAKE_SOURCE_DIR}/include/atoll/*.h)
install(FILES ${atoll_public_headers} DESTINATION include/atoll)
foreach(folder core core/ds io run sim)
  file(GLOB folder_headers ${CMAKE_SOURCE_DIR}/${folder}/*.h)
  install(FILES ${folder_headers} DESTINATION include/atoll/${folder})
endforeach()
set(ATOLL_PC_LIBS "")
set(ATOLL_CMAKE_LIBS "")
foreach(l IN LISTS ATOLL_LIBRARY_PARTS)
  string(APPEND ATOLL_PC_LIBS " -l${l}")
  string(APPEND ATOLL_CMAKE_LIBS "\${_atoll_prefix}/lib/lib${l}.a;")
endforeach()
configure_file(${CMAKE_SOURCE_DIR}/cmake/install/atoll.pc.in ${CMAKE_BINARY_DIR}/install/atoll.pc @ONLY)
configure_file(${CMAKE_SOURCE_DIR}/cmake/install/atollConfig.cmake.in
               ${CMAKE_BINARY_DIR}/install/atollConfig.cmake @ONLY)
include(CMakePackageConfigHelpers)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/install/atollConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/install/atoll.pc DESTINATION lib/pkgconfig)
install(FILES ${CMAKE_BINARY_DIR}/install/atollConfig.cmake
              ${CMAKE_BINARY_DIR}/install/atollConfigVersion.cmake DESTINATION lib/cmake/atoll)
