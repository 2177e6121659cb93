# Writes OUTPUT: one ctest test per GoogleTest suite of EXECUTABLE (its --gtest_list_tests), named
# PREFIX followed by the suite's name, running that suite's tests in one process, with ENVIRONMENT
# when given, through EMULATOR when given (a cross build's qemu). Its COST is the suite's number of
# tests, or 1000 for a suite named in LONG (one that runs for tens of seconds whatever its number
# of tests), so that a first run (no timings kept yet) starts the long suites first. Run after each
# build of EXECUTABLE (inputanim_add_suites).
cmake_policy(VERSION 3.20)
execute_process(COMMAND ${EMULATOR} "${EXECUTABLE}" --gtest_list_tests
  OUTPUT_VARIABLE listing RESULT_VARIABLE status TIMEOUT 60)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "${EXECUTABLE} --gtest_list_tests failed (${status})")
endif()
# A suite's line starts in the first column and its name ends with a dot; its tests' lines are
# indented. Comments (# GetParam() = ...) may follow either and are dropped.
string(REGEX MATCHALL "(^|\n)[^ \n#][^ \n]*\\.|\n  [^ \n]+" entries "${listing}")
set(run "")
foreach(word IN LISTS EMULATOR ITEMS "${EXECUTABLE}")
  string(APPEND run "[=[${word}]=] ")
endforeach()
set(content "")
set(suite "")
macro(cost_of name tests)
  if("${name}" IN_LIST LONG)
    string(APPEND content "set_tests_properties([=[${PREFIX}${name}]=] PROPERTIES COST 1000)\n")
  else()
    string(APPEND content "set_tests_properties([=[${PREFIX}${name}]=] PROPERTIES COST ${tests})\n")
  endif()
endmacro()
foreach(entry IN LISTS entries)
  string(STRIP "${entry}" entry)
  if(entry MATCHES "^(.+)\\.$")
    if(suite)
      cost_of("${suite}" "${count}")
    endif()
    set(suite "${CMAKE_MATCH_1}")
    set(count 0)
    string(APPEND content
      "add_test([=[${PREFIX}${suite}]=] ${run}[=[--gtest_filter=${suite}.*]=])\n")
    if(ENVIRONMENT)
      string(APPEND content
        "set_tests_properties([=[${PREFIX}${suite}]=] PROPERTIES ENVIRONMENT [=[${ENVIRONMENT}]=])\n")
    endif()
  else()
    math(EXPR count "${count} + 1")
  endif()
endforeach()
if(suite)
  cost_of("${suite}" "${count}")
endif()
file(WRITE "${OUTPUT}" "${content}")
