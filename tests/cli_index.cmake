# The tests of `index` open the SQLite databases it writes (support/sqlite_database.hpp).
inputanim_test_executables(executables test_cli_index test_cli_index_errors
  test_cli_index_interrupted test_cli_index_metrics test_cli_index_archives)
if(executables)
  find_package(SQLite3 REQUIRED)
endif()
foreach(executable ${executables})
  target_link_libraries(${executable} PRIVATE SQLite::SQLite3)
endforeach()
