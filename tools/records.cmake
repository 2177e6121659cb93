# inputanim_records: what the command and the Python package report and index with: the JSON
# report of a checked file (report_json), the metrics as JSON (metrics_json), file names as text
# (text), the index run (indexer, index_pool, sqlite_store), and the one way every file is
# written (output_file). Internal: neither installed nor part of the library's API. Built for the
# command and for the Python package, which links it so that inputanim.index and inputanim.dask
# give the command's rows and write its database.
find_package(nlohmann_json 3.2 CONFIG REQUIRED)
# The index database is written with the SQLite C API (FindSQLite3 ships with CMake).
find_package(SQLite3 REQUIRED)

add_library(inputanim_records STATIC
  ${CMAKE_CURRENT_LIST_DIR}/inputanim/report_json.cpp
  ${CMAKE_CURRENT_LIST_DIR}/inputanim/metrics_json.cpp
  ${CMAKE_CURRENT_LIST_DIR}/inputanim/text.cpp
  ${CMAKE_CURRENT_LIST_DIR}/inputanim/indexer.cpp
  ${CMAKE_CURRENT_LIST_DIR}/inputanim/index_pool.cpp
  ${CMAKE_CURRENT_LIST_DIR}/inputanim/sqlite_store.cpp
  ${CMAKE_CURRENT_LIST_DIR}/inputanim/output_file.cpp)
target_include_directories(inputanim_records PUBLIC ${CMAKE_CURRENT_LIST_DIR}/inputanim)
target_link_libraries(inputanim_records
  PUBLIC inputanim::inputanim nlohmann_json::nlohmann_json Threads::Threads
  PRIVATE SQLite::SQLite3)
# The Python extension is a shared object.
set_target_properties(inputanim_records PROPERTIES POSITION_INDEPENDENT_CODE ON)
target_compile_options(inputanim_records PRIVATE -Wall -Wextra -Wpedantic)
