# test_cli_index opens the SQLite database that `index` writes.
if(TARGET test_cli_index)
  find_package(SQLite3 REQUIRED)
  target_link_libraries(test_cli_index PRIVATE SQLite::SQLite3)
endif()
