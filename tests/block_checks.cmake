# test_block_checks tests the library's internal block kernels directly: it needs lib/ on its
# include path and Boost's headers (lib/detail/load.hpp uses Boost.Endian).
if(TARGET inputanim_block_tests)
  set_property(SOURCE test_block_checks.cpp APPEND PROPERTY
               INCLUDE_DIRECTORIES ${PROJECT_SOURCE_DIR}/lib)
  target_link_libraries(inputanim_block_tests PRIVATE Boost::headers)
  # validate's tests on long curves and the kernels' own, once more with the baseline kernels
  # forced: on a processor with AVX2 validate would otherwise never run them.
  inputanim_add_suites(inputanim_block_tests PREFIX "baseline."
                       ENVIRONMENT INPUTANIM_FORCE_IMPLEMENTATION=baseline)
endif()
