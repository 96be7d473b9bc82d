# The run report (statistics, expect verdicts, table/JSON/CSV), the timeline trace writer and the
# timeline vocabulary every device draws with.
# Included from sim/CMakeLists.txt; a library of its own so the native runner can share it.
add_library(atoll_sim_report STATIC ${CMAKE_CURRENT_LIST_DIR}/report.c ${CMAKE_CURRENT_LIST_DIR}/trace.c
  ${CMAKE_CURRENT_LIST_DIR}/timeline.c)
target_include_directories(atoll_sim_report PUBLIC ${CMAKE_CURRENT_LIST_DIR})
target_link_libraries(atoll_sim_report PUBLIC atoll_core m PRIVATE atoll_json_out)
