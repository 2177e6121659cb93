# test_block_checks tests the library's internal block checks directly: it needs lib/ on its
# include path and Boost's headers (lib/detail/load.hpp uses Boost.Endian).
if(TARGET test_block_checks)
  target_include_directories(test_block_checks PRIVATE ${PROJECT_SOURCE_DIR}/lib)
  target_link_libraries(test_block_checks PRIVATE Boost::headers)
endif()
# Also at -O0 whatever the build type: unoptimized, every helper that is not always inlined is a
# real call, and a 32-byte vector passed across a call between baseline and AVX2 code is read
# from the wrong place. This test instantiates the 8-lane loops in its own AVX2 functions.
if(TARGET test_block_checks)
  set_source_files_properties(test_block_checks.cpp PROPERTIES COMPILE_OPTIONS -O0)
endif()
