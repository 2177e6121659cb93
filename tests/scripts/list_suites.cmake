# Writes OUTPUT: one ctest test per GoogleTest suite of EXECUTABLE (its --gtest_list_tests), named
# PREFIX followed by the suite's name, running that suite's tests in one process, with ENVIRONMENT
# when given. Its COST is the suite's number of tests, so that a first run (no timings kept yet)
# starts the large suites first. Run after each build of EXECUTABLE (inputanim_add_suites).
execute_process(COMMAND "${EXECUTABLE}" --gtest_list_tests
  OUTPUT_VARIABLE listing RESULT_VARIABLE status TIMEOUT 60)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "${EXECUTABLE} --gtest_list_tests failed (${status})")
endif()
# A suite's line starts in the first column and its name ends with a dot; its tests' lines are
# indented. Comments (# GetParam() = ...) may follow either and are dropped.
string(REGEX MATCHALL "(^|\n)[^ \n#][^ \n]*\\.|\n  [^ \n]+" entries "${listing}")
set(content "")
set(suite "")
foreach(entry IN LISTS entries)
  string(STRIP "${entry}" entry)
  if(entry MATCHES "^(.+)\\.$")
    if(suite)
      string(APPEND content "set_tests_properties([=[${PREFIX}${suite}]=] PROPERTIES COST ${count})\n")
    endif()
    set(suite "${CMAKE_MATCH_1}")
    set(count 0)
    string(APPEND content
      "add_test([=[${PREFIX}${suite}]=] [=[${EXECUTABLE}]=] [=[--gtest_filter=${suite}.*]=])\n")
    if(ENVIRONMENT)
      string(APPEND content
        "set_tests_properties([=[${PREFIX}${suite}]=] PROPERTIES ENVIRONMENT [=[${ENVIRONMENT}]=])\n")
    endif()
  else()
    math(EXPR count "${count} + 1")
  endif()
endforeach()
if(suite)
  string(APPEND content "set_tests_properties([=[${PREFIX}${suite}]=] PROPERTIES COST ${count})\n")
endif()
file(WRITE "${OUTPUT}" "${content}")
