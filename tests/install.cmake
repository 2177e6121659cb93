# install_find_package: installs this build into a scratch prefix, then configures, builds and
# runs a consumer that uses it only through find_package(inputanim) (tests/install/consumer).
# A cross build is left out: the consumer would need the toolchain and could not run here.
if(INPUTANIM_INSTALL AND NOT CMAKE_CROSSCOMPILING)
  # The sanitizers are added with add_compile_options, which an installed package does not
  # carry: the consumer gets them explicitly, or its link fails against the instrumented library.
  set(INPUTANIM_CONSUMER_CXX_FLAGS "${CMAKE_CXX_FLAGS}")
  set(INPUTANIM_CONSUMER_LINKER_FLAGS "${CMAKE_EXE_LINKER_FLAGS}")
  if(INPUTANIM_SANITIZE)
    string(APPEND INPUTANIM_CONSUMER_CXX_FLAGS
           " -fsanitize=${INPUTANIM_SANITIZE} -fno-omit-frame-pointer -fno-sanitize-recover=all")
    string(APPEND INPUTANIM_CONSUMER_LINKER_FLAGS " -fsanitize=${INPUTANIM_SANITIZE}")
  endif()
  add_test(NAME install_find_package
    COMMAND ${CMAKE_COMMAND}
      -DBUILD_DIR=${PROJECT_BINARY_DIR}
      -DWORK_DIR=${CMAKE_CURRENT_BINARY_DIR}/install_find_package
      -DCONSUMER_SOURCE_DIR=${CMAKE_CURRENT_SOURCE_DIR}/install/consumer
      -DGENERATOR=${CMAKE_GENERATOR}
      -DBUILD_TYPE=${CMAKE_BUILD_TYPE}
      -DCXX_COMPILER=${CMAKE_CXX_COMPILER}
      "-DCXX_FLAGS=${INPUTANIM_CONSUMER_CXX_FLAGS}"
      "-DLINKER_FLAGS=${INPUTANIM_CONSUMER_LINKER_FLAGS}"
      -P ${CMAKE_CURRENT_SOURCE_DIR}/install/run.cmake)
  # Configuring and building a project takes a while on a shared machine.
  set_tests_properties(install_find_package PROPERTIES TIMEOUT 600)
endif()
