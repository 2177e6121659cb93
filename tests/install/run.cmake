# Run by the install_find_package test (tests/install.cmake) with cmake -P. Installs BUILD_DIR
# into WORK_DIR/prefix, builds the consumer against that prefix alone, and runs it. Any failing
# step ends the script with an error, which fails the test.
foreach(var BUILD_DIR WORK_DIR CONSUMER_SOURCE_DIR GENERATOR CXX_COMPILER)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "run.cmake needs -D${var}=...")
  endif()
endforeach()

set(prefix ${WORK_DIR}/prefix)
set(consumer_build ${WORK_DIR}/consumer-build)
# A prefix or consumer left by an earlier run must not hide a broken install.
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})

function(run step)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE result)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "${step} failed (${result}): ${ARGN}")
  endif()
endfunction()

set(config_args)
if(BUILD_TYPE)
  set(config_args --config ${BUILD_TYPE})
endif()

run("install" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix} ${config_args})

run("consumer configure" ${CMAKE_COMMAND}
  -S ${CONSUMER_SOURCE_DIR} -B ${consumer_build} -G ${GENERATOR}
  -DCMAKE_BUILD_TYPE=${BUILD_TYPE}
  -DCMAKE_CXX_COMPILER=${CXX_COMPILER}
  -DCMAKE_CXX_FLAGS=${CXX_FLAGS}
  -DCMAKE_EXE_LINKER_FLAGS=${LINKER_FLAGS}
  -DCMAKE_PREFIX_PATH=${prefix}
  # Only the scratch prefix may satisfy find_package(inputanim), not a system install or the
  # build tree's package registry.
  -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF
  -DCMAKE_FIND_USE_SYSTEM_PACKAGE_REGISTRY=OFF)

# Belt and braces: the package found must be the one just installed.
file(STRINGS ${consumer_build}/CMakeCache.txt found_dir REGEX "^inputanim_DIR:")
string(REGEX REPLACE "^inputanim_DIR:[A-Z]+=" "" found_dir "${found_dir}")
file(REAL_PATH "${found_dir}" found_dir)
file(REAL_PATH "${prefix}" real_prefix)
string(FIND "${found_dir}" "${real_prefix}/" at)
if(NOT at EQUAL 0)
  message(FATAL_ERROR "find_package(inputanim) found ${found_dir}, not the package in ${prefix}")
endif()

run("consumer build" ${CMAKE_COMMAND} --build ${consumer_build} ${config_args})

find_program(consumer NAMES consumer PATHS ${consumer_build} ${consumer_build}/${BUILD_TYPE}
             NO_DEFAULT_PATH REQUIRED)
run("consumer run" ${consumer} ${WORK_DIR}/consumer-output.bin)
message(STATUS "installed package found, linked and ran: ${found_dir}")
