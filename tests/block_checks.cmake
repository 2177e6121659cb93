# test_block_checks tests the library's internal block kernels directly: it needs lib/ on its
# include path and Boost's headers (lib/detail/load.hpp uses Boost.Endian).
if(TARGET test_block_checks)
  target_include_directories(test_block_checks PRIVATE ${PROJECT_SOURCE_DIR}/lib)
  target_link_libraries(test_block_checks PRIVATE Boost::headers)
endif()
# validate's tests on long curves and the kernels' own, once more with the baseline kernels
# forced: on a processor with AVX2 validate would otherwise never run them.
foreach(name test_block_checks test_validate_blocks)
  if(TARGET ${name})
    gtest_discover_tests(${name} TEST_PREFIX "baseline." DISCOVERY_TIMEOUT 60
                         PROPERTIES ENVIRONMENT INPUTANIM_FORCE_IMPLEMENTATION=baseline)
  endif()
endforeach()
