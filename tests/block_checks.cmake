# test_block_checks tests the library's internal block checks directly: it needs lib/ on its
# include path and Boost's headers (lib/detail/load.hpp uses Boost.Endian).
if(TARGET test_block_checks)
  target_include_directories(test_block_checks PRIVATE ${PROJECT_SOURCE_DIR}/lib)
  target_link_libraries(test_block_checks PRIVATE Boost::headers)
endif()
