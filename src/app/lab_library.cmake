# ro_lab: the lab's state, record and replay, its scene and replay files, and the window's
# layout, with no SDL or ImGui. ro_demo draws it; ro_app_tests and ro_json_fuzz drive it headless.
find_package(nlohmann_json CONFIG REQUIRED)
add_library(ro_lab STATIC
  ${CMAKE_CURRENT_LIST_DIR}/compare.cpp
  ${CMAKE_CURRENT_LIST_DIR}/compare_verdict.cpp
  ${CMAKE_CURRENT_LIST_DIR}/lab.cpp
  ${CMAKE_CURRENT_LIST_DIR}/lab_replay.cpp
  ${CMAKE_CURRENT_LIST_DIR}/lab_session.cpp
  ${CMAKE_CURRENT_LIST_DIR}/layout.cpp
  ${CMAKE_CURRENT_LIST_DIR}/queries.cpp
  ${CMAKE_CURRENT_LIST_DIR}/scene_file.cpp
  ${CMAKE_CURRENT_LIST_DIR}/trace_playback.cpp
)
target_include_directories(ro_lab PUBLIC ${PROJECT_SOURCE_DIR}/src)
target_link_libraries(ro_lab PUBLIC ro ro_files ro_verdict fmt::fmt PRIVATE nlohmann_json::nlohmann_json)
ro_strict_warnings(ro_lab)
