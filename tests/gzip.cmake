# The tests of gzip input make their gzip streams with zlib (support/gzip_bytes.cpp). Without the
# I/O layer (INPUTANIM_WITH_MAPPING=OFF) they are not built.
if(NOT INPUTANIM_WITH_MAPPING)
  return()
endif()
find_package(ZLIB REQUIRED)
inputanim_test_executables(executables test_gzip test_gzip_errors test_cli_gzip test_serve
  test_input test_input_errors test_cli_input test_cli_convert test_cli_index test_cli_output_file)
foreach(executable ${executables})
  target_sources(${executable} PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/support/gzip_bytes.cpp)
  target_link_libraries(${executable} PRIVATE ZLIB::ZLIB)
endforeach()
# The inflater is internal to the input layer (lib/detail): its tests need lib/ on their path.
set_property(SOURCE test_gzip.cpp test_gzip_errors.cpp APPEND PROPERTY
             INCLUDE_DIRECTORIES ${PROJECT_SOURCE_DIR}/lib)
