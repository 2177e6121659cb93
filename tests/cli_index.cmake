# The tests of `index` open the SQLite databases it writes (support/sqlite_database.hpp).
find_package(SQLite3)
foreach(test test_cli_index test_cli_index_errors test_cli_index_interrupted
    test_cli_index_metrics)
  if(TARGET ${test})
    target_link_libraries(${test} PRIVATE SQLite::SQLite3)
  endif()
endforeach()
