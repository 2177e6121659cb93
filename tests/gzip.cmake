# The tests of gzip input make their gzip streams with zlib (support/gzip_bytes.cpp). Without the
# I/O layer (INPUTANIM_WITH_MAPPING=OFF) they are not built.
if(NOT INPUTANIM_WITH_MAPPING)
  return()
endif()
find_package(ZLIB REQUIRED)
foreach(name test_gzip test_gzip_errors test_cli_gzip test_serve test_input test_input_errors
        test_cli_input test_cli_convert test_cli_index test_cli_output_file)
  if(TARGET ${name})
    target_sources(${name} PRIVATE support/gzip_bytes.cpp)
    target_link_libraries(${name} PRIVATE ZLIB::ZLIB)
  endif()
endforeach()
# The inflater is internal to the input layer (lib/detail): its tests need lib/ on their path.
foreach(name test_gzip test_gzip_errors)
  if(TARGET ${name})
    target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/lib)
  endif()
endforeach()
